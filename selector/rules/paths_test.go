package rules

import (
	"encoding/json"
	"testing"
)

// A message may mention a path or say "file:": it is text to post, not a
// file to open.
func TestSelect_MessagesMayMentionPaths(t *testing.T) {
	for text, msg := range map[string]string{
		`post "release notes: see ../CHANGELOG" every friday at 9am`: "release notes: see ../CHANGELOG",
		`post "file: Q4 report is due" every friday at 9am`:          "file: Q4 report is due",
	} {
		d := Decide(input(text))
		if d.Function != "schedule.create" {
			t.Errorf("%s: decision = %+v, want a create", text, d)
			continue
		}
		var a createArgs
		json.Unmarshal(d.Args, &a)
		var post struct{ Text string }
		json.Unmarshal(a.TargetAction.FunctionArgs, &post)
		if post.Text != msg {
			t.Errorf("%s: text %q, want %q", text, post.Text, msg)
		}
	}
}
