package scheduler

import (
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

// BenchmarkCronNext measures one Next call, on DST days included.
func BenchmarkCronNext(b *testing.B) {
	cases := []struct{ name, expr, zone, after string }{
		{"weekday-9am", "0 9 * * 1-5", "America/New_York", "2026-11-22T12:00:00Z"},
		{"spring-gap-fixed", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z"},
		{"fall-repeat-fixed", "30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z"},
		{"fall-repeat-wildcard", "*/15 * * * *", "America/New_York", "2026-11-01T05:50:00Z"},
		{"lord-howe-gap", "15 2 * * *", "Australia/Lord_Howe", "2026-10-03T00:00:00Z"},
		{"santiago-midnight", "0 0 * * *", "America/Santiago", "2026-09-05T12:00:00Z"},
		{"leap-day", "0 0 29 2 *", "UTC", "2026-03-01T00:00:00Z"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cr, err := ParseCron(c.expr)
			if err != nil {
				b.Fatal(err)
			}
			loc, _ := LoadLocation(c.zone)
			after, _ := time.Parse(time.RFC3339, c.after)
			for b.Loop() {
				if _, ok := cr.Next(after, loc); !ok {
					b.Fatal("no next")
				}
			}
		})
	}
}

// BenchmarkRRuleNext measures one Spec.Next call of an rrule: common rules,
// DST days, a rule anchored years back, and the rarest rules (29 February on
// a Monday, the fifth Friday) whose next fire is years away.
func BenchmarkRRuleNext(b *testing.B) {
	cases := []struct{ name, rule, zone, dtstart, after string }{
		{"every-other-tuesday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "Europe/Berlin", "2026-11-24T10:00", "2026-11-25T12:00:00Z"},
		{"first-monday", "FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0", "America/New_York", "2026-11-20T10:00", "2026-11-22T12:00:00Z"},
		{"last-weekday", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0", "Europe/London", "2026-11-20T10:00", "2026-11-22T12:00:00Z"},
		{"thanksgiving", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;BYHOUR=12;BYMINUTE=0", "America/New_York", "2026-11-20T10:00", "2026-11-27T12:00:00Z"},
		{"daily-since-2016", "FREQ=DAILY;BYHOUR=9;BYMINUTE=0", "Asia/Kolkata", "2016-01-01T00:00", "2026-11-22T12:00:00Z"},
		{"count-since-2020", "FREQ=DAILY;COUNT=5000;BYHOUR=9;BYMINUTE=0", "UTC", "2020-01-01T00:00", "2026-11-22T12:00:00Z"},
		{"lord-howe-gap", "FREQ=DAILY;BYHOUR=2;BYMINUTE=15", "Australia/Lord_Howe", "2026-01-01T00:00", "2026-10-03T00:00:00Z"},
		{"santiago-midnight", "FREQ=DAILY;BYHOUR=0;BYMINUTE=0", "America/Santiago", "2026-01-01T00:00", "2026-09-05T12:00:00Z"},
		{"fifth-friday", "FREQ=MONTHLY;BYDAY=5FR;BYHOUR=9;BYMINUTE=0", "UTC", "2026-01-01T00:00", "2026-05-30T00:00:00Z"},
		{"rarest-leap-monday", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "UTC", "2026-01-01T00:00", "2044-03-01T00:00:00Z"},
		{"rarest-daily-leap-day", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0", "UTC", "2026-01-01T00:00", "2028-03-01T00:00:00Z"},
		{"rarest-weekly-setpos", "FREQ=WEEKLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=TU;BYSETPOS=1;BYHOUR=9;BYMINUTE=0", "UTC", "2026-01-01T00:00", "2028-03-01T00:00:00Z"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			sp, err := NewSpec("rrule", store.Schedule{RRule: c.rule, Timezone: c.zone, Dtstart: c.dtstart}, time.Time{})
			if err != nil {
				b.Fatal(err)
			}
			after, _ := time.Parse(time.RFC3339, c.after)
			for b.Loop() {
				if _, ok := sp.Next(after); !ok {
					b.Fatal("no next")
				}
			}
		})
	}
}
