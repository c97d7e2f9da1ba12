package rules

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/selector"
)

// Skip, unskip, snooze and done, read exactly: the job and the instant.
// Now is Fri 20 Nov 2026 10:00 in New York; the standup (J1) runs
// weekdays at 9:30, the health check (J4) every hour.
func TestLife_Phrasings(t *testing.T) {
	j1, j3, j4 := ulid("J1"), ulid("J3"), ulid("J4")
	cases := []struct {
		text, fired, ctx string
		fn               string // "" : not a call; "clarify", "unsupported"
		args             string
	}{
		{"skip the next standup", "", "", "schedule.skip", `{"jobId":"` + j1 + `"}`},
		{"skip the standup on Dec 24", "", "", "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-12-24T14:30:00Z"}`},
		{"please skip monday's standup", "", "", "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z"}`},
		{"skip it on Dec 24", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-12-24T14:30:00Z"}`},
		{"skip the health check at 5pm tomorrow", "", "", "schedule.skip", `{"jobId":"` + j4 + `","at":"2026-11-21T22:00:00Z"}`},
		{"skip the health check tomorrow", "", "", "clarify", ""}, // 24 runs that day: which?
		{"skip tomorrow's standup", "", "", "unsupported", ""},    // a Saturday
		// several runs: how many, or every run of a period
		{"skip the next 2 standups", "", "", "schedule.skip", `{"jobId":"` + j1 + `","count":2}`},
		{"skip it the next three times", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","count":3}`},
		{"skip the standup next week", "", "", "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":5}`},
		{"skip it for the next 2 weeks", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":10}`},
		{"skip the standup this week", "", "", "unsupported", ""},      // its last run this week has passed
		{"skip the health check next week", "", "", "unsupported", ""}, // 168 runs: pause it
		{"unskip the standup on Dec 24", "", "", "schedule.unskip", `{"jobId":"` + j1 + `","at":"2026-12-24T14:30:00Z"}`},
		{"don't skip the weekly report on friday", "", "", "schedule.unskip", `{"jobId":"` + j3 + `","at":"2026-11-20T21:00:00Z"}`},
		{"unskip the standup", "", "", "unsupported", ""}, // it skips none
		{"snooze that 10 minutes", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-20T15:10:00Z"}`},
		{"snooze until tomorrow 9am", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-21T14:00:00Z"}`},
		{"snooze it for an hour", j3, j1, "schedule.snooze", `{"jobId":"` + j3 + `","until":"2026-11-20T16:00:00Z"}`},
		{"snooze the weekly report till 3pm", j1, "", "schedule.snooze", `{"jobId":"` + j3 + `","until":"2026-11-20T20:00:00Z"}`},
		{"remind me again in 20 minutes", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-20T15:20:00Z"}`},
		{"snooze", j1, "", "clarify", ""},
		{"snooze that 10 minutes", "", "", "clarify", ""}, // nothing fired, nothing spoken of
		{"done", j1, "", "schedule.complete", `{"jobId":"` + j1 + `"}`},
		{"mark it done", j3, j1, "schedule.complete", `{"jobId":"` + j3 + `"}`},
		{"mark the weekly report as done", j1, "", "schedule.complete", `{"jobId":"` + j3 + `"}`},
		{"done", "", "", "clarify", ""},
		// not ours: a new schedule
		{"skip lunch every day at noon", "", "", "clarify", ""},
	}
	for _, c := range cases {
		in := selector.Input{Text: c.text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal", Timezone: phrasingsZone,
			Now: phrasingsNow, Jobs: tableJobRefs(), LastFiredJobID: c.fired, ContextJobID: c.ctx}
		d := Decide(in)
		switch c.fn {
		case "clarify":
			if d.Clarify == "" {
				t.Errorf("%q = %+v, want a question", c.text, d)
			}
			continue
		case "unsupported":
			if d.Unsupported == "" {
				t.Errorf("%q = %+v, want unsupported", c.text, d)
			}
			continue
		}
		if d.Function != c.fn {
			t.Errorf("%q = %+v, want %s", c.text, d, c.fn)
			continue
		}
		var got, want any
		json.Unmarshal(d.Args, &got)
		json.Unmarshal([]byte(c.args), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q args (-want +got):\n%s", c.text, diff)
		}
	}
}

// "3 times" is a count of runs, passed on as one, never as an end date.
func TestLife_CountIsACount(t *testing.T) {
	for _, text := range []string{"post x every day at 9am 3 times", "post x in #team every friday at noon, 3 times"} {
		in := selector.Input{Text: text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal", Timezone: phrasingsZone, Now: phrasingsNow}
		d := Decide(in)
		var a map[string]any
		json.Unmarshal(d.Args, &a)
		if d.Function != "schedule.create" || a["count"] != float64(3) || a["endAt"] != nil {
			t.Errorf("%q = %s, want a create with count 3 and no endAt", text, d.Args)
		}
	}
	// An end said in words stays an end beside the count.
	in := selector.Input{Text: "post x every day at 9am 3 times until dec 31", SenderID: "U0ADA", Channel: "terminal", Timezone: phrasingsZone, Now: phrasingsNow}
	var a map[string]any
	json.Unmarshal(Decide(in).Args, &a)
	if a["count"] != float64(3) {
		t.Errorf("count and until: %v", a)
	}
	// An update's "N times" is a count too.
	in = selector.Input{Text: "change the standup to every monday at 10am 3 times", SenderID: "U0ADA", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow, Jobs: jobs}
	d := Decide(in)
	a = nil
	json.Unmarshal(d.Args, &a)
	if d.Function != "schedule.update" || a["count"] != float64(3) || a["endAt"] != nil {
		t.Errorf("update: %s %s, want count 3 and no endAt", d.Function, d.Args)
	}
}
