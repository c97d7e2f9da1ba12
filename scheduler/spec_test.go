package scheduler

import (
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

func TestDescribe(t *testing.T) {
	ny := "America/New_York"
	cases := []struct {
		typ  string
		s    store.Schedule
		end  string
		want string
	}{
		{"cron", store.Schedule{Cron: "30 8 * * 1-5", Timezone: ny}, "", "Every weekday at 8:30 AM"},
		{"cron", store.Schedule{Cron: "0 9 * * 5", Timezone: ny}, "", "Every Friday at 9:00 AM"},
		{"cron", store.Schedule{Cron: "0 9 * * mon,wed,fri", Timezone: ny}, "", "Every Monday, Wednesday and Friday at 9:00 AM"},
		{"cron", store.Schedule{Cron: "0 10 * * 0,6", Timezone: ny}, "", "Every Saturday and Sunday at 10:00 AM"},
		{"cron", store.Schedule{Cron: "0 0 * * *", Timezone: ny}, "", "Every day at 12:00 AM"},
		{"cron", store.Schedule{Cron: "0 12,17 * * *", Timezone: ny}, "", "Every day at 12:00 PM and 5:00 PM"},
		{"cron", store.Schedule{Cron: "0 9 1,15 * *", Timezone: ny}, "", "On the 1st and 15th of every month at 9:00 AM"},
		{"cron", store.Schedule{Cron: "0 9 1 1,4,7,10 *", Timezone: ny}, "", "On the 1st of January, April, July and October at 9:00 AM"},
		{"cron", store.Schedule{Cron: "*/15 * * * *", Timezone: ny}, "", "Every 15 minutes"},
		{"cron", store.Schedule{Cron: "*/15 * * * 1-5", Timezone: ny}, "", "Every 15 minutes on weekdays"},
		{"cron", store.Schedule{Cron: "*/15 9-17 * * *", Timezone: ny}, "", "Every 15 minutes from 9:00 AM to 5:59 PM"},
		{"cron", store.Schedule{Cron: "0 * * * *", Timezone: ny}, "", "Every hour"},
		{"cron", store.Schedule{Cron: "0 */4 * * *", Timezone: ny}, "", "Every 4 hours on the hour"},
		{"cron", store.Schedule{Cron: "15 * * * 1", Timezone: ny}, "", "Every hour at 15 minutes past on Mondays"},
		{"cron", store.Schedule{Cron: "* * * * *", Timezone: ny}, "", "Every minute"},
		{"cron", store.Schedule{Cron: "5,10,20 1-3,7 * * *", Timezone: ny}, "", "At minute 5, 10 and 20 past hour 1, 2, 3 and 7"},
		// The OR trap: both day fields restricted fire when either matches.
		{"cron", store.Schedule{Cron: "0 9 1-7 * 1", Timezone: ny}, "", "On the 1st to the 7th of every month or on any Monday at 9:00 AM"},
		{"rrule", store.Schedule{RRule: "FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0", Timezone: ny, Dtstart: "2026-11-20T10:00"}, "2027-06-01T04:00:00Z", "On the first Monday of every month at 9:00 AM, until Mon 31 May 2027"},
		{"interval", store.Schedule{EverySeconds: 900, StartAt: time.Now()}, "", "Every 15 minutes"},
		{"interval", store.Schedule{EverySeconds: 3600, StartAt: time.Now()}, "", "Every hour"},
		{"interval", store.Schedule{EverySeconds: 5400, StartAt: time.Now()}, "", "Every 90 minutes"},
		{"interval", store.Schedule{EverySeconds: 14 * 86400, StartAt: time.Date(2026, 11, 27, 15, 26, 0, 0, time.UTC), Timezone: ny}, "", "Every 2 weeks from Fri 27 Nov 2026 10:26 AM"},
		{"interval", store.Schedule{EverySeconds: 86400, StartAt: time.Date(2026, 11, 28, 10, 26, 0, 0, time.UTC), Timezone: ny}, "", "Every day from Sat 28 Nov 2026 5:26 AM"},
		{"once", store.Schedule{RunAt: time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC), Timezone: ny}, "", "Once on Fri 27 Nov 2026 at 9:00 AM"},
		{"cron", store.Schedule{Cron: "0 9 * * 5", Timezone: ny}, "2026-12-12T05:00:00Z", "Every Friday at 9:00 AM, until Fri 11 Dec 2026"},
	}
	for _, c := range cases {
		var end time.Time
		if c.end != "" {
			end = mustTime(t, c.end)
		}
		sp, err := NewSpec(c.typ, c.s, end)
		if err != nil {
			t.Fatalf("%+v: %v", c.s, err)
		}
		if got := sp.Describe(); got != c.want {
			t.Errorf("Describe(%s %+v) = %q, want %q", c.typ, c.s.Cron, got, c.want)
		}
	}
}

func TestSpecNext_IntervalStaysOnItsGrid(t *testing.T) {
	start := mustTime(t, "2026-11-22T10:00:00Z")
	sp, err := NewSpec("interval", store.Schedule{EverySeconds: 900, StartAt: start}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"2026-11-22T09:00:00Z": "2026-11-22T10:00:00Z", // before the anchor: the anchor
		"2026-11-22T10:00:00Z": "2026-11-22T10:15:00Z",
		"2026-11-22T10:16:59Z": "2026-11-22T10:30:00Z", // a late fire does not shift the grid
		"2026-11-23T10:00:00Z": "2026-11-23T10:15:00Z",
	}
	for after, want := range cases {
		got, ok := sp.Next(mustTime(t, after))
		if !ok || got.Format(time.RFC3339) != want {
			t.Errorf("Next(%s) = %s %v, want %s", after, got, ok, want)
		}
	}
}

func TestSpecNext_OnceAndEnd(t *testing.T) {
	at := mustTime(t, "2026-11-27T14:00:00Z")
	sp, err := NewSpec("once", store.Schedule{RunAt: at}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := sp.Next(at.Add(-time.Second)); !ok || !got.Equal(at) {
		t.Errorf("once before runAt = %s %v", got, ok)
	}
	if _, ok := sp.Next(at); ok {
		t.Error("once fires again after runAt")
	}
	// endAt is exclusive: "until March" ends when March begins.
	end := mustTime(t, "2026-12-04T14:00:00Z")
	sp, _ = NewSpec("cron", store.Schedule{Cron: "0 9 * * 5", Timezone: "America/New_York"}, end)
	got := sp.NextN(mustTime(t, "2026-11-22T00:00:00Z"), 5)
	if len(got) != 1 || !got[0].Equal(at) {
		t.Errorf("fires before end = %v, want only %s", got, at)
	}
}

func TestNewSpec_Rejects(t *testing.T) {
	now := time.Now()
	cases := []struct {
		typ       string
		s         store.Schedule
		wantField string
		wantRule  string
	}{
		{"cron", store.Schedule{Cron: "0 9 * * 5"}, "schedule.timezone", "required"},
		{"cron", store.Schedule{Cron: "0 9 * * 5", Timezone: "Mars/Olympus"}, "schedule.timezone", "unknown timezone"},
		{"cron", store.Schedule{Cron: "0 9 * * 5", Timezone: "Local"}, "schedule.timezone", "not an IANA"},
		{"cron", store.Schedule{Cron: "0 0 9 * * 5", Timezone: "UTC"}, "schedule.cron", "6 fields given, 5 expected"},
		{"cron", store.Schedule{Cron: "0 9 * * 5", Timezone: "UTC", EverySeconds: 60}, "schedule", "only cron and timezone"},
		{"interval", store.Schedule{EverySeconds: 0, StartAt: now}, "schedule.everySeconds", "between 60 and"},
		{"interval", store.Schedule{EverySeconds: 10, StartAt: now}, "schedule.everySeconds", "between 60 and"},
		{"interval", store.Schedule{EverySeconds: 367 * 86400, StartAt: now}, "schedule.everySeconds", "between 60 and"},
		{"once", store.Schedule{}, "schedule.runAt", "required"},
		{"weekly", store.Schedule{}, "scheduleType", "must be cron, interval, once or rrule"},
	}
	for _, c := range cases {
		_, err := NewSpec(c.typ, c.s, time.Time{})
		ie, ok := err.(*InvalidError)
		if !ok || ie.Field != c.wantField || !strings.Contains(ie.Rule, c.wantRule) {
			t.Errorf("NewSpec(%s, %+v) = %v, want %s: …%s…", c.typ, c.s, err, c.wantField, c.wantRule)
		}
	}
}

func TestSpec_ClockNoteSaysWhatTheClocksMoved(t *testing.T) {
	ny, london := "America/New_York", "Europe/London"
	cases := []struct {
		name  string
		typ   string
		s     store.Schedule
		after string
		want  string
	}{
		{"fixed cron in the gap", "cron", store.Schedule{Cron: "30 2 * * *", Timezone: ny}, "2027-03-13T12:00:00Z",
			"On Sun 14 Mar the clocks jump from 2:00 AM to 3:00 AM, so that day's run is at 3:00 AM."},
		{"at the jump itself", "cron", store.Schedule{Cron: "0 3 * * *", Timezone: ny}, "2027-03-13T12:00:00Z", ""},
		{"a gap run that is the jump's", "cron", store.Schedule{Cron: "0 1-3 * * *", Timezone: ny}, "2027-03-14T05:30:00Z",
			"On Sun 14 Mar the clocks jump from 2:00 AM to 3:00 AM, so that day's 2:00 AM run is the 3:00 AM one."},
		{"an rrule gap run that is the jump's", "rrule", store.Schedule{RRule: "FREQ=DAILY;BYHOUR=2,3;BYMINUTE=30", Timezone: ny, Dtstart: "2027-01-01T00:00:00"}, "2027-03-14T05:30:00Z",
			"On Sun 14 Mar the clocks jump from 2:00 AM to 3:00 AM, so that day's run is at 3:00 AM."},
		{"once in the gap", "once", store.Schedule{RunAt: mustTime(t, "2027-03-14T07:00:00Z"), Timezone: ny}, "2027-03-13T12:00:00Z",
			"On Sun 14 Mar the clocks jump from 2:00 AM to 3:00 AM, so a time between them runs at 3:00 AM."},
		{"weekly in the fold", "cron", store.Schedule{Cron: "30 1 * * 0", Timezone: ny}, "2027-11-01T12:00:00Z",
			"On Sun 7 Nov 1:30 AM comes twice (the clocks go back): that day's run is at the first 1:30 AM (EDT)."},
		{"another zone's gap", "cron", store.Schedule{Cron: "30 1 * * *", Timezone: london}, "2027-03-27T12:00:00Z",
			"On Sun 28 Mar the clocks jump from 1:00 AM to 2:00 AM, so that day's run is at 2:00 AM."},
		{"a wildcard runs on real time", "cron", store.Schedule{Cron: "*/30 * * * *", Timezone: ny}, "2027-03-14T06:45:00Z", ""},
		{"an ordinary week", "cron", store.Schedule{Cron: "30 2 * * *", Timezone: ny}, "2027-01-13T12:00:00Z", ""},
	}
	for _, c := range cases {
		sp, err := NewSpec(c.typ, c.s, time.Time{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		runs := sp.NextN(mustTime(t, c.after), 3)
		if got := sp.ClockNote(runs); got != c.want {
			t.Errorf("%s: ClockNote(%v) = %q, want %q", c.name, runs, got, c.want)
		}
	}
}

// A fixed offset reads as people write it, not as its Etc id, whose sign
// is the opposite.
func TestZoneName_FixedOffsetsAsWritten(t *testing.T) {
	for id, want := range map[string]string{"Etc/GMT-1": "UTC+1", "Etc/GMT+5": "UTC-5", "Europe/Berlin": "Europe/Berlin", "UTC": "UTC"} {
		loc, err := time.LoadLocation(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := ZoneName(loc); got != want {
			t.Errorf("ZoneName(%s) = %q, want %q", id, got, want)
		}
	}
}
