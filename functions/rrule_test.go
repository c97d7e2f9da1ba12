package functions_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

const postHi = `"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}`

func rruleArgs(rule, tz, extra string) string {
	return fmt.Sprintf(`{"scheduleType":"rrule","schedule":{"rrule":%q,"timezone":%q},%s%s}`, rule, tz, extra, postHi)
}

func times(ss ...string) []time.Time {
	var out []time.Time
	for _, s := range ss {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		out = append(out, t)
	}
	return out
}

// now (Sunday 22 Nov 2026) has no every-other-Tuesday before it: the job's
// dtstart becomes the next Tuesday, its first fire.
func TestCreate_RRuleWithoutDtstartAnchorsAtItsFirstOccurrence(t *testing.T) {
	e := newEnv(t)
	res := e.mustCall(t, "schedule.create", rruleArgs("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "Europe/Berlin", "")).(*functions.JobResult)
	j := res.Job
	if j.Schedule.Dtstart != "2026-11-24T10:00:00" {
		t.Errorf("dtstart = %q, want the first Tuesday after now", j.Schedule.Dtstart)
	}
	if j.Description != "Every 2 weeks on Tuesday at 10:00 AM (Europe/Berlin)" {
		t.Errorf("description = %q", j.Description)
	}
	if d := cmp.Diff(times("2026-11-24T09:00:00Z", "2026-12-08T09:00:00Z", "2026-12-22T09:00:00Z"), res.NextRuns); d != "" {
		t.Errorf("next runs (-want +got):\n%s", d)
	}
	if j.NextRunAtLocal != "2026-11-24T10:00:00" {
		t.Errorf("nextRunAtLocal = %q", j.NextRunAtLocal)
	}
	// Stored as given back, so every later Next is the same.
	if d := cmp.Diff(j, e.job(t, j.JobID)); d != "" {
		t.Errorf("stored job differs (-returned +stored):\n%s", d)
	}
}

func TestCreate_RRuleKeepsAGivenDtstart(t *testing.T) {
	e := newEnv(t)
	res := e.mustCall(t, "schedule.create", `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0","timezone":"Europe/Berlin","dtstart":"2026-12-01T10:00"},`+postHi+`}`).(*functions.JobResult)
	if d := cmp.Diff(times("2026-12-01T09:00:00Z", "2026-12-15T09:00:00Z", "2026-12-29T09:00:00Z"), res.NextRuns); d != "" {
		t.Errorf("next runs (-want +got):\n%s", d)
	}
	if res.Job.Schedule.Dtstart != "2026-12-01T10:00" {
		t.Errorf("dtstart = %q, want it as given", res.Job.Schedule.Dtstart)
	}
}

func TestCreate_RRuleTimezoneDefaultsToTheOrchestrators(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0"},`+postHi+`}`)
	if j.Schedule.Timezone != "America/New_York" || j.Description != "On the last Friday of every month at 5:00 PM (America/New_York)" {
		t.Errorf("timezone %q, description %q", j.Schedule.Timezone, j.Description)
	}
	if want := times("2026-11-27T22:00:00Z")[0]; !j.NextRunAt.Equal(want) {
		t.Errorf("nextRunAt = %s, want %s", j.NextRunAt, want)
	}
}

// Every pattern of the issue is accepted and fires where it says.
func TestCreate_RRulePatterns(t *testing.T) {
	for _, c := range []struct{ rule, desc, first string }{
		{"FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0", "On the first Monday of every month at 9:00 AM", "2026-12-07T14:00:00Z"},
		{"FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0", "On the last Friday of every month at 5:00 PM", "2026-11-27T22:00:00Z"},
		{"FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=9;BYMINUTE=0", "On the last day of every month at 9:00 AM", "2026-11-30T14:00:00Z"},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0", "On the last weekday of every month at 4:00 PM", "2026-11-30T21:00:00Z"},
		{"FREQ=DAILY;INTERVAL=2;BYHOUR=9;BYMINUTE=0", "Every 2 days at 9:00 AM", "2026-11-22T14:00:00Z"},
		{"FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=4;BYHOUR=9;BYMINUTE=0", "On the 4th of every 2 months at 9:00 AM", "2026-12-04T14:00:00Z"},
		{"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;BYHOUR=12;BYMINUTE=0", "Every year on the fourth Thursday of November at 12:00 PM", "2026-11-26T17:00:00Z"},
		{"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "Every 2 weeks on Tuesday at 10:00 AM", "2026-11-24T15:00:00Z"},
	} {
		e := newEnv(t)
		j := e.mustCreate(t, rruleArgs(c.rule, "America/New_York", ""))
		if j.Description != c.desc+" (America/New_York)" || !j.NextRunAt.Equal(times(c.first)[0]) {
			t.Errorf("%s: %q first %s, want %q first %s", c.rule, j.Description, j.NextRunAt.Format(time.RFC3339), c.desc, c.first)
		}
	}
}

// "Every Monday at 9 starting December 7": no fire before startAt, and an
// INTERVAL counts from the first occurrence at or after it.
func TestCreate_StartAtBoundsEveryType(t *testing.T) {
	e := newEnv(t)
	start := `"startAt":"2026-12-07T05:00:00Z",` // midnight in New York
	j := e.mustCreate(t, rruleArgs("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "America/New_York", start))
	if want := times("2026-12-07T14:00:00Z")[0]; !j.NextRunAt.Equal(want) || !j.StartAt.Equal(times("2026-12-07T05:00:00Z")[0]) {
		t.Errorf("rrule: next %s startAt %s, want %s", j.NextRunAt, j.StartAt, want)
	}
	if !strings.Contains(j.Description, "starting Mon 7 Dec 2026") {
		t.Errorf("description %q does not say the start", j.Description)
	}
	j = e.mustCreate(t, rruleArgs("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "America/New_York", start))
	if j.Schedule.Dtstart != "2026-12-07T09:00:00" {
		t.Errorf("every other Monday from Dec 7: dtstart %q", j.Schedule.Dtstart)
	}
	j = e.mustCreate(t, `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 1","timezone":"America/New_York"},`+start+postHi+`}`)
	if want := times("2026-12-07T14:00:00Z")[0]; !j.NextRunAt.Equal(want) {
		t.Errorf("cron: next %s, want %s", j.NextRunAt, want)
	}
	j = e.mustCreate(t, `{"scheduleType":"interval","schedule":{"everySeconds":7200},`+start+postHi+`}`)
	if want := times("2026-12-07T05:00:00Z")[0]; !j.NextRunAt.Equal(want) || !j.Schedule.StartAt.Equal(want) {
		t.Errorf("interval: next %s anchor %s, want %s", j.NextRunAt, j.Schedule.StartAt, want)
	}
	// The earlier of endAt and COUNT ends the job.
	res := e.mustCall(t, "schedule.create", rruleArgs("FREQ=DAILY;COUNT=3;BYHOUR=9;BYMINUTE=0", "UTC", `"endAt":"2026-11-24T10:00:00Z",`)).(*functions.JobResult)
	if d := cmp.Diff(times("2026-11-23T09:00:00Z", "2026-11-24T09:00:00Z"), res.NextRuns); d != "" {
		t.Errorf("endAt before COUNT (-want +got):\n%s", d)
	}
}

func TestUpdate_StartAtAndRRule(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	res := e.mustCall(t, "schedule.update", `{"jobId":"`+j.JobID+`","scheduleType":"rrule","schedule":{"rrule":"FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0","timezone":"America/New_York"},"startAt":"2027-01-01T00:00:00Z"}`).(*functions.JobResult)
	if d := cmp.Diff(times("2027-01-04T14:00:00Z", "2027-02-01T14:00:00Z", "2027-03-01T14:00:00Z"), res.NextRuns); d != "" {
		t.Errorf("next runs (-want +got):\n%s", d)
	}
	res = e.mustCall(t, "schedule.update", `{"jobId":"`+j.JobID+`","startAt":null}`).(*functions.JobResult)
	if !res.Job.StartAt.IsZero() || !res.Job.NextRunAt.Equal(times("2026-12-07T14:00:00Z")[0]) {
		t.Errorf("startAt cleared: startAt %s next %s", res.Job.StartAt, res.Job.NextRunAt)
	}
}

func TestCreate_BadRRuleNamesThePartAndChangesNothing(t *testing.T) {
	for _, c := range []struct{ name, args, field, rule string }{
		{"hourly", rruleArgs("FREQ=HOURLY", "UTC", ""), "schedule.rrule", "FREQ=HOURLY is not supported: use scheduleType interval"},
		{"byweekno", rruleArgs("FREQ=YEARLY;BYWEEKNO=10", "UTC", ""), "schedule.rrule", "BYWEEKNO is not supported: use BYMONTH"},
		{"exdate", rruleArgs("FREQ=DAILY;EXDATE=20261224T090000", "UTC", ""), "schedule.rrule", "EXDATE is not supported"},
		{"never", rruleArgs("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "UTC", ""), "schedule.rrule", "never fires"},
		{"count spent", `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=DAILY;COUNT=2","timezone":"UTC","dtstart":"2026-01-01T09:00"},` + postHi + `}`, "schedule.rrule", "never fires after"},
		{"too far", `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=DAILY","timezone":"UTC","dtstart":"2038-01-01T09:00"},` + postHi + `}`, "schedule.rrule", "more than 10 years ahead"},
		{"no rule", `{"scheduleType":"rrule","schedule":{"timezone":"UTC"},` + postHi + `}`, "schedule.rrule", "required"},
		{"bad dtstart", `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=DAILY","timezone":"UTC","dtstart":"2026-11-40T09:00"},` + postHi + `}`, "schedule.dtstart", "not a local wall time"},
		{"dtstart with offset", `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=DAILY","timezone":"UTC","dtstart":"2026-11-24T09:00:00Z"},` + postHi + `}`, "schedule.dtstart", "no offset or Z"},
		{"rrule on cron", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC","rrule":"FREQ=DAILY"},` + postHi + `}`, "schedule", "only cron and timezone"},
		{"cron on rrule", `{"scheduleType":"rrule","schedule":{"cron":"0 9 * * 5","timezone":"UTC","rrule":"FREQ=DAILY"},` + postHi + `}`, "schedule", "only rrule, timezone and dtstart"},
		{"endAt before startAt", rruleArgs("FREQ=DAILY", "UTC", `"startAt":"2026-12-07T00:00:00Z","endAt":"2026-12-01T00:00:00Z",`), "endAt", "not after startAt"},
		{"startAt too far", rruleArgs("FREQ=DAILY", "UTC", `"startAt":"2040-01-01T00:00:00Z",`), "startAt", "10 years"},
		{"startAt in year 0", rruleArgs("FREQ=DAILY", "UTC", `"startAt":"0000-01-01T00:00:00Z",`), "startAt", "before 1970"},
		{"dtstart in year 0", `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=DAILY;COUNT=3","timezone":"UTC","dtstart":"0000-01-01T09:00:00"},` + postHi + `}`, "schedule.dtstart", "before 1970"},
		{"interval anchored in 1700", `{"scheduleType":"interval","schedule":{"everySeconds":3600,"startAt":"1700-01-01T00:00:00Z"},` + postHi + `}`, "schedule.startAt", "before 1970"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.call("schedule.create", c.args)
			var fe *functions.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Rule, c.rule) {
				t.Fatalf("err = %v, want %s: …%s…", err, c.field, c.rule)
			}
			if evs := e.audit(t); len(evs) != 0 {
				t.Errorf("%d audit events after a bad call", len(evs))
			}
		})
	}
}

func TestShow_RRuleJobHasItsRuleAndNextRuns(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, rruleArgs("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0", "Europe/London", ""))
	res := e.mustCall(t, "schedule.show", `{"jobId":"`+j.JobID+`"}`).(*functions.JobResult)
	if res.Job.ScheduleType != store.ScheduleRRule || res.Job.Schedule.RRule == "" || res.Job.Schedule.Dtstart == "" {
		t.Errorf("shown job = %+v", res.Job.Schedule)
	}
	if d := cmp.Diff(times("2026-11-30T16:00:00Z", "2026-12-31T16:00:00Z", "2027-01-29T16:00:00Z"), res.NextRuns); d != "" {
		t.Errorf("next runs (-want +got):\n%s", d)
	}
}
