package rules

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Recurrences: "every …", "daily", "fortnightly", "twice a week",
// "3 times a day".

// pEvery: every/each + what recurs. After the word and a step ("other",
// "third"), the readings below are tried in order; the first that
// recognises what follows decides, whether it reads it or refuses it.
func (p *parser) pEvery() bool {
	if p.is(0, "on", "at") && p.is(1, "every", "each") || p.is(0, "in") && p.is(1, "every") && p.tk(2).kind == tNum {
		p.i++ // "on every Monday", "in every 2 hours"
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
	if ok, decided := p.everyNthOfMonth(); decided {
		return ok
	}
	n := p.everyStep()
	for _, read := range everyReadings {
		if ok, decided := read(p, n); decided {
			return ok
		}
	}
	return false
}

// everyReadings are what may follow "every" and its step n, in the order
// they are tried. Each reports whether it decided, and if so whether it
// read the phrase.
var everyReadings = []func(p *parser, n int) (ok, decided bool){
	(*parser).everyAmount,     // every 15 minutes, every 1.5 hours, every 90m
	(*parser).everyFraction,   // every half hour, every quarter, every hour and a half
	(*parser).everyWeeknight,  // every weeknight, every week day, every day of the week
	(*parser).everyUnit,       // every day, every 2 weeks
	(*parser).everyKindOfDay,  // every weekday, every weekend, every morning
	(*parser).everyDays,       // every Monday and Wednesday (morning)
	(*parser).everyMonth,      // every May 5, every April
	(*parser).everyDayOfMonth, // every 2/14, every 25th, every first Monday
}

// everyNthOfMonth: "every second Tuesday of the month" is the second
// Tuesday; "every 3rd fri" the 3rd Friday of each month, as calendars
// read it; "every second Tuesday" alone is asked about.
func (p *parser) everyNthOfMonth() (ok, decided bool) {
	if p.is(0, "first", "second", "third", "fourth", "fifth", "last", "1st", "2nd", "3rd", "4th", "5th") && (monthPartAt(p, 2) || p.is(1, "and", ",", "&") && ordinalIn(p.s(2), 1, 99) || p.is(1, "and") && p.is(2, "last")) {
		save, saveW := p.i, p.w
		p.w.rec = true
		if p.pNth() {
			return true, true
		}
		p.i, p.w = save, saveW
	}
	if p.is(0, "2nd", "3rd", "4th", "5th") && !monthPartAt(p, 2) {
		if _, plural, ok := weekday(p.s(1)); ok && !plural {
			save, saveW := p.i, p.w
			p.w.rec = true
			ord, _ := ordinal(p.s(0)) // "2nd".."5th"
			p.i++
			d, _, _ := p.readWeekday()
			if p.w.unit == "" {
				p.w.unit, p.w.n = "month", 1
			}
			if p.w.unit == "month" {
				p.w.nths = append(slices.Clip(p.w.nths), nth{ord: ord, counts: namedWeekday, dow: d})
				return true, true
			}
			p.i, p.w = save, saveW
			return false, true
		}
	}
	if p.is(0, "second", "third", "fourth", "fifth") && !monthPartAt(p, 2) {
		if _, _, ok := weekday(p.s(1)); ok {
			// "every 2nd Tuesday": every other week, or the 2nd Tuesday
			// of the month? Asked.
			// An answer that repeats ("every other Monday") takes the words' place.
			p.why = askTimeFor(p.t[p.i-1:p.i+2], "Every "+p.s(0)+" "+capitalize(p.s(1))+" of the month, or every "+p.s(0)+" week? Say “the "+p.s(0)+" "+capitalize(p.s(1))+" of every month” or “every other "+capitalize(p.s(1))+"”.")
			return false, true
		}
	}
	return false, false
}

// everyStep reads "other", "third", "4th": every how many; 1 when none.
func (p *parser) everyStep() int {
	switch {
	case p.is(0, "other", "alternate", "second", "2nd") && !(p.is(0, "second", "2nd") && (p.is(1, "of") || p.is(1, "and", ",") || !p.nextIsUnitOrDay(1))):
		p.i++
		return 2
	case p.is(0, "third", "3rd") && p.nextIsUnitOrDay(1):
		p.i++
		return 3
	case p.is(0, "fourth", "4th") && p.nextIsUnitOrDay(1):
		p.i++
		return 4
	}
	return 1
}

// everyAmount: every 15 minutes, every 2 hours, every 1.5 hours, every 90m.
func (p *parser) everyAmount(n int) (ok, decided bool) {
	if n != 1 {
		return false, false
	}
	save := p.i
	if amt, ok := p.readAmount(); ok {
		if u := p.readUnit(); u != "" {
			if amt != math.Trunc(amt) {
				secs := amt * unitSeconds[u]
				if u == "month" || u == "year" || secs != math.Trunc(secs/60)*60 {
					p.i = save
					return false, true
				}
				return p.recurSeconds(int(secs)), true
			}
			return p.recurUnit(u, int(amt)), true
		}
		if p.is(0, "half") && p.is(1, "hour") || p.is(0, "quarter") && p.is(1, "hour") {
			return false, true
		}
		p.i = save
	}
	if s := compactDuration(p.s(0)); s > 0 && p.tk(0).kind == tNum {
		p.i++
		if s != math.Trunc(s/60)*60 && s >= 60 {
			return false, true
		}
		return p.recurSeconds(int(s)), true
	}
	return false, false
}

// everyFraction: every half minute, every half hour, every quarter of an
// hour, every quarter.
func (p *parser) everyFraction(n int) (ok, decided bool) {
	switch {
	case n == 1 && p.is(0, "hour") && p.is(1, "and") && p.is(2, "a") && p.is(3, "half"):
		p.i += 4 // "every hour and a half"
		return p.recurSeconds(5400), true
	case p.is(0, "half") && (p.is(1, "minute") || p.is(1, "a") && p.is(2, "minute")):
		return p.recurSeconds(30), true
	case p.is(0, "half") && (p.is(1, "hour") || p.is(1, "an") && p.is(2, "hour")):
		p.i += 2
		if p.s(-1) == "an" {
			p.i++
		}
		return p.recurSeconds(1800), true
	case p.is(0, "quarter") && (p.is(1, "hour") || p.is(1, "of") && p.is(2, "an") && p.is(3, "hour")):
		p.i += 2
		if p.s(-1) == "of" {
			p.i += 2
		}
		return p.recurSeconds(900), true
	case p.is(0, "quarter"):
		p.i++
		if n != 1 {
			return false, true
		}
		return p.recurQuarter(), true
	}
	return false, false
}

// everyWeeknight: every weeknight, every week day, every day of the week.
func (p *parser) everyWeeknight(n int) (ok, decided bool) {
	if !(p.is(0, "weeknight", "weeknights") || p.is(0, "week") && p.is(1, "day", "days") || p.is(0, "day") && p.is(1, "of") && p.is(2, "the") && p.is(3, "week")) {
		return false, false
	}
	if n != 1 {
		return false, true
	}
	switch {
	case p.is(0, "weeknight", "weeknights"):
		p.i++
		return p.addDows([]int{1, 2, 3, 4, 5}, true), true
	case p.is(0, "week"):
		p.i += 2 // "every week day"
		return p.addDows([]int{1, 2, 3, 4, 5}, true), true
	}
	p.i += 4 // "every day of the week"
	return p.recurUnit("day", 1), true
}

// everyUnit: every day, every other week, every 3rd month.
func (p *parser) everyUnit(n int) (ok, decided bool) {
	if u := p.readUnit(); u != "" {
		return p.recurUnit(u, n), true
	}
	return false, false
}

// everyKindOfDay: every weekday, every business day, every (other)
// weekend, every morning.
func (p *parser) everyKindOfDay(n int) (ok, decided bool) {
	switch {
	case p.is(0, "weekday", "weekdays", "workday", "workdays") || p.is(0, workdayLeads...) && p.is(1, "day", "days"):
		if n != 1 {
			return false, true
		}
		p.i++
		if p.is(-1, workdayLeads...) {
			p.i++
		}
		return p.addDows([]int{1, 2, 3, 4, 5}, true), true
	case p.is(0, "weekend", "weekends"):
		p.i++
		if n != 1 && !p.recurUnit("week", n) {
			return false, true // "every other weekend": every 2 weeks, both days
		}
		return p.addDows([]int{0, 6}, true), true
	case p.is(0, "morning", "afternoon", "evening", "night"):
		if n != 1 {
			return false, true
		}
		p.setPart(p.s(0))
		p.i++
		return p.recurUnit("day", 1), true
	}
	return false, false
}

// everyDays: every Monday and Wednesday, every other Friday, every
// Monday morning.
func (p *parser) everyDays(n int) (ok, decided bool) {
	days, _, ok := p.readDayList()
	if !ok {
		return false, false
	}
	if n != 1 {
		// every other Monday and Wednesday: weekly, every 2 weeks
		if !p.recurUnit("week", n) {
			return false, true
		}
	}
	if p.is(0, "morning", "afternoon", "evening", "night") {
		p.setPart(p.s(0))
		p.i++
	}
	return p.addDows(days, true), true
}

// everyMonth: every month-name, with a day it is yearly ("every May 5",
// "every other March 1"), without one it limits the months ("every
// April").
func (p *parser) everyMonth(n int) (ok, decided bool) {
	save := p.i
	if m, ok := p.readMonth(); ok && (m != 5 || p.tk(0).kind == tNum || ordinalIn(p.s(0), 1, 99)) {
		if d, ok := p.readDayOfMonth(true); ok {
			if n != 1 {
				p.w.unit, p.w.n = "year", n
			}
			p.w.rec = true
			nm, nd := len(p.w.months), len(p.w.doms)
			if !p.addDate(ymd{m: m, d: d}, true) {
				return false, true
			}
			return p.dateList(ymd{m: m, d: d}, nm, nd), true
		}
		if n != 1 {
			return false, true
		}
		p.w.rec = true
		return p.addMonths([]int{m}), true
	}
	p.i = save
	return false, false
}

// everyDayOfMonth: every 2/14 (and 8/14), yearly; every 25th, every 12th
// and 26th, every 3rd of January, every first Monday.
func (p *parser) everyDayOfMonth(n int) (ok, decided bool) {
	if p.tk(0).kind == tNum && strings.Count(p.s(0), "/") == 1 {
		return p.slashDates(true), true
	}
	if p.is(0, "last", "first", "second", "third", "fourth", "fifth", "1st", "2nd", "3rd", "4th", "5th", "final") {
		save, saveW := p.i, p.w
		p.w.rec = true
		if p.pNth() {
			return true, true
		}
		p.i, p.w = save, saveW
	}
	if _, ok := p.peekDom(); ok {
		p.w.rec = true
		return p.pDomList(), true
	}
	return false, false
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
	s, start := p.s(0), p.i
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
		// the answer ("every other Monday") takes the word's place
		p.why = askTimeFor(p.t[start:p.i+1], "“"+s+"” can mean twice a week or every two weeks: say “every Monday and Thursday” or “every other Monday”.")
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

// particleIn reports whether the words before an "in" end in a verb
// that takes it: right before it ("check in", "breathe in", "log in"), or
// before a short object ("let the dog in", "hand it in", "put the
// laundry in"). That "in" is the message's, where after other words ("call
// mom in every 3 days") "in every 3 days" is a learner's "every 3 days".
func particleIn(before []tok) bool {
	n := len(before)
	if n == 0 {
		return false
	}
	if slices.Contains(strings.Fields(`check log sign clock punch breathe dial chime weigh tune opt zoom swipe badge
		listen sit join plug hand turn fill phone call`), before[n-1].s) {
		return true
	}
	for k := n - 2; k >= max(0, n-3); k-- {
		if slices.Contains(strings.Fields(`let put bring hand plug type key tuck lock pop`), before[k].s) {
			return true
		}
	}
	return false
}

// learnersEvery reports whether r, after "in", is "every 2 hour": a
// learner's "in every 2 hours", whose "in" is the when's, as its unit
// after a count says; an "in" before a well-formed "every 2 hours" may
// be the message's ("breathe in", "hand it in") and stays in it.
func learnersEvery(r []tok) bool {
	if len(r) < 3 || r[0].s != "every" || r[1].kind != tNum {
		return false
	}
	n, err := strconv.Atoi(r[1].s)
	return err == nil && n > 1 && unit(r[2].s) != "" && !strings.HasSuffix(r[2].s, "s")
}
