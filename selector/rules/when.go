package rules

import (
	"math"
	"slices"
	"strings"
	"time"
)

// bound is a start or an end as written.
type bound struct {
	at    time.Time // local instant
	isDay bool      // a day, month or year, not an instant
}

// when is what the phrases of a message say about time.
type when struct {
	clocks []clk
	part   string // morning, afternoon, evening, night, tonight

	rec     bool   // something recurs
	unit    string // every n <unit>: minute, hour, day, week, month, year
	n       int
	dows    []int
	dowsEv  bool // the days were said as recurring ("every", "mondays")
	exDows  []int
	doms    []int // -1: the last day
	months  []int
	exMons  []int
	nths    []nth
	onHour  bool
	mins    []int // minutes past every hour
	window  []int // [from, to) hours
	winMins []int // [from, to) minutes, when the window is within one hour
	quart   bool  // every quarter

	date    *ymd
	dayRel  int // days from today ("tomorrow" = 1), with hasDay
	hasDay  bool
	wdNext  bool // "next Friday"
	rel     time.Duration
	hasRel  bool
	vague   string // said so that only a question can settle it
	vagueQ  string
	dateAny bool // a one-time date of any kind was said

	count    int
	timesPer int // "twice a day": how many times in each unit
	span     time.Duration
	until    *bound
	start    *bound

	zone string

	dates      []ymd // yearly dates said as a list ("every 2/14 and 8/14")
	domOnce    bool  // "on the 15th": the next 15th, once
	multiOnce  bool  // "on the 5th and 20th of June": those dates, once each
	wdOnce     bool  // a weekday said once ("on Friday")
	monthLimit bool  // "in April": the months limit the days
	relDays    int   // "in 2 days": whole days, so a time may be said
	startClock *clk  // "every 2 hours starting at 9am"

	// what the block read, for the verification pass
	phrases int
}

// parser reads one block of tokens.
type parser struct {
	t        []tok
	i        int
	w        when
	now      time.Time // local
	lastGood int       // where a list ended well
	why      problem   // what a production found that cannot be done
	// where the block's first phrase ended, and whether the production
	// that read it may end the message's text (production.mayEndText)
	firstEnd      int
	firstEndsText bool
}

func (p *parser) s(k int) string {
	if p.i+k < len(p.t) && p.i+k >= 0 {
		return p.t[p.i+k].s
	}
	return ""
}

func (p *parser) tk(k int) tok {
	if p.i+k < len(p.t) && p.i+k >= 0 {
		return p.t[p.i+k]
	}
	return tok{kind: tOther}
}

func (p *parser) is(k int, words ...string) bool {
	s := p.s(k)
	return s != "" && slices.Contains(words, s)
}

// parseBlock reads toks as one "when" on top of base. It fails unless every
// token is consumed by a production and the result is consistent.
// why is set when a production found something that cannot be done
// ("April 31", "every 30 seconds"), whether or not the block parsed.
func parseBlock(toks []tok, base when, now time.Time) (w when, ok bool, why problem) {
	w, ok, why, _ = parseBlockFirst(toks, base, now)
	return w, ok, why
}

// parseBlockFirst is parseBlock that also says how many tokens the first
// phrase took when its production may end the message's text (0 otherwise).
func parseBlockFirst(toks []tok, base when, now time.Time) (w when, ok bool, why problem, firstLen int) {
	p := &parser{t: toks, w: base, now: now}
	defer func() {
		if ok && p.firstEndsText && p.firstEnd < len(toks) {
			firstLen = p.firstEnd
		}
	}()
	first := true
	for p.i < len(p.t) {
		start := p.i
		if !p.phrase(first) || p.i == start {
			return base, false, p.why, 0
		}
		first = false
	}
	if p.w.phrases == base.phrases {
		return base, false, p.why, 0
	}
	switch toks[len(toks)-1].s {
	case "and", ",", "&", "then", "also", "plus", "+", "-", "starting":
		return base, false, p.why, 0 // something was to follow
	}
	if p.w.hasRel && (p.w.rec || p.w.date != nil || len(p.w.dows) > 0 || p.w.relDays == 0 && p.w.hasDay) {
		return base, false, p.why, 0 // "in 10 minutes every Monday": two whens
	}
	return p.w, true, p.why, 0
}

// phrase consumes one phrase at p.i.
func (p *parser) phrase(first bool) bool {
	if !first && p.filler() {
		return true
	}
	if first && p.is(0, "only", "exactly", "precisely", "sharp") && p.i+1 < len(p.t) {
		p.i++ // "only on weekdays", "exactly at 9"
	}
	for _, prod := range productions {
		save, saveW := p.i, p.w
		if prod.read(p) {
			p.w.phrases++
			if first {
				p.firstEnd, p.firstEndsText = p.i, prod.mayEndText
			}
			return true
		}
		p.i, p.w = save, saveW
	}
	return false
}

// filler is what may stand between phrases.
func (p *parser) filler() bool {
	switch p.s(0) {
	case ",", "and", ".", "!", "?", ";", "then", "also", "please", "pls", "plz", "(", ")", "sharp", "&", "thanks", "thx", "-", "+", "plus", "starting", "both", "only":
		if p.s(0) == "starting" && p.i+1 < len(p.t) {
			return false // a start bound
		}
		p.i++
		return true
	}
	return false
}

// production reads one phrase at the parser's position: it consumes the
// tokens it understands, adds what they mean to the when and reports
// whether it read anything (on false the parser is rewound).
type production struct {
	name string
	read func(p *parser) bool
	// mayEndText: its phrase, first in the last block, may as well end
	// the message's text ("what went well in March every Friday",
	// "deadline is 11/30 on Monday").
	mayEndText bool
}

// productions are tried in order at each phrase; the first that reads
// wins, so a longer or more specific reading comes before a shorter one.
var productions = []production{
	{name: "zone", read: (*parser).pZone},
	{name: "for", read: (*parser).pFor},
	{name: "count", read: (*parser).pCount},
	{name: "until", read: (*parser).pUntil},
	{name: "except", read: (*parser).pExcept},
	{name: "window", read: (*parser).pWindow},
	{name: "months", read: (*parser).pMonths, mayEndText: true},
	{name: "day-range", read: (*parser).pDayRange},
	{name: "start", read: (*parser).pStart},
	{name: "relative", read: (*parser).pRelative},
	{name: "every", read: (*parser).pEvery},
	{name: "frequency", read: (*parser).pFrequency},
	{name: "times-per", read: (*parser).pTimesPer},
	{name: "nth", read: (*parser).pNth},
	{name: "month-start-end", read: (*parser).pMonthStartEnd},
	{name: "date", read: (*parser).pDate, mayEndText: true},
	{name: "dom-list", read: (*parser).pDomList},
	{name: "days", read: (*parser).pDays},
	{name: "casual-day", read: (*parser).pCasualDay},
	{name: "hour-minute", read: (*parser).pHourMinute},
	{name: "part", read: (*parser).pPart},
	{name: "clocks", read: (*parser).pClocks},
	{name: "unsupported", read: (*parser).pUnsupported},
}

// ---- small readers ----

// readNumber reads a count: "3", "three", "a", "an".
func (p *parser) readNumber(allowA bool) (int, bool) {
	s := p.s(0)
	if allowA && (s == "a" || s == "an" || s == "one") {
		p.i++
		return 1, true
	}
	if n := number(s); n >= 0 && p.tk(0).kind != tQuote {
		p.i++
		// "forty-five", "twenty five"
		if n >= 20 && n%10 == 0 && n < 100 {
			j := p.i
			if p.s(0) == "-" {
				p.i++
			}
			if m := number(p.s(0)); m >= 1 && m <= 9 && p.tk(0).kind == tWord {
				p.i++
				return n + m, true
			}
			p.i = j
		}
		return n, true
	}
	return 0, false
}

// readAmount reads an amount of units: "2", "1.5", "a", "half an",
// "an hour and a half" is handled by the caller.
func (p *parser) readAmount() (float64, bool) {
	s := p.s(0)
	switch {
	case s == "half" && (p.is(1, "an", "a")):
		p.i += 2
		return 0.5, true
	case s == "half" && p.is(1, "hour"):
		p.i++
		return 0.5, true
	case s == "a" && p.is(1, "half") && p.is(2, "an", "a"):
		p.i += 3
		return 0.5, true
	case (s == "a" || s == "one") && p.is(1, "quarter") && p.is(2, "of") && p.is(3, "an", "a"):
		p.i += 4
		return 0.25, true
	case s == "a" && p.is(1, "few"):
		return 0, false
	}
	if p.tk(0).kind == tNum && strings.Count(s, ".") == 1 && !strings.ContainsAny(s, ":/") {
		var f float64
		if v, ok := parseDecimal(s); ok {
			f = v
			p.i++
			return f, true
		}
	}
	n, ok := p.readNumber(true)
	if ok && p.is(0, "and") && p.is(1, "a") && p.is(2, "half") {
		p.i += 3
		return float64(n) + 0.5, true
	}
	return float64(n), ok
}

func parseDecimal(s string) (float64, bool) {
	a, b, _ := strings.Cut(s, ".")
	x, y := number(a), number(b)
	if x < 0 || y < 0 || len(b) == 0 || len(b) > 2 {
		return 0, false
	}
	return float64(x) + float64(y)/math.Pow(10, float64(len(b))), true
}

// readUnit reads a unit word ("hours"); "" when there is none.
func (p *parser) readUnit() string {
	u := unit(p.s(0))
	if u != "" && p.tk(0).kind == tWord && len(p.s(0)) > 1 {
		// one letter ("m", "h") is a unit only glued to a number: "2h"
		p.i++
	} else {
		u = ""
	}
	return u
}

// ---- recurrence ----

// pEvery: every/each + what recurs.
func (p *parser) pEvery() bool {
	if p.is(0, "on", "at") && p.is(1, "every", "each") {
		p.i++ // "on every Monday"
	}
	if !p.is(0, "every", "each", "evry", "everyday", "every-day", "everyweek") {
		return false
	}
	if p.is(0, "everyday", "every-day") {
		p.i++
		return p.recurUnit("day", 1)
	}
	p.i++
	if p.is(0, "single") {
		p.i++
	}
	n := 1
	// "every second Tuesday of the month" is the second Tuesday;
	// "every second Tuesday" alone is every other one
	if p.is(0, "first", "second", "third", "fourth", "fifth", "last", "1st", "2nd", "3rd", "4th", "5th") && (monthPartAt(p, 2) || p.is(1, "and", ",", "&") && ordinal(p.s(2)) > 0 || p.is(1, "and") && p.is(2, "last")) {
		save, saveW := p.i, p.w
		p.w.rec = true
		if p.pNth() {
			return true
		}
		p.i, p.w = save, saveW
	}
	if p.is(0, "2nd", "3rd", "4th", "5th") && !monthPartAt(p, 2) {
		if _, plural, ok := weekday(p.s(1)); ok && !plural {
			// "every 3rd fri": the 3rd Friday of each month, as calendars
			// read it
			save, saveW := p.i, p.w
			p.w.rec = true
			ord := ordinal(p.s(0))
			p.i++
			d, _, _ := p.readWeekday()
			if p.w.unit == "" {
				p.w.unit, p.w.n = "month", 1
			}
			if p.w.unit == "month" {
				p.w.nths = append(slices.Clip(p.w.nths), nth{ord: ord, counts: namedWeekday, dow: d})
				return true
			}
			p.i, p.w = save, saveW
			return false
		}
	}
	if p.is(0, "second", "third", "fourth", "fifth") && !monthPartAt(p, 2) {
		if _, _, ok := weekday(p.s(1)); ok {
			// "every 2nd Tuesday": every other week, or the 2nd Tuesday
			// of the month? Asked.
			p.why = askTime("Every " + p.s(0) + " " + capitalize(p.s(1)) + " of the month, or every " + p.s(0) + " week? Say “the " + p.s(0) + " " + capitalize(p.s(1)) + " of every month” or “every other " + capitalize(p.s(1)) + "”.")
			return false
		}
	}
	switch {
	case p.is(0, "other", "alternate", "second", "2nd") && !(p.is(0, "second", "2nd") && (p.is(1, "of") || p.is(1, "and", ",") || !p.nextIsUnitOrDay(1))):
		n = 2
		p.i++
	case p.is(0, "third", "3rd") && p.nextIsUnitOrDay(1):
		n = 3
		p.i++
	case p.is(0, "fourth", "4th") && p.nextIsUnitOrDay(1):
		n = 4
		p.i++
	}
	// every 15 minutes, every 2 hours, every 1.5 hours
	save := p.i
	if n == 1 {
		if amt, ok := p.readAmount(); ok {
			if u := p.readUnit(); u != "" {
				if amt != math.Trunc(amt) {
					secs := amt * unitSeconds[u]
					if u == "month" || u == "year" || secs != math.Trunc(secs/60)*60 {
						p.i = save
						return false
					}
					return p.recurSeconds(int(secs))
				}
				return p.recurUnit(u, int(amt))
			}
			if p.is(0, "half") && p.is(1, "hour") || p.is(0, "quarter") && p.is(1, "hour") {
				return false
			}
			p.i = save
		}
		if s := compactDuration(p.s(0)); s > 0 && p.tk(0).kind == tNum {
			p.i++
			if s != math.Trunc(s/60)*60 && s >= 60 {
				return false
			}
			return p.recurSeconds(int(s))
		}
	}
	switch {
	case p.is(0, "half") && (p.is(1, "minute") || p.is(1, "a") && p.is(2, "minute")):
		return p.recurSeconds(30)
	case p.is(0, "half") && (p.is(1, "hour") || p.is(1, "an") && p.is(2, "hour")):
		p.i += 2
		if p.s(-1) == "an" {
			p.i++
		}
		return p.recurSeconds(1800)
	case p.is(0, "quarter") && (p.is(1, "hour") || p.is(1, "of") && p.is(2, "an") && p.is(3, "hour")):
		p.i += 2
		if p.s(-1) == "of" {
			p.i += 2
		}
		return p.recurSeconds(900)
	case p.is(0, "quarter"):
		p.i++
		if n != 1 {
			return false
		}
		return p.recurQuarter()
	}
	if p.is(0, "weeknight", "weeknights") || p.is(0, "week") && p.is(1, "day", "days") || p.is(0, "day") && p.is(1, "of") && p.is(2, "the") && p.is(3, "week") {
		if n != 1 {
			return false
		}
		switch {
		case p.is(0, "weeknight", "weeknights"):
			p.i++
			return p.addDows([]int{1, 2, 3, 4, 5}, true)
		case p.is(0, "week"):
			p.i += 2 // "every week day"
			return p.addDows([]int{1, 2, 3, 4, 5}, true)
		}
		p.i += 4 // "every day of the week"
		return p.recurUnit("day", 1)
	}
	if u := p.readUnit(); u != "" {
		return p.recurUnit(u, n)
	}
	switch {
	case p.is(0, "weekday", "weekdays", "workday", "workdays") || p.is(0, "business", "working", "work") && p.is(1, "day", "days"):
		if n != 1 {
			return false
		}
		p.i++
		if p.s(-1) == "business" || p.s(-1) == "working" || p.s(-1) == "work" {
			p.i++
		}
		return p.addDows([]int{1, 2, 3, 4, 5}, true)
	case p.is(0, "weekend", "weekends"):
		p.i++
		if n != 1 && !p.recurUnit("week", n) {
			return false // "every other weekend": every 2 weeks, both days
		}
		return p.addDows([]int{0, 6}, true)

	case p.is(0, "morning", "afternoon", "evening", "night"):
		if n != 1 {
			return false
		}
		p.setPart(p.s(0))
		p.i++
		return p.recurUnit("day", 1)
	}
	if days, _, ok := p.readDayList(); ok {
		if n != 1 {
			// every other Monday and Wednesday: weekly, every 2 weeks
			if !p.recurUnit("week", n) {
				return false
			}
		}
		// "every monday morning"
		if p.is(0, "morning", "afternoon", "evening", "night") {
			p.setPart(p.s(0))
			p.i++
		}
		return p.addDows(days, true)
	}
	// every month-name [day]: yearly
	save = p.i
	if m, ok := p.readMonth(); ok && (m != 5 || p.tk(0).kind == tNum || ordinal(p.s(0)) > 0) {
		if d, ok := p.readDayOfMonth(true); ok {
			if n != 1 {
				p.w.unit, p.w.n = "year", n
			}
			p.w.rec = true
			nm, nd := len(p.w.months), len(p.w.doms)
			if !p.addDate(ymd{m: m, d: d}, true) {
				return false
			}
			return p.dateList(ymd{m: m, d: d}, nm, nd)
		}
		if n != 1 {
			return false
		}
		p.w.rec = true
		return p.addMonths([]int{m})
	}
	p.i = save
	// every 2/14 (and 8/14): yearly
	if p.tk(0).kind == tNum && strings.Count(p.s(0), "/") == 1 {
		return p.slashDates(true)
	}
	// every 25th, every 12th and 26th, every 3rd of January, every first monday
	if p.is(0, "last", "first", "second", "third", "fourth", "fifth", "1st", "2nd", "3rd", "4th", "5th", "final") {
		save, saveW := p.i, p.w
		p.w.rec = true
		if p.pNth() {
			return true
		}
		p.i, p.w = save, saveW
	}
	if _, ok := p.peekDom(); ok {
		p.w.rec = true
		return p.pDomList()
	}
	if n != 1 {
		return false
	}
	return false
}

// monthPartAt: "of the month", "of every month", "in November" at p.i+k.
func monthPartAt(p *parser, k int) bool {
	if !p.is(k, "of", "in", "each", "every") {
		return false
	}
	if _, ok := month(p.s(k + 1)); ok {
		return true
	}
	return p.is(k+1, "the", "every", "each", "month") || p.is(k, "each", "every") && p.is(k+1, "month")
}

func (p *parser) nextIsUnitOrDay(k int) bool {
	s := p.s(k)
	if unit(s) != "" || s == "weekday" || s == "weekend" {
		return true
	}
	_, _, ok := weekday(s)
	return ok
}

// recurUnit records "every n <unit>".
func (p *parser) recurUnit(u string, n int) bool {
	if n <= 0 {
		return false
	}
	if u == "fortnight" {
		u, n = "week", n*2
	}
	if u == "second" && (p.w.unit != "" || n%60 == 0 || n < 60) {
		return p.recurSeconds(n)
	}
	if u == "day" && n == 1 && (p.w.unit == "minute" || p.w.unit == "hour") {
		return true // "every minute between 11:00 and 11:10 every day"
	}
	if p.w.unit != "" && !(p.w.unit == u && p.w.n == n) {
		return false
	}
	p.w.rec, p.w.unit, p.w.n = true, u, n
	return true
}

func (p *parser) recurSeconds(secs int) bool {
	switch {
	case secs < 60:
		p.why = refusal("I can't repeat more often than once a minute: the shortest interval is 60 seconds. Try “every minute”.")
		return false
	case secs%86400 == 0:
		return p.recurUnit("day", secs/86400)
	case secs%3600 == 0:
		return p.recurUnit("hour", secs/3600)
	case secs%60 == 0:
		return p.recurUnit("minute", secs/60)
	}
	return p.recurUnit("second", secs)
}

func (p *parser) recurQuarter() bool {
	if p.w.quart || p.w.unit != "" && p.w.unit != "month" {
		return false
	}
	p.w.rec, p.w.quart = true, true
	return true
}

// pFrequency: daily, weekly, monthly, yearly, annually, quarterly, hourly,
// biweekly, fortnightly, nightly, half-hourly.
func (p *parser) pFrequency() bool {
	s := p.s(0)
	if (s == "bi" || s == "half" || s == "semi") && p.is(1, "-") {
		s += p.s(2)
		p.i += 2
	} else if (s == "bi" || s == "semi") && p.is(1, "weekly", "monthly") {
		s += p.s(1)
		p.i++
	}
	switch s {
	case "daily", "nightly":
		p.i++
		if s == "nightly" {
			p.setPart("night")
		}
		return p.recurUnit("day", 1)
	case "weekly":
		p.i++
		return p.recurUnit("week", 1)
	case "fortnightly":
		p.i++
		return p.recurUnit("week", 2)
	case "biweekly", "semiweekly":
		// twice a week to some, every two weeks to others (NL_SPEC 30)
		p.why = askTime("“" + s + "” can mean twice a week or every two weeks: say “every Monday and Thursday” or “every other Monday”.")
		return false
	case "monthly":
		p.i++
		return p.recurUnit("month", 1)
	case "yearly", "annually":
		p.i++
		return p.recurUnit("year", 1)
	case "quarterly":
		p.i++
		return p.recurQuarter()
	case "hourly":
		p.i++
		return p.recurUnit("hour", 1)
	case "halfhourly":
		p.i++
		return p.recurSeconds(1800)
	case "bimonthly", "semimonthly":
		p.why = askTime("“" + s + "” can mean twice a month or every two months: say “on the 1st and 15th” or “every other month on the 1st”.")
		return false
	}
	return false
}

// pTimesPer: "once a day", "once a week", "twice a day" (asks for the
// times unless they are given), "3 times a week".
func (p *parser) pTimesPer() bool {
	n := 0
	switch {
	case p.is(0, "once"):
		n = 1
		p.i++
	case p.is(0, "twice"):
		n = 2
		p.i++
	case p.is(0, "thrice"):
		n = 3
		p.i++
	default:
		v, ok := p.readNumber(false)
		if !ok || !p.is(0, "times", "x") {
			return false
		}
		n = v
		p.i++
	}
	if !p.is(0, "a", "per", "every", "each", "an") {
		return false
	}
	p.i++
	u := p.readUnit()
	if u == "" {
		return false
	}
	if n == 1 {
		return p.recurUnit(u, 1)
	}
	if !p.recurUnit(u, 1) {
		return false
	}
	p.w.timesPer = n
	return true
}
