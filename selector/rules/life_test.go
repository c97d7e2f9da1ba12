package rules

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
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
		{"skip the standup in december", "", "", "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-12-01T14:30:00Z","count":23}`},
		{"skip it the week of christmas", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-12-21T14:30:00Z","count":5}`},
		{"skip the standup this week", "", "", "unsupported", ""},      // its last run this week has passed
		{"skip the health check next week", "", "", "unsupported", ""}, // 168 runs: pause it
		// a pause for a while: its runs till then skipped, so it comes back
		{"pause the standup next week", "", "", "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":5}`},
		{"pause it for a week", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":5}`},
		{"stop the standup until dec 1", "", "", "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":6}`},
		{"pause it through dec 1", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":7}`},
		{"stop it for the holidays", "", j1, "clarify", ""},
		{"pause it until further notice", "", j1, "schedule.pause", `{"jobId":"` + j1 + `"}`},
		{"skip friday", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-27T14:30:00Z"}`}, // today's has passed
		{"skip it today", "", j1, "unsupported", ""},
		// its bounds changed, and nothing else (rebound.go)
		{"only until christmas", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-26T05:00:00Z"}`},
		{"extend it to christmas", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-26T05:00:00Z"}`},
		{"keep it going until christmas", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-26T05:00:00Z"}`},
		{"end the standup on dec 24", "", "", "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-25T05:00:00Z"}`},
		{"make it stop after dec 24", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-25T05:00:00Z"}`},
		{"3 more times", "", j1, "schedule.update", `{"jobId":"` + j1 + `","count":3}`},
		{"start it next monday", "", j1, "schedule.update", `{"jobId":"` + j1 + `","startAt":"2026-11-23T05:00:00Z"}`},
		{"for 2 more weeks", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-04T15:00:01Z"}`},
		{"until further notice", "", j1, "clarify", ""},
		{"stop after june", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2027-07-01T04:00:00Z"}`}, // June included
		{"and stop after june", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2027-07-01T04:00:00Z"}`},
		{"make it stop after 6 more", "", j1, "schedule.update", `{"jobId":"` + j1 + `","count":6}`},
		{"can it start on dec 10?", "", j1, "schedule.update", `{"jobId":"` + j1 + `","startAt":"2026-12-10T05:00:00Z"}`},
		{"until jan 15 actually", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2027-01-16T05:00:00Z"}`},
		{"only for the next 2 weeks though", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-04T15:00:01Z"}`},
		{"make it 2 weeks", "", j1, "clarify", ""}, // no end: every 2 weeks, or for 2?
		{"make it 6 times", "", j1, "schedule.update", `{"jobId":"` + j1 + `","count":6}`},
		{"make it stop after 10 times", "", j1, "schedule.update", `{"jobId":"` + j1 + `","count":10}`},
		{"only 5 times", "", j1, "schedule.update", `{"jobId":"` + j1 + `","count":5}`},
		{"make it end friday", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-11-28T05:00:00Z"}`}, // said on a Friday: the next one
		{"the exam got moved, make it until dec 22", "", j1, "schedule.update", `{"jobId":"` + j1 + `","endAt":"2026-12-23T05:00:00Z"}`},
		// a job said to be needed no more: a delete, asked first
		{"i don't need it anymore", "", j1, "clarify", ""},
		{"we no longer need the weekly report", "", "", "clarify", ""},
		{"unskip the standup on Dec 24", "", "", "schedule.unskip", `{"jobId":"` + j1 + `","at":"2026-12-24T14:30:00Z"}`},
		{"don't skip the weekly report on friday", "", "", "schedule.unskip", `{"jobId":"` + j3 + `","at":"2026-11-20T21:00:00Z"}`},
		{"unskip the standup", "", "", "unsupported", ""}, // it skips none
		{"snooze that 10 minutes", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-20T15:10:00Z"}`},
		{"snooze until tomorrow 9am", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-21T14:00:00Z"}`},
		{"snooze it for an hour", j3, j1, "schedule.snooze", `{"jobId":"` + j3 + `","until":"2026-11-20T16:00:00Z"}`},
		{"snooze the weekly report till 3pm", j1, "", "schedule.snooze", `{"jobId":"` + j3 + `","until":"2026-11-20T20:00:00Z"}`},
		{"remind me again in 20 minutes", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-20T15:20:00Z"}`},
		{"snooze", j1, "", "clarify", ""},
		{"snooze it 15", j1, "", "schedule.snooze", `{"jobId":"` + j1 + `","until":"2026-11-20T15:15:00Z"}`}, // minutes, as a snooze button's
		{"snooze until 5", j1, "", "clarify", ""},                                                            // a time: am or pm?
		{"turn it off for the next 2 weeks", "", j1, "schedule.skip", `{"jobId":"` + j1 + `","at":"2026-11-23T14:30:00Z","count":10}`},
		// a one-time reminder not fired yet is put off, not run early
		{"snooze the dentist 10 minutes", "", "", "schedule.update", `{"jobId":"` + ulid("J2") + `","schedule":{"runAt":"2026-11-24T14:10:00Z"}}`},
		{"snooze the dentist until 3pm", "", "", "unsupported", ""}, // today at 3pm: before it is due
		{"snooze that 10 minutes", "", "", "clarify", ""},           // nothing fired, nothing spoken of
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

// "stop it for the holidays" asks until when; "jan 4" answers it, a
// skip of every run till then.
func TestLife_AWhileIsAskedAndAnswered(t *testing.T) {
	j1 := ulid("J1")
	in := selector.Input{Text: "stop it for the holidays", SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow, Jobs: tableJobRefs(), ContextJobID: j1}
	first := Decide(in)
	if first.Pending == nil {
		t.Fatalf("%q = %+v, want a question", in.Text, first)
	}
	in.Text, in.Pending = "jan 4", first.Pending
	d := Decide(in)
	var a map[string]any
	json.Unmarshal(d.Args, &a)
	if d.Function != "schedule.skip" || a["at"] != "2026-11-23T14:30:00Z" || a["count"] != float64(30) {
		t.Errorf("answered %q: %+v, want the standup's 30 runs till Jan 4 skipped", in.Text, d)
	}
}

// Right after a job, a when said as the only one, or days said as ones
// it no longer runs on, change its days and keep its time.
func TestLife_OnlyAndNoDaysChangeIt(t *testing.T) {
	j1 := ulid("J1") // weekdays at 9:30
	for text, cron := range map[string]string{"only mondays": "30 9 * * 1", "fridays only": "30 9 * * 5",
		"no fridays": "30 9 * * 1-4", "skip mondays and fridays": "30 9 * * 2-4", "just tuesdays actually": "30 9 * * 2",
		"don't send it on friday or monday": "30 9 * * 2-4"} {
		in := selector.Input{Text: text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal", Timezone: phrasingsZone,
			Now: phrasingsNow, Jobs: tableJobRefs(), ContextJobID: j1}
		d := Decide(in)
		if d.Function != "schedule.update" || !strings.Contains(string(d.Args), `"cron":"`+cron+`"`) {
			t.Errorf("%q = %s %s %s, want the standup updated to %s", text, d.Function, d.Args, d.Clarify, cron)
		}
	}
}

// "make it every other week" keeps the days it runs on, not today's.
func TestUpdate_EveryOtherWeekKeepsItsDays(t *testing.T) {
	in := selector.Input{Text: "make the weekly report every other week", SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow.AddDate(0, 0, 3), Jobs: tableJobRefs()} // a Monday
	if d := Decide(in); !strings.Contains(string(d.Args), "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=16;BYMINUTE=0") {
		t.Errorf("%q = %s %s, want every other Friday at 4pm", in.Text, d.Args, d.Clarify)
	}
}

// A new time in the job's own hour keeps its half of the day: "11:30" of
// an 11pm job is 11:30pm; another hour is read as any bare hour.
func TestUpdate_SameHourKeepsItsHalf(t *testing.T) {
	id := ulid("J9")
	for text, want := range map[string]string{"change it to 11:30": `"cron":"30 23 * * *"`, "make it 11:15": `"cron":"15 23 * * *"`, "make it 10": `"cron":"0 10 * * *"`} {
		in := selector.Input{Text: text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
			Timezone: phrasingsZone, Now: phrasingsNow, ContextJobID: id,
			Jobs: []selector.JobRef{{JobID: id, Text: "lock the door", State: "enabled", ScheduleType: "cron",
				Schedule: store.Schedule{Cron: "0 23 * * *", Timezone: phrasingsZone}}}}
		if d := Decide(in); !strings.Contains(string(d.Args), want) {
			t.Errorf("%q of an 11pm job = %s %s, want %s", text, d.Args, d.Clarify, want)
		}
	}
}

// "make it every 2 hours" of a job every hour from 9 to 5 on weekdays
// keeps those hours and days.
func TestUpdate_FrequencyKeepsItsHoursAndDays(t *testing.T) {
	id := ulid("J9")
	in := selector.Input{Text: "make it every 2 hours instead", SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow, ContextJobID: id,
		Jobs: []selector.JobRef{{JobID: id, Text: "check", State: "enabled", ScheduleType: "cron",
			Schedule: store.Schedule{Cron: "0 9-17 * * 1-5", Timezone: phrasingsZone}}}}
	if d := Decide(in); !strings.Contains(string(d.Args), `"cron":"0 9,11,13,15,17 * * 1-5"`) {
		t.Errorf("%q = %s %s, want every 2 hours from 9 to 5 on weekdays", in.Text, d.Args, d.Clarify)
	}
}

// "also at 2pm" right after a job is a second job like it at that time.
func TestCorrect_AlsoAtIsASecondJob(t *testing.T) {
	in := selector.Input{Text: "also at 2pm", SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow, Jobs: tableJobRefs(), ContextJobID: ulid("J1")}
	d := Decide(in)
	if d.Function != "schedule.create" || !strings.Contains(string(d.Args), `"cron":"0 14 * * 1-5"`) || !strings.Contains(string(d.Args), `"text":"standup in 5"`) {
		t.Errorf("%q = %s %s %s, want the standup again every weekday at 2pm", in.Text, d.Function, d.Args, d.Clarify)
	}
}

// "i don't need it anymore" asks to delete that job, and "yes" says so.
func TestLife_NotNeededAsksToDelete(t *testing.T) {
	j1 := ulid("J1")
	for _, text := range []string{"i don't need it anymore", "it's not needed anymore", "the standup is no longer needed"} {
		in := selector.Input{Text: text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal", Timezone: phrasingsZone,
			Now: phrasingsNow, Jobs: tableJobRefs(), ContextJobID: j1}
		if d := Decide(in); d.Pending == nil || d.Pending.Yes != "delete "+j1 {
			t.Errorf("%q = %+v, want to ask whether to delete %s", text, d, j1)
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

// A start given to a job every n weeks counts its weeks from then: its
// rrule is anchored on its first day on or after the start.
func TestRebound_StartReanchorsEveryNWeeks(t *testing.T) {
	id := ulid("J9")
	in := selector.Input{Text: "starting dec 7", SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow, ContextJobID: id,
		Jobs: []selector.JobRef{{JobID: id, Text: "do payroll", State: "enabled", ScheduleType: "rrule",
			Schedule: store.Schedule{RRule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=9;BYMINUTE=0", Dtstart: "2026-11-23T09:00:00", Timezone: phrasingsZone}}}}
	if d := Decide(in); d.Function != "schedule.update" || !strings.Contains(string(d.Args), `"dtstart":"2026-12-07T09:00:00"`) || !strings.Contains(string(d.Args), `"startAt"`) {
		t.Errorf("%q of every other Monday: %s %s, want it anchored on Mon 7 Dec", in.Text, d.Args, d.Clarify)
	}
	in.Jobs[0].ScheduleType, in.Jobs[0].Schedule = "cron", store.Schedule{Cron: "0 9 * * 1", Timezone: phrasingsZone}
	if d := Decide(in); d.Function != "schedule.update" || strings.Contains(string(d.Args), `"schedule"`) {
		t.Errorf("%q of every Monday: %s, want its start alone", in.Text, d.Args)
	}
}

// Snoozing a one-time reminder not yet due puts it off by the amount in
// whole minutes, whatever the seconds of now ("for an hour": 11:00, not
// 10:59).
func TestSnooze_OneTimeByWholeMinutes(t *testing.T) {
	j2 := ulid("J2") // once on Tue 24 Nov at 9:00 AM
	for text, want := range map[string]string{"snooze it for an hour": "2026-11-24T15:00:00Z", "snooze it 15 minutes": "2026-11-24T14:15:00Z"} {
		in := selector.Input{Text: text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
			Timezone: phrasingsZone, Now: phrasingsNow.Add(36*time.Second + 500*time.Millisecond), Jobs: tableJobRefs(), ContextJobID: j2}
		if d := Decide(in); d.Function != "schedule.update" || !strings.Contains(string(d.Args), `"runAt":"`+want+`"`) {
			t.Errorf("%q at 10:00:36.5 = %s %s %s, want runAt %s", text, d.Function, d.Args, d.Clarify, want)
		}
	}
}

// A part of the day said alone of a job at one time keeps its hour where
// that falls in the part: 8pm "in the morning" is 8am, 7am "in the
// evening" 7pm; a 4pm job "in the morning" is asked about.
func TestUpdate_PartOfDayKeepsTheHour(t *testing.T) {
	id := ulid("J9")
	for _, c := range []struct{ cron, text, want string }{
		{"0 20 * * *", "in the morning", `"cron":"0 8 * * *"`},
		{"0 20 * * *", "make it in the morning", `"cron":"0 8 * * *"`},
		{"0 7 * * *", "in the evening", `"cron":"0 19 * * *"`},
		{"30 11 * * *", "actually in the evening", `"clarify"`},
		{"0 16 * * *", "in the morning", `"clarify"`},
	} {
		in := selector.Input{Text: c.text, SenderID: "U0ADA", ProfileID: "terminal", Channel: "terminal",
			Timezone: phrasingsZone, Now: phrasingsNow, ContextJobID: id,
			Jobs: []selector.JobRef{{JobID: id, Text: "call mom", State: "enabled", ScheduleType: "cron",
				Schedule: store.Schedule{Cron: c.cron, Timezone: phrasingsZone}}}}
		d := Decide(in)
		if b, _ := json.Marshal(d); !strings.Contains(string(b), c.want) {
			t.Errorf("%q of a job at %q = %s, want %s", c.text, c.cron, b, c.want)
		}
	}
}
