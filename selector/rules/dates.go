package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// Calendar dates: "March 3", "3/4", "2027-01-15", "every 2/14 and 8/14".

func itoa(n int) string { return strconv.Itoa(n) }

// readDate reads a calendar date: "Dec 3", "December 3rd, 2027", "3 Dec",
// "the 3rd of December", "2026-12-03", "7/13", "25.12". It does not take
// "on". clock is set when the date carried one (ISO).
func (p *parser) readDate() (d ymd, clock *clk, ok bool) {
	if t := p.tk(0); t.kind == tNum {
		for _, read := range []func(t tok) (d ymd, clock *clk, ok, matched bool){p.readISODate, p.readSlashDate, p.readDotDate} {
			if d, clock, ok, matched := read(t); matched {
				return d, clock, ok
			}
		}
	}
	return p.readWordDate()
}

// readISODate reads 2027-07-13, with a time (2027-07-13T09:00Z) or not;
// matched says whether t has the form at all.
func (p *parser) readISODate(t tok) (d ymd, clock *clk, ok, matched bool) {
	if len(t.s) < 10 || t.s[4] != '-' || t.s[7] != '-' {
		return ymd{}, nil, false, false
	}
	y, m, dd := valueOf(t.s[:4]), valueOf(t.s[5:7]), valueOf(t.s[8:10])
	if len(t.s) >= 16 {
		h, mi := valueOf(t.s[11:13]), valueOf(t.s[14:16])
		if len(t.s) >= 19 && t.s[16] == ':' && t.s[17:19] != "00" {
			p.why = refusal("I schedule to the minute; seconds in a time (like 9:00:30) aren't supported.")
			return ymd{}, nil, false, true
		}
		if strings.HasSuffix(t.s, "z") {
			p.w.zone = "UTC"
		}
		clock = &clk{h: h, m: mi, zero: true}
	}
	p.i++
	return ymd{y: y, m: m, d: dd}, clock, true, true
}

// readSlashDate reads 7/13, 13/7 and 7/13/27; a date either way round
// (7/8) is read month first, and asked about.
func (p *parser) readSlashDate(t tok) (d ymd, clock *clk, ok, matched bool) {
	if strings.Count(t.s, "/") < 1 || strings.ContainsAny(t.s, ":.") || !isDigitsSlash(t.s) {
		return ymd{}, nil, false, false
	}
	parts := strings.Split(t.s, "/")
	if len(parts) > 3 {
		return ymd{}, nil, false, true
	}
	if len(parts) == 3 && len(parts[0]) == 4 { // 2026/12/01: year first, as ISO
		y, m, dd := valueOf(parts[0]), valueOf(parts[1]), valueOf(parts[2])
		bad := ""
		switch {
		case y < 1:
			bad = "year " + parts[0]
		case m < 1 || m > 12:
			bad = "month " + parts[1]
		case dd < 1:
			bad = "day " + parts[2]
		}
		if bad != "" {
			p.why = refusal("I couldn't read " + t.s + " as a date: there is no " + bad + ". Try “Jul 13” or 2027-07-13.")
			return ymd{}, nil, false, true
		}
		p.i++
		return ymd{y: y, m: m, d: dd}, nil, true, true
	}
	a, b := valueOf(parts[0]), valueOf(parts[1])
	y := 0
	if len(parts) == 3 {
		y = valueOf(parts[2])
		if y < 100 {
			y += 2000
		}
	}
	switch {
	case a == b && a >= 1 && a <= 12:
		d = ymd{y: y, m: a, d: b}
	case a > 12 && b >= 1 && b <= 12:
		d = ymd{y: y, m: b, d: a}
	case b > 12 && a >= 1 && a <= 12:
		d = ymd{y: y, m: a, d: b}
	case a >= 1 && a <= 12 && b >= 1 && b <= 12:
		p.w.vague = parts[0] + "/" + parts[1]
		p.w.vagueQ = "Is " + p.w.vague + " the " + dmText(a, b) + " or the " + dmText(b, a) + "? Write the month's name (" + time.Month(a).String()[:3] + " " + itoa(b) + ") or an ISO date."
		d = ymd{y: y, m: a, d: b}
	default:
		p.why = refusal("I couldn't read " + t.s + " as a date: neither part is a month. Try “Jul 13” or 2027-07-13.")
		return ymd{}, nil, false, true
	}
	p.i++
	return d, nil, true, true
}

// readDotDate reads 13.7 and 13.07.2027, day first, where a date is
// meant ("on 13.7", two dots, or a first part past 12).
func (p *parser) readDotDate(t tok) (d ymd, clock *clk, ok, matched bool) {
	if strings.Count(t.s, ".") < 1 || !isDigitsDot(t.s) || !(p.s(-1) == "on" || strings.Count(t.s, ".") == 2 || dotDayFirst(t.s)) {
		return ymd{}, nil, false, false
	}
	parts := strings.Split(t.s, ".")
	dd, m := valueOf(parts[0]), valueOf(parts[1])
	y := 0
	if len(parts) == 3 {
		y = valueOf(parts[2])
		if y < 100 {
			y += 2000
		}
	}
	if m < 1 || m > 12 || dd < 1 {
		return ymd{}, nil, false, true
	}
	if dd <= 12 && dd != m {
		p.w.vague = parts[0] + "." + parts[1]
		p.w.vagueQ = "Is " + p.w.vague + " the " + dmText(dd, m) + " or the " + dmText(m, dd) + "? Write the month's name or an ISO date."
	}
	p.i++
	return ymd{y: y, m: m, d: dd}, nil, true, true
}

// readWordDate reads a date with its month in words: Dec 3, December 3rd
// 2027, the 3rd of December.
func (p *parser) readWordDate() (d ymd, clock *clk, ok bool) {
	start := p.i
	// month first: Dec 3, December 3rd 2027, December the 3rd
	if m, ok := p.readMonth(); ok {
		if p.is(0, "the") && ordinalIn(p.s(1), 1, 99) {
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
	if p.is(0, "next", "this") && p.is(1, "year") {
		// "March 3rd next year"
		p.i += 2
		return p.now.Year() + btoi(p.is(-2, "next"))
	}
	return 0
}

func isDigitsSlash(s string) bool {
	return strings.Trim(s, "0123456789/") == "" && !strings.HasPrefix(s, "/") && !strings.HasSuffix(s, "/") && !strings.Contains(s, "//")
}

// dotDayFirst: "25.12" can only be the 25th of December.
func dotDayFirst(s string) bool {
	a, b, _ := strings.Cut(s, ".")
	return len(b) <= 2 && numberIn(a, 13, 31) && numberIn(b, 1, 12)
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
		p.why = refusal(farYear(d.y, p.now))
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

// ymd is a calendar date as written; y is 0 when no year was.
type ymd struct{ y, m, d int }

// readYear reads a four-digit year (2026..2100), or one written '27.
func (p *parser) readYear() (int, bool) {
	if p.tk(0).kind == tNum && len(p.s(0)) == 4 {
		if y, ok := number(p.s(0)); ok && y >= 2000 && y <= 2100 {
			p.i++
			return y, true
		}
	}
	if p.is(0, "'", "’") && p.tk(1).kind == tNum && len(p.s(1)) == 2 && p.tk(0).j == p.tk(1).i {
		if y, ok := number(p.s(1)); ok {
			p.i += 2
			return 2000 + y, true
		}
	}
	return 0, false
}

// pDateSaid reads a date said with words around it: "this december 2nd",
// "this coming march 3rd", "next year on Jan 5", "in 2027 on march 3",
// "in March on the 3rd", "on the morning of december 2", "2 days before
// dec 1", "the day after dec 3". A date said with "this" is its next one.
func (p *parser) pDateSaid() bool {
	start := p.i
	if p.is(0, "on") {
		p.i++
	}
	year, part, this, shift := 0, "", false, 0
	var d ymd
	switch {
	case p.is(0, "this") && p.is(1, "coming", "upcoming"):
		p.i += 2
	case p.is(0, "this", "coming", "upcoming"):
		p.i++
		this = p.is(-1, "this")
	case p.is(0, "next") && p.is(1, "year"):
		p.i += 2
		year = p.now.Year() + 1
	case p.is(0, "in") && p.tk(1).kind == tNum && len(p.s(1)) == 4:
		p.i++
		year, _ = p.readYear()
	case p.is(0, "in") && p.is(2, "on") && p.is(3, "the") && ordinalIn(p.s(4), 1, 31):
		m, ok := month(p.s(1))
		if !ok {
			p.i = start
			return false
		}
		p.i += 4
		dd, _ := p.readDayOfMonth(true)
		d = ymd{y: p.readDateYear(), m: m, d: dd}
		if p.is(0, "and", ",", "&") {
			p.i = start // "in December on the 3rd and 10th": a list, read by pDomList
			return false
		}
	case p.is(0, "the") && slices.Contains(dayParts, p.s(1)) && p.is(2, "of"):
		part = p.s(1)
		p.i += 3
	case p.is(0, "a") && p.is(1, "week") && p.is(2, "from") && isWeekdayWord(p.s(3)),
		p.is(0, "the") && isWeekdayWord(p.s(1)) && p.is(2, "after") && p.is(3, "next") && !p.is(4, "week", "month", "year"):
		// "a week from tuesday", "the monday after next": the coming one,
		// a week on
		name := p.s(3)
		if p.is(0, "the") {
			name = p.s(1)
		}
		dow, _, _ := weekday(name)
		p.i += 4
		t := time.Date(p.now.Year(), p.now.Month(), p.now.Day(), 12, 0, 0, 0, p.now.Location())
		t = t.AddDate(0, 0, (dow-int(t.Weekday())+6)%7+1+7)
		d = ymd{y: t.Year(), m: int(t.Month()), d: t.Day()}
	case p.is(0, "the") && p.is(1, "day") && p.is(2, "before", "after"):
		shift = 1 - 2*btoi(p.is(2, "before")) // "the day after dec 3"
		p.i += 3
	default:
		if n, ok := p.readNumber(true); ok && n >= 1 && n <= 60 && p.is(0, "day", "days", "week", "weeks") && p.is(1, "before", "after") {
			// "2 days before dec 1", "a week after jan 5"
			shift = n * (1 + 6*btoi(strings.HasPrefix(p.s(0), "week"))) * (1 - 2*btoi(p.is(1, "before")))
			p.i += 2
		}
	}
	if p.i == start || p.i == start+1 && p.is(-1, "on") {
		p.i = start
		return false
	}
	if d.m == 0 {
		if year != 0 && p.is(0, ",") {
			p.i++
		}
		if year != 0 && p.is(0, "on") {
			p.i++
		}
		date, c, ok := p.readDate()
		if !ok || year != 0 && date.y != 0 && date.y != year {
			p.i = start
			return false
		}
		if c != nil {
			p.w.clocks = append(slices.Clip(p.w.clocks), *c)
		}
		d = date
	}
	if year != 0 {
		d.y = year
	}
	if shift != 0 {
		// the date counted from is its next one, then the days counted
		t := time.Date(orYear(d.y, p.now.Year()), time.Month(d.m), d.d, 12, 0, 0, 0, p.now.Location())
		if d.y == 0 && t.Before(p.now.AddDate(0, 0, -1)) {
			t = t.AddDate(1, 0, 0)
		}
		t = t.AddDate(0, 0, shift)
		d = ymd{y: t.Year(), m: int(t.Month()), d: t.Day()}
	}
	if this && d.y == 0 && d.m == int(p.now.Month()) && d.d < p.now.Day() {
		p.why = refusal("That date has passed this month. Say a date to come.")
		return false // "this november 15th", said on the 20th
	}
	if part != "" && p.w.part == "" {
		p.w.part = part
	}
	if d.y != 0 && (d.y < p.now.Year() || d.y > p.now.Year()+10) {
		p.why = refusal(farYear(d.y, p.now))
		return false
	}
	return !p.w.rec && p.addDate(d, false)
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

// farYear says why a date in year y is refused: past, or too far ahead.
func farYear(y int, now time.Time) string {
	if y < now.Year() {
		return fmt.Sprintf("That date is in %d, which has passed. Say a date to come.", y)
	}
	return "That date is not within the next 10 years."
}

// isWeekdayWord says whether s names one weekday ("tuesday", "tue").
func isWeekdayWord(s string) bool {
	_, plural, ok := weekday(s)
	return ok && !plural
}
