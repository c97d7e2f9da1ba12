package scheduler

import (
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

func mustSpec(t *testing.T, typ string, s store.Schedule, end time.Time) *Spec {
	t.Helper()
	sp, err := NewSpec(typ, s, end)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// walkAll is the obvious count: every window, one by one.
func walkAll(sp *Spec, first, now time.Time) (int, time.Time) {
	count, last := 1, first
	for {
		t, ok := sp.Next(last)
		if !ok || t.After(now) {
			return count, last
		}
		count, last = count+1, t
	}
}

func TestDueWindows_MatchesAWalk(t *testing.T) {
	t0 := time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC)
	cron := func(expr, tz string) *Spec {
		return mustSpec(t, store.ScheduleCron, store.Schedule{Cron: expr, Timezone: tz}, time.Time{})
	}
	every := func(sec int64, end time.Time) *Spec {
		return mustSpec(t, store.ScheduleInterval, store.Schedule{EverySeconds: sec, StartAt: t0}, end)
	}
	specs := map[string]*Spec{
		"every minute":           cron("* * * * *", "UTC"),
		"02:30 New York":         cron("30 2 * * *", "America/New_York"), // spring forward on 8 March
		"*/30 New York":          cron("*/30 * * * *", "America/New_York"),
		"weekdays 9:00 Berlin":   cron("0 9 * * mon-fri", "Europe/Berlin"),
		"every 90s":              every(90, time.Time{}),
		"every 90s, ends":        every(90, t0.Add(2*time.Hour+time.Second)),
		"every hour, ends on it": every(3600, t0.Add(5*time.Hour)),
		"once":                   mustSpec(t, store.ScheduleOnce, store.Schedule{RunAt: t0.Add(time.Hour)}, time.Time{}),
		"rrule every 2 days 9am": mustSpec(t, store.ScheduleRRule, store.Schedule{RRule: "FREQ=DAILY;INTERVAL=2;BYHOUR=9;BYMINUTE=0",
			Timezone: "America/New_York", Dtstart: "2026-03-01T09:00:00"}, time.Time{}),
		"rrule 6 a day, 40 times": mustSpec(t, store.ScheduleRRule, store.Schedule{RRule: "FREQ=DAILY;BYHOUR=8,9,10;BYMINUTE=0,30;COUNT=40",
			Timezone: "UTC", Dtstart: "2026-03-07T00:00:00"}, time.Time{}),
	}
	late := every(90, time.Time{})
	late.NotBefore = t0.Add(30 * time.Minute)
	specs["every 90s, starts later"] = late
	for name, sp := range specs {
		first, ok := sp.Next(t0)
		if !ok {
			t.Fatalf("%s: no first window", name)
		}
		for _, down := range []time.Duration{0, 30 * time.Second, 90 * time.Minute, 26 * time.Hour, 40 * 24 * time.Hour} {
			now := first.Add(down)
			wantN, wantLast := walkAll(sp, first, now)
			n, capped, last := dueWindows(sp, first, now)
			if !last.Equal(wantLast) {
				t.Errorf("%s, %s down: latest window %s, want %s", name, down, last, wantLast)
			}
			// Intervals are counted exactly, others up to maxCounted.
			wantCapped := wantN > maxCounted && sp.Type != store.ScheduleInterval
			if capped != wantCapped || !capped && n != wantN || capped && n != maxCounted {
				t.Errorf("%s, %s down: %d windows (capped %v), want %d", name, down, n, capped, wantN)
			}
		}
	}
}

// TestDueWindows_YearDownIsCheap bounds the work of misfire recovery after
// a year down: an every-minute cron job asks Next about a thousand times,
// not half a million; an interval job is counted exactly by arithmetic.
func TestDueWindows_YearDownIsCheap(t *testing.T) {
	first := time.Date(2025, 11, 25, 9, 0, 0, 0, time.UTC)
	now := first.Add(365*24*time.Hour + 30*time.Second)
	sp := mustSpec(t, store.ScheduleCron, store.Schedule{Cron: "* * * * *", Timezone: "UTC"}, time.Time{})
	calls := 0
	next := func(after time.Time) (time.Time, bool) { calls++; return sp.Next(after) }
	n, capped, last := walkWindows(next, first, now)
	if want := first.Add(365 * 24 * time.Hour); !last.Equal(want) || !capped || n != maxCounted {
		t.Errorf("cron: %d windows (capped %v), latest %s; want at least %d, latest %s", n, capped, last, maxCounted, want)
	}
	if calls > maxCounted+100 {
		t.Errorf("cron: %d calls of Next for a year down, want at most %d", calls, maxCounted+100)
	}

	iv := mustSpec(t, store.ScheduleInterval, store.Schedule{EverySeconds: 60, StartAt: first}, time.Time{})
	n, capped, last = dueWindows(iv, first, now)
	if want := first.Add(365 * 24 * time.Hour); n != 365*24*60+1 || capped || !last.Equal(want) {
		t.Errorf("interval: %d windows (capped %v), latest %s; want %d exactly, latest %s", n, capped, last, 365*24*60+1, want)
	}
}

// BenchmarkDueWindows_YearDown compares counting a year of an every-minute
// cron job's windows with walking every one of them (the old way).
func BenchmarkDueWindows_YearDown(b *testing.B) {
	first := time.Date(2025, 11, 25, 9, 0, 0, 0, time.UTC)
	now := first.Add(365 * 24 * time.Hour)
	sp, err := NewSpec(store.ScheduleCron, store.Schedule{Cron: "* * * * *", Timezone: "UTC"}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("dueWindows", func(b *testing.B) {
		for b.Loop() {
			dueWindows(sp, first, now)
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkAll(sp, first, now)
		}
	})
}

// An interval's grid holds centuries from its anchor, past the 292 years
// a time.Duration spans: Next moves forward (a calendar read for the year
// 2400 looped for ever), and the due windows end at the latest one.
func TestInterval_CenturiesFromItsAnchor(t *testing.T) {
	for _, c := range []struct{ anchor, after string }{
		{"1700-01-01T00:00:00Z", "2026-11-27T15:30:00Z"},
		{"2026-01-01T00:00:00Z", "2400-01-01T00:30:00Z"},
		{"0001-01-01T01:00:00Z", "9999-12-31T22:30:00Z"},
	} {
		anchor, _ := time.Parse(time.RFC3339, c.anchor)
		after, _ := time.Parse(time.RFC3339, c.after)
		sp := mustSpec(t, store.ScheduleInterval, store.Schedule{EverySeconds: 3600, StartAt: anchor}, time.Time{})
		next, ok := sp.Next(after)
		if want := after.Truncate(time.Hour).Add(time.Hour); !ok || !next.Equal(want) {
			t.Errorf("anchor %s: Next(%s) = %s, %v; want %s", c.anchor, c.after, next, ok, want)
		}
		count, _, last := dueWindows(sp, anchor, after)
		if want := after.Truncate(time.Hour); !last.Equal(want) || count < 2 {
			t.Errorf("anchor %s: due windows up to %s end at %s (%d), want %s", c.anchor, c.after, last, count, want)
		}
	}
}
