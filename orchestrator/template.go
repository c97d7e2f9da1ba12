package orchestrator

import (
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/schedbot/schedbot/store"
)

// templateData is what a workflow step's args may refer to:
// {{.inputs.name}}, {{.trigger.scheduledAt}}, {{.job.name}}.
func templateData(job *store.Job, run *store.Run, it *store.QueueItem) map[string]any {
	inputs := job.TargetAction.Inputs
	if inputs == nil {
		inputs = map[string]any{}
	}
	return map[string]any{
		"inputs": inputs,
		"trigger": map[string]any{
			"scheduledAt": run.ScheduledAt.UTC().Format(time.RFC3339),
			"firedAt":     it.TriggerAt.UTC().Format(time.RFC3339),
			"executionId": run.ExecutionID,
			"jobId":       job.JobID,
			"manual":      run.Manual,
		},
		"job": map[string]any{"jobId": job.JobID, "name": job.Name, "description": job.Description},
	}
}

// render expands every string in v as a template over data. A reference
// to a key that does not exist is an error, never an empty string.
func render(v any, data map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "{{") {
			return x, nil
		}
		t, err := template.New("arg").Option("missingkey=error").Parse(x)
		if err != nil {
			return nil, fmt.Errorf("template %q: %w", x, err)
		}
		var b strings.Builder
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("template %q: %w", x, err)
		}
		return b.String(), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := render(e, data)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := render(e, data)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}
