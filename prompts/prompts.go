// Package prompts holds the LLM selector's system prompt, embedded.
package prompts

import (
	_ "embed"
	"strings"
	"text/template"
)

//go:embed system.tmpl
var systemText string

var system = template.Must(template.New("system").Option("missingkey=error").Parse(systemText))

// SystemData fills the system prompt.
type SystemData struct {
	Channel   string // "Slack" or "a terminal"
	Now       string // RFC 3339 in the sender's zone
	Weekday   string
	Timezone  string
	Workflows string // comma-separated ids, or empty
}

// System renders the system prompt.
func System(d SystemData) (string, error) {
	var b strings.Builder
	if err := system.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}
