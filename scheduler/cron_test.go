package scheduler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestCronNext_DST pins fire instants across both DST changes of several
// zones. Each row lists the instants that follow after, in order.
func TestCronNext_DST(t *testing.T) {
	cases := []struct {
		name, expr, zone, after string
		want                    []string
	}{
		// New York: 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST.
		{"fixed time in the spring gap fires at the jump", "30 2 * * *", "America/New_York", "2026-03-07T08:00:00Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"}},
		{"gap time and the jump target fire once", "0 2,3 * * *", "America/New_York", "2026-03-08T00:00:00Z",
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z", "2026-03-09T07:00:00Z"}},
		{"fixed time in the repeated hour fires once, first", "30 1 * * *", "America/New_York", "2026-10-31T06:00:00Z",
			[]string{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}},
		{"fixed list in the repeated hour", "0,30 1 * * *", "America/New_York", "2026-11-01T04:59:00Z",
			[]string{"2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:00:00Z"}},
		{"after the second pass, the next day", "30 1 * * *", "America/New_York", "2026-11-01T06:15:00Z",
			[]string{"2026-11-02T06:30:00Z"}},
		{"wildcard stays on real time over the gap", "*/30 * * * *", "America/New_York", "2026-03-08T06:15:00Z",
			[]string{"2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"}},
		{"wildcard runs the repeated hour twice", "*/30 * * * *", "America/New_York", "2026-11-01T05:15:00Z",
			[]string{"2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z"}},
		{"hourly minute in the repeated hour runs twice", "15 * * * *", "America/New_York", "2026-11-01T05:00:00Z",
			[]string{"2026-11-01T05:15:00Z", "2026-11-01T06:15:00Z", "2026-11-01T07:15:00Z"}},
		{"hourly skips the missing hour", "15 * * * *", "America/New_York", "2026-03-08T06:00:00Z",
			[]string{"2026-03-08T06:15:00Z", "2026-03-08T07:15:00Z"}},
		{"weekly Friday", "0 9 * * 5", "America/New_York", "2026-11-22T12:00:00Z",
			[]string{"2026-11-27T14:00:00Z", "2026-12-04T14:00:00Z"}},

		// Lord Howe: half-hour DST. 2026-10-04 02:00 -> 02:30; 2026-04-05 02:00 -> 01:30.
		{"Lord Howe gap of 30 minutes", "15 2 * * *", "Australia/Lord_Howe", "2026-10-03T00:00:00Z",
			[]string{"2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"}},
		{"Lord Howe repeated half hour, first", "45 1 * * *", "Australia/Lord_Howe", "2026-04-04T00:00:00Z",
			[]string{"2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"}},
		{"Lord Howe wildcard over the repeat", "*/20 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:35:00Z",
			[]string{"2026-04-04T14:40:00Z", "2026-04-04T15:10:00Z", "2026-04-05T14:30:00Z", "2026-04-05T14:50:00Z"}},

		// Santiago: midnight disappears on 2026-09-06 (00:00 -> 01:00), and
		// 23:00-24:00 repeats on 2026-04-04.
		{"Santiago midnight that does not exist", "0 0 * * *", "America/Santiago", "2026-09-05T05:00:00Z",
			[]string{"2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z"}},
		{"Santiago repeated 23:30, first", "30 23 * * *", "America/Santiago", "2026-04-04T12:00:00Z",
			[]string{"2026-04-05T02:30:00Z", "2026-04-06T03:30:00Z"}},
		{"Santiago Sunday-only midnight on the gap day", "0 0 * * 0", "America/Santiago", "2026-09-01T00:00:00Z",
			[]string{"2026-09-06T04:00:00Z", "2026-09-13T03:00:00Z"}},

		// Europe: last Sunday of March/October at 01:00 UTC.
		{"London gap", "30 1 * * *", "Europe/London", "2026-03-28T12:00:00Z",
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}},
		{"Berlin repeat", "30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}},

		// Calendar rules.
		{"day-of-week 7 is Sunday", "0 12 * * 7", "UTC", "2026-11-22T12:00:00Z",
			[]string{"2026-11-29T12:00:00Z"}},
		{"range ending in 7", "0 12 * * 5-7", "UTC", "2026-11-19T00:00:00Z",
			[]string{"2026-11-20T12:00:00Z", "2026-11-21T12:00:00Z", "2026-11-22T12:00:00Z", "2026-11-27T12:00:00Z"}},
		{"both day fields restricted: OR", "0 0 1 * 1", "UTC", "2026-11-27T00:00:00Z",
			[]string{"2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z", "2026-12-07T00:00:00Z"}},
		{"day-of-month with */ step: AND", "0 0 */2 * 1", "UTC", "2026-11-27T00:00:00Z",
			[]string{"2026-12-07T00:00:00Z", "2026-12-21T00:00:00Z"}},
		{"leap day", "0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z",
			[]string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"names", "0 9 * jan,jul mon-fri", "UTC", "2026-11-22T00:00:00Z",
			[]string{"2027-01-01T09:00:00Z", "2027-01-04T09:00:00Z"}},
		{"descriptor", "@weekly", "UTC", "2026-11-22T00:00:00Z",
			[]string{"2026-11-29T00:00:00Z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cr, err := ParseCron(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			loc := mustLoc(t, c.zone)
			after := mustTime(t, c.after)
			var got []string
			for range c.want {
				next, ok := cr.Next(after, loc)
				if !ok {
					break
				}
				got = append(got, next.UTC().Format(time.RFC3339))
				after = next
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("%q in %s after %s:\n got %v\nwant %v", c.expr, c.zone, c.after, got, c.want)
			}
		})
	}
}

func TestParseCron_Rejects(t *testing.T) {
	cases := map[string]string{
		"":                          "is empty",
		"0 0 * * * *":               "6 fields given, 5 expected",
		"0 0 * *":                   "4 fields given, 5 expected",
		"@every 5m":                 "@every is not supported",
		"CRON_TZ=UTC 0 0 * * *":     "CRON_TZ= prefix is not supported",
		"TZ=Europe/Paris 0 0 * * *": "CRON_TZ= prefix is not supported",
		"0 0 31 2 *":                "never fires",
		"0 0 30 2 *":                "never fires",
		"60 * * * *":                "minute field \"60\"",
		"* 24 * * *":                "hour field \"24\"",
		"* * 0 * *":                 "day-of-month field \"0\"",
		"* * * 13 *":                "month field \"13\"",
		"* * * * 8":                 "day-of-week field \"8\"",
		"* * * * mon-xyz":           "day-of-week field",
		"* * * * 7-1":               "goes backwards",
		"@fortnightly":              "unknown descriptor",
		"a b c d e":                 "minute field",
	}
	for expr, want := range cases {
		_, err := ParseCron(expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCron(%q) = %v, want an error containing %q", expr, err, want)
		}
	}
}

// TestCronNext_MatchesRobfigInUTC checks our calendar walk against robfig's
// on random expressions in UTC, where there is no DST for the two to
// disagree about.
func TestCronNext_MatchesRobfigInUTC(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	field := func(lo, hi int) string {
		switch r.IntN(5) {
		case 0:
			return "*"
		case 1:
			return fmt.Sprintf("*/%d", 1+r.IntN(hi-lo))
		case 2:
			a := lo + r.IntN(hi-lo+1)
			return fmt.Sprintf("%d-%d", a, a+r.IntN(hi-a+1))
		case 3:
			return fmt.Sprintf("%d,%d", lo+r.IntN(hi-lo+1), lo+r.IntN(hi-lo+1))
		}
		return fmt.Sprint(lo + r.IntN(hi-lo+1))
	}
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)
	checked := 0
	for range 2000 {
		expr := strings.Join([]string{field(0, 59), field(0, 23), field(1, 31), field(1, 12), field(0, 6)}, " ")
		ours, err := ParseCron(expr)
		if err != nil {
			continue // e.g. 31 in a 30-day month list: never fires
		}
		theirs, err := parser.Parse(expr)
		if err != nil {
			t.Fatalf("robfig rejects %q: %v", expr, err)
		}
		// robfig treats "*/n" in a day field as restricted (OR); we follow
		// Vixie (AND) as docs/DESIGN.md says, so compare only where they agree.
		f := strings.Fields(expr)
		if strings.HasPrefix(f[2], "*/") || strings.HasPrefix(f[4], "*/") {
			continue
		}
		after := time.Date(2026, time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), 0, 0, time.UTC)
		for range 5 {
			got, ok := ours.Next(after, time.UTC)
			want := theirs.Next(after)
			if !ok || !got.Equal(want) {
				t.Fatalf("%q after %s: ours %s (%v), robfig %s", expr, after, got, ok, want)
			}
			after = got
		}
		checked++
	}
	if checked < 500 {
		t.Fatalf("only %d expressions compared", checked)
	}
}

// TestCronNext_WildcardIsRealTime checks wildcard expressions against a
// minute-by-minute walk of real instants over DST changes.
func TestCronNext_WildcardIsRealTime(t *testing.T) {
	exprs := []string{"*/7 * * * *", "15,45 * * * *", "* 1-3 * * *", "*/10 0,1,2 * * 0", "0 * * * *"}
	zones := []string{"America/New_York", "Australia/Lord_Howe", "America/Santiago", "Europe/London"}
	starts := []string{"2026-03-07T22:00:00Z", "2026-10-31T20:00:00Z", "2026-04-03T20:00:00Z",
		"2026-10-02T20:00:00Z", "2026-09-05T20:00:00Z", "2026-03-28T20:00:00Z"}
	for _, expr := range exprs {
		c, err := ParseCron(expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, zone := range zones {
			loc := mustLoc(t, zone)
			for _, s := range starts {
				after := mustTime(t, s)
				for range 20 {
					got, ok := c.Next(after, loc)
					want := after.Truncate(time.Minute).Add(time.Minute)
					for !c.matchesInstant(want, loc) {
						want = want.Add(time.Minute)
					}
					if !ok || !got.Equal(want) {
						t.Fatalf("%q in %s after %s: got %s, want %s", expr, zone, after, got, want)
					}
					after = got
				}
			}
		}
	}
}

func (c *Cron) matchesInstant(t time.Time, loc *time.Location) bool {
	w := wallOf(t.In(loc))
	return has(c.month, w.mo) && c.dayMatches(w.y, w.mo, w.d) && has(c.hour, w.h) && has(c.minute, w.mi)
}

func TestCronNext_NeverAfterTheSearchHorizon(t *testing.T) {
	c, err := ParseCron("0 0 29 2 1") // OR: every Monday too
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC); !ok {
		t.Error("Mondays-or-leap-day never fires")
	}
}

// TestWallInstant_AsTheSchedulesFire: a one-time job's wall time becomes
// the instant a daily cron at that time fires that day (a skipped time at
// the jump, a repeated one at its first occurrence), in zones either side
// of UTC; time.Date picks otherwise in some of them.
func TestWallInstant_AsTheSchedulesFire(t *testing.T) {
	for _, c := range []struct {
		zone      string
		y, m, d   int
		hour, min int
	}{
		{"Europe/London", 2027, 3, 28, 1, 30}, {"Europe/London", 2027, 10, 31, 1, 30},
		{"Europe/Berlin", 2027, 3, 28, 2, 30}, {"Europe/Berlin", 2027, 10, 31, 2, 30},
		{"Australia/Sydney", 2027, 10, 3, 2, 30}, {"Australia/Sydney", 2027, 4, 4, 2, 0},
		{"America/New_York", 2027, 3, 14, 2, 30}, {"America/New_York", 2027, 11, 7, 1, 30},
		{"Australia/Lord_Howe", 2026, 10, 4, 2, 15}, {"Europe/London", 2027, 6, 1, 9, 0},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		got := WallInstant(c.y, time.Month(c.m), c.d, c.hour, c.min, loc)
		cr, err := ParseCron(fmt.Sprintf("%d %d * * *", c.min, c.hour))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := cr.Next(time.Date(c.y, time.Month(c.m), c.d, 0, 0, 0, 0, time.UTC).Add(-14*time.Hour), loc)
		if !got.Equal(want) || got.Location() != loc {
			t.Errorf("%s %d-%02d-%02d %02d:%02d: got %v, the schedules fire at %v", c.zone, c.y, c.m, c.d, c.hour, c.min, got, want.In(loc))
		}
	}
}
