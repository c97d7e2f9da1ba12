package rules

import (
	"math"
	"slices"
	"strings"
	"time"
)

// The grammar of the "when". A block of tokens is read phrase by phrase;
// each production consumes the tokens it understands and adds what they
// mean to a when. A block is accepted only if every token in it is
// consumed and the phrases agree with each other: what a production does
// not understand is never skipped.
//
// The productions of each phrasing family are in a file of their own
// (see the package comment); the productions table below lists them all
// in the order they are tried.

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
	// untilClock: the end was said as a time of day ("until 11pm
	// tonight"), which only a job firing more than once a day can use
	untilClock bool
	start      *bound
	noEnd      bool // "forever", "until further notice": no bound, said
	midnight   *tok // the word "midnight", when said

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

// noEnd are the ways of saying a schedule has no end, which it has
// unless a bound is named (NL_SPEC decision 8): they mean nothing more.
// Pause and delete ignore them too (openEndedRe).
var noEnd = [][]string{{"until", "further", "notice"}, {"until", "cancelled"}, {"until", "canceled"},
	{"until", "stopped"}, {"for", "ever"}, {"forever"}, {"indefinitely"}, {"going", "forward"}, {"from", "now", "on"}}

// noEndAlternatives is noEnd as regexp alternatives, for openEndedRe.
func noEndAlternatives() string {
	alts := make([]string, len(noEnd))
	for i, words := range noEnd {
		alts[i] = strings.Join(words, `\s+`)
	}
	return strings.Join(alts, "|")
}

// filler is what may stand between phrases.
func (p *parser) filler() bool {
	for _, words := range noEnd {
		if p.i+len(words) <= len(p.t) && slices.EqualFunc(words, p.t[p.i:p.i+len(words)], func(w string, t tok) bool { return t.s == w }) {
			p.i += len(words)
			p.w.noEnd = true
			return true
		}
	}
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
	{name: "date-said", read: (*parser).pDateSaid},
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

// readNumber reads a count: "3", "three", "a", "an".
func (p *parser) readNumber(allowA bool) (int, bool) {
	s := p.s(0)
	if allowA && (s == "a" || s == "an" || s == "one") {
		p.i++
		return 1, true
	}
	if n, ok := number(s); ok && p.tk(0).kind != tQuote {
		p.i++
		// "forty-five", "twenty five"
		if n >= 20 && n%10 == 0 && n < 100 {
			j := p.i
			if p.s(0) == "-" {
				p.i++
			}
			if m, ok := number(p.s(0)); ok && m >= 1 && m <= 9 && p.tk(0).kind == tWord {
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
	x, okX := number(a)
	y, okY := number(b)
	if !okX || !okY || len(b) == 0 || len(b) > 2 {
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
