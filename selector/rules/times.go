package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Times of day: "9am", "17:30", "noon", "half past 3", "3 in the
// afternoon", "tonight".

// clk is a time of day as written.
type clk struct {
	h, m int
	ap   byte // 'a' or 'p' when written; 0 when not
	zero bool // written with a leading zero or as four digits: 24-hour
}

// partHours are the hours [from, to) each of dayParts names.
var partHours = func() map[string][2]int {
	m := map[string][2]int{}
	for k, p := range dayParts {
		m[p] = [][2]int{{5, 12}, {12, 18}, {17, 23}, {18, 24}}[k]
	}
	return m
}()

// inPart says whether c, read in part ("7 in the evening"), falls within
// it: "in the evening" of a 7am job is 7pm, of a 2pm job no time.
func inPart(c clk, part string) bool {
	h, amb := c.resolved(part)
	r, ok := partHours[part]
	return ok && !amb && h >= r[0] && h < r[1]
}

// resolved is the hour on a 24-hour clock; ambiguous reports a bare 1-6
// (NL_SPEC decision 2), part the part of the day that settles it.
func (c clk) resolved(part string) (h int, ambiguous bool) {
	switch {
	case c.ap == 'a':
		return c.h % 12, false
	case c.ap == 'p':
		return c.h%12 + 12, false
	case c.zero || c.h == 0 || c.h >= 13:
		return c.h, false
	}
	switch part {
	case "morning":
		return c.h % 12, false
	case "afternoon", "evening", "night", "tonight":
		if part == "night" && c.h >= 1 && c.h <= 5 {
			return c.h, true // "3 at night": 3 in the morning, or 3 pm?
		}
		if c.h == 12 {
			if part == "night" || part == "tonight" {
				return 0, false
			}
			return 12, false
		}
		return c.h%12 + 12, false
	}
	if c.h >= 7 && c.h <= 12 {
		return c.h, false
	}
	return c.h, true
}

// readClock reads one time of day. strong reports a form that is a time
// on its own ("9am", "9:30", "noon"); a bare "9" is not.
func (p *parser) readClock() (c clk, strong, ok bool) {
	if c, strong, ok, decided := p.readClockWords(); decided {
		return c, strong, ok
	}
	return p.readClockDigits()
}

// readClockWords reads a time said in words: "noon", "half past 3", "a
// quarter to nine", "twenty past 3pm", "nine thirty". decided is false
// when what follows is digits the words do not start ("9:30").
func (p *parser) readClockWords() (c clk, strong, ok, decided bool) {
	start := p.i
	s := p.s(0)
	k := p.tk(0).kind
	switch {
	case s == "noon" || s == "midday":
		p.i++
		return clk{h: 12, m: 0, zero: true}, true, true, true
	case s == "midnight":
		t := p.tk(0)
		p.w.midnight = &t
		p.i++
		return clk{h: 0, m: 0, zero: true}, true, true, true
	case s == "a" && p.is(1, "quarter") && p.is(2, "past", "after", "to", "till", "til", "before"):
		p.i++ // "a quarter to nine"
		c, strong, ok = p.readClock()
		return c, strong, ok, true
	case (s == "half" || s == "quarter") && p.is(1+btoi(p.is(1, "-")), "past", "after", "to", "till", "til", "before"):
		// "quarter past nine", "half-past 11"
		hy := btoi(p.is(1, "-"))
		m := 30
		if s == "quarter" {
			m = 15
		}
		before := p.is(1+hy, "to", "till", "til", "before")
		p.i += 2 + hy
		hc, _, ok := p.readClock()
		if !ok || hc.m != 0 || hc.h > 12 && hc.ap == 0 && !hc.zero || hc.h > 23 {
			p.i = start
			return clk{}, false, false, true
		}
		if before {
			hc = hourBefore(hc)
			m = 60 - m
		}
		hc.m = m
		return hc, true, true, true
	case s == "half" && p.i > 0 && p.is(-1, "at", "by", "from", "around") && (p.tk(1).kind == tNum && numberIn(p.s(1), 1, 12) || numberWords[p.s(1)] > 0 && numberWords[p.s(1)] <= 12) && unit(p.s(2)) == "":
		// British "at half 8": half past eight
		p.i++
		hc, strong, ok := p.readClock()
		if !ok || hc.m != 0 {
			p.i = start
			return clk{}, false, false, true
		}
		hc.m = 30
		return hc, strong, true, true
	case s == "twenty" && p.tk(1+btoi(p.is(1, "-"))).kind == tWord && numberIn(p.s(1+btoi(p.is(1, "-"))), 1, 9) &&
		p.is(2+btoi(p.is(1, "-")), "past", "after", "to", "till", "before") && p.nextIsHour(3+btoi(p.is(1, "-"))):
		// "twenty-five past ten", "twenty five to six"
		n := 1 + btoi(p.is(1, "-"))
		c, ok := p.minutesOff(start, 20+valueOf(p.s(n)), n+1)
		return c, ok, ok, true
	case (k == tNum && len(s) <= 2 && p.is(1, "past", "after") || k == tWord && numberWords[s] > 0 && p.is(1, "past", "after", "to", "till", "before")) && numberIn(s, 1, 59) && p.nextIsHour(2) &&
		!(s == "one" && p.is(1, "to", "till", "before")): // "push tomorrow's one to 4pm": a job, not 3:59
		// digits before "to" are a range ("9 to 5"), not "ten to five"
		// "twenty past 3pm", "ten to 5", "5 past 9"
		c, ok := p.minutesOff(start, valueOf(s), 1)
		return c, ok, ok, true
	case k == tWord && numberIn(s, 1, 12):
		c, strong, ok = p.readSpelledClock(start, s)
		return c, strong, ok, true
	case k != tNum:
		return clk{}, false, false, true
	}
	return clk{}, false, false, false
}

// readSpelledClock reads an hour in words: "nine", "nine thirty", "nine
// oh five", "twelve noon", "nine am", "nine o'clock".
func (p *parser) readSpelledClock(start int, s string) (c clk, strong, ok bool) {
	c = clk{h: valueOf(s)} // one to twelve, in words
	p.i++
	switch {
	case numberIn(p.s(0), 10, 59) && p.tk(0).kind == tWord:
		// "nine thirty", "seven forty-five"
		m, _ := p.readNumber(false)
		if m > 59 {
			p.i = start
			return clk{}, false, false
		}
		c.m, strong = m, true
	case p.is(0, "oh", "o") && numberIn(p.s(1), 1, 9) && p.tk(1).kind == tWord:
		// "nine oh five"
		c.m, strong = valueOf(p.s(1)), true
		p.i += 2
	case s == "twelve" && p.is(0, "noon", "midday"):
		p.i++
		return clk{h: 12, zero: true}, true, true
	case s == "twelve" && p.is(0, "midnight"):
		p.i++
		return clk{h: 0, zero: true}, true, true
	}
	if ap := p.readAmPm(); ap != 0 {
		c.ap, strong = ap, true
	} else if p.is(0, "o'clock", "oclock") {
		p.i++
		strong = true
	}
	return c, strong, true
}

// readClockDigits reads a time in digits: "9", "9:30", "17h30", "0930",
// "930am", "9.30", with what follows it ("pm", "o'clock", "hours").
func (p *parser) readClockDigits() (c clk, strong, ok bool) {
	start := p.i
	s := p.s(0)
	body := s
	suffix := ""
	for j := 0; j < len(body); j++ {
		if isASCIILetter(body[j]) {
			body, suffix = s[:j], s[j:]
			break
		}
	}
	if strings.Count(body, ":") == 2 {
		p.why = refusal("I schedule to the minute; seconds in a time (like 9:00:30) aren't supported.")
		return clk{}, false, false
	}
	if h, ok := number(strings.TrimSuffix(body, "-")); suffix == "ish" && ok && h >= 1 && h <= 12 && p.tk(0).kind == tNum {
		// "next tue 3ish": about 3, which is no time to post at; the
		// answer ("3pm", or "pm") takes its place
		p.why = askTimeFor(p.t[p.i:p.i+1], fmt.Sprintf("About %d? I post at an exact time: say “%dam”, “%dpm” or “%d:15pm”.", h, h, h, h))
		p.why.ask.soft = true
		return clk{}, false, false
	}
	switch {
	case strings.Contains(body, ":") || strings.Contains(body, "."):
		sep := ":"
		if !strings.Contains(body, ":") {
			sep = "."
		}
		a, b, _ := strings.Cut(body, sep)
		h, okH := number(a)
		m, okM := number(b)
		if len(b) != 2 || !okH || !okM {
			return clk{}, false, false
		}
		if h > 23 || m > 59 {
			p.why = askTimeFor(p.t[p.i:p.i+1], "That time doesn't exist on a clock. Which time did you mean, for example 9am or 17:30?")
			return clk{}, false, false
		}
		c = clk{h: h, m: m, zero: len(a) == 2 && a[0] == '0'}
		strong = sep == ":" // "9.30" is a time only where a time is expected
	case strings.HasPrefix(suffix, "h") && len(suffix) > 1 && suffix != "hr" && suffix != "hrs":
		// 17h30 (the digits after h are in s)
		if !numberIn(body, 0, 23) || !numberIn(s[len(body)+1:], 0, 59) {
			return clk{}, false, false
		}
		p.i++
		return clk{h: valueOf(body), m: valueOf(s[len(body)+1:]), zero: true}, true, true
	case suffix == "h" && valueOf(body) <= 23 && (p.s(-1) == "at" || slices.Contains(relativeDays, p.s(-1)) || func() bool { _, _, ok := weekday(p.s(-1)); return ok }()):
		// "at 15h", "tomorrow 15h": 15:00 (after "every" or "in", hours)
		p.i++
		return clk{h: valueOf(body), zero: true}, true, true
	case len(body) == 4 || len(body) == 3 && suffix != "":
		// 0930, 1100, 930am
		h, okH := number(body[:len(body)-2])
		m, okM := number(body[len(body)-2:])
		if h > 23 || m > 59 || !okH || !okM {
			return clk{}, false, false
		}
		c = clk{h: h, m: m, zero: len(body) == 4}
		strong = len(body) == 4 && (body[0] == '0' || body[0] == '1') || suffix != "" || p.s(-1) == "at"
		if len(body) == 4 && !strong {
			return clk{}, false, false
		}
	case len(body) <= 2:
		h, ok := number(body)
		if !ok || h > 24 {
			return clk{}, false, false
		}
		c = clk{h: h, zero: len(body) == 2 && body[0] == '0'}
	default:
		return clk{}, false, false
	}
	p.i++
	return p.clockAfterDigits(c, strong, suffix, start)
}

// clockAfterDigits reads what a clock's digits carry and what follows
// them: am or pm ("9am", "9 pm"), noon or midnight after 12, o'clock,
// "hours" after 0900; and checks the hour against it. start is where the
// clock began, for a failure to go back to.
func (p *parser) clockAfterDigits(c clk, strong bool, suffix string, start int) (clk, bool, bool) {
	switch suffix {
	case "":
	case "am", "a":
		c.ap = 'a'
	case "pm", "p":
		c.ap = 'p'
	default:
		p.i = start
		return clk{}, false, false
	}
	if c.ap == 0 {
		if ap := p.readAmPm(); ap != 0 {
			c.ap = ap
		} else if c.h == 12 && c.m == 0 && p.is(0, "noon", "midday", "midnight") {
			// "12 noon", "12 midnight"
			if p.is(0, "midnight") {
				c.h = 0
			}
			c.zero, strong = true, true
			p.i++
		} else if p.is(0, "o'clock", "oclock") {
			p.i++
			strong = true
			if ap := p.readAmPm(); ap != 0 {
				c.ap = ap // "9 o'clock pm"
			}
		} else if p.is(0, "hours", "hrs", "h") && (c.zero || start > 0 && p.t[start-1].s == "at" && c.h <= 23 && !p.is(1, "from", "later", "ago", "before", "after")) {
			p.i++ // 0900 hours; "at 9 hours", as 9h is said in much of the world
			c.zero = true
			strong = true
		}
	}
	if c.ap != 0 {
		strong = true
		if c.h < 1 || c.h > 12 {
			p.why = askTimeFor(p.t[start:p.i], "That time doesn't exist on a clock. Which time did you mean, for example 9am or 17:30?")
			p.i = start
			return clk{}, false, false
		}
	}
	if c.h == 24 {
		if c.m != 0 || c.ap != 0 {
			p.i = start
			return clk{}, false, false
		}
		c.h = 0
	}
	return c, strong, true
}

// hourBefore is the hour before c's: "quarter to midnight" is 23:45,
// "ten to 1pm" 12:50 pm, "quarter to nine" 8:45.
func hourBefore(c clk) clk {
	switch {
	case c.ap == 0 && c.zero:
		c.h = (c.h + 23) % 24
	case c.ap == 0:
		c.h--
		if c.h == 0 {
			c.h = 12
		}
	default:
		c.h--
		if c.h == 0 {
			c.h = 12
		} else if c.h == 11 {
			c.ap = map[byte]byte{'a': 'p', 'p': 'a'}[c.ap] // "ten to 12pm" is 11:50 am
		}
	}
	return c
}

func (p *parser) readAmPm() byte {
	if (p.is(0, "a", "p")) && p.is(1, "m") && p.tk(1).kind == tWord {
		// "five p m", as dictation writes it
		ap := p.s(0)[0]
		p.i += 2
		return ap
	}
	switch p.s(0) {
	case "am", "a":
		if p.s(0) == "a" && p.tk(1).kind == tWord && !p.is(1, "and") {
			return 0 // "at 9 a week": not am
		}
		p.i++
		return 'a'
	case "pm", "p":
		p.i++
		return 'p'
	}
	return 0
}

// pClocks: "at 9", "9am", "at 8, 12 and 16", "at 9am and 5pm", "9 tonight".
func (p *parser) pClocks() bool {
	at := false
	if h, _, ok := strings.Cut(p.s(1), ":"); ok && p.is(0, "in") && p.tk(1).kind == tNum && numberIn(h, 13, 23) && unit(p.s(2)) == "" {
		p.i++ // "each working day in 18:00", as "at" is said in much of the world; "in 1:30" is a while
	}
	if p.is(0, "at", "@") {
		p.i++
		at = true
		if p.is(0, "exactly", "precisely") {
			p.i++
		}
	}
	var cs []clk
	for {
		c, strong, ok := p.readClock()
		if !ok {
			break
		}
		if !strong && !at && len(cs) == 0 && !p.is(0, "in", "tonight", "this") && p.w.part != "tonight" && !p.afterDayComma(c) {
			return false
		}
		cs = append(cs, c)
		j := p.i
		switch {
		case p.is(0, ",") && p.is(1, "and", "&"):
			p.i += 2
		case p.is(0, ",", "and", "&"):
			p.i++
		default:
			goto done
		}
		if p.is(0, "at") {
			p.i++
		}
		if _, _, ok := p.peekClock(); !ok || unit(p.s(1)) != "" || p.is(1, "times", "x") {
			p.i = j // "at 9, 2 times": a count, not a time
			goto done
		}
	}
done:
	if len(cs) > 0 && slices.Equal(cs, p.w.clocks) && p.w.rec {
		return true // the same times said twice: "every day at 8am … daily at 8am"
	}
	if len(cs) == 0 || len(p.w.clocks) > 0 {
		return false // times are one list: "at 9am 10am" is not read
	}
	// "8 tonight", "at 8 in the evening"
	p.dayPartAfter()
	p.w.clocks = append(slices.Clip(p.w.clocks), cs...)
	return true
}

// afterDayComma: a bare hour after a day and a comma, before a zone or
// the end ("tomorrow, 10 pacific time").
func (p *parser) afterDayComma(c clk) bool {
	k := p.i - 1
	if c.m != 0 {
		return false
	}
	for k >= 0 && p.t[k].kind == tNum {
		k--
	}
	if k < 0 || !(p.t[k].s == "," && k >= 1 || dayWord(p.t[k]) && len(p.t[k].s) > 2) || !(p.w.hasDay || len(p.w.dows) > 0 || p.w.date != nil) {
		return false // "friday, 9" and "next tue 9": after the day, at the end
	}
	return p.i == len(p.t) || zoneWords[p.s(0)] != "" || zoneAbbrev[p.s(0)] != ""
}

func (p *parser) peekClock() (clk, bool, bool) {
	save, w := p.i, p.w
	c, strong, ok := p.readClock()
	p.i, p.w = save, w
	return c, strong, ok
}

// dayPartAfter reads "in the morning", "tonight", "at night" after a time.
func (p *parser) dayPartAfter() { p.partPhrase() }

// partPhrase reads "in the morning", "at night", "tonight", "this evening";
// false when none is at p.i.
func (p *parser) partPhrase() bool {
	switch {
	case p.is(0, "in") && p.is(1, "the") && p.is(2, "morning", "afternoon", "evening"):
		p.setPart(p.s(2))
		p.i += 3
	case p.is(0, "in") && p.is(1, "morning", "afternoon", "evening") && p.i > 0 && p.tk(-1).kind == tNum:
		p.setPart(p.s(1)) // "7 in morning"
		p.i += 2
	case p.is(0, "at") && p.is(1, "night"):
		p.setPart("night")
		p.i += 2
	case p.is(0, "tonight"):
		p.setPart("tonight")
		p.w.hasDay, p.w.dayRel, p.w.dateAny = true, 0, true
		p.i++
	case p.is(0, "this") && p.is(1, "morning", "afternoon", "evening"):
		p.setPart(p.s(1))
		p.w.hasDay, p.w.dayRel, p.w.dateAny = true, 0, true
		p.i += 2
	default:
		return false
	}
	return true
}

// vagueTime is how many words at p.i+k name a time of the working day
// that only its speaker knows ("eod", "lunch", "end of the day", "close
// of business"); 0 when none do.
func (p *parser) vagueTime(k int) int {
	switch {
	case p.is(k, "eod", "eob", "cob", "lunch", "lunchtime", "later", "soon", "sometime", "asap"):
		return 1
	case p.is(k, "end") && p.is(k+1, "of") && p.is(k+2, "day", "business"), p.is(k, "close") && p.is(k+1, "of") && p.is(k+2, "business"):
		return 3
	case p.is(k, "end") && p.is(k+1, "of") && p.is(k+2, "the") && p.is(k+3, "day"):
		return 4
	}
	return 0
}

func (p *parser) setPart(part string) {
	p.w.part = part
}

// pPart: "in the morning", "this evening", "tonight", "every morning" is in
// pEvery. Alone, a part of the day is vague: asked about in compile.
func (p *parser) pPart() bool {
	switch {
	case p.partPhrase():
	case p.is(0, "morning", "afternoon", "evening", "night", "mornings", "afternoons", "evenings", "nights") && p.w.part == "" && (len(p.w.dows) > 0 || p.w.hasDay) && p.i > 0 && dayWord(p.tk(-1)):
		// "friday afternoon", "tomorrow morning", "sunday mornings"
		part := strings.TrimSuffix(p.s(0), "s")
		if strings.HasSuffix(p.s(0), "s") {
			p.w.rec, p.w.dowsEv = true, true
		}
		p.setPart(part)
		p.i++
	case p.vagueTime(0) > 0 && len(p.w.clocks) == 0 && (p.i > 0 && p.is(-1, "at", "by", "around", "before", "after", "until", "till", "tomorrow", "today", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday") || p.is(0, "eod", "eob", "cob") || p.vagueTime(0) > 1),
		p.is(0, "at", "by", "around", "before", "after", "until", "till") && p.vagueTime(1) > 0 && !p.is(1, "later", "soon", "sometime", "asap") && len(p.w.clocks) == 0:
		// "at lunch", "by eod", "before end of day": vague, so asked
		// about; "lunch" alone, or after a time, is text
		if p.vagueTime(0) == 0 {
			p.i++ // the word before it
		}
		n := p.vagueTime(0)
		p.w.vague = p.s(0)
		for k := 1; k < n; k++ {
			p.w.vague += " " + p.s(k)
		}
		p.i += n
	default:
		return false
	}
	return true
}

// minutesOff reads the hour after m minutes and the word at p.i+rel
// ("past", "to"): m minutes past it, or before it. On false the parser
// is back at start.
func (p *parser) minutesOff(start, m, rel int) (clk, bool) {
	before := p.is(rel, "to", "till", "before")
	p.i += rel + 1
	hc, _, ok := p.readClock()
	if !ok || hc.m != 0 {
		p.i = start
		return clk{}, false
	}
	if before {
		hc = hourBefore(hc)
		m = 60 - m
	}
	hc.m = m
	return hc, true
}
