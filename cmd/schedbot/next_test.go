package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func runOut(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errs bytes.Buffer
	err := Run(t.Context(), args, &out, &errs)
	return out.String(), errs.String(), err
}

// TestNext_ConformanceTable runs every case of the scheduler's oracle table
// through the command line, as a person (or a hidden table) would.
func TestNext_ConformanceTable(t *testing.T) {
	b, err := os.ReadFile("../../scheduler/testdata/rrule_conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Name, RRule, Timezone, Dtstart, After string
			Want                                  []string
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Cases {
		out, errs, err := runOut(t, "next", "--tz", c.Timezone, "--after", c.After, "--count", "8", "--dtstart", c.Dtstart, c.RRule)
		want := strings.Join(c.Want, "\n")
		if want != "" {
			want += "\n"
		}
		if err != nil || out != want {
			t.Errorf("%s: schedbot next %s: %v %s\n got %q\nwant %q", c.Name, c.RRule, err, errs, out, want)
		}
	}
}

func TestNext_CronRRuleAndErrors(t *testing.T) {
	// Without --dtstart a rule anchors at its first occurrence after --after:
	// every other Tuesday asked on a Friday starts next Tuesday.
	out, _, err := runOut(t, "next", "--tz", "Europe/Berlin", "--after", "2026-11-20T13:00:00Z", "--count", "3", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0")
	if err != nil || out != "2026-11-24T09:00:00Z\n2026-12-08T09:00:00Z\n2026-12-22T09:00:00Z\n" {
		t.Errorf("rrule without dtstart: %v\n%s", err, out)
	}
	// An iCalendar DTSTART;TZID line gives the anchor and the zone.
	out, _, err = runOut(t, "next", "--after", "2026-11-20T13:00:00Z", "--count", "2", "DTSTART;TZID=Europe/Berlin:20261120T140700\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0")
	if err != nil || out != "2026-12-01T09:00:00Z\n2026-12-15T09:00:00Z\n" {
		t.Errorf("DTSTART line: %v\n%s", err, out)
	}
	// An anchor given as an instant is its wall time in the zone.
	for _, dt := range []string{"2026-11-20T14:07:00+01:00", "20261120T130700Z", "20261120T140700"} {
		out, _, err = runOut(t, "next", "--tz", "Europe/Berlin", "--after", "2026-11-20T13:00:00Z", "--count", "2", "--dtstart", dt, "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0")
		if err != nil || out != "2026-12-01T09:00:00Z\n2026-12-15T09:00:00Z\n" {
			t.Errorf("--dtstart %s: %v\n%s", dt, err, out)
		}
	}
	out, _, err = runOut(t, "next", "--tz", "America/New_York", "--after", "2026-03-07T12:00:00Z", "--count", "2", "30 2 * * *")
	if err != nil || out != "2026-03-08T07:00:00Z\n2026-03-09T06:30:00Z\n" {
		t.Errorf("cron: %v\n%s", err, out)
	}
	out, _, err = runOut(t, "describe", "--tz", "America/New_York", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0")
	if err != nil || out != "On the last weekday of every month at 4:00 PM (America/New_York)\n" {
		t.Errorf("describe rrule: %v %q", err, out)
	}
	out, _, err = runOut(t, "describe", "--tz", "UTC", "0 9 1-7 * 1")
	if err != nil || out != "On the 1st to the 7th of every month or on any Monday at 9:00 AM (UTC)\n" {
		t.Errorf("describe the OR trap: %v %q", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"next", "--tz", "UTC", "FREQ=HOURLY"}, 1, "FREQ=HOURLY is not supported"},
		{[]string{"next", "--tz", "UTC", "--dtstart", "2026-11-20T10:00", "FREQ=DAILY;BYWEEKNO=3"}, 1, "rrule: BYWEEKNO is not supported"},
		{[]string{"next", "--tz", "UTC", "--dtstart", "tomorrow", "FREQ=DAILY"}, 2, "--dtstart"},
		{[]string{"next", "--tz", "UTC", "--dtstart", "2026-11-20T10:00", "0 9 * * *"}, 2, "--dtstart applies to an RRULE"},
		{[]string{"next", "FREQ=DAILY"}, 2, "--tz is required"},
		{[]string{"next", "--tz", "UTC"}, 2, "an EXPR is required"},
	} {
		_, _, err := runOut(t, c.args...)
		if code := exitCode(err); code != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("schedbot %v: exit %d, %v; want exit %d and %q", c.args, code, err, c.code, c.msg)
		}
	}
}

// A person creates, lists, changes and shows an rrule job from the CLI.
func TestCall_RRuleJob(t *testing.T) {
	c := newCLI(t)
	y, m, _ := time.Now().UTC().AddDate(0, 2, 0).Date()
	start := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) // the 1st of the month after next
	out := c.mustRun("call", "schedule.create", "--json", "--args", `{"name":"invoices","scheduleType":"rrule",
		"schedule":{"rrule":"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0","timezone":"Europe/London"},
		"startAt":"`+start.Format(time.RFC3339)+`",
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"send the invoices"}}}`)
	if !strings.Contains(out, `"rrule": "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0"`) ||
		!strings.Contains(out, "On the last weekday of every month at 4:00 PM, starting "+start.Format("Mon 2 Jan 2006")) ||
		!strings.Contains(out, `"nextRunAt": "`+start.Format("2006-01")) {
		t.Fatalf("create:\n%s", out)
	}
	var res struct{ Job struct{ JobID string } }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if out := c.mustRun("call", "schedule.list"); !strings.Contains(out, "On the last weekday of every month") {
		t.Errorf("list:\n%s", out)
	}
	out = c.mustRun("call", "schedule.update", "--json", "--args", `{"jobId":"`+res.Job.JobID+`","startAt":null,
		"schedule":{"rrule":"FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0","timezone":"Europe/London"}}`)
	if !strings.Contains(out, "On the last Friday of every month at 5:00 PM (Europe/London)") {
		t.Errorf("update:\n%s", out)
	}
	if _, errs, code := c.run("call", "schedule.update", "--args", `{"jobId":"`+res.Job.JobID+`","schedule":{"rrule":"FREQ=MINUTELY","timezone":"UTC"}}`); code != 1 ||
		!strings.Contains(errs, "schedule.rrule: FREQ=MINUTELY is not supported") {
		t.Errorf("bad update: exit %d %s", code, errs)
	}
}
