package rules

import (
	"slices"
	"strings"
)

// Days of the month and months: "on the 1st and 15th", "in April",
// "April through June".

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
	doms, dayWord, ok := p.readDoms(start)
	if !ok {
		return false
	}
	the = the || dayWord
	every, monthly, months, ok := p.readDomMonths()
	if !ok {
		return false
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

// readDoms reads the days of the month: "1st and 15th", "10th through
// the 12th", "day 10" (dayWord). start is where the phrase began, to
// rewind to.
func (p *parser) readDoms(start int) (doms []int, dayWord, ok bool) {
	if p.is(0, "day") && p.tk(1).kind == tNum {
		p.i++
		d, ok := p.readDayOfMonth(true)
		if !ok {
			return nil, false, false
		}
		doms = append(doms, d)
		dayWord = true
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
			return nil, false, false
		}
		doms = append(doms, d)
		// the 10th through the 12th
		if p.is(0, rangeWords...) {
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
			return nil, false, false
		}
	}
	return doms, dayWord, true
}

// readDomMonths reads the months after days of the month: "of every
// month" and "monthly" (every), "of the month" (monthly), "of June",
// "22nd February" (months).
func (p *parser) readDomMonths() (every, monthly bool, months []int, ok bool) {
	switch {
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "month"):
		p.i += 3
		every = true
	case p.is(0, "of", "in") && p.is(1, "every", "each") && p.is(2, "other") && p.is(3, "month"):
		p.i += 4
		every = true
		if !p.recurUnit("month", 2) {
			return false, false, nil, false
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
	return every, monthly, months, true
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

// readMonthList reads "april", "april and may", "april through june",
// "apr-jun", "from april to june".
func (p *parser) readMonthList() ([]int, bool) {
	var out []int
	start := p.i
	for {
		m, ok := p.readMonth()
		if !ok {
			if len(out) == 0 {
				p.i = start
				return nil, false
			}
			p.i = p.lastGood
			return out, true
		}
		j := p.i
		if p.is(0, rangeWords...) {
			p.i++
			if e, ok := p.readMonth(); ok {
				for x := m; ; x = x%12 + 1 {
					out = append(out, x)
					if x == e {
						break
					}
				}
			} else {
				p.i = j
				out = append(out, m)
			}
		} else {
			out = append(out, m)
		}
		p.lastGood = p.i
		switch {
		case p.is(0, ",") && p.is(1, "and", "&"):
			p.i += 2
		case p.is(0, ",", "and", "&", "/"):
			p.i++
		default:
			return out, true
		}
	}
}

func (p *parser) readMonth() (int, bool) {
	if p.tk(0).kind != tWord {
		return 0, false
	}
	m, ok := month(p.s(0))
	if !ok {
		return 0, false
	}
	// "may" is a month only where a month can stand: the callers check.
	p.i++
	if p.is(0, ".") && m != 5 {
		p.i++
	}
	return m, true
}

// readDayOfMonth reads "3", "3rd", "third", "twenty-first".
func (p *parser) readDayOfMonth(allowBare bool) (int, bool) {
	s := p.s(0)
	if p.tk(0).kind == tQuote {
		return 0, false
	}
	if n, ok := ordinal(s); ok {
		p.i++
		return n, true
	}
	if (s == "twenty" || s == "thirty") && (p.is(1, "-") && ordinalIn(p.s(2), 1, 9) || ordinalIn(p.s(1), 1, 9)) {
		base := numberWords[s]
		p.i++
		if p.is(0, "-") {
			p.i++
		}
		n, _ := ordinal(p.s(0))
		p.i++
		return base + n, true
	}
	if allowBare && p.tk(0).kind == tNum {
		if n, ok := number(s); ok && len(s) <= 2 {
			p.i++
			return n, true
		}
	}
	return 0, false
}

func (p *parser) peekDom() (int, bool) {
	save := p.i
	defer func() { p.i = save }()
	d, ok := p.readDayOfMonth(false)
	return d, ok
}

func (p *parser) addMonths(ms []int) bool {
	p.w.months = append(slices.Clip(p.w.months), ms...)
	return true
}

// listedDom reads the next day of a date list: "20th", or a bare "30"
// that is not a time ("30 minutes", "5pm", "5:30").
func (p *parser) listedDom() (int, bool) {
	t := p.tk(0)
	if t.kind != tNum {
		return 0, false
	}
	if !ordinalIn(t.s, 1, 99) {
		if strings.Trim(t.s, "0123456789") != "" || p.is(1, "am", "pm", "a", "p", "o'clock", ":", "h", "hours", "hrs") || unit(p.s(1)) != "" {
			return 0, false
		}
	}
	save := p.i
	d, ok := p.readDayOfMonth(true)
	if !ok || d < 1 || d > 31 {
		p.i = save
		return 0, false
	}
	return d, true
}
