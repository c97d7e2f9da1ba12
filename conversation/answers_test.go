package conversation

import (
	"testing"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/selector"
)

// A "Which one?" is answered by place, time, channel or words; an answer
// that fits none, or several, picks nothing.
func TestPickCandidate(t *testing.T) {
	jobs := []selector.JobRef{
		{JobID: "A", Text: "backup check A", Description: "Every day at 9:00 AM (UTC)"},
		{JobID: "B", Text: "backup check B", ChannelID: "#ops", Description: "Every day at 5:30 PM (UTC)"},
		{JobID: "C", Text: "nightly-build", Name: "nightly", ChannelID: "#eng", Description: "Every day at 5:00 PM (UTC)"},
	}
	cands := []string{"A", "B", "C"}
	for _, tc := range []struct{ answer, want string }{
		{"2", "B"}, {"#3", "C"}, {"one", "A"}, {"number one", "A"}, {"option one", "A"}, {"the one", ""}, {"no one", ""}, {"the second one", "B"}, {"second", "B"}, {"the last one", "C"}, {"3rd", "C"},
		{"the 9am one", "A"}, {"the 9 am one", "A"}, {"the 5:30pm one", "B"}, {"17:30", "B"}, {"the 5pm one", "C"},
		{"the one in #ops", "B"}, {"the one in ops", "B"}, {"the backup check b", "B"}, {"nightly", "C"}, {"the build", "C"},
		{"the backup check", ""}, {"the purple one", ""}, {"4", ""}, {"", ""}, {"the second one in #eng", ""},
	} {
		if got := pickCandidate(cands, jobs, plain(tc.answer)); got != tc.want {
			t.Errorf("%q picked %q, want %q", tc.answer, got, tc.want)
		}
	}
}

// Cancel words drop a question; yes and no answer a yes/no question.
func TestSettle(t *testing.T) {
	ask := &selector.Pending{Text: "post hi every day", Missing: selector.MissingTime}
	for _, w := range []string{"cancel", "Never mind.", "forget it", "stop", "nvm", "no",
		"nah, forget it", "ugh never mind lol", "oh never mind", "actually no", "cancel pls", "nvm thanks"} {
		if s := settle(ask, nil, w); s.drop != "OK, dropped — nothing scheduled." {
			t.Errorf("%q: %+v", w, s)
		}
	}
	for _, w := range []string{"at 9am", "never mind the rain, post it at 9am", "no, 9am"} {
		if s := settle(ask, nil, w); s != (settlement{}) {
			t.Errorf("%q, an answer, was settled here: %+v", w, s)
		}
	}
	if s := settle(&selector.Pending{Text: "post hi", Missing: selector.MissingTime, Create: true}, nil, "nvm, delete it"); s.drop == "" {
		t.Errorf("a delete of the request asked about did not drop it: %+v", s)
	}
	yn := &selector.Pending{Text: "move it to 9am", Yes: "move it to every day at 9am"}
	if s := settle(yn, nil, "Yes!"); s.text != yn.Yes {
		t.Errorf("yes: %+v", s)
	}
	if s := settle(yn, nil, "nope"); s.drop == "" {
		t.Errorf("no: %+v", s)
	}
	// a yes/no about a new job: "no" says that nothing was made, not that
	// a job was left as it is
	instead := &selector.Pending{Text: "call mom at 5pm", Yes: "remind me to call mom at 5pm", Create: true}
	if s := settle(instead, nil, "no thanks"); s.drop != "OK — nothing scheduled." {
		t.Errorf("no to a new job: %+v", s)
	}
	// "Should this repeat?": "no" is the other request, and so are the
	// question's own words for each
	rep := &selector.Pending{Text: "post daily notes at 9am", Yes: "post “daily notes” at 9am daily", No: "post “daily notes” at 9am"}
	for w, want := range map[string]string{"no": rep.No, "Just once.": rep.No, "no, one time": rep.No, "yes": rep.Yes, "repeat it": rep.Yes, "yes, recurring": rep.Yes} {
		if s := settle(rep, nil, w); s.text != want {
			t.Errorf("%q: %+v, want %q", w, s, want)
		}
	}
	if s := settle(rep, nil, "cancel"); s.drop == "" {
		t.Errorf("cancel: %+v", s)
	}
	// "is “in 5” part of the message or of the schedule?": "message"
	msg := &selector.Pending{Text: "post standup in 5 every day at 9am", Message: "post “standup in 5” every day at 9am"}
	for _, w := range []string{"message", "The message.", "it's part of the message", "msg", "yes thats part of the message"} {
		if s := settle(msg, nil, w); s.text != msg.Message {
			t.Errorf("%q: %+v, want the request with its message quoted", w, s)
		}
	}
	if s := settle(&selector.Pending{Text: "post hi"}, nil, "message"); s != (settlement{}) {
		t.Errorf("“message” settled a question that offers no such answer: %+v", s)
	}
}

// An unknown workflow is said in words, with the ones there are.
func TestExplainUnknownWorkflow(t *testing.T) {
	for rule, want := range map[string]string{
		`no workflow "nightly" in orchestrator "default" (its workflows: backup, daily-report)`: "There is no workflow “nightly”. Workflows I can start here: backup, daily-report. Nothing was scheduled.",
		`no workflow "nightly" in orchestrator "default" (its workflows: none)`:                 "There is no workflow “nightly”. There are no workflows to start here. Nothing was scheduled.",
	} {
		if got := explain(&functions.FieldError{Field: "targetAction.workflowId", Rule: rule}); got != want {
			t.Errorf("%s: got %q, want %q", rule, got, want)
		}
	}
}
