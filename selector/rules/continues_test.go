package rules

import (
	"strings"
	"testing"

	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// A message opened by "and" goes on with the last call about the job in
// context: a skip skips more, a change changes more, and a when after a
// new job is one more like it.
func TestContinued_AndGoesOnWithTheLastCall(t *testing.T) {
	for _, c := range []struct {
		ctx, call, text, fn string
		want                []string
	}{
		{"J1", "schedule.skip", "and monday", "schedule.skip", []string{`"at":"2026-11-23T14:30:00Z"`}},
		{"J1", "schedule.update", "and 10am", "schedule.update", []string{`"cron":"0 10 * * 1-5"`}},
		{"J1", "schedule.create", "and at 2pm", "schedule.create", []string{`"cron":"0 14 * * 1-5"`, `"text":"standup in 5"`}},
		{"J1", "schedule.create", "and again at 2pm", "schedule.create", []string{`"cron":"0 14 * * 1-5"`}},
		{"J3", "schedule.update", "and the channel to #finance", "schedule.update", []string{`"channelId":"#finance"`}},
		{"J3", "schedule.update", "and to wednesdays", "schedule.update", []string{`"cron":"0 16 * * 3"`}},
		{"J1", "schedule.create", "and change the text to 'stand up now'", "schedule.update", []string{`"text":"stand up now"`}},
		{"J1", "schedule.create", "and one on dec 9 at 9am saying 'no standup'", "schedule.create", []string{`"runAt":"2026-12-09T14:00:00Z"`, `"text":"no standup"`, `"#team"`}},
		{"J2", "schedule.create", "and saturday at 10am to bring the x-rays", "schedule.create", []string{`"runAt":"2026-11-21T15:00:00Z"`, `"text":"bring the x-rays"`}},
		// one-time at 9am: "again at 8am" is the next morning
		{"J2", "schedule.create", "and again at 8am", "schedule.create", []string{`"runAt":"2026-11-25T13:00:00Z"`}},
		{"J2", "schedule.create", "and the same thing on dec 1", "schedule.create", []string{`"runAt":"2026-12-01T14:00:00Z"`}},
		{"J1", "schedule.create", "and #eng", "schedule.create", []string{`"channelId":"#eng"`, `"text":"standup in 5"`}},
	} {
		in := selector.Input{Text: c.text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal", Timezone: phrasingsZone,
			Now: phrasingsNow, Jobs: tableJobRefs(), ContextJobID: ulid(c.ctx), ContextCall: c.call}
		d := Decide(in)
		ok := d.Function == c.fn
		for _, w := range c.want {
			ok = ok && strings.Contains(string(d.Args), w)
		}
		if !ok {
			t.Errorf("%q after %s of %s = %s %s %s, want %s with %v", c.text, c.call, c.ctx, d.Function, d.Args, d.Clarify+d.Unsupported, c.fn, c.want)
		}
	}
}

// "and july 15 too" of a job every January 15 is every July 15 too.
func TestContinued_AnotherDateOfAYearlyJobIsYearly(t *testing.T) {
	id := ulid("J9")
	in := selector.Input{Text: "and july 15 too", SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal", Timezone: phrasingsZone,
		Now: phrasingsNow, ContextJobID: id, ContextCall: "schedule.create",
		Jobs: []selector.JobRef{{JobID: id, Text: "renew the registration", State: "enabled", ScheduleType: "cron",
			Schedule: store.Schedule{Cron: "0 9 15 1 *", Timezone: phrasingsZone}, Action: store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post"}}}}
	if d := Decide(in); d.Function != "schedule.create" || !strings.Contains(string(d.Args), `"cron":"0 9 15 7 *"`) {
		t.Errorf("%q: %s %s %s, want every July 15 at 9am", in.Text, d.Function, d.Args, d.Clarify)
	}
}
