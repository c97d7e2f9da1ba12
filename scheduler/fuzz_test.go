package scheduler

import (
	"testing"
	"time"
)

var fuzzZones = []string{"UTC", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Europe/London", "Asia/Kolkata", "Pacific/Chatham"}

// FuzzCronNext: parsing never panics, and every instant Next returns is
// after its input and either matches the fields on the wall clock or is the
// instant a DST jump lands on (a fixed time that did not exist that day).
func FuzzCronNext(f *testing.F) {
	for _, s := range []string{"0 9 * * 5", "30 2 * * *", "*/15 * * * *", "0 0 29 2 *", "0 0 * * 7", "5-7/2 1 1,15 */2 mon-fri",
		"@daily", "CRON_TZ=UTC 0 0 * * *", "0 0 31 2 *", "@every 5m", "* * * * * *", "1-", "*/0 * * * *", "7-7 * * * 7-7/7"} {
		f.Add(s, int64(1772900000), uint8(1))
	}
	f.Fuzz(func(t *testing.T, expr string, afterUnix int64, zone uint8) {
		c, err := ParseCron(expr)
		if err != nil {
			return
		}
		loc, err := LoadLocation(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		// Keep after in the years schedbot plans for.
		after := time.Unix(1700000000+afterUnix%(20*365*86400+1), 0).UTC()
		if afterUnix < 0 {
			after = time.Unix(1700000000-(-afterUnix)%(20*365*86400+1), 0).UTC()
		}
		for range 3 {
			next, ok := c.Next(after, loc)
			if !ok {
				return
			}
			if !next.After(after) {
				t.Fatalf("%q: Next(%s) = %s, not after", expr, after, next)
			}
			if !c.matchesInstant(next, loc) {
				start, _ := next.In(loc).ZoneBounds()
				if c.wildcardTime || !start.Equal(next) {
					t.Fatalf("%q in %s: Next(%s) = %s (%s) matches neither the fields nor a DST jump", expr, loc, after, next, next.In(loc))
				}
			}
			after = next
		}
	})
}

// FuzzRRuleNext: parsing never panics, and every instant Next returns is
// after its input and is an occurrence on the wall clock (or the instant a
// DST jump lands on, for an occurrence that did not exist that day).
func FuzzRRuleNext(f *testing.F) {
	for _, s := range []string{"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "RRULE:FREQ=MONTHLY;BYDAY=-1FR",
		"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "FREQ=DAILY;COUNT=3",
		"FREQ=WEEKLY;BYDAY=SA;BYSETPOS=1,-1;WKST=SU", "FREQ=YEARLY;BYDAY=20MO", "FREQ=HOURLY", "FREQ=DAILY;;", "=;=", "FREQ=MONTHLY;BYMONTHDAY=-31,31"} {
		f.Add(s, int64(1772900000), int64(86400*30), uint8(2))
	}
	f.Fuzz(func(t *testing.T, rule string, dtUnix, afterOff int64, zone uint8) {
		dt := time.Unix(1600000000+dtUnix%(30*365*86400+1), 0).UTC()
		r, err := ParseRRule(rule, dt)
		if err != nil {
			return
		}
		loc, err := LoadLocation(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		after := dt.Add(time.Duration(afterOff%(20*365*86400)) * time.Second)
		for range 3 {
			next, ok := r.Next(after, loc)
			if !ok {
				return
			}
			if !next.After(after) {
				t.Fatalf("%q: Next(%s) = %s, not after", rule, after, next)
			}
			w := wallSecOf(next.In(loc))
			if got, ok := r.nextWall(w); !ok || got != w {
				start, _ := next.In(loc).ZoneBounds()
				if !start.Equal(next) {
					t.Fatalf("%q in %s: Next(%s) = %s (%s) is neither an occurrence nor a DST jump", rule, loc, after, next, next.In(loc))
				}
			}
			after = next
		}
	})
}
