package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// An end said as a time of day ("every hour until 11pm tonight"), which
// bounds only a job that runs more than once a day (NL_SPEC decision 8).

// readClockBound reads an end said as a time of day: "11pm tonight",
// "6pm", "5:30 today", "tonight at 11", "noon tomorrow". It is the next
// such instant (tomorrow's when said); an hour that could be am or pm is
// not read.
func (p *parser) readClockBound() (time.Time, bool) {
	start := p.i
	day, part := -1, ""
	readDay := func() {
		switch {
		case day >= 0:
		case p.is(0, "today"):
			day = 0
		case p.is(0, "tonight"):
			day, part = 0, "tonight"
		case p.is(0, "tomorrow", "tmr", "tmrw"):
			day = 1
		default:
			return
		}
		p.i++
	}
	readDay()
	if p.is(0, "at") {
		p.i++
	}
	c, _, ok := p.readClock()
	if !ok {
		p.i = start
		return time.Time{}, false
	}
	readDay()
	if p.is(0, "at", "in") && p.is(1, "night", "evening") {
		p.i += 2
		part = "tonight"
	}
	h, ambiguous := c.resolved(part)
	if ambiguous || c.ap == 0 && !c.zero && part == "" {
		p.i = start
		return time.Time{}, false
	}
	loc := p.now.Location()
	y, m, d := p.now.Date()
	at := scheduler.WallInstant(y, m, d+max(day, 0), h, c.m, loc)
	if h == 0 && c.m == 0 || day < 0 && !at.After(p.now) {
		at = scheduler.WallInstant(y, m, d+max(day, 0)+1, h, c.m, loc) // "until midnight": the end of the day
	}
	return at, true
}

// severalADay reports whether the schedule, unbounded, runs next twice
// less than a day apart.
func severalADay(c compiled, now time.Time) bool {
	c.endAt = time.Time{}
	sp, err := specOf(&c, now)
	if err != nil {
		return false
	}
	runs := sp.NextN(now, 2)
	return len(runs) == 2 && runs[1].Sub(runs[0]) < 24*time.Hour
}

// skipEvent passes over an event named before the day it is on ("until
// the exam on dec 15", "until my trip on friday"): one or two words after
// "the" or a possessive, none of them a verb's ("until the package
// arrives on monday" is asked about): its day is the end.
func (p *parser) skipEvent() {
	if !p.is(0, "the", "my", "our", "his", "her", "their", "your") {
		return
	}
	for k := 1; k <= 3 && p.tk(k).kind == tWord; k++ {
		if s := p.s(k); k > 1 && (strings.HasSuffix(s, "ing") || strings.HasSuffix(s, "ed") || slices.Contains(eventVerbs, s)) {
			return
		}
		if p.is(k+1, "on") && p.tk(k+2).kind != tOther {
			p.i += k + 2
			return
		}
	}
}

// eventVerbs say an event happens rather than name it.
var eventVerbs = []string{"starts", "begins", "ends", "arrives", "comes", "opens", "closes", "leaves", "is", "are", "gets", "happens", "lands"}
