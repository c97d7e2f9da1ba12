package scheduler

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
)

// Cron is a parsed 5-field cron expression. It is evaluated in a timezone
// given to Next, with the DST rule of docs/DESIGN.md section 5.
type Cron struct {
	expr                           string
	fields                         [5]string
	minute, hour, dom, month, dow  uint64 // bit i set: value i allowed
	domStar, dowStar, wildcardTime bool
}

// robfig/cron/v3 is used for parsing only: its Next skips the day on
// spring-forward and fires fixed times twice on fall-back, so we walk the
// calendar ourselves (nextWall) and resolve wall times to instants (resolve).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

const starBit = 1 << 63

var fieldNames = [5]string{"minute", "hour", "day-of-month", "month", "day-of-week"}

var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// cronCache keeps parsed expressions: a burst of jobs shares a few
// expressions, and a Cron is immutable once parsed.
var cronCache sync.Map // string -> *Cron

const cronCacheMax = 10000

var cronCacheLen atomic.Int64

// ParseCron parses a 5-field cron expression: minute hour day-of-month month
// day-of-week, with names (mon, jan), ranges, lists and steps, day-of-week 7
// as Sunday, and the @daily-style descriptors. Seconds, @every and CRON_TZ=
// prefixes are rejected. The error text is the rule that was broken.
func ParseCron(expr string) (*Cron, error) {
	if c, ok := cronCache.Load(expr); ok {
		return c.(*Cron), nil
	}
	c, err := parseCron(expr)
	if err != nil {
		return nil, err
	}
	if cronCacheLen.Add(1) > cronCacheMax {
		cronCache.Clear()
		cronCacheLen.Store(0)
	}
	cronCache.Store(expr, c)
	return c, nil
}

func parseCron(expr string) (c *Cron, err error) {
	defer func() { // the parser must never take the process down on user input
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("cannot be parsed")
		}
	}()
	e := strings.TrimSpace(expr)
	upper := strings.ToUpper(e)
	switch {
	case e == "":
		return nil, fmt.Errorf("is empty")
	case len(e) > 200:
		return nil, fmt.Errorf("longer than 200 characters")
	case strings.HasPrefix(upper, "CRON_TZ=") || strings.HasPrefix(upper, "TZ="):
		return nil, fmt.Errorf("a CRON_TZ= prefix is not supported; put the zone in schedule.timezone")
	case strings.HasPrefix(e, "@every"):
		return nil, fmt.Errorf("@every is not supported; use scheduleType interval with schedule.everySeconds")
	case strings.HasPrefix(e, "@"):
		d, ok := descriptors[strings.ToLower(e)]
		if !ok {
			return nil, fmt.Errorf("unknown descriptor %q (known: @yearly, @monthly, @weekly, @daily, @hourly)", e)
		}
		e = d
	}
	f := strings.Fields(e)
	if len(f) != 5 {
		if len(f) == 6 {
			return nil, fmt.Errorf("6 fields given, 5 expected (a seconds field is not supported)")
		}
		return nil, fmt.Errorf("%d fields given, 5 expected", len(f))
	}
	c = &Cron{expr: strings.Join(f, " ")}
	copy(c.fields[:], f)
	dow, err := normalizeDow(f[4])
	if err != nil {
		return nil, fmt.Errorf("day-of-week field %q: %v", f[4], err)
	}
	// Parse each field alone first so the error names the field.
	for i := range 5 {
		probe := []string{"*", "*", "*", "*", "*"}
		probe[i] = f[i]
		if i == 4 {
			probe[i] = dow
		}
		if _, err := cronParser.Parse(strings.Join(probe, " ")); err != nil {
			return nil, fmt.Errorf("%s field %q: %v", fieldNames[i], f[i], err)
		}
	}
	s, err := cronParser.Parse(strings.Join([]string{f[0], f[1], f[2], f[3], dow}, " "))
	if err != nil {
		return nil, err
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("cannot be parsed")
	}
	c.minute = spec.Minute &^ starBit
	c.hour = spec.Hour &^ starBit
	c.dom = spec.Dom &^ starBit
	c.month = spec.Month &^ starBit
	c.dow = spec.Dow &^ starBit
	c.domStar = strings.HasPrefix(f[2], "*") || strings.HasPrefix(f[2], "?")
	c.dowStar = strings.HasPrefix(f[4], "*") || strings.HasPrefix(f[4], "?")
	c.wildcardTime = strings.HasPrefix(f[0], "*") || strings.HasPrefix(f[1], "*")
	if c.minute == 0 || c.hour == 0 || c.dom == 0 || c.month == 0 || c.dow == 0 {
		return nil, fmt.Errorf("matches no time")
	}
	if !c.everMatches() {
		return nil, fmt.Errorf("never fires (no such date: day %s of month %s)", f[2], f[3])
	}
	return c, nil
}

// normalizeDow rewrites day-of-week 7 as 0 (Sunday), which robfig rejects.
// Parts that do not mention 7 are left to robfig as written.
func normalizeDow(field string) (string, error) {
	parts := strings.Split(field, ",")
	for i, p := range parts {
		if !strings.ContainsRune(p, '7') {
			continue
		}
		rng, step := p, 1
		if j := strings.IndexByte(p, '/'); j >= 0 {
			rng = p[:j]
			n, err := strconv.Atoi(p[j+1:])
			if err != nil || n < 1 {
				return "", fmt.Errorf("bad step %q", p[j+1:])
			}
			step = n
		}
		lo, hi := 0, 7
		if rng != "*" {
			a, b, isRange := strings.Cut(rng, "-")
			var err error
			if lo, err = dowValue(a); err != nil {
				return "", err
			}
			hi = lo
			if isRange {
				if hi, err = dowValue(b); err != nil {
					return "", err
				}
			} else if step > 1 {
				hi = 7
			}
		}
		if lo > hi {
			return "", fmt.Errorf("range %s goes backwards", rng)
		}
		var vals []string
		for v := lo; v <= hi; v += step {
			vals = append(vals, strconv.Itoa(v%7))
		}
		parts[i] = strings.Join(vals, ",")
	}
	return strings.Join(parts, ","), nil
}

var dowNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

func dowValue(s string) (int, error) {
	if v, ok := dowNames[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > 7 {
		return 0, fmt.Errorf("%q is not a day of the week (0-7 or sun-sat)", s)
	}
	return v, nil
}

// String is the expression as parsed (fields separated by single spaces).
func (c *Cron) String() string { return c.expr }

// Fixed reports whether the expression names fixed wall-clock times (neither
// the minute nor the hour field starts with *), which decides its DST rule.
func (c *Cron) Fixed() bool { return !c.wildcardTime }

func has(set uint64, v int) bool { return set&(1<<uint(v)) != 0 }

// nextBit is the smallest value >= v in set, or -1.
func nextBit(set uint64, v int) int {
	if v > 63 {
		return -1
	}
	m := set >> uint(v) << uint(v)
	if m == 0 {
		return -1
	}
	return bits.TrailingZeros64(m)
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// weekday of a proleptic Gregorian date, 0 = Sunday (Sakamoto's method).
func weekday(y, m, d int) int {
	t := [...]int{0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4}
	if m < 3 {
		y--
	}
	return (y + y/4 - y/100 + y/400 + t[m-1] + d) % 7
}

func (c *Cron) dayMatches(y, m, d int) bool {
	domOK := has(c.dom, d)
	dowOK := has(c.dow, weekday(y, m, d))
	if c.domStar || c.dowStar {
		return domOK && dowOK
	}
	return domOK || dowOK
}

// wall is a naive wall-clock minute, with no zone.
type wall struct{ y, mo, d, h, mi int }

func wallOf(t time.Time) wall {
	y, mo, d := t.Date()
	h, mi, _ := t.Clock()
	return wall{y, int(mo), d, h, mi}
}

// nextDay is the first minute of the following day.
func (w wall) nextDay() wall {
	w.d, w.h, w.mi = w.d+1, 0, 0
	if w.d > daysIn(w.y, w.mo) {
		w.d, w.mo = 1, w.mo+1
		if w.mo > 12 {
			w.mo, w.y = 1, w.y+1
		}
	}
	return w
}

func (w wall) time() time.Time {
	return time.Date(w.y, time.Month(w.mo), w.d, w.h, w.mi, 0, 0, time.UTC)
}

// searchYears bounds every search: the rarest schedule that fires at all
// (29 February on a given weekday with AND semantics) repeats within 28 years.
const searchYears = 29

// nextWall returns the first wall minute at or after w that matches, searching
// up to the end of year maxYear.
func (c *Cron) nextWall(w wall, maxYear int) (wall, bool) {
	for w.y <= maxYear {
		if !has(c.month, w.mo) {
			mo := nextBit(c.month, w.mo)
			if mo < 0 || mo > 12 {
				w = wall{w.y + 1, nextBit(c.month, 1), 1, 0, 0}
			} else {
				w = wall{w.y, mo, 1, 0, 0}
			}
			continue
		}
		if w.d > daysIn(w.y, w.mo) || !c.dayMatches(w.y, w.mo, w.d) {
			w = w.nextDay()
			continue
		}
		h := nextBit(c.hour, w.h)
		if h < 0 || h > 23 {
			w = w.nextDay()
			continue
		}
		if h != w.h {
			w.h, w.mi = h, 0
		}
		mi := nextBit(c.minute, w.mi)
		if mi < 0 || mi > 59 {
			w.h, w.mi = w.h+1, 0
			if w.h > 23 {
				w = w.nextDay()
			}
			continue
		}
		w.mi = mi
		return w, true
	}
	return wall{}, false
}

func (c *Cron) everMatches() bool {
	_, ok := c.nextWall(wall{2000, 1, 1, 0, 0}, 2000+searchYears)
	return ok
}

// Next returns the first instant strictly after after at which c fires in
// loc, following docs/DESIGN.md section 5: fixed times that fall in a
// spring-forward gap fire once at the instant the clocks jump to, and fire
// once, at the first occurrence, on fall-back; wildcard expressions run on
// real time (missing minutes are not caught up, a repeated hour runs twice).
// ok is false when it never fires again.
func (c *Cron) Next(after time.Time, loc *time.Location) (time.Time, bool) {
	maxYear := after.Year() + searchYears
	if c.wildcardTime {
		return c.nextReal(after, loc, maxYear)
	}
	// Start a little before after's wall time: near a DST change a wall time
	// earlier than after's can still resolve to a later instant.
	w := wallOf(after.In(loc).Add(-3 * time.Hour))
	for {
		nw, ok := c.nextWall(w, maxYear)
		if !ok {
			return time.Time{}, false
		}
		if at := resolve(nw.time(), loc); at.After(after) {
			return at, true
		}
		w = wallOf(nw.time().Add(time.Minute))
	}
}

func (c *Cron) nextReal(after time.Time, loc *time.Location, maxYear int) (time.Time, bool) {
	t := after.Truncate(time.Minute).Add(time.Minute)
	for range 1000 { // zone segments; far more than any zone has in 29 years
		lt := t.In(loc)
		_, off := lt.Zone()
		_, end := lt.ZoneBounds()
		w := wallOf(lt)
		if lt.Second() != 0 { // a zone with a seconds offset (old LMT)
			w = wallOf(lt.Truncate(time.Minute).Add(time.Minute))
		}
		nw, ok := c.nextWall(w, maxYear)
		if !ok {
			return time.Time{}, false
		}
		at := nw.time().Add(-time.Duration(off) * time.Second)
		if end.IsZero() || at.Before(end) {
			return at, true
		}
		t = end
	}
	return time.Time{}, false
}

// WallInstant is the instant wall time y-m-d h:min names in loc, by the
// rule every schedule follows (docs/DESIGN.md §5): a time the clocks skip
// is the instant they jump, a time they repeat its first occurrence.
// time.Date leaves both unspecified. Out-of-range fields normalize as in
// time.Date. The result is in loc.
func WallInstant(y int, m time.Month, d, h, min int, loc *time.Location) time.Time {
	return resolve(time.Date(y, m, d, h, min, 0, 0, time.UTC), loc).In(loc)
}

// resolve maps a naive wall time (given as a UTC time.Time) to the instant it
// names in loc: the first occurrence when it occurs twice, and the instant
// the clocks jump to when it does not occur at all.
func resolve(w time.Time, loc *time.Location) time.Time {
	// The instant lies within [w-14h, w+12h]; zone offsets just outside that
	// window are the candidates.
	_, offA := w.Add(-15 * time.Hour).In(loc).Zone()
	_, offB := w.Add(13 * time.Hour).In(loc).Zone()
	a := w.Add(-time.Duration(offA) * time.Second)
	b := w.Add(-time.Duration(offB) * time.Second)
	aOK := wallEquals(a, w, loc)
	bOK := wallEquals(b, w, loc)
	switch {
	case aOK && bOK:
		if b.Before(a) {
			return b
		}
		return a
	case aOK:
		return a
	case bOK:
		return b
	}
	// A gap: a (read with the earlier offset) lies just after the jump.
	start, _ := a.In(loc).ZoneBounds()
	if start.IsZero() || start.After(a) {
		return a
	}
	return start
}

func wallEquals(t, w time.Time, loc *time.Location) bool {
	_, off := t.In(loc).Zone()
	return t.Add(time.Duration(off) * time.Second).Equal(w)
}
