// Package deploy holds what installing schedbot needs: the Slack app
// manifest, embedded so that `schedbot slack check` compares a workspace's
// app with it.
package deploy

import (
	_ "embed"

	"gopkg.in/yaml.v3"
)

// SlackManifest is slack-manifest.yaml.
//
//go:embed slack-manifest.yaml
var SlackManifest []byte

// SlackBotScopes are the bot scopes the manifest asks for.
func SlackBotScopes() []string {
	var m struct {
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
	}
	yaml.Unmarshal(SlackManifest, &m)
	return m.OAuth.Scopes.Bot
}
