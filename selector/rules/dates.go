package rules

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

func itoa(n int) string { return strconv.Itoa(n) }

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

// ymd is a calendar date as written; y is 0 when no year was.
type ymd struct{ y, m, d int }

// readYear reads a four-digit year (2026..2100).
func (p *parser) readYear() (int, bool) {
	if p.tk(0).kind == tNum && len(p.s(0)) == 4 {
		if y := number(p.s(0)); y >= 2000 && y <= 2100 {
			p.i++
			return y, true
		}
	}
	return 0, false
}

// addDate records a month and day: one date, or (recurring) a yearly one.
func (p *parser) addDate(d ymd, recurring bool) bool {
	if d.m < 1 || d.m > 12 || d.d < 1 {
		return false
	}
	if d.d > daysIn(d.m, d.y) {
		p.why = refusal(impossibleDate(d))
		return false
	}
	if recurring || p.w.rec && d.y == 0 {
		p.w.rec = true
		if p.w.date != nil {
			return false
		}
		if len(p.w.months) > 0 && !slices.Contains(p.w.months, d.m) && len(p.w.doms) > 0 {
			return false
		}
		p.w.months = append(slices.Clip(p.w.months), d.m)
		p.w.doms = append(slices.Clip(p.w.doms), d.d)
		if p.w.unit == "" {
			p.w.unit, p.w.n = "year", 1
		}
		return true
	}
	if p.w.date != nil || p.w.hasDay {
		return false
	}
	p.w.date, p.w.dateAny = &d, true
	return true
}

func daysIn(m, y int) int {
	if y == 0 {
		y = 2028 // a leap year: February 29 exists in some year
	}
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func impossibleDate(d ymd) string {
	if d.d > 31 {
		return "There is no day " + itoa(d.d) + " in a month. Which date did you mean?"
	}
	s := time.Month(d.m).String() + " " + itoa(d.d)
	if d.m == 2 && d.d == 29 {
		return s + ", " + itoa(d.y) + " doesn't exist (" + itoa(d.y) + " is not a leap year). Which date did you mean?"
	}
	return s + " doesn't exist: " + time.Month(d.m).String() + " has " + itoa(daysIn(d.m, 2027)) + " days. Which date did you mean?"
}

// dateList reads more dates after a yearly one ("every June 5th and 20th",
// "every Aug 20 and 30", "every January 1st and July 1st"); nm and nd are
// how many months and days the when had before the first date was added.
func (p *parser) dateList(first ymd, nm, nd int) bool {
	m, d := first.m, first.d
	// every June 5th and 20th, every Aug 20 and 30, every
	// January 1st and July 1st
	dates := []ymd{{m: m, d: d}}
	for p.is(0, "and", ",", "&") {
		j := p.i
		p.i++
		if p.is(0, "and") && p.s(-1) == "," {
			p.i++
		}
		if dd, ok := p.listedDom(); ok {
			if dd > daysIn(dates[len(dates)-1].m, 0) {
				p.why = refusal(impossibleDate(ymd{m: dates[len(dates)-1].m, d: dd}))
				return false
			}
			dates = append(dates, ymd{m: dates[len(dates)-1].m, d: dd})
			continue
		}
		if m2, ok := p.readMonth(); ok {
			if d2, ok := p.readDayOfMonth(true); ok && d2 <= daysIn(m2, 0) {
				dates = append(dates, ymd{m: m2, d: d2})
				continue
			}
		}
		p.i = j
		break
	}
	if len(dates) > 1 {
		p.w.months, p.w.doms = p.w.months[:nm], p.w.doms[:nd]
		for _, x := range dates {
			if !p.addDateList(x) {
				return false
			}
		}
	}
	return true
}
