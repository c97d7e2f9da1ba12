package rules

import (
	"errors"
	"slices"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// Bounds: "for 3 weeks", "5 times", "until March", "starting Monday",
// "except in August"; read, then applied to the compiled schedule.

// bounds adds startAt and endAt so that exactly the intended fires happen.
func bounds(w when, c *compiled, now time.Time, zone string) outcome {
	if w.start != nil {
		if !w.start.at.After(now) && !w.start.at.Equal(dayStart(now)) {
			return ask("The start, %s, has already passed. When should it start?", w.start.at.Format("Mon 2 Jan"))
		}
		if w.start.at.After(now) {
			c.startAt = w.start.at
		}
	}
	switch {
	case w.until != nil:
		c.endAt = w.until.at
	case w.span > 0:
		// a fire exactly at the end of the span is still within it; "for
		// 4 weeks starting Dec 7" counts from Dec 7
		from := now
		if !c.startAt.IsZero() {
			from = c.startAt
		}
		c.endAt = from.Add(w.span + time.Second)
	}
	if w.untilClock && !severalADay(*c, now) {
		return refuse("I end a job that runs at most once a day on a day, not at a time of day: say “until Friday”.")
	}
	sp, err := specOf(c, now)
	// said in words, not as the field error the CLI shows (DESIGN §6)
	if ie := (*scheduler.InvalidError)(nil); errors.As(err, &ie) {
		if ie.Field == "schedule.everySeconds" {
			return refuse("I repeat at most every %s: for a date each year, say “every year on March 3”.", humanDuration(scheduler.MaxInterval))
		}
		return refuse("I can't keep that schedule: %s.", ie.Rule)
	} else if err != nil {
		return refuse("%v", err)
	}
	from := now
	if !c.startAt.IsZero() {
		from = c.startAt.Add(-time.Second)
	}
	if w.count > 0 {
		runs := sp.NextN(from, w.count)
		if len(runs) < w.count {
			return refuse("That schedule doesn't fire %d times.", w.count)
		}
		end := runs[w.count-1].Add(time.Second)
		if c.endAt.IsZero() || end.Before(c.endAt) {
			c.endAt = end
		}
		c.count, c.countEnd = w.count, end
		sp, _ = specOf(c, now)
	}
	if _, ok := sp.Next(from); !ok {
		if !c.endAt.IsZero() {
			last := c.endAt.In(now.Location())
			if w.until != nil && w.until.isDay {
				last = last.AddDate(0, 0, -1) // its last day, as the end was said
			}
			return ask("That schedule would not fire before it ends (%s). When should it end?", last.Format("Mon 2 Jan 2006"))
		}
		return refuse("That schedule would never fire.")
	}
	return outcome{c: c}
}

func dayStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
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
	if p.t[start].s == "until" || p.t[start].s == "till" || p.t[start].s == "til" {
		p.skipEvent() // not after "up until": "stand up until …" keeps its "up"
	}
	t, kind, ok := p.readBoundDate()
	if !ok {
		if at, ok := p.readClockBound(); ok && !through && (p.w.unit == "minute" || p.w.unit == "hour") {
			// only after a step within the day ("every hour until 11pm"):
			// "the gym is open until 9pm" is a message's words
			p.w.untilClock = true
			return p.setUntil(at.Add(time.Second), false) // the fire at that time is kept
		}
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

// readNamedBound reads a bound said in words: the end of the year,
// today, tomorrow, next week, next month, next year, Christmas. matched
// is false when none is there; start is where the bound began.
func (p *parser) readNamedBound(today time.Time, start int) (t time.Time, kind string, ok, matched bool) {
	loc := p.now.Location()
	switch {
	case p.is(0, "year", "month", "week") && p.s(-1) == "of":
		p.i++
		return endOf(p.now, p.s(-1)), "end", true, true
	case p.is(0, "the") && p.is(1, "year", "month", "week") || p.is(0, "this") && p.is(1, "year", "month", "week"):
		u := p.s(1)
		p.i += 2
		if p.s(-2) == "the" && p.s(-3) != "of" {
			p.i = start
			return time.Time{}, "", false, true
		}
		return endOf(p.now, u), "end", true, true
	case p.is(0, "year") && p.is(1, "end") || p.is(0, "eoy"):
		p.i++
		if p.s(-1) == "year" {
			p.i++
		}
		return endOf(p.now, "year"), "end", true, true
	case p.is(0, "now"):
		p.i++
		return p.now, "now", true, true
	case p.is(0, "today"):
		p.i++
		return today, "day", true, true
	case p.is(0, "tomorrow", "tmr", "tmrw"):
		p.i++
		return today.AddDate(0, 0, 1), "day", true, true
	case p.is(0, "next", "this") && p.is(1, "week"):
		p.i += 2
		days := (8 - int(p.now.Weekday())) % 7
		if days == 0 {
			days = 7
		}
		return today.AddDate(0, 0, days), "week", true, true
	case p.is(0, "next") && p.is(1, "month"):
		p.i += 2
		return time.Date(p.now.Year(), p.now.Month()+1, 1, 0, 0, 0, 0, loc), "monthrel", true, true
	case p.is(0, "next") && p.is(1, "year"):
		p.i += 2
		return time.Date(p.now.Year()+1, 1, 1, 0, 0, 0, 0, loc), "year", true, true
	case p.is(0, "christmas", "xmas"):
		p.i++
		d := time.Date(p.now.Year(), 12, 25, 0, 0, 0, 0, loc)
		if d.Before(today) {
			d = d.AddDate(1, 0, 0)
		}
		return d, "day", true, true
	}
	return time.Time{}, "", false, false
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
	if t, kind, ok, matched := p.readNamedBound(today, start); matched {
		return t, kind, ok
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
	if kind == "day" || kind == "month" {
		p.rangeEnd(t, kind)
	}
	return true
}

// rangeEnd reads the end of "from Dec 20 to Dec 24" (both days included),
// "from Dec 20 to the 24th", "from Dec 28 to 3" (the next 3rd), "from
// January to March" (all of March).
func (p *parser) rangeEnd(from time.Time, kind string) {
	if !p.is(0, "to", "through", "thru", "-") || p.w.until != nil {
		return
	}
	start := p.i
	p.i++
	if kind == "day" {
		if p.is(0, "the") {
			p.i++
		}
		if d, ok := p.readDayOfMonth(true); ok && !p.is(0, "am", "pm", ":") {
			// this month's day after the start, else next month's ("from
			// dec 28 to 3"); "from feb 27 to 29" in a year with no Feb 29
			// is no range (it is asked about)
			t := time.Date(from.Year(), from.Month(), d, 0, 0, 0, 0, from.Location())
			if d <= from.Day() {
				t = time.Date(from.Year(), from.Month()+1, d, 0, 0, 0, 0, from.Location())
			}
			if t.Day() == d && t.After(from) {
				p.setUntil(t.AddDate(0, 0, 1), true)
				return
			}
		}
		p.i = start + 1
	}
	t, k, ok := p.readBoundDate()
	if !ok || k != kind {
		p.i = start
		return
	}
	if kind == "month" {
		t = t.AddDate(0, 1, 0)
	} else {
		yearSaid := slices.ContainsFunc(p.t[start:p.i], func(k tok) bool { return k.kind == tNum && len(k.s) == 4 })
		switch {
		case !t.After(from) && !yearSaid && t.Month() < from.Month():
			t = t.AddDate(1, 0, 0) // "from Dec 28 to Jan 3" said on Dec 30: next year's Jan 3
		case yearSaid && t.Sub(from) > 366*24*time.Hour && p.w.start != nil:
			// "from dec 20 to dec 24 2027": the start in the end's year
			if s := time.Date(t.Year(), from.Month(), from.Day(), 0, 0, 0, 0, from.Location()); !s.After(t) {
				p.w.start.at = s
			}
		}
		t = t.AddDate(0, 0, 1) // "from dec 24 to dec 20": an end before the start, asked about
	}
	p.setUntil(t, true)
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
	if p.is(0, "week") && p.is(1, "of") || p.s(-1) == "except" && p.datesAhead() {
		// "except the week of christmas", "except dec 24": runs left out
		// by date, which a job skips once it exists
		p.why = refusal("I can leave out days of the week or whole months as I make a schedule, not dates. Ask for it without them, then say “skip it the week of christmas” or “skip dec 24”.")
	}
	p.i = start
	return false
}

// datesAhead reports whether a date or a named day starts here.
func (p *parser) datesAhead() bool {
	save, w, why := p.i, p.w, p.why
	_, kind, ok := p.readBoundDate()
	p.i, p.w, p.why = save, w, why
	return ok && kind == "day"
}

// bound is a start or an end as written.
type bound struct {
	at    time.Time // local instant
	isDay bool      // a day, month or year, not an instant
}
