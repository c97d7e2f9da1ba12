package scheduler

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

type conformanceCase struct {
	Name     string   `json:"name"`
	RRule    string   `json:"rrule"`
	Timezone string   `json:"timezone"`
	Dtstart  string   `json:"dtstart"`
	After    string   `json:"after"`
	Want     []string `json:"want"`
}

func loadConformance(t testing.TB) []conformanceCase {
	t.Helper()
	b, err := os.ReadFile("testdata/rrule_conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []conformanceCase }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// TestRRule_Conformance checks Next against python-dateutil in floating time,
// mapped by the DST rule (testdata/rrule_oracle.py).
func TestRRule_Conformance(t *testing.T) {
	cases := loadConformance(t)
	if len(cases) < 150 {
		t.Fatalf("%d conformance cases, want at least 150", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			sp, err := NewSpec(store.ScheduleRRule, store.Schedule{RRule: c.RRule, Timezone: c.Timezone, Dtstart: c.Dtstart}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			after, err := time.Parse(time.RFC3339, c.After)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, at := range sp.NextN(after, 8) {
				got = append(got, at.Format(time.RFC3339))
			}
			if !slices.Equal(got, c.Want) {
				t.Errorf("%s in %s from %s, after %s:\n got %s\nwant %s", c.RRule, c.Timezone, c.Dtstart, c.After,
					strings.Join(got, " "), strings.Join(c.Want, " "))
			}
		})
	}
}

func mustRRuleSpec(t *testing.T, rule, tz, dtstart string) *Spec {
	t.Helper()
	sp, err := NewSpec(store.ScheduleRRule, store.Schedule{RRule: rule, Timezone: tz, Dtstart: dtstart}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestNewSpec_RRuleRefusesWithThePart(t *testing.T) {
	for _, c := range []struct{ rule, dtstart, field, want string }{
		{"FREQ=HOURLY", "2026-11-20T10:00", "schedule.rrule", "FREQ=HOURLY is not supported: use scheduleType interval"},
		{"FREQ=MINUTELY;INTERVAL=15", "2026-11-20T10:00", "schedule.rrule", "FREQ=MINUTELY is not supported"},
		{"FREQ=SECONDLY", "2026-11-20T10:00", "schedule.rrule", "FREQ=SECONDLY is not supported"},
		{"FREQ=DAILY;BYSECOND=5", "2026-11-20T10:00", "schedule.rrule", "BYSECOND is not supported"},
		{"FREQ=YEARLY;BYWEEKNO=20", "2026-11-20T10:00", "schedule.rrule", "BYWEEKNO is not supported: use BYMONTH"},
		{"FREQ=YEARLY;BYYEARDAY=100", "2026-11-20T10:00", "schedule.rrule", "BYYEARDAY is not supported: use BYMONTH with BYMONTHDAY"},
		{"FREQ=DAILY;EXDATE=20261224T090000", "2026-11-20T10:00", "schedule.rrule", "EXDATE is not supported"},
		{"BYDAY=MO", "2026-11-20T10:00", "schedule.rrule", "FREQ is required"},
		{"FREQ=WEEKLY;BYDAY=1MO", "2026-11-20T10:00", "schedule.rrule", "BYDAY ordinals such as 1MO need FREQ=MONTHLY or FREQ=YEARLY"},
		{"FREQ=MONTHLY;BYDAY=6MO", "2026-11-20T10:00", "schedule.rrule", "BYDAY ordinal 6 is out of range"},
		{"FREQ=MONTHLY;BYMONTHDAY=32", "2026-11-20T10:00", "schedule.rrule", "BYMONTHDAY value \"32\""},
		{"FREQ=DAILY;BYHOUR=24", "2026-11-20T10:00", "schedule.rrule", "BYHOUR value \"24\""},
		{"FREQ=DAILY;COUNT=3;UNTIL=20270101T000000", "2026-11-20T10:00", "schedule.rrule", "COUNT and UNTIL cannot both be given"},
		{"FREQ=DAILY;FREQ=WEEKLY", "2026-11-20T10:00", "schedule.rrule", "FREQ is given twice"},
		{"FREQ=DAILY;FOO=1", "2026-11-20T10:00", "schedule.rrule", "FOO is not a recurrence part we know"},
		{"FREQ=MONTHLY;BYSETPOS=1", "2026-11-20T10:00", "schedule.rrule", "BYSETPOS needs another BY part"},
		{"FREQ=DAILY", "", "schedule.dtstart", "required"},
		{"FREQ=DAILY", "2026-11-20 10:00", "schedule.dtstart", "not a local wall time"},
		{"", "2026-11-20T10:00", "schedule.rrule", "is empty"},
	} {
		_, err := NewSpec(store.ScheduleRRule, store.Schedule{RRule: c.rule, Timezone: "Europe/Berlin", Dtstart: c.dtstart}, time.Time{})
		ie, ok := err.(*InvalidError)
		if !ok || ie.Field != c.field || !strings.Contains(ie.Rule, c.want) {
			t.Errorf("%q: got %v, want %s: …%s…", c.rule, err, c.field, c.want)
		}
	}
	if _, err := NewSpec(store.ScheduleCron, store.Schedule{Cron: "0 9 * * *", Timezone: "UTC", RRule: "FREQ=DAILY"}, time.Time{}); err == nil {
		t.Error("a cron schedule with an rrule part was accepted")
	}
}

func TestSpec_NotBeforeHoldsForEveryType(t *testing.T) {
	nb := mustTime(t, "2026-12-07T08:00:00Z")
	after := mustTime(t, "2026-11-20T12:00:00Z")
	for _, c := range []struct {
		typ  string
		s    store.Schedule
		want string
	}{
		{store.ScheduleCron, store.Schedule{Cron: "0 9 * * 1", Timezone: "Europe/London"}, "2026-12-07T09:00:00Z"},
		{store.ScheduleRRule, store.Schedule{RRule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0", Timezone: "Europe/London", Dtstart: "2026-11-20T12:00"}, "2026-12-07T09:00:00Z"},
		{store.ScheduleInterval, store.Schedule{EverySeconds: 86400, StartAt: mustTime(t, "2026-11-20T09:30:00Z")}, "2026-12-07T09:30:00Z"},
		{store.ScheduleOnce, store.Schedule{RunAt: mustTime(t, "2026-12-01T00:00:00Z")}, ""},
	} {
		sp, err := NewSpec(c.typ, c.s, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		sp.NotBefore = nb
		got, ok := sp.Next(after)
		if c.want == "" {
			if ok {
				t.Errorf("%s: fires at %s, before startAt", c.typ, got)
			}
			continue
		}
		if !ok || !got.Equal(mustTime(t, c.want)) {
			t.Errorf("%s: Next = %s %v, want %s", c.typ, got, ok, c.want)
		}
	}
	// NotBefore itself is a fire when it is on the grid.
	sp := mustRRuleSpec(t, "FREQ=DAILY;BYHOUR=9;BYMINUTE=0", "UTC", "2026-11-01T00:00")
	sp.NotBefore = mustTime(t, "2026-12-07T09:00:00Z")
	if got, _ := sp.Next(after); !got.Equal(sp.NotBefore) {
		t.Errorf("Next = %s, want NotBefore %s itself", got, sp.NotBefore)
	}
}

func TestSpec_RRuleEndsAtTheEarlierOfEndAtAndCount(t *testing.T) {
	s := store.Schedule{RRule: "FREQ=DAILY;COUNT=5;BYHOUR=9;BYMINUTE=0", Timezone: "UTC", Dtstart: "2026-11-20T00:00"}
	sp, err := NewSpec(store.ScheduleRRule, s, mustTime(t, "2026-11-23T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.NextN(mustTime(t, "2026-11-01T00:00:00Z"), 10); len(got) != 3 {
		t.Errorf("endAt first: %d fires, want 3", len(got))
	}
	sp, _ = NewSpec(store.ScheduleRRule, s, mustTime(t, "2027-11-23T00:00:00Z"))
	if got := sp.NextN(mustTime(t, "2026-11-01T00:00:00Z"), 10); len(got) != 5 {
		t.Errorf("COUNT first: %d fires, want 5", len(got))
	}
}

func TestAnchorRRule_FirstOccurrenceAfterCreation(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	fri := mustTime(t, "2026-11-20T14:07:31Z") // a Friday
	for _, c := range []struct{ rule, want string }{
		{"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "2026-11-24T10:00:00"},
		{"RRULE:FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0", "2026-12-07T09:00:00"},
		{"FREQ=WEEKLY;INTERVAL=2", "2026-11-27T15:07:00"}, // day and time from creation, to the minute
		{"FREQ=DAILY;INTERVAL=2;BYHOUR=16;BYMINUTE=0;COUNT=3", "2026-11-20T16:00:00"},
	} {
		got, err := AnchorRRule(c.rule, berlin, fri)
		if err != nil || got != c.want {
			t.Errorf("%s: AnchorRRule = %q, %v; want %q", c.rule, got, err, c.want)
		}
	}
	// With that anchor, every other Tuesday fires next Tuesday, then two weeks on.
	dt, _ := AnchorRRule("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", berlin, fri)
	sp := mustRRuleSpec(t, "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "Europe/Berlin", dt)
	got := sp.NextN(fri, 2)
	if len(got) != 2 || !got[0].Equal(mustTime(t, "2026-11-24T09:00:00Z")) || !got[1].Equal(mustTime(t, "2026-12-08T09:00:00Z")) {
		t.Errorf("every other Tuesday from Friday: %v", got)
	}
	if _, err := AnchorRRule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", berlin, fri); err == nil {
		t.Error("a rule that never fires got an anchor")
	}
}

// TestRRule_RareRulesAreFound checks that rules that fire years apart are
// found (a day-by-day walk would still find them, but BenchmarkSpecNext
// holds their cost).
func TestRRule_RareRulesAreFound(t *testing.T) {
	for _, c := range []struct{ rule, after, want string }{
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "2044-03-01T00:00:00Z", "2072-02-29T09:00:00Z"},
		{"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0", "2028-03-01T00:00:00Z", "2032-02-29T09:00:00Z"},
		{"FREQ=WEEKLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=TU;BYSETPOS=1;BYHOUR=9;BYMINUTE=0", "2028-03-01T00:00:00Z", "2056-02-29T09:00:00Z"},
		{"FREQ=YEARLY;INTERVAL=3;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "2044-03-01T00:00:00Z", "2140-02-29T09:00:00Z"},
	} {
		sp := mustRRuleSpec(t, c.rule, "UTC", "2026-01-01T00:00")
		if got, ok := sp.Next(mustTime(t, c.after)); !ok || !got.Equal(mustTime(t, c.want)) {
			t.Errorf("%s after %s: %s %v, want %s", c.rule, c.after, got, ok, c.want)
		}
	}
}

func TestRRule_Describe(t *testing.T) {
	for _, c := range []struct{ rule, dtstart, want string }{
		{"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "2026-11-24T10:00", "Every 2 weeks on Tuesday at 10:00 AM"},
		{"FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0", "2026-11-20T10:00", "On the last Friday of every month at 5:00 PM"},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0", "2026-11-20T10:00", "On the last weekday of every month at 4:00 PM"},
		{"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;BYHOUR=12;BYMINUTE=0", "2026-11-20T10:00", "Every year on the fourth Thursday of November at 12:00 PM"},
		{"RRULE:FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "On the first Monday of every month at 9:00 AM"},
		{"FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "On the last day of every month at 9:00 AM"},
		{"FREQ=MONTHLY;BYMONTHDAY=1,-1;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "On the 1st and the last day of every month at 9:00 AM"},
		{"FREQ=DAILY;INTERVAL=2;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "Every 2 days at 9:00 AM"},
		{"FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=4;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "On the 4th of every 2 months at 9:00 AM"},
		{"FREQ=MONTHLY;BYDAY=1MO,3MO;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "On the first and third Monday of every month at 9:00 AM"},
		{"FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;BYHOUR=13;BYMINUTE=0", "2026-11-20T10:00", "On the 13th of every month when it is a Friday at 1:00 PM"},
		{"FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "Every Monday, Wednesday and Friday at 9:00 AM"},
		{"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30", "2026-11-20T10:00", "Every weekday at 8:30 AM"},
		{"FREQ=WEEKLY", "2026-11-20T10:15", "Every Friday at 10:15 AM"},
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0", "2026-11-20T10:00", "Every year on February 29 at 9:00 AM"},
		{"FREQ=YEARLY", "2026-11-20T10:00", "Every year on November 20 at 10:00 AM"},
		{"FREQ=DAILY;COUNT=5;BYHOUR=7;BYMINUTE=15", "2026-11-20T10:00", "Every day at 7:15 AM, 5 times"},
		{"FREQ=WEEKLY;BYDAY=TH;UNTIL=20270201T000000;BYHOUR=10;BYMINUTE=0", "2026-11-20T10:00", "Every Thursday at 10:00 AM, until Mon 1 Feb 2027 12:00 AM"},
		{"FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30", "2026-11-20T10:00", "Every day at 9:00 AM, 9:30 AM, 5:00 PM and 5:30 PM"},
	} {
		if got := mustRRuleSpec(t, c.rule, "Europe/Berlin", c.dtstart).Describe(); got != c.want {
			t.Errorf("%s: Describe = %q, want %q", c.rule, got, c.want)
		}
	}
}

func TestSpec_DescribeSaysStartAt(t *testing.T) {
	sp := mustRRuleSpec(t, "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "America/New_York", "2026-11-20T10:00")
	sp.NotBefore = mustTime(t, "2026-12-07T05:00:00Z")
	if got, want := sp.DescribeWithZone(), "Every Monday at 9:00 AM, starting Mon 7 Dec 2026 (America/New_York)"; got != want {
		t.Errorf("DescribeWithZone = %q, want %q", got, want)
	}
	// a start within a day says its time
	sp.NotBefore = mustTime(t, "2026-12-07T14:30:00Z")
	if got, want := sp.DescribeWithZone(), "Every Monday at 9:00 AM, starting Mon 7 Dec 2026 9:30 AM (America/New_York)"; got != want {
		t.Errorf("DescribeWithZone = %q, want %q", got, want)
	}
}
