package scheduler

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// An RFC 5545 recurrence rule, evaluated in local wall time by our own
// expansion rather than rrule-go: rrule-go iterates every occurrence from
// DTSTART (so Next on a years-old daily rule walks thousands of them) and
// walks day by day through a rare rule, while this expansion looks at one
// month at a time through bit masks, and turns COUNT into a last wall time
// once. Semantics follow python-dateutil (the conformance table's oracle).

// Frequencies, in dateutil's order.
const (
	freqYearly = iota
	freqMonthly
	freqWeekly
	freqDaily
)

var freqNames = map[string]int{"YEARLY": freqYearly, "MONTHLY": freqMonthly, "WEEKLY": freqWeekly, "DAILY": freqDaily}

// byDay codes, RFC 5545 order of weekday names; values are Go's (0 = Sunday).
var rruleDays = map[string]int{"SU": 0, "MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6}

// ordDay is a BYDAY entry with an ordinal: 1MO, -1FR.
type ordDay struct{ n, wd int }

// rruleParts is a rule as written, before DTSTART fills its defaults.
type rruleParts struct {
	freq        int
	interval    int
	count       int
	until       int64     // wall seconds (wallSecOf); valid when hasUntil
	untilUTC    time.Time // UNTIL written with a Z: an instant
	hasUntil    bool
	wkst        int
	byMonth     uint16 // bit m: month m
	mdPos       uint32 // bit d: BYMONTHDAY=d
	mdNeg       uint32 // bit d: BYMONTHDAY=-d
	wdPlain     uint8  // bit w: BYDAY=w with no ordinal
	ord         []ordDay
	byHour      uint32 // bit h
	byMinute    uint64 // bit m
	setPos      []int
	hasMonthDay bool
	given       map[string]string // part -> value as written
}

// RRule is a recurrence rule bound to its DTSTART, ready to compute
// occurrences. It is immutable and shared (see rruleCache).
type RRule struct {
	expr    string // the parts as written, normalised (upper case, no RRULE: prefix)
	p       rruleParts
	dtstart int64 // wall seconds
	// derived from p and dtstart
	times      []int // seconds of the day, ascending
	last       int64 // last occurrence's wall seconds (COUNT or UNTIL); valid when bounded
	bounded    bool
	ordInYear  bool           // BYDAY ordinals count within the year (YEARLY, no BYMONTH)
	plainMask  [7]uint32      // by weekday of the 1st: BYDAY days without ordinal
	ordMonth   [7][4]uint32   // by weekday of the 1st and month length-28: ordinal days
	ordYear    [14][13]uint32 // by weekday of 1 January and leap year, per month: ordinal days
	w0, m0, y0 int            // day, month index and year of dtstart's period
	d0         int            // dtstart's day number
}

// wall seconds: seconds since 1970-01-01T00:00:00 of a naive wall clock.
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int) (y, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

func weekdayOfDay(z int) int { return floorMod(z+4, 7) } // 1970-01-01 was a Thursday

func wallSecOf(t time.Time) int64 {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return int64(daysFromCivil(y, int(mo), d))*86400 + int64(h*3600+mi*60+s)
}

func wallTime(ws int64) time.Time { return time.Unix(ws, 0).UTC() }

// ParseWall reads a local wall time, "2006-01-02T15:04:05" or
// "2006-01-02T15:04", as a time.Time in UTC holding the wall clock.
func ParseWall(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a local wall time (want 2006-01-02T15:04:05 or 2006-01-02T15:04, no offset)", s)
}

// refusedParts are the RFC 5545 parts we do not evaluate, with what to use instead.
var refusedParts = map[string]string{
	"BYSECOND":  "BYSECOND is not supported: occurrences fall on whole minutes",
	"BYWEEKNO":  "BYWEEKNO is not supported: use BYMONTH with BYMONTHDAY or BYDAY",
	"BYYEARDAY": "BYYEARDAY is not supported: use BYMONTH with BYMONTHDAY",
	"BYEASTER":  "BYEASTER is not supported",
	"EXDATE":    "EXDATE is not supported: pause the job, or use startAt and endAt",
	"RDATE":     "RDATE is not supported: create a once job for the extra date",
	"EXRULE":    "EXRULE is not supported: narrow the rule with BYDAY, BYMONTHDAY or BYMONTH",
	"DTSTART":   "DTSTART does not belong in the rule: put it in schedule.dtstart (a local wall time)",
	"TZID":      "TZID does not belong in the rule: put the zone in schedule.timezone",
}

// parseRRuleParts parses the rule text. The error text is the rule broken,
// naming the part.
func parseRRuleParts(expr string) (p rruleParts, norm string, err error) {
	e := strings.TrimSpace(expr)
	if len(e) >= 6 && strings.EqualFold(e[:6], "RRULE:") {
		e = e[6:]
	}
	e = strings.TrimSuffix(e, ";")
	switch {
	case e == "":
		return p, "", fmt.Errorf("is empty (want parts such as FREQ=WEEKLY;BYDAY=TU;BYHOUR=10;BYMINUTE=0)")
	case len(e) > 300:
		return p, "", fmt.Errorf("longer than 300 characters")
	case strings.ContainsAny(e, "\r\n"):
		return p, "", fmt.Errorf("one RRULE line only (put the start in schedule.dtstart)")
	}
	p.interval, p.wkst = 1, 1
	p.given = map[string]string{}
	var names []string
	for _, part := range strings.Split(e, ";") {
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.ToUpper(strings.TrimSpace(name)), strings.ToUpper(strings.TrimSpace(val))
		if !ok || name == "" {
			return p, "", fmt.Errorf("part %q is not NAME=VALUE", part)
		}
		if why, refused := refusedParts[name]; refused {
			return p, "", fmt.Errorf("%s", why)
		}
		if _, dup := p.given[name]; dup {
			return p, "", fmt.Errorf("%s is given twice", name)
		}
		if val == "" {
			return p, "", fmt.Errorf("%s has no value", name)
		}
		p.given[name] = val
		names = append(names, name+"="+val)
		if err := p.setPart(name, val); err != nil {
			return p, "", err
		}
	}
	if _, ok := p.given["FREQ"]; !ok {
		return p, "", fmt.Errorf("FREQ is required (DAILY, WEEKLY, MONTHLY or YEARLY)")
	}
	if p.count > 0 && p.hasUntil {
		return p, "", fmt.Errorf("COUNT and UNTIL cannot both be given (RFC 5545); keep one")
	}
	if len(p.ord) > 0 && p.wdPlain != 0 {
		return p, "", fmt.Errorf("BYDAY mixes days with and without an ordinal (%s); use one kind", p.given["BYDAY"])
	}
	if len(p.ord) > 0 {
		if p.freq != freqMonthly && p.freq != freqYearly {
			return p, "", fmt.Errorf("BYDAY ordinals such as 1MO need FREQ=MONTHLY or FREQ=YEARLY")
		}
		lim := 5
		if p.freq == freqYearly && p.byMonth == 0 {
			lim = 53
		}
		for _, o := range p.ord {
			if o.n > lim || o.n < -lim {
				return p, "", fmt.Errorf("BYDAY ordinal %d is out of range (-%d to %d, not 0)", o.n, lim, lim)
			}
		}
	}
	if len(p.setPos) > 0 && len(p.given) == 1+countGiven(p.given, "INTERVAL", "COUNT", "UNTIL", "WKST", "BYSETPOS") {
		return p, "", fmt.Errorf("BYSETPOS needs another BY part to pick from (such as BYDAY=MO,TU,WE,TH,FR)")
	}
	return p, strings.Join(names, ";"), nil
}

func countGiven(given map[string]string, names ...string) int {
	n := 0
	for _, k := range names {
		if _, ok := given[k]; ok {
			n++
		}
	}
	return n
}

func (p *rruleParts) setPart(name, val string) error {
	list := func(lo, hi int, zero bool) ([]int, error) {
		var out []int
		for _, s := range strings.Split(val, ",") {
			n, err := strconv.Atoi(strings.TrimPrefix(s, "+"))
			if err != nil || n < lo || n > hi || (!zero && n == 0) {
				return nil, fmt.Errorf("%s value %q is not a number from %d to %d", name, s, lo, hi)
			}
			out = append(out, n)
		}
		return out, nil
	}
	switch name {
	case "FREQ":
		f, ok := freqNames[val]
		if !ok {
			switch val {
			case "SECONDLY", "MINUTELY", "HOURLY":
				return fmt.Errorf("FREQ=%s is not supported: use scheduleType interval (everySeconds) or a cron such as \"*/15 * * * *\"", val)
			}
			return fmt.Errorf("FREQ=%s is not DAILY, WEEKLY, MONTHLY or YEARLY", val)
		}
		p.freq = f
	case "INTERVAL":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 1000 {
			return fmt.Errorf("INTERVAL %q is not a number from 1 to 1000", val)
		}
		p.interval = n
	case "COUNT":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > maxCount {
			return fmt.Errorf("COUNT %q is not a number from 1 to %d", val, maxCount)
		}
		p.count = n
	case "UNTIL":
		u, utc, err := parseUntil(val)
		if err != nil {
			return err
		}
		p.hasUntil = true
		if utc {
			p.untilUTC = u
		} else {
			p.until = wallSecOf(u)
		}
	case "WKST":
		wd, ok := rruleDays[val]
		if !ok {
			return fmt.Errorf("WKST %q is not a day (MO, TU, WE, TH, FR, SA, SU)", val)
		}
		p.wkst = wd
	case "BYMONTH":
		ms, err := list(1, 12, false)
		if err != nil {
			return err
		}
		for _, m := range ms {
			p.byMonth |= 1 << m
		}
	case "BYMONTHDAY":
		ds, err := list(-31, 31, false)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if d > 0 {
				p.mdPos |= 1 << d
			} else {
				p.mdNeg |= 1 << -d
			}
		}
		p.hasMonthDay = true
	case "BYHOUR":
		hs, err := list(0, 23, true)
		if err != nil {
			return err
		}
		for _, h := range hs {
			p.byHour |= 1 << h
		}
	case "BYMINUTE":
		ms, err := list(0, 59, true)
		if err != nil {
			return err
		}
		for _, m := range ms {
			p.byMinute |= 1 << m
		}
	case "BYSETPOS":
		ps, err := list(-366, 366, false)
		if err != nil {
			return err
		}
		p.setPos = ps
	case "BYDAY":
		for _, s := range strings.Split(val, ",") {
			if len(s) < 2 {
				return fmt.Errorf("BYDAY value %q is not a day such as MO, 1MO or -1FR", s)
			}
			wd, ok := rruleDays[s[len(s)-2:]]
			if !ok {
				return fmt.Errorf("BYDAY value %q is not a day such as MO, 1MO or -1FR", s)
			}
			if num := s[:len(s)-2]; num == "" {
				p.wdPlain |= 1 << wd
			} else {
				n, err := strconv.Atoi(strings.TrimPrefix(num, "+"))
				if err != nil || n == 0 || n < -53 || n > 53 {
					return fmt.Errorf("BYDAY value %q: the ordinal must be 1 to 53 or -1 to -53", s)
				}
				p.ord = append(p.ord, ordDay{n, wd})
			}
		}
	default:
		return fmt.Errorf("%s is not a recurrence part we know (FREQ, INTERVAL, COUNT, UNTIL, WKST, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, BYHOUR, BYMINUTE)", name)
	}
	return nil
}

func parseUntil(v string) (time.Time, bool, error) {
	for _, l := range []struct {
		layout string
		utc    bool
	}{{"20060102T150405Z", true}, {"20060102T150405", false}, {"20060102", false}} {
		if t, err := time.Parse(l.layout, v); err == nil {
			return t, l.utc, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("UNTIL %q is not a date-time such as 20261231T235959 (local) or 20261231T235959Z (UTC)", v)
}

// maxCount bounds COUNT: the last occurrence is found once, by walking them.
const maxCount = 10000

// rruleSearchYears bounds a search for the next occurrence. A job's rule must
// fire within 10 years of its creation; after that the rarest (29 February
// on a Monday, every third year) can be 96 years apart.
const rruleSearchYears = 100

// rruleCache keeps bound rules: the fire loop builds a Spec each time a job
// fires, and a rule with COUNT walks its occurrences once when bound.
var rruleCache sync.Map // expr + "|" + dtstart -> *RRule

var rruleCacheLen atomic.Int64

// ParseRRule parses a recurrence rule (with or without an RRULE: prefix) and
// binds it to dtstart, a local wall time (ParseWall). The error text is the
// rule broken, naming the part.
func ParseRRule(expr string, dtstart time.Time) (*RRule, error) {
	key := expr + "|" + dtstart.Format(time.DateTime)
	if r, ok := rruleCache.Load(key); ok {
		return r.(*RRule), nil
	}
	p, norm, err := parseRRuleParts(expr)
	if err != nil {
		return nil, err
	}
	r := bindRRule(p, norm, wallSecOf(dtstart))
	if rruleCacheLen.Add(1) > cronCacheMax {
		rruleCache.Clear()
		rruleCacheLen.Store(0)
	}
	rruleCache.Store(key, r)
	return r, nil
}

func bindRRule(p rruleParts, norm string, dtstart int64) *RRule {
	r := &RRule{expr: norm, p: p, dtstart: dtstart}
	dd := int(floorDiv64(dtstart, 86400))
	sec := int(dtstart - int64(dd)*86400)
	y, m, d := civilFromDays(dd)
	// dateutil's defaults: with no day part, the day comes from DTSTART.
	if p.wdPlain == 0 && len(p.ord) == 0 && !p.hasMonthDay {
		switch p.freq {
		case freqYearly:
			if r.p.byMonth == 0 {
				r.p.byMonth = 1 << m
			}
			r.p.mdPos = 1 << d
		case freqMonthly:
			r.p.mdPos = 1 << d
		case freqWeekly:
			r.p.wdPlain = 1 << weekdayOfDay(dd)
		}
	}
	if r.p.byHour == 0 {
		r.p.byHour = 1 << (sec / 3600)
	}
	if r.p.byMinute == 0 {
		r.p.byMinute = 1 << (sec % 3600 / 60)
	}
	for h := range 24 {
		for mi := range 60 {
			if r.p.byHour&(1<<h) != 0 && r.p.byMinute&(1<<mi) != 0 {
				r.times = append(r.times, h*3600+mi*60+sec%60)
			}
		}
	}
	if p.freq == freqDaily && len(p.setPos) > 0 { // a day's set is its times
		r.times = pickPositions(r.times, p.setPos)
	}
	r.ordInYear = p.freq == freqYearly && r.p.byMonth == 0
	for w1 := range 7 {
		for wd := range 7 {
			if r.p.wdPlain&(1<<wd) != 0 {
				for day := 1 + floorMod(wd-w1, 7); day <= 31; day += 7 {
					r.plainMask[w1] |= 1 << day
				}
			}
		}
		for n := 28; n <= 31; n++ {
			for _, o := range p.ord {
				first := 1 + floorMod(o.wd-w1, 7)
				lastWd := floorMod(w1+n-1, 7)
				last := n - floorMod(lastWd-o.wd, 7)
				day := first + (o.n-1)*7
				if o.n < 0 {
					day = last + (o.n+1)*7
				}
				if day >= 1 && day <= n {
					r.ordMonth[w1][n-28] |= 1 << day
				}
			}
		}
	}
	if r.ordInYear {
		for jan1 := range 7 {
			for leap := range 2 {
				ylen := 365 + leap
				for _, o := range p.ord {
					doy := 1 + floorMod(o.wd-jan1, 7) + (o.n-1)*7
					if o.n < 0 {
						lastWd := floorMod(jan1+ylen-1, 7)
						doy = ylen - floorMod(lastWd-o.wd, 7) + (o.n+1)*7
					}
					if doy < 1 || doy > ylen {
						continue
					}
					yy := 2001 // a common year
					if leap == 1 {
						yy = 2000
					}
					_, mm, dd := civilFromDays(daysFromCivil(yy, 1, 1) + doy - 1)
					r.ordYear[jan1*2+leap][mm] |= 1 << dd
				}
			}
		}
	}
	r.d0 = dd
	r.y0 = y
	r.m0 = y*12 + m - 1
	r.w0 = dd - floorMod(weekdayOfDay(dd)-p.wkst, 7)
	if p.hasUntil && p.untilUTC.IsZero() {
		r.last, r.bounded = p.until, true
	}
	if p.count > 0 {
		w, n := dtstart, 0
		for {
			nw, ok := r.nextWall(w)
			if !ok {
				break
			}
			n++
			r.last = nw
			if n == p.count {
				break
			}
			w = nw + 1
		}
		if n == 0 {
			r.last = dtstart - 1 // never fires
		}
		r.bounded = true
	}
	return r
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// pickPositions returns the members of sorted set at the 1-based positions
// (negative from the end), ascending and without repeats, as BYSETPOS does.
func pickPositions(set []int, pos []int) []int {
	var out []int
	for _, p := range pos {
		i := p - 1
		if p < 0 {
			i = len(set) + p
		}
		if i >= 0 && i < len(set) {
			out = append(out, set[i])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// monthMask is the days of month m of year y that the day parts allow, bit d
// for day d; the period's INTERVAL is not applied.
func (r *RRule) monthMask(y, m int) uint32 {
	p := &r.p
	if p.byMonth != 0 && p.byMonth&(1<<m) == 0 {
		return 0
	}
	n := daysIn(y, m)
	mask := uint32(1)<<(n+1) - 2
	if p.mdPos|p.mdNeg != 0 {
		md := p.mdPos
		for neg := p.mdNeg; neg != 0; neg &= neg - 1 {
			k := bits.TrailingZeros32(neg)
			if k <= n {
				md |= 1 << (n + 1 - k)
			}
		}
		mask &= md
	}
	if p.wdPlain != 0 || len(p.ord) > 0 {
		w1 := weekday(y, m, 1)
		if p.wdPlain != 0 {
			mask &= r.plainMask[w1]
		} else if r.ordInYear {
			leap := 0
			if daysIn(y, 2) == 29 {
				leap = 1
			}
			mask &= r.ordYear[weekday(y, 1, 1)*2+leap][m]
		} else {
			mask &= r.ordMonth[w1][n-28]
		}
	}
	return mask
}

// intervalMask is the days of a month in an active DAILY or WEEKLY period.
func (r *RRule) intervalMask(y, m int) uint32 {
	k := r.p.interval
	if k == 1 || r.p.freq == freqYearly || r.p.freq == freqMonthly {
		return ^uint32(0)
	}
	base := daysFromCivil(y, m, 1)
	n := daysIn(y, m)
	var mask uint32
	if r.p.freq == freqDaily {
		for d := 1 + floorMod(r.d0-base, k); d <= n; d += k {
			mask |= 1 << d
		}
		return mask
	}
	for d := 1; d <= n; d++ {
		if floorMod(floorDiv(base+d-1-r.w0, 7), k) == 0 {
			mask |= 1 << d
		}
	}
	return mask
}

// nextWall returns the first occurrence at or after wall second from.
func (r *RRule) nextWall(from int64) (int64, bool) {
	if from < r.dtstart {
		from = r.dtstart
	}
	if r.bounded && from > r.last {
		return 0, false
	}
	if len(r.p.setPos) > 0 && r.p.freq != freqDaily {
		return r.nextWallSetPos(from)
	}
	fd := int(floorDiv64(from, 86400))
	fs := int(from - int64(fd)*86400)
	y, m, d := civilFromDays(fd)
	limit := y + rruleSearchYears
	for y <= limit {
		if r.bounded && int64(daysFromCivil(y, m, 1))*86400 > r.last {
			return 0, false
		}
		if skip := r.inactiveMonths(y, m); skip > 0 {
			y, m = addMonths(y, m, skip)
			d, fs = 1, 0
			continue
		}
		mask := r.monthMask(y, m) & r.intervalMask(y, m)
		mask &^= uint32(1)<<d - 1
		for ; mask != 0; mask &= mask - 1 {
			day := bits.TrailingZeros32(mask)
			base := int64(daysFromCivil(y, m, day)) * 86400
			for _, t := range r.times {
				if day == d && t < fs {
					continue
				}
				w := base + int64(t)
				if r.bounded && w > r.last {
					return 0, false
				}
				return w, true
			}
		}
		y, m = addMonths(y, m, 1)
		d, fs = 1, 0
	}
	return 0, false
}

// inactiveMonths is how many months from (y, m) lie outside the active
// MONTHLY or YEARLY periods (0 when (y, m) is in one).
func (r *RRule) inactiveMonths(y, m int) int {
	k := r.p.interval
	if k == 1 {
		return 0
	}
	switch r.p.freq {
	case freqMonthly:
		return floorMod(r.m0-(y*12+m-1), k)
	case freqYearly:
		if off := floorMod(r.y0-y, k); off > 0 {
			return off*12 - (m - 1)
		}
	}
	return 0
}

func addMonths(y, m, k int) (int, int) {
	i := y*12 + m - 1 + k
	return floorDiv(i, 12), floorMod(i, 12) + 1
}

// nextWallSetPos is nextWall for a MONTHLY, YEARLY or WEEKLY rule with
// BYSETPOS: positions count within each period's whole set of occurrences.
func (r *RRule) nextWallSetPos(from int64) (int64, bool) {
	fd := int(floorDiv64(from, 86400))
	y, m, _ := civilFromDays(fd)
	limit := y + rruleSearchYears
	nt := len(r.times)
	var days []int // day numbers of the period's set
	for y <= limit {
		days = days[:0]
		var next func()
		switch r.p.freq {
		case freqMonthly:
			if skip := r.inactiveMonths(y, m); skip > 0 {
				y, m = addMonths(y, m, skip)
				continue
			}
			days = appendMaskDays(days, y, m, r.monthMask(y, m))
			next = func() { y, m = addMonths(y, m, r.p.interval) }
		case freqYearly:
			if skip := r.inactiveMonths(y, 1); skip > 0 {
				y += skip / 12
				continue
			}
			for mm := 1; mm <= 12; mm++ {
				days = appendMaskDays(days, y, mm, r.monthMask(y, mm))
			}
			next = func() { y += r.p.interval }
		case freqWeekly:
			// The week holding fd, if active, else the next active one.
			wk := floorDiv(fd-r.w0, 7)
			wk += floorMod(-wk, r.p.interval)
			start := r.w0 + wk*7
			end := start + 7
			if start < r.d0 { // dateutil's first week begins at DTSTART's day
				start = r.d0
			}
			for z := start; z < end; z++ {
				yy, mm, dd := civilFromDays(z)
				if r.monthMask(yy, mm)&(1<<dd) != 0 {
					days = append(days, z)
				}
			}
			if len(days) == 0 {
				// Jump to the next week that holds an allowed day at all.
				z, ok := r.nextAllowedDay(r.w0 + wk*7 + 7)
				if !ok {
					return 0, false
				}
				fd = z
				y, m, _ = civilFromDays(fd)
				continue
			}
			next = func() {
				fd = r.w0 + (wk+r.p.interval)*7
				y, m, _ = civilFromDays(fd)
			}
		}
		if r.bounded && len(days) > 0 && int64(days[0])*86400 > r.last {
			return 0, false
		}
		n := len(days) * nt
		var picked []int
		for _, p := range r.p.setPos {
			i := p - 1
			if p < 0 {
				i = n + p
			}
			if i >= 0 && i < n {
				picked = append(picked, i)
			}
		}
		slices.Sort(picked)
		for _, i := range picked {
			w := int64(days[i/nt])*86400 + int64(r.times[i%nt])
			if w < from {
				continue
			}
			if r.bounded && w > r.last {
				return 0, false
			}
			return w, true
		}
		next()
	}
	return 0, false
}

func appendMaskDays(days []int, y, m int, mask uint32) []int {
	if mask == 0 {
		return days
	}
	base := daysFromCivil(y, m, 1) - 1
	for ; mask != 0; mask &= mask - 1 {
		days = append(days, base+bits.TrailingZeros32(mask))
	}
	return days
}

// nextAllowedDay is the first day number at or after z that the day parts
// allow, ignoring INTERVAL.
func (r *RRule) nextAllowedDay(z int) (int, bool) {
	y, m, d := civilFromDays(z)
	limit := y + rruleSearchYears
	for y <= limit {
		if mask := r.monthMask(y, m) &^ (uint32(1)<<d - 1); mask != 0 {
			return daysFromCivil(y, m, bits.TrailingZeros32(mask)), true
		}
		y, m = addMonths(y, m, 1)
		d = 1
	}
	return 0, false
}

// Next returns the first instant strictly after after at which r fires in
// loc: each occurrence is a wall time, mapped as a fixed-time cron's is (a
// time in a spring-forward gap fires at the jump, a repeated one once, at
// its first occurrence). ok is false when it never fires again.
func (r *RRule) Next(after time.Time, loc *time.Location) (time.Time, bool) {
	t, _, ok := r.next(after, loc)
	return t, ok
}

func (r *RRule) next(after time.Time, loc *time.Location) (time.Time, int64, bool) {
	// Start a little before after's wall time: near a DST change a wall time
	// earlier than after's can still resolve to a later instant.
	w := wallSecOf(after.In(loc).Add(-3 * time.Hour))
	for range 1000 {
		nw, ok := r.nextWall(w)
		if !ok {
			return time.Time{}, 0, false
		}
		if at := resolve(wallTime(nw), loc); at.After(after) {
			if !r.p.untilUTC.IsZero() && at.After(r.p.untilUTC) {
				return time.Time{}, 0, false
			}
			return at, nw, true
		}
		w = nw + 1
	}
	return time.Time{}, 0, false
}

// String is the rule as parsed: upper case, parts in the order written, no
// RRULE: prefix.
func (r *RRule) String() string { return r.expr }

// AnchorRRule returns the dtstart a rule gets when none is given: the wall
// time of its first occurrence after now in loc, as if INTERVAL were 1, so
// that "every other Tuesday" created on a Friday first fires the next
// Tuesday and INTERVAL and COUNT count from there. The clock fields the
// rule leaves out (BYHOUR, BYMINUTE) come from now, to the minute.
func AnchorRRule(expr string, loc *time.Location, now time.Time) (string, error) {
	p, norm, err := parseRRuleParts(expr)
	if err != nil {
		return "", err
	}
	p.interval, p.count, p.hasUntil, p.until, p.untilUTC = 1, 0, false, 0, time.Time{}
	provisional := wallSecOf(now.In(loc).Truncate(time.Minute))
	provisional -= floorMod64(provisional, 60)
	r := bindRRule(p, norm, provisional)
	_, w, ok := r.next(now, loc)
	if !ok {
		return "", fmt.Errorf("never fires after %s", now.UTC().Format(time.RFC3339))
	}
	return wallTime(w).Format("2006-01-02T15:04:05"), nil
}

func floorMod64(a, b int64) int64 { return a - floorDiv64(a, b)*b }
