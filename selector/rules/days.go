package rules

import (
	"regexp"
	"slices"
	"strings"
)

// Days of the week and their ranges: "Monday", "mon-fri", "weekdays",
// "from Monday to Thursday", "tue/thu".

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

// pNextWeekday reads "next Monday", "this coming Friday": one day, the
// coming one. matched is false when it is not there.
func (p *parser) pNextWeekday(start int) (ok, matched bool) {
	switch {
	case p.is(0, "next", "this", "coming", "upcoming") || p.is(0, "this") && p.is(1, "coming"):
		if _, _, ok := weekday(p.s(1)); ok || p.is(1, "coming") {
			next := p.is(0, "next")
			p.i++
			if p.is(0, "coming") {
				p.i++
			}
			d, plural, ok := p.readWeekday()
			if !ok || plural {
				p.i = start
				return false, true
			}
			if p.w.dateAny || p.w.hasDay {
				return false, true
			}
			p.w.dows = append(slices.Clip(p.w.dows), d)
			p.w.wdOnce, p.w.wdNext, p.w.dateAny = true, next, true
			p.dayPartAfterDay()
			return true, true
		}
	}
	return false, false
}

// pDayGroup reads the named groups of days: weekdays, business days,
// weekends, weekday mornings. on says "on", "every" or "each" came before.
func (p *parser) pDayGroup(on bool) (ok, matched bool) {
	switch {
	case p.is(0, "weekdays") && p.is(1, "only"):
		p.i += 2
		return p.addDows([]int{1, 2, 3, 4, 5}, true), true
	case p.is(0, "weekdays") || p.is(0, workdayLeads...) && p.is(1, "days") || p.is(0, "workdays"):
		p.i++
		if p.s(-1) != "weekdays" && p.s(-1) != "workdays" {
			p.i++
		}
		ok := p.addDows([]int{1, 2, 3, 4, 5}, true)
		p.dayPartAfterDay()
		return ok, true
	case p.is(0, "weekends"):
		p.i++
		ok := p.addDows([]int{0, 6}, true)
		p.dayPartAfterDay()
		return ok, true
	case p.is(0, "weekday", "weekend") && p.is(1, "mornings", "afternoons", "evenings", "nights"):
		// "weekday mornings at 8"
		days := []int{1, 2, 3, 4, 5}
		if p.is(0, "weekend") {
			days = []int{0, 6}
		}
		p.i++
		ok := p.addDows(days, true)
		p.dayPartAfterDay()
		return ok, true
	case on && p.is(0, "weekdays", "weekday"):
		p.i++
		return p.addDows([]int{1, 2, 3, 4, 5}, true), true
	case on && p.is(0, "weekend") && p.s(-1) != "the":
		p.i++
		return p.addDows([]int{0, 6}, true), true
	}
	return false, false
}

// pDays: "on Monday", "Mondays", "on mon, wed and fri", "every weekday" is
// in pEvery; "next Friday", "this Friday", "weekdays", "on weekends".
func (p *parser) pDays() bool {
	start := p.i
	if p.is(0, "on") && p.is(1, "next", "this", "coming", "upcoming") {
		p.i++ // "on this coming Monday"
	}
	if p.is(0, "in") && p.is(1, "the") {
		if _, plural, ok := weekday(p.s(2)); ok && !plural {
			p.i += 2 // "in the friday", said for "on friday"
		}
	}
	if p.is(0, "the") && p.is(1, "next", "coming") {
		if _, _, ok := weekday(p.s(2)); ok {
			p.i++ // "the next monday", said for "next monday"
		}
	}
	if ok, matched := p.pNextWeekday(start); matched {
		return ok
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
	if ok, matched := p.pDayGroup(on); matched {
		return ok
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

// readWeekday reads one day name; plural reports "mondays".
func (p *parser) readWeekday() (d int, plural, ok bool) {
	if p.tk(0).kind != tWord {
		return 0, false, false
	}
	d, plural, ok = weekday(p.s(0))
	if ok {
		p.i++
	}
	return d, plural, ok
}

var dayCodes = map[string]int{"m": 1, "mo": 1, "t": 2, "tu": 2, "w": 3, "we": 3, "r": 4, "th": 4, "f": 5, "fr": 5, "sa": 6, "su": 0, "u": 0}

var compactDays = map[string][]int{
	"mwf": {1, 3, 5}, "tth": {2, 4}, "tuth": {2, 4}, "tr": {2, 4}, "mtwtf": {1, 2, 3, 4, 5}, "mtwrf": {1, 2, 3, 4, 5},
	"mtwthf": {1, 2, 3, 4, 5}, "mw": {1, 3}, "mwth": {1, 3, 4},
}

// readDayCodes reads days as codes joined by slashes: M/W/F, T/Th.
// matched is false when they are not there; ok is false for "t/w"
// (Tuesday or Thursday?).
func (p *parser) readDayCodes() (days []int, ok, matched bool) {
	start := p.i
	if _, isCode := dayCodes[p.s(0)]; !isCode || !p.is(1, "/") {
		return nil, false, false
	}
	var out []int
	j := p.i
	for {
		c2, ok := dayCodes[p.s(0)]
		if !ok {
			if d, _, ok := weekday(p.s(0)); ok {
				c2 = d
			} else {
				break
			}
		}
		out = append(out, c2)
		p.i++
		if !p.is(0, "/") {
			break
		}
		p.i++
	}
	if len(out) >= 2 && p.s(-1) != "/" {
		if slices.Contains(out, 2) && p.t[j].s == "t" && !hasCode(p.t[j:p.i], "th", "r") {
			p.i = start // "t/w": Tuesday or Thursday?
			return nil, false, true
		}
		return out, true, true
	}
	p.i = start
	return nil, false, false
}

// readDayList reads "mon, wed and fri", "mon-fri", "fri through mon",
// "tue/thu", "M/W/F", "MWF", "weekdays and saturdays". plural is true when
// any day was plural; n is how many items were read.
func (p *parser) readDayList() (days []int, plural bool, ok bool) {
	start := p.i
	// M/W/F, T/Th: one- or two-letter codes joined by slashes.
	if codes, ok, matched := p.readDayCodes(); matched {
		return codes, false, ok
	}
	if d, ok := compactDays[p.s(0)]; ok {
		p.i++
		return d, false, true
	}
	// M-F, Mon-Fri written with codes
	if a, ok := dayCodes[p.s(0)]; ok && p.is(1, "-") && p.t[p.i].j == p.t[p.i+1].i {
		if b, ok := dayCodes[p.s(2)]; ok && a != b && p.s(0) != "t" && p.s(2) != "t" && p.s(0) != "s" && p.s(2) != "s" {
			p.i += 3
			var out []int
			for x := a; ; x = (x + 1) % 7 {
				out = append(out, x)
				if x == b {
					break
				}
			}
			return out, false, true
		}
	}
	for {
		d, pl, ok := p.readWeekday()
		if !ok {
			switch {
			case p.is(0, "weekdays", "weekday") && len(days) > 0:
				p.i++
				days = append(days, 1, 2, 3, 4, 5)
				plural = true
			case p.is(0, "weekends", "weekend") && len(days) > 0:
				p.i++
				days = append(days, 0, 6)
				plural = true
			default:
				if len(days) == 0 {
					p.i = start
					return nil, false, false
				}
				// a trailing list word belongs to what follows
				p.i = p.lastGood
				return days, plural, true
			}
		} else {
			plural = plural || pl
			// a range: mon-fri, fri through mon, monday to friday
			j := p.i
			if p.is(0, rangeWords...) {
				p.i++
				if e, pl2, ok := p.readWeekday(); ok {
					plural = plural || pl2
					for x := d; ; x = (x + 1) % 7 {
						days = append(days, x)
						if x == e {
							break
						}
					}
				} else {
					p.i = j
					days = append(days, d)
				}
			} else {
				days = append(days, d)
			}
		}
		p.lastGood = p.i
		// list words
		j := p.i
		switch {
		case p.is(0, ",") && p.is(1, "and", "&"):
			p.i += 2
		case p.is(0, ",", "and", "&", "/", "+", "plus"):
			// not "or": "Monday or Tuesday" is a choice, asked about
			p.i++
		case p.tk(0).kind == tWord:
			if _, _, ok := weekday(p.s(0)); ok && p.t[p.i].i-p.t[p.i-1].j <= 2 { // "mon wed fri"
				continue // (a wider gap is where a target was taken out)
			}
			return days, plural, true
		default:
			return days, plural, true
		}
		if p.is(0, "on", "every", "each") {
			if _, _, ok := weekday(p.s(1)); ok {
				p.i++
			}
		}
		if _, _, ok := weekday(p.s(0)); !ok && !p.is(0, "weekdays", "weekends", "weekday", "weekend") {
			p.i = j
			return days, plural, true
		}
	}
}

func hasCode(ts []tok, codes ...string) bool {
	for _, t := range ts {
		if slices.Contains(codes, t.s) {
			return true
		}
	}
	return false
}

// dayWord: "friday", "weekday", "tomorrow" — what "morning" may follow.
func dayWord(t tok) bool {
	if _, _, ok := weekday(t.s); ok {
		return true
	}
	switch t.s {
	case "weekday", "weekdays", "weekend", "weekends", "tomorrow", "today", "tmr", "tmrw", "day":
		return true
	}
	return false
}

func (p *parser) addDows(days []int, recurring bool) bool {
	if (p.w.wdOnce || p.w.dowsEv) && recurring && slices.Equal(uniq(slices.Clone(p.w.dows)), uniq(slices.Clone(days))) {
		// the same days said twice: "at 10:00 on monday send hi every
		// monday", "every friday … on fridays"
		p.w.rec, p.w.dowsEv, p.w.wdOnce = true, true, false
		return true
	}
	if p.w.wdOnce || p.w.dowsEv && recurring {
		return false // two sets of days: "every monday … every friday"
	}
	p.w.dows = append(slices.Clip(p.w.dows), days...)
	if recurring {
		p.w.rec, p.w.dowsEv = true, true
	}
	return true
}

// alsoOnRe: days added after a weekly when ("…, and also on mondays").
var alsoOnRe = regexp.MustCompile(`(?i)[,;]?\s+(?:and\s+)?(?:also\s+)?on\s+([a-z]+(?:(?:\s*,\s*|\s+and\s+)[a-z]+)*)(?:\s+too|\s+as\s+well)?\s*$`)

// alsoOnDays is body with days said after its when ("every friday at 6pm,
// and also on mondays") put beside the days it names ("every friday and
// mondays at 6pm"): one job on all of them. "" when it says none.
func alsoOnDays(body string) string {
	m := alsoOnRe.FindStringSubmatchIndex(body)
	if m == nil {
		return ""
	}
	for _, t := range lex(body[m[2]:m[3]]) {
		if _, _, ok := weekday(t.s); !ok && t.s != "and" && t.s != "," {
			return ""
		}
	}
	head := body[:m[0]]
	toks := lex(head)
	for k := len(toks) - 1; k > 0; k-- {
		if _, _, ok := weekday(toks[k].s); ok && (toks[k-1].s == "every" || toks[k-1].s == "on") {
			return head[:toks[k].j] + " and " + body[m[2]:m[3]] + head[toks[k].j:]
		}
	}
	return ""
}
