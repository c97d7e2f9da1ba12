package rules

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

func itoa(n int) string { return strconv.Itoa(n) }

// readOrd reads the ordinal of "the first Monday": 1..5, -1 for last, -2
// for second to last.
func (p *parser) readOrd() (int, bool) {
	switch {
	case p.is(0, "second") && p.is(1, "to") && p.is(2, "last"):
		p.i += 3
		return -2, true
	case p.is(0, "second") && p.is(1, "-") && p.is(2, "to") && p.is(3, "-") && p.is(4, "last"):
		p.i += 5
		return -2, true
	case p.is(0, "penultimate"):
		p.i++
		return -2, true
	case p.is(0, "last", "final"):
		p.i++
		return -1, true
	}
	n := ordinal(p.s(0))
	if n < 1 || n > 31 {
		return 0, false
	}
	p.i++
	// "the 2nd to last", "the third-to-last", "the 4th last": counted
	// from the end
	switch {
	case p.is(0, "to") && p.is(1, "last"):
		p.i += 2
		return -n, true
	case p.is(0, "-") && p.is(1, "to") && p.is(2, "-") && p.is(3, "last"):
		p.i += 4
		return -n, true
	case p.is(0, "last") && n > 1:
		p.i++
		return -n, true
	}
	return n, true
}

// nthOK says why a position cannot be kept: a weekday comes at most 5
// times in a month, a business day at most 23, a day at most 31.
func nthOK(ords []int, counts counted) string {
	limit := 5
	switch counts {
	case businessDay:
		limit = 23
	case anyDay:
		limit = 28
	}
	for _, o := range ords {
		if o > limit || -o > limit {
			if counts == namedWeekday {
				return "A weekday comes at most 5 times in a month, so I can't count to that one. Try “the last Friday” or “the 2nd to last Friday”."
			}
			return "A month has at most " + itoa(limit) + " of those, counted from either end. Which day did you mean?"
		}
	}
	return ""
}

// pNth: "the first Monday of the month", "the last Friday of every month",
// "the last business day", "the last day of the month", "the fourth
// Thursday of November", "the 2nd Friday in February" (one date).
func (p *parser) pNth() bool {
	if p.is(0, "on", "at") {
		p.i++
	}
	if p.is(0, "the") {
		p.i++
	}
	ord, ok := p.readOrd()
	if !ok {
		return false
	}
	ords := []int{ord}
	for p.is(0, "and", ",", "&") {
		j := p.i
		p.i++
		if p.is(0, "the") {
			p.i++
		}
		o, ok := p.readOrd()
		if !ok {
			p.i = j
			break
		}
		ords = append(ords, o)
	}
	day := nth{counts: namedWeekday}
	switch {
	case p.is(0, "weekday", "workday") || p.is(0, "business", "working", "work", "biz") && p.is(1, "day"):
		day.counts = businessDay
		p.i++
		if p.s(-1) != "weekday" && p.s(-1) != "workday" {
			p.i++
		}
	case p.is(0, "day"):
		day.counts = anyDay
		p.i++
	default:
		d, plural, ok := p.readWeekday()
		if !ok || plural && !p.w.rec {
			return false
		}
		day.dow = d
	}
	if why := nthOK(ords, day.counts); why != "" {
		p.why = refusal(why)
		return false
	}
	// of the month / of every month / in November
	monthly, every, mon, thisYear := false, false, 0, false
	switch {
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "quarter") || p.is(0, "every", "each") && p.is(1, "quarter"):
		// "the first Monday of every quarter": its first month; "the
		// last day of each quarter": its last
		p.i += 3
		if p.s(-1) != "quarter" {
			p.i--
		}
		first, last := false, false
		for _, o := range ords {
			first, last = first || o > 0, last || o < 0
		}
		if first && last {
			p.why = askTime("The first or the last month of each quarter? Say one per schedule.")
			return false
		}
		qm := []int{1, 4, 7, 10}
		if last {
			qm = []int{3, 6, 9, 12}
		}
		if p.w.unit != "" && p.w.unit != "month" || len(p.w.months) > 0 {
			return false
		}
		p.w.rec, p.w.unit, p.w.n = true, "month", 1
		p.w.months = append(slices.Clip(p.w.months), qm...)
		monthly, every = true, true
	case p.is(0, "this", "next") && p.tk(1).kind == tWord && !monthPartAt(p, 1) && func() bool { _, ok := month(p.s(1)); return ok }(),
		p.is(0, "of", "in") && p.is(1, "this", "next") && func() bool { _, ok := month(p.s(2)); return ok }():
		// "the 4th Thursday this November": that month, once
		if p.is(0, "of", "in") {
			p.i++
		}
		p.i++
		mon, _ = p.readMonth()
		thisYear = p.s(-2) == "this"
	case p.is(0, "this", "next") && p.is(1, "month"), p.is(0, "of", "in") && p.is(1, "this", "next") && p.is(2, "month"):
		// "the 2nd Tuesday next month"
		if p.is(0, "of", "in") {
			p.i++
		}
		next := p.is(0, "next")
		p.i += 2
		m := int(p.now.Month())
		if next {
			m = m%12 + 1
		}
		mon, thisYear = m, !next
	case p.is(0, "of", "in") && p.is(1, "the") && p.is(2, "month"):
		monthly = true
		p.i += 3
	case p.is(0, "of") && p.is(1, "month"):
		monthly = true // "last fri of month"
		p.i += 2
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "month"):
		monthly, every = true, true
		p.i += 3
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "other") && p.is(3, "month"):
		monthly, every = true, true
		p.i += 4
		if !p.recurUnit("month", 2) {
			return false
		}
	case p.is(0, "every", "each") && p.is(1, "month"), p.is(0, "monthly"):
		monthly, every = true, true
		p.i += 2
		if p.s(-1) == "every" || p.s(-1) == "monthly" {
			p.i--
		}
	case p.is(0, "of", "in"):
		j := p.i
		p.i++
		m, ok := p.readMonth()
		if !ok {
			p.i = j
			break
		}
		mon = m
	}
	if day.counts == anyDay && ord > 0 && mon == 0 && !monthly && !p.w.rec {
		return false // "the first day": of what?
	}
	if mon != 0 && !p.w.rec && !every && yearlyAhead(p) {
		p.w.rec = true // "the fourth Thursday of November every year"
	}
	if mon != 0 && !p.w.rec && !every {
		if len(ords) > 1 {
			return false
		}
		// one date: the next such day in that month
		day.ord = ord
		d, ok := nthDate(p.now, mon, day)
		if !ok {
			return false
		}
		if thisYear && d.y != p.now.Year() {
			p.why = refusal("That day has passed this year. Which date did you mean?")
			return false
		}
		return p.addDate(d, false)
	}
	if !monthly && !p.w.rec && mon == 0 {
		return false
	}
	p.w.rec = true
	if mon != 0 {
		if p.w.unit == "" || p.w.unit == "month" && p.w.n == 1 {
			p.w.unit, p.w.n = "year", 1
		}
		p.w.months = append(slices.Clip(p.w.months), mon)
	} else if p.w.unit == "" {
		p.w.unit, p.w.n = "month", 1
	}
	for _, o := range ords {
		if day.counts == anyDay && o > 0 {
			p.w.doms = append(slices.Clip(p.w.doms), o)
			continue
		}
		p.w.nths = append(slices.Clip(p.w.nths), nth{ord: o, counts: day.counts, dow: day.dow})
	}
	return true
}

// yearlyAhead: "every year" or "annually" later in the block.
func yearlyAhead(p *parser) bool {
	for k := p.i; k < len(p.t); k++ {
		if p.t[k].s == "annually" || p.t[k].s == "yearly" || (p.t[k].s == "every" || p.t[k].s == "each") && k+1 < len(p.t) && p.t[k+1].s == "year" {
			return true
		}
	}
	return false
}

// nthDate is the next date (from now) that is day in month m.
func nthDate(now time.Time, m int, day nth) (ymd, bool) {
	for y := now.Year(); y <= now.Year()+1; y++ {
		days := nthDays(y, m, day)
		if len(days) == 0 {
			continue
		}
		d := days[0]
		if !time.Date(y, time.Month(m), d, 23, 59, 0, 0, now.Location()).Before(now) {
			return ymd{y: y, m: m, d: d}, true
		}
	}
	return ymd{}, false
}

// nthDays: the day of month that is day in y-m; none when there is no
// such day (no fifth Monday).
func nthDays(y, m int, day nth) []int {
	ord := day.ord
	n := daysIn(m, y)
	var match []int
	for d := 1; d <= n; d++ {
		wd := int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Weekday())
		if day.counts == anyDay || day.counts == businessDay && wd >= 1 && wd <= 5 || day.counts == namedWeekday && day.dow == wd {
			match = append(match, d)
		}
	}
	switch {
	case ord > 0 && ord <= len(match):
		return []int{match[ord-1]}
	case ord < 0 && -ord <= len(match):
		return []int{match[len(match)+ord]}
	}
	return nil
}

// pMonthStartEnd: "at the start of every month", "the beginning of the
// month", "at the end of each month", "end of month".
func (p *parser) pMonthStartEnd() bool {
	if p.is(0, "at", "on", "by") {
		p.i++
	}
	if p.is(0, "the") {
		p.i++
	}
	first := false
	switch {
	case p.is(0, "start", "beginning", "begining"):
		first = true
	case p.is(0, "end"):
	default:
		return false
	}
	p.i++
	if !p.is(0, "of") {
		return false
	}
	p.i++
	every := false
	switch {
	case p.is(0, "every", "each") && p.is(1, "month"):
		every = true
		p.i += 2
	case p.is(0, "the") && p.is(1, "month"):
		p.i += 2
	case p.is(0, "month"):
		p.i++
	case p.is(0, "every", "each") && p.is(1, "other") && p.is(2, "month"):
		every = true
		p.i += 3
		if !p.recurUnit("month", 2) {
			return false
		}
	default:
		return false
	}
	if !every && !p.w.rec {
		// once: the next first or last day
		if first {
			t := time.Date(p.now.Year(), p.now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
			return p.addDate(ymd{y: t.Year(), m: int(t.Month()), d: 1}, false)
		}
		y, m := p.now.Year(), int(p.now.Month())
		return p.addDate(ymd{y: y, m: m, d: daysIn(m, y)}, false)
	}
	p.w.rec = true
	if p.w.unit == "" {
		p.w.unit, p.w.n = "month", 1
	}
	if first {
		p.w.doms = append(slices.Clip(p.w.doms), 1)
	} else {
		p.w.nths = append(slices.Clip(p.w.nths), nth{ord: -1, counts: anyDay})
	}
	return true
}

// readDate reads a calendar date: "Dec 3", "December 3rd, 2027", "3 Dec",
// "the 3rd of December", "2026-12-03", "7/13", "25.12". It does not take
// "on". clock is set when the date carried one (ISO).
func (p *parser) readDate() (d ymd, clock *clk, ok bool) {
	start := p.i
	t := p.tk(0)
	if t.kind == tNum {
		// ISO
		if len(t.s) >= 10 && t.s[4] == '-' && t.s[7] == '-' {
			y, m, dd := number(t.s[:4]), number(t.s[5:7]), number(t.s[8:10])
			p.i++
			if len(t.s) >= 16 {
				h, mi := number(t.s[11:13]), number(t.s[14:16])
				if len(t.s) >= 19 && t.s[16] == ':' && t.s[17:19] != "00" {
					p.why = refusal("I schedule to the minute; seconds in a time (like 9:00:30) aren't supported.")
					p.i = start
					return ymd{}, nil, false
				}
				if strings.HasSuffix(t.s, "z") {
					p.w.zone = "UTC"
				}
				clock = &clk{h: h, m: mi, zero: true}
			}
			return ymd{y: y, m: m, d: dd}, clock, true
		}
		if strings.Count(t.s, "/") >= 1 && !strings.ContainsAny(t.s, ":.") && isDigitsSlash(t.s) {
			parts := strings.Split(t.s, "/")
			if len(parts) > 3 {
				return ymd{}, nil, false
			}
			a, b := number(parts[0]), number(parts[1])
			y := 0
			if len(parts) == 3 {
				y = number(parts[2])
				if y < 100 {
					y += 2000
				}
			}
			p.i++
			switch {
			case a == b && a >= 1 && a <= 12:
				return ymd{y: y, m: a, d: b}, nil, true
			case a > 12 && b >= 1 && b <= 12:
				return ymd{y: y, m: b, d: a}, nil, true
			case b > 12 && a >= 1 && a <= 12:
				return ymd{y: y, m: a, d: b}, nil, true
			case a >= 1 && a <= 12 && b >= 1 && b <= 12:
				p.w.vague = parts[0] + "/" + parts[1]
				p.w.vagueQ = "Is " + p.w.vague + " the " + dmText(a, b) + " or the " + dmText(b, a) + "? Write the month's name (" + time.Month(a).String()[:3] + " " + itoa(b) + ") or an ISO date."
				return ymd{y: y, m: a, d: b}, nil, true
			}
			p.why = refusal("I couldn't read " + t.s + " as a date: neither part is a month. Try “Jul 13” or 2027-07-13.")
			p.i = start
			return ymd{}, nil, false
		}
		if strings.Count(t.s, ".") >= 1 && isDigitsDot(t.s) && (p.s(-1) == "on" || strings.Count(t.s, ".") == 2 || dotDayFirst(t.s)) {
			parts := strings.Split(t.s, ".")
			dd, m := number(parts[0]), number(parts[1])
			y := 0
			if len(parts) == 3 {
				y = number(parts[2])
				if y < 100 {
					y += 2000
				}
			}
			switch {
			case m < 1 || m > 12 || dd < 1:
				return ymd{}, nil, false
			case dd <= 12 && dd != m:
				p.i++
				p.w.vague = parts[0] + "." + parts[1]
				p.w.vagueQ = "Is " + p.w.vague + " the " + dmText(dd, m) + " or the " + dmText(m, dd) + "? Write the month's name or an ISO date."
				return ymd{y: y, m: m, d: dd}, nil, true
			}
			p.i++
			return ymd{y: y, m: m, d: dd}, nil, true
		}
	}
	// month first: Dec 3, December 3rd 2027, December the 3rd
	if m, ok := p.readMonth(); ok {
		if p.is(0, "the") && ordinal(p.s(1)) > 0 {
			p.i++
		}
		if dd, ok := p.readDayOfMonth(true); ok {
			return ymd{y: p.readDateYear(), m: m, d: dd}, nil, true
		}
		p.i = start
		return ymd{}, nil, false
	}
	// day first: 3 Dec, 3rd of December, the 3rd of December
	if p.is(0, "the") {
		p.i++
	}
	if dd, ok := p.readDayOfMonth(true); ok {
		if p.is(0, "of") {
			p.i++
		}
		if m, ok := p.readMonth(); ok {
			if j := p.i; (p.is(0, ",", "and", "&", "/") || p.is(0, ",") && p.is(1, "and")) && func() bool {
				// "the 1st of Jan, Apr and Jul": a list of months, read
				// by pDomList
				p.i++
				if p.is(0, "and") {
					p.i++
				}
				_, ok := p.readMonth()
				p.i = j
				return ok
			}() {
				p.i = start
				return ymd{}, nil, false
			}
			return ymd{y: p.readDateYear(), m: m, d: dd}, nil, true
		}
	}
	p.i = start
	return ymd{}, nil, false
}

// readDateYear reads the year that may follow a date (", 2027"); 0 when
// none does.
func (p *parser) readDateYear() int {
	j := p.i
	if p.is(0, ",") {
		p.i++
	}
	if y, ok := p.readYear(); ok {
		return y
	}
	p.i = j
	return 0
}

func isDigitsSlash(s string) bool {
	return strings.Trim(s, "0123456789/") == "" && !strings.HasPrefix(s, "/") && !strings.HasSuffix(s, "/") && !strings.Contains(s, "//")
}

// dotDayFirst: "25.12" can only be the 25th of December.
func dotDayFirst(s string) bool {
	a, b, _ := strings.Cut(s, ".")
	d, m := number(a), number(b)
	return len(b) <= 2 && d > 12 && d <= 31 && m >= 1 && m <= 12
}

func isDigitsDot(s string) bool {
	return strings.Trim(s, "0123456789.") == "" && !strings.Contains(s, "..")
}

func dmText(m, d int) string {
	if m < 1 || m > 12 {
		return itoa(m) + "/" + itoa(d)
	}
	return scheduler.Ordinal(d) + " of " + time.Month(m).String()
}

// pDate: a calendar date, "on" optional, with a list ("on Jun 5 and Jul 9"
// is read as two phrases).
func (p *parser) pDate() bool {
	if p.is(0, "on") {
		p.i++
	}
	d, c, ok := p.readDate()
	if !ok {
		return false
	}
	if d.y != 0 && (d.y < p.now.Year() || d.y > p.now.Year()+10) {
		p.why = refusal("That date is not within the next 10 years.")
		return false
	}
	if c != nil {
		p.w.clocks = append(slices.Clip(p.w.clocks), *c)
	}
	// a list of m/d dates in a recurrence: every 2/14 and 8/14
	if p.w.rec && d.y == 0 {
		nm, nd := len(p.w.months), len(p.w.doms)
		if !p.addDate(d, true) {
			return false
		}
		return p.dateList(d, nm, nd)
	}
	return p.addDate(d, false)
}

// slashDates reads "2/14 and 8/14" after "every": yearly dates.
func (p *parser) slashDates(recurring bool) bool {
	for {
		d, _, ok := p.readDate()
		if !ok || p.w.vague != "" {
			return false
		}
		if d.d > daysIn(d.m, 0) {
			p.why = refusal(impossibleDate(d))
			return false
		}
		if !p.addDateList(d) {
			return false
		}
		if p.is(0, "and", ",", "&") && strings.Contains(p.s(1), "/") {
			p.i++
			continue
		}
		return true
	}
}

// addDateList adds a yearly date that may differ in month from the ones
// already read: each (month, day) pair must fire and nothing else, so
// dates in several months are only kept when their days agree.
func (p *parser) addDateList(d ymd) bool {
	p.w.rec = true
	if p.w.unit == "" {
		p.w.unit, p.w.n = "year", 1
	}
	p.w.dates = append(slices.Clip(p.w.dates), ymd{m: d.m, d: d.d})
	return true
}

// pDomList: "on the 1st and 15th", "the 15th of every month", "on day 10
// of each month", "the 5th and 20th of June", "every 25th".
func (p *parser) pDomList() bool {
	start := p.i
	on := false
	if p.is(0, "on") {
		p.i++
		on = true
	}
	the := false
	if p.is(0, "the") {
		p.i++
		the = true
	}
	var doms []int
	if p.is(0, "day") && p.tk(1).kind == tNum {
		p.i++
		d, ok := p.readDayOfMonth(true)
		if !ok {
			return false
		}
		doms = append(doms, d)
		the = true
	}
	for len(doms) == 0 || p.is(0, "and", ",", "&") {
		if len(doms) > 0 {
			j := p.i
			p.i++
			if p.is(0, "and") {
				p.i++
			}
			if p.is(0, "the") {
				p.i++
			}
			if _, ok := p.peekDom(); !ok {
				p.i = j
				break
			}
		}
		d, ok := p.readDayOfMonth(false)
		if !ok {
			p.i = start
			return false
		}
		doms = append(doms, d)
		// the 10th through the 12th
		if p.is(0, "through", "thru", "to", "-", "till", "until") {
			j := p.i
			p.i++
			if p.is(0, "the") {
				p.i++
			}
			if e, ok := p.readDayOfMonth(false); ok && e > d && e <= 31 {
				for x := d + 1; x <= e; x++ {
					doms = append(doms, x)
				}
			} else {
				p.i = j
			}
		}
	}
	for _, d := range doms {
		if d < 1 || d > 31 {
			p.why = refusal("There is no day " + itoa(d) + " in a month. Which day did you mean?")
			return false
		}
	}
	every, months, monthly := false, []int(nil), false
	switch {
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "month"):
		p.i += 3
		every = true
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "other") && p.is(3, "month"):
		p.i += 4
		every = true
		if !p.recurUnit("month", 2) {
			return false
		}
	case p.is(0, "of", "in") && p.is(1, "the") && p.is(2, "month"):
		p.i += 3
		monthly = true
	case p.is(0, "of") && p.is(1, "month"):
		p.i += 2
		every = true // "every 1st of month"
	case p.is(0, "every", "each") && p.is(1, "month"):
		p.i += 2
		every = true
	case p.is(0, "monthly"):
		p.i++
		every = true
	case p.is(0, "of", "in"):
		j := p.i
		p.i++
		ms, ok := p.readMonthList()
		if !ok {
			p.i = j
		}
		months = ms
	case p.tk(0).kind == tWord && !p.is(0, "may", "march") || p.is(0, "may", "march") && (p.i+1 == len(p.t) || p.is(1, "at", "and", ",", "every", "each")):
		// "every 22nd February": the month with no "of"
		j := p.i
		if ms, ok := p.readMonthList(); ok {
			months = ms
		} else {
			p.i = j
		}
	}
	if start > 0 && p.t[start-1].s == "monthly" && p.w.unit == "month" && len(months) == 0 {
		every = true // "monthly 14th"
	}
	if !on && !the && !every && !monthly && len(months) == 0 && (start == 0 || !slices.Contains([]string{"every", "each", "evry"}, p.t[start-1].s)) {
		p.i = start
		return false
	}
	if every || monthly && p.w.rec {
		p.w.rec = true
		if p.w.unit == "" {
			p.w.unit, p.w.n = "month", 1
		}
	}
	for _, m := range months {
		for _, d := range doms {
			if d > daysIn(m, 0) {
				p.why = refusal(impossibleDate(ymd{m: m, d: d}))
				return false
			}
		}
	}
	switch {
	case p.w.rec:
		if len(months) > 0 && p.w.unit == "" {
			p.w.unit, p.w.n = "year", 1
		}
	case len(doms) == 1 && len(months) <= 1:
		// one date: the next such day
		if len(months) == 1 {
			return p.addDate(ymd{m: months[0], d: doms[0]}, false)
		}
		p.w.domOnce = true
	case len(months) > 1:
		// "on the 1st of Jan, Apr, Jul and Oct": a date in several
		// months is a yearly pattern
		p.w.rec = true
		if p.w.unit == "" {
			p.w.unit, p.w.n = "year", 1
		}
	case len(months) > 0:
		// "on the 5th and 20th of June": those dates, once each
		p.w.multiOnce = true
	default:
		// "on the 1st and 15th": monthly
		p.w.rec = true
		if p.w.unit == "" {
			p.w.unit, p.w.n = "month", 1
		}
	}
	p.w.doms = append(slices.Clip(p.w.doms), doms...)
	p.w.months = append(slices.Clip(p.w.months), months...)
	return true
}

// pDayRange: "from Monday to Thursday", "between Monday and Friday".
func (p *parser) pDayRange() bool {
	if !p.is(0, "from", "between") {
		return false
	}
	p.i++
	a, _, ok := p.readWeekday()
	if !ok || !p.is(0, "to", "through", "thru", "until", "till", "and", "-") {
		return false
	}
	p.i++
	b, _, ok := p.readWeekday()
	if !ok {
		return false
	}
	var days []int
	for x := a; ; x = (x + 1) % 7 {
		days = append(days, x)
		if x == b {
			break
		}
	}
	return p.addDows(days, true)
}

// pDays: "on Monday", "Mondays", "on mon, wed and fri", "every weekday" is
// in pEvery; "next Friday", "this Friday", "weekdays", "on weekends".
func (p *parser) pDays() bool {
	start := p.i
	next := false
	if p.is(0, "on") && p.is(1, "next", "this", "coming", "upcoming") {
		p.i++ // "on this coming Monday"
	}
	switch {
	case p.is(0, "next", "this", "coming", "upcoming") || p.is(0, "this") && p.is(1, "coming"):
		if _, _, ok := weekday(p.s(1)); ok || p.is(1, "coming") {
			next = p.is(0, "next")
			p.i++
			if p.is(0, "coming") {
				p.i++
			}
			d, plural, ok := p.readWeekday()
			if !ok || plural {
				p.i = start
				return false
			}
			if p.w.dateAny || p.w.hasDay {
				return false
			}
			p.w.dows = append(slices.Clip(p.w.dows), d)
			p.w.wdOnce, p.w.wdNext, p.w.dateAny = true, next, true
			p.dayPartAfterDay()
			return true
		}
	}
	on := false
	if p.is(0, "on", "every", "each") {
		on = true
		p.i++
	}
	if p.is(0, "alternate", "alternating") {
		// "on alternate Mondays": every other week
		p.i++
		days, plural, ok := p.readDayList()
		if !ok || !plural && len(days) == 1 && !p.is(-2, "every") {
			p.i = start
			return false
		}
		if !p.recurUnit("week", 2) {
			return false
		}
		return p.addDows(days, true)
	}
	if p.is(0, "the") && p.is(1, "weekend", "weekends") {
		p.i++
	}
	switch {
	case p.is(0, "weekdays") && p.is(1, "only"):
		p.i += 2
		return p.addDows([]int{1, 2, 3, 4, 5}, true)
	case p.is(0, "weekdays") || p.is(0, "business", "working", "work") && p.is(1, "days") || p.is(0, "workdays"):
		p.i++
		if p.s(-1) != "weekdays" && p.s(-1) != "workdays" {
			p.i++
		}
		ok := p.addDows([]int{1, 2, 3, 4, 5}, true)
		p.dayPartAfterDay()
		return ok
	case p.is(0, "weekends"):
		p.i++
		ok := p.addDows([]int{0, 6}, true)
		p.dayPartAfterDay()
		return ok
	case p.is(0, "weekday", "weekend") && p.is(1, "mornings", "afternoons", "evenings", "nights"):
		// "weekday mornings at 8"
		days := []int{1, 2, 3, 4, 5}
		if p.is(0, "weekend") {
			days = []int{0, 6}
		}
		p.i++
		ok := p.addDows(days, true)
		p.dayPartAfterDay()
		return ok
	case on && p.is(0, "weekdays", "weekday"):
		p.i++
		return p.addDows([]int{1, 2, 3, 4, 5}, true)
	case on && p.is(0, "weekend") && p.s(-1) != "the":
		p.i++
		return p.addDows([]int{0, 6}, true)
	}
	days, plural, ok := p.readDayList()
	if !ok {
		p.i = start
		return false
	}
	if (p.w.dowsEv || p.w.wdOnce) && slices.Equal(uniq(days), uniq(p.w.dows)) && (plural || len(days) > 1 || p.w.dowsEv) {
		// the same days said twice: "every friday … on fridays"
		p.w.rec, p.w.dowsEv, p.w.wdOnce = true, true, false
		p.dayPartAfterDay()
		return true
	}
	if !plural && len(days) == 1 && (p.w.dowsEv || p.w.wdOnce) {
		return false // "every monday at 9 tuesday": which?
	}
	if (plural || len(days) > 1) && (p.w.wdOnce || p.w.dowsEv) {
		return false // "every weekday at 9am on sundays": which days?
	}
	p.w.dows = append(slices.Clip(p.w.dows), days...)
	if plural || len(days) > 1 {
		// a one-time post can't be on two days: "mon and wed at 2pm",
		// "monday through friday" repeat every week
		p.w.rec, p.w.dowsEv = true, true
	} else {
		p.w.wdOnce = true
	}
	p.dayPartAfterDay()
	return true
}

// dayPartAfterDay: "Monday morning(s)", "weekday mornings".
func (p *parser) dayPartAfterDay() {
	if p.is(0, "morning", "afternoon", "evening", "night", "mornings", "afternoons", "evenings", "nights") {
		if strings.HasSuffix(p.s(0), "s") {
			p.w.rec, p.w.dowsEv = true, true
		}
		p.setPart(strings.TrimSuffix(p.s(0), "s"))
		p.i++
	}
}

// pMonths: "in April", "during April and May", "April through June",
// "from April to June", "between April and June".
func (p *parser) pMonths() bool {
	start := p.i
	kw := p.s(0)
	if p.is(0, "in", "during", "for", "from", "between", "throughout", "only") {
		p.i++
		if kw == "only" && p.is(0, "in", "during") {
			p.i++
		}
	} else {
		kw = ""
	}
	if p.is(0, "the") && p.is(1, "month", "months") && p.is(2, "of") {
		p.i += 3
	}
	save := p.i
	ms, ok := p.readMonthList()
	if !ok {
		p.i = start
		return false
	}
	if kw == "" && len(ms) < 2 {
		p.i = start
		return false // a bare month name, like "may", is not a limit
	}
	if (kw == "from" || kw == "between") && p.i-save < 3 {
		p.i = start
		return false
	}
	if y, ok := p.readYear(); ok {
		_ = y
		p.i = start
		return false // "in December 2026": which day?
	}
	p.w.months = append(slices.Clip(p.w.months), ms...)
	p.w.monthLimit = true
	return true
}

// pCasualDay: today, tomorrow, the day after tomorrow; next week and this
// weekend are asked about.
func (p *parser) pCasualDay() bool {
	if p.is(0, "on") {
		return false
	}
	switch {
	case p.is(0, "today"):
		p.i++
		return p.setDay(0)
	case p.is(0, "tomorrow", "tmr", "tmrw"):
		p.i++
		if p.is(0, "morning", "afternoon", "evening", "night") {
			p.setPart(p.s(0))
			p.i++
		}
		return p.setDay(1)
	case (p.is(0, "the") && p.is(1, "day") && p.is(2, "after") && p.is(3, "tomorrow")) || (p.is(0, "day") && p.is(1, "after") && p.is(2, "tomorrow")):
		if p.is(0, "the") {
			p.i++
		}
		p.i += 3
		return p.setDay(2)
	case p.is(0, "next", "this") && p.is(1, "week", "weekend", "month", "year"),
		p.is(0, "later") && p.is(1, "this", "today") || p.is(0, "some") && p.is(1, "day", "time"):
		p.w.vague = p.s(0) + " " + p.s(1)
		p.w.vagueQ = "Which day and time exactly? For example “next Monday at 9am”."
		p.i += 2
		if p.s(-1) == "this" && p.is(0, "week") {
			p.i++
		}
		return true
	}
	return false
}

func (p *parser) setDay(rel int) bool {
	if p.w.hasDay || p.w.date != nil || p.w.wdOnce && len(p.w.dows) > 1 {
		return false
	}
	p.w.hasDay, p.w.dayRel, p.w.dateAny = true, rel, true
	return true
}

// pRelative: "in 2 hours", "in 1.5 hours", "in 2h", "in 1d 3h 10min",
// "in half an hour", "in an hour and a half", "2 hours from now".
func (p *parser) pRelative() bool {
	start := p.i
	in := p.is(0, "in", "within", "after")
	if in {
		p.i++
	}
	var total float64
	days := false
	items := 0
	for {
		if s := compactDuration(p.s(0)); s > 0 && p.tk(0).kind == tNum {
			total += s
			p.i++
			items++
		} else {
			j := p.i
			amt, ok := p.readAmount()
			if !ok {
				p.i = j
				break
			}
			u := p.readUnit()
			if u == "" || u == "month" || u == "year" {
				p.i = j
				break
			}
			if u == "day" || u == "week" || u == "fortnight" {
				days = true
			}
			total += amt * unitSeconds[u]
			items++
			if p.is(0, "and") && p.is(1, "a") && p.is(2, "half") {
				total += unitSeconds[u] / 2
				p.i += 3
			}
		}
		if p.is(0, "and", ",") {
			j := p.i
			p.i++
			if s := compactDuration(p.s(0)); s > 0 || number(p.s(0)) >= 0 || p.is(0, "a", "an") {
				continue
			}
			p.i = j
		}
		if compactDuration(p.s(0)) > 0 && p.tk(0).kind == tNum {
			continue
		}
		if number(p.s(0)) > 0 && unit(p.s(1)) != "" && len(p.s(1)) > 1 {
			continue // "2 hours 30 minutes"
		}
		break
	}
	if items == 0 {
		p.i = start
		return false
	}
	fromNow := false
	if p.is(0, "from") && p.is(1, "now") {
		p.i += 2
		fromNow = true
	} else if p.is(0, "from") && p.is(1, "today", "tomorrow") && days && !in {
		// "a week from today": a day, at a time said
		if p.is(1, "tomorrow") {
			total += 86400
		}
		p.i += 2
		fromNow = true
	} else if p.is(0, "later", "hence") {
		p.i++ // "20 minutes hence"
		fromNow = true
	}
	if !in && !fromNow {
		p.i = start
		return false
	}
	if total < 60 && total > 0 {
		p.why = refusal("That is less than a minute away; I schedule at least a minute ahead.")
	}
	if p.w.hasRel || p.w.dateAny || total <= 0 || total > 10*366*86400 || total != float64(int64(total)) {
		return false
	}
	if days && float64(int64(total/86400))*86400 == total {
		// in 2 days: that day, at a time said or now's time
		p.w.relDays = int(total / 86400)
	}
	p.w.rel, p.w.hasRel, p.w.dateAny = time.Duration(total)*time.Second, true, true
	return true
}

// pFor: "for 3 weeks", "for the next 10 minutes", "for a month", "for the
// rest of the year".
func (p *parser) pFor() bool {
	if !p.is(0, "for") {
		return false
	}
	p.i++
	if p.is(0, "the") {
		p.i++
	}
	if p.is(0, "rest") && p.is(1, "of") && p.is(2, "the", "this") && p.is(3, "year", "month", "week") {
		u := p.s(3)
		p.i += 4
		return p.setUntil(endOf(p.now, u), true)
	}
	next := p.is(0, "next", "following", "coming")
	if next {
		p.i++
	}
	n, ok := p.readNumber(true)
	if !ok && next && unit(p.s(0)) != "" {
		n, ok = 1, true // "for the next month"
	}
	if !ok {
		return false
	}
	switch u := p.readUnit(); u {
	case "month", "year":
		if n <= 0 {
			p.why = refusal("That leaves no time to run. For how long should it run?")
			return false
		}
		if u == "year" {
			return p.setUntil(p.now.AddDate(n, 0, 0).Add(time.Second), false)
		}
		return p.setUntil(p.now.AddDate(0, n, 0).Add(time.Second), false)
	case "minute", "hour", "day", "week", "fortnight":
		if n <= 0 {
			p.why = refusal("That leaves no time to run. For how long should it run?")
			return false
		}
		if p.w.span != 0 {
			return false
		}
		p.w.span = time.Duration(float64(n)*unitSeconds[u]) * time.Second
		return true
	}
	if p.is(0, "times", "occurrences", "runs", "weeks'") {
		p.i++
		return p.setCount(n)
	}
	if d, plural, ok := p.readWeekday(); ok && plural {
		// "for 3 Fridays": that many of them
		if len(p.w.dows) > 0 && !slices.Contains(p.w.dows, d) {
			return false
		}
		return p.setCount(n)
	}
	return false
}

func endOf(now time.Time, u string) time.Time {
	switch u {
	case "year":
		return time.Date(now.Year()+1, 1, 1, 0, 0, 0, 0, now.Location())
	case "month":
		return time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, now.Location())
	}
	days := (8 - int(now.Weekday())) % 7
	if days == 0 {
		days = 7
	}
	y, m, d := now.AddDate(0, 0, days).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

// pCount: "5 times", "twice", "once" (not "once a week").
func (p *parser) pCount() bool {
	n := 0
	switch {
	case p.is(0, "once", "twice", "thrice"):
		n = map[string]int{"once": 1, "twice": 2, "thrice": 3}[p.s(0)]
		p.i++
	default:
		v, ok := p.readNumber(false)
		if !ok || !p.is(0, "times", "x") {
			return false
		}
		n = v
		p.i++
		if p.is(0, "total", "in", "only") && !p.is(1, "a", "an", "the") {
			p.i++
		}
	}
	if p.is(0, "a", "an", "per", "every", "each") {
		return false // a frequency: pTimesPer
	}
	if p.is(0, "more") {
		p.i++
	}
	return p.setCount(n)
}

func (p *parser) setCount(n int) bool {
	if n <= 0 || n > 10000 {
		p.why = refusal("I can count from 1 to 10,000 runs.")
		return false
	}
	if p.w.count != 0 {
		return false
	}
	p.w.count = n
	return true
}

func (p *parser) setUntil(t time.Time, isDay bool) bool {
	if p.w.until != nil {
		return false
	}
	p.w.until = &bound{at: t, isDay: isDay}
	return true
}

// pUntil: "until March" (ends when March begins), "until the end of March",
// "through March" (March included), "until Friday" (Friday included),
// "until 2026-12-31", "until next week", "until the end of the year".
func (p *parser) pUntil() bool {
	start := p.i
	through := false
	switch {
	case p.is(0, "until", "till", "til", "'til", "untill", "ending", "ends", "end"):
		if p.is(0, "end", "ends", "ending") {
			p.i++
			if !p.is(0, "on", "in", "by", "after") {
				p.i = start
				return false
			}
		}
	case p.is(0, "through", "thru", "throughout"):
		through = true
	case p.is(0, "up") && p.is(1, "to", "until"):
		p.i++
	case p.is(0, "stop", "stopping") && p.is(1, "on", "in", "after", "at"):
		p.i++
	default:
		return false
	}
	p.i++
	if p.is(0, "and") && p.is(1, "including") {
		through = true
		p.i += 2
	}
	if p.is(0, "the") && p.is(1, "end") && p.is(2, "of") || p.is(0, "end") && p.is(1, "of") {
		through = true
		if p.is(0, "the") {
			p.i++
		}
		p.i += 2
	}
	t, kind, ok := p.readBoundDate()
	if !ok {
		p.i = start
		return false
	}
	switch kind {
	case "month":
		if through {
			t = t.AddDate(0, 1, 0)
		}
	case "year":
		if through {
			t = t.AddDate(1, 0, 0)
		}
	case "week":
		// "until next week": through the end of next week
		t = t.AddDate(0, 0, 7)
	case "monthrel":
		t = t.AddDate(0, 1, 0)
	case "day":
		t = t.AddDate(0, 0, 1) // the day is included
	case "end":
	}
	return p.setUntil(t, true)
}

// readBoundDate reads what "until" and "starting" take: a month (the
// start of its next occurrence), a date, a weekday, tomorrow, next
// week/month/year, the year. t is local midnight of its first day.
func (p *parser) readBoundDate() (t time.Time, kind string, ok bool) {
	loc := p.now.Location()
	today := time.Date(p.now.Year(), p.now.Month(), p.now.Day(), 0, 0, 0, 0, loc)
	start := p.i
	if p.is(0, "on", "in", "at", "from", "with") {
		p.i++
	}
	switch {
	case p.is(0, "year", "month", "week") && p.s(-1) == "of":
		p.i++
		return endOf(p.now, p.s(-1)), "end", true
	case p.is(0, "the") && p.is(1, "year", "month", "week") || p.is(0, "this") && p.is(1, "year", "month", "week"):
		u := p.s(1)
		p.i += 2
		if p.s(-2) == "the" && p.s(-3) != "of" {
			p.i = start
			return time.Time{}, "", false
		}
		t = endOf(p.now, u)
		return t, "end", true
	case p.is(0, "year") && p.is(1, "end") || p.is(0, "eoy"):
		p.i++
		if p.s(-1) == "year" {
			p.i++
		}
		return endOf(p.now, "year"), "end", true
	case p.is(0, "now"):
		p.i++
		return p.now, "now", true
	case p.is(0, "today"):
		p.i++
		return today, "day", true
	case p.is(0, "tomorrow", "tmr", "tmrw"):
		p.i++
		return today.AddDate(0, 0, 1), "day", true
	case p.is(0, "next", "this") && p.is(1, "week"):
		p.i += 2
		days := (8 - int(p.now.Weekday())) % 7
		if days == 0 {
			days = 7
		}
		return today.AddDate(0, 0, days), "week", true
	case p.is(0, "next") && p.is(1, "month"):
		p.i += 2
		return time.Date(p.now.Year(), p.now.Month()+1, 1, 0, 0, 0, 0, loc), "monthrel", true
	case p.is(0, "next") && p.is(1, "year"):
		p.i += 2
		return time.Date(p.now.Year()+1, 1, 1, 0, 0, 0, 0, loc), "year", true
	case p.is(0, "christmas", "xmas"):
		p.i++
		d := time.Date(p.now.Year(), 12, 25, 0, 0, 0, 0, loc)
		if d.Before(today) {
			d = d.AddDate(1, 0, 0)
		}
		return d, "day", true
	}
	if y, ok := p.readYear(); ok {
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc), "year", true
	}
	save := p.i
	if d, c, ok := p.readDate(); ok && c == nil && p.w.vague == "" {
		if d.d > daysIn(d.m, d.y) {
			p.why = refusal(impossibleDate(d))
			return time.Time{}, "", false
		}
		y := d.y
		if y == 0 {
			y = p.now.Year()
			if time.Date(y, time.Month(d.m), d.d, 0, 0, 0, 0, loc).Before(today) {
				y++
			}
		}
		return time.Date(y, time.Month(d.m), d.d, 0, 0, 0, 0, loc), "day", true
	}
	p.i = save
	if m, ok := p.readMonth(); ok {
		y := p.now.Year()
		if yy, ok := p.readYear(); ok {
			y = yy
		} else if time.Month(m) <= p.now.Month() {
			y++
		}
		return time.Date(y, time.Month(m), 1, 0, 0, 0, 0, loc), "month", true
	}
	if p.is(0, "next", "this", "coming") {
		p.i++
	}
	if d, plural, ok := p.readWeekday(); ok && !plural {
		ahead := (d - int(p.now.Weekday()) + 7) % 7
		if ahead == 0 {
			ahead = 7 // "until Friday" said on a Friday: the next one
		}
		if p.s(-2) == "next" {
			daysToMonday := (8 - int(p.now.Weekday())) % 7
			if daysToMonday == 0 {
				daysToMonday = 7
			}
			ahead = daysToMonday + (d+6)%7
		}
		return today.AddDate(0, 0, ahead), "day", true
	}
	if p.is(0, "the") {
		p.i++
	}
	if dd, ok := p.readDayOfMonth(false); ok {
		for k := 0; k < 14; k++ {
			t := time.Date(p.now.Year(), p.now.Month()+time.Month(k), dd, 0, 0, 0, 0, loc)
			if t.Day() == dd && !t.Before(today) {
				return t, "day", true
			}
		}
	}
	p.i = start
	return time.Time{}, "", false
}

// pStart: "starting next month", "from December 7", "beginning Monday",
// "starting tomorrow", "as of January".
func (p *parser) pStart() bool {
	start := p.i
	switch {
	case p.is(0, "starting", "beginning", "from", "commencing", "effective", "after"):
		p.i++
	case p.is(0, "as") && p.is(1, "of", "from"):
		p.i += 2
	default:
		return false
	}
	if p.is(0, "at") && p.s(-1) != "from" {
		// "starting at 9am": the anchor of an interval
		p.i++
		c, _, ok := p.readClock()
		if !ok {
			p.i = start
			return false
		}
		p.w.startClock = &c
		return true
	}
	t, kind, ok := p.readBoundDate()
	if !ok {
		p.i = start
		return false
	}
	if kind == "end" {
		p.i = start
		return false
	}
	if p.w.start != nil {
		return false
	}
	if kind == "now" && !slices.Contains([]string{"starting", "from", "of", "beginning"}, p.s(-2)) {
		p.i = start
		return false
	}
	if kind == "now" {
		p.w.phrases-- // says nothing
		p.w.start = nil
		return true
	}
	p.w.start = &bound{at: t, isDay: true}
	return true
}

// pExcept: "except weekends", "except Fridays", "but not on Mondays",
// "except in August", "excluding holidays".
func (p *parser) pExcept() bool {
	start := p.i
	switch {
	case p.is(0, "except", "excluding", "exc", "excl", "skipping", "skip", "save", "minus"):
		p.i++
	case p.is(0, "but") && !p.is(1, "not"):
		p.i++ // "every day but Saturday"
	case p.is(0, "but") && p.is(1, "not"), p.is(0, "not") && p.is(1, "on", "in", "during"), p.is(0, "other") && p.is(1, "than"), p.is(0, "apart") && p.is(1, "from"):
		p.i += 2
		if p.s(-1) == "on" || p.s(-1) == "in" || p.s(-1) == "during" {
			p.i--
		}
	default:
		return false
	}
	if p.is(0, "for", "on", "in", "during") {
		p.i++
	}
	if p.is(0, "the") {
		p.i++
	}
	switch {
	case p.is(0, "weekends", "weekend"):
		p.i++
		p.w.exDows = append(slices.Clip(p.w.exDows), 0, 6)
		return true
	case p.is(0, "weekdays", "weekday"):
		p.i++
		p.w.exDows = append(slices.Clip(p.w.exDows), 1, 2, 3, 4, 5)
		return true
	case p.is(0, "holidays", "holiday") || p.is(0, "public", "bank", "national", "federal") && p.is(1, "holidays"):
		p.why = refusal("I can't skip holidays (they differ by country and year). I can skip days of the week or whole months.")
		return false
	}
	if days, _, ok := p.readDayList(); ok {
		p.w.exDows = append(slices.Clip(p.w.exDows), days...)
		return true
	}
	if ms, ok := p.readMonthList(); ok {
		p.w.exMons = append(slices.Clip(p.w.exMons), ms...)
		return true
	}
	p.i = start
	return false
}

// pUnsupported names what NL_SPEC decision 7 says cannot be done; it never
// consumes anything, so the block fails and the reason is said.
func (p *parser) pUnsupported() bool {
	s := p.s(0)
	switch {
	case slices.Contains(holidays, s) || p.is(0, "good") && p.is(1, "friday") || p.is(0, "memorial", "labor", "labour", "mother's", "father's", "mothers", "fathers", "independence", "presidents", "columbus", "veterans") && p.is(1, "day") || p.is(0, "chinese", "lunar") && p.is(1, "new"):
		p.why = refusal("I can't follow holidays that move from year to year. I can schedule a fixed date instead.")
	case p.is(0, "yesterday") || p.is(0, "last") && p.is(1, "night", "week", "month", "year"):
		p.why = refusal("That is in the past. When should it be instead?")
	case p.is(0, "sunrise", "sunset", "dawn", "dusk", "sundown", "sunup"):
		p.why = refusal("I can't schedule by sunrise or sunset. I can use a fixed time of day in your timezone.")
	case p.is(0, "iso") && p.is(1, "week") || p.is(0, "week") && p.is(1, "number") || p.is(0, "week") && number(p.s(1)) > 0 || p.is(0, "odd", "even") && p.is(1, "weeks", "week"):
		p.why = refusal("I can't schedule by week number. I can repeat every week, or every 2 weeks on a weekday.")
	case p.is(0, "every", "each") && (p.is(1, "few", "couple", "several") || p.is(1, "now") && p.is(2, "and")):
		p.why = refusal("How often exactly? Give a number, such as “every 3 days at 9am”.")
	case p.is(0, "business") && p.is(1, "hours") || p.is(0, "work", "working", "office") && p.is(1, "hours"):
		p.why = refusal("Which hours exactly? Say “from 9am to 5pm”.")
	}
	return false
}

var holidays = []string{"easter", "thanksgiving", "ramadan", "diwali", "passover", "hanukkah", "hannukah", "eid", "yom", "rosh", "purim",
	"mardi", "pentecost", "whitsun"}
