package rules

import (
	"slices"
	"time"
)

// Days counted within a month: "the first Monday", "the last business
// day", "the end of the month".

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
	n, ok := ordinal(p.s(0))
	if !ok || n < 1 || n > 31 {
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
	ords, ok := p.readOrds()
	if !ok {
		return false
	}
	ord := ords[0]
	day, ok := p.readNthDay()
	if !ok {
		return false
	}
	if why := nthOK(ords, day.counts); why != "" {
		p.why = refusal(why)
		return false
	}
	of, ok := p.readNthOf(ords)
	if !ok {
		return false
	}
	if day.counts == anyDay && ord > 0 && of.mon == 0 && !of.monthly && !p.w.rec {
		return false // "the first day": of what?
	}
	if of.mon != 0 && !p.w.rec && !of.every && yearlyAhead(p) {
		p.w.rec = true // "the fourth Thursday of November every year"
	}
	if of.mon != 0 && !p.w.rec && !of.every {
		if len(ords) > 1 {
			return false
		}
		// one date: the next such day in that month
		day.ord = ord
		d, ok := nthDate(p.now, of.mon, day)
		if !ok {
			return false
		}
		if of.thisYear && d.y != p.now.Year() {
			p.why = refusal("That day has passed this year. Which date did you mean?")
			return false
		}
		return p.addDate(d, false)
	}
	if !of.monthly && !p.w.rec && of.mon == 0 {
		return false
	}
	p.w.rec = true
	if of.mon != 0 {
		if p.w.unit == "" || p.w.unit == "month" && p.w.n == 1 {
			p.w.unit, p.w.n = "year", 1
		}
		p.w.months = append(slices.Clip(p.w.months), of.mon)
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

// readOrds reads "first", "the 1st and 3rd", "last": ords[0] is the first.
func (p *parser) readOrds() (ords []int, ok bool) {
	ord, ok := p.readOrd()
	if !ok {
		return nil, false
	}
	ords = []int{ord}
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
	return ords, true
}

// readNthDay reads which days an nth counts: "Monday", "business day",
// "day".
func (p *parser) readNthDay() (day nth, ok bool) {
	day = nth{counts: namedWeekday}
	switch {
	case p.is(0, "weekday", "workday") || p.is(0, workdayLeads...) && p.is(1, "day"):
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
			return nth{}, false
		}
		day.dow = d
	}
	return day, true
}

// nthOf is the month an nth is counted in, as said after it.
type nthOf struct {
	monthly  bool // "of the month", "of every month"
	every    bool // said as recurring: "of every month", "monthly"
	mon      int  // a month named: "of November", "next month"
	thisYear bool // "this November": once, this year
}

// readNthOf reads what follows an nth: "of the month", "of every
// quarter", "in November", "this November", "next month", or nothing.
func (p *parser) readNthOf(ords []int) (of nthOf, ok bool) {
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
			return of, false
		}
		qm := []int{1, 4, 7, 10}
		if last {
			qm = []int{3, 6, 9, 12}
		}
		if p.w.unit != "" && p.w.unit != "month" || len(p.w.months) > 0 {
			return of, false
		}
		p.w.rec, p.w.unit, p.w.n = true, "month", 1
		p.w.months = append(slices.Clip(p.w.months), qm...)
		of.monthly, of.every = true, true
	case p.is(0, "this", "next") && p.tk(1).kind == tWord && !monthPartAt(p, 1) && func() bool { _, ok := month(p.s(1)); return ok }(),
		p.is(0, "of", "in") && p.is(1, "this", "next") && func() bool { _, ok := month(p.s(2)); return ok }():
		// "the 4th Thursday this November": that month, once
		if p.is(0, "of", "in") {
			p.i++
		}
		p.i++
		of.mon, _ = p.readMonth()
		of.thisYear = p.s(-2) == "this"
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
		of.mon, of.thisYear = m, !next
	case p.is(0, "of", "in") && p.is(1, "the") && p.is(2, "month"):
		of.monthly = true
		p.i += 3
	case p.is(0, "of") && p.is(1, "month"):
		of.monthly = true // "last fri of month"
		p.i += 2
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "month"):
		of.monthly, of.every = true, true
		p.i += 3
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "other") && p.is(3, "month"):
		of.monthly, of.every = true, true
		p.i += 4
		if !p.recurUnit("month", 2) {
			return of, false
		}
	case p.is(0, "every", "each") && p.is(1, "month"), p.is(0, "monthly"):
		of.monthly, of.every = true, true
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
		of.mon = m
	}
	return of, true
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
	every, ahead := false, 0
	switch {
	case p.is(0, "every", "each") && p.is(1, "month"):
		every = true
		p.i += 2
	case p.is(0, "the", "this") && p.is(1, "month"):
		p.i += 2
	case p.is(0, "next") && p.is(1, "month") && !p.w.rec:
		ahead = 1 // "end of next month": its last day
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
			t := time.Date(p.now.Year(), p.now.Month()+1, 1, 0, 0, 0, 0, time.UTC) // this month's start has passed
			return p.addDate(ymd{y: t.Year(), m: int(t.Month()), d: 1}, false)
		}
		t := time.Date(p.now.Year(), p.now.Month()+time.Month(ahead), 1, 0, 0, 0, 0, time.UTC)
		y, m := t.Year(), int(t.Month())
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

// nth is "the first Monday", "the last business day", "the last day":
// the ord-th day of a month among the days it counts, ord 1..31 from the
// start or -1 (last), -2 (second to last) from the end, as RRULE's
// BYSETPOS counts.
type nth struct {
	ord    int
	counts counted
	dow    int // 0..6, the weekday counted when counts is namedWeekday
}

// counted is which days of a month an nth counts.
type counted uint8

const (
	namedWeekday counted = iota // "the first Monday"
	anyDay                      // "the last day"
	businessDay                 // "the last business day": Monday to Friday
)
