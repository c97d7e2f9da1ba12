package scheduler

import (
	"testing"
	"time"
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
