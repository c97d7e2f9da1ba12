package rules

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// Offsets from now: "in 2 hours", "in 3 days", "today", "tomorrow".

func compileRelative(w when, hm [][2]int, now time.Time) outcome {
	switch {
	case len(hm) == 1 && w.relDays > 0:
		d := now.AddDate(0, 0, w.relDays)
		t := time.Date(d.Year(), d.Month(), d.Day(), hm[0][0], hm[0][1], 0, 0, now.Location())
		return once(t, now, w)
	case len(hm) > 0 || len(w.dows) > 0 || w.date != nil || w.hasDay:
		return ask("Do you mean in %s, or at a set time? Say one of them.", humanDuration(w.rel))
	}
	return once(now.Add(w.rel), now, w)
}

// pCasualDay: today, tomorrow, the day after tomorrow; next week and this
// weekend are asked about.
func (p *parser) pCasualDay() bool {
	if p.is(0, "on") {
		return false
	}
	switch {
	case p.is(0, "today"):
		p.i++
		return p.setDay(0)
	case p.is(0, "tomorrow", "tmr", "tmrw"):
		p.i++
		if p.is(0, "morning", "afternoon", "evening", "night") {
			p.setPart(p.s(0))
			p.i++
		}
		return p.setDay(1)
	case (p.is(0, "the") && p.is(1, "day") && p.is(2, "after") && p.is(3, "tomorrow")) || (p.is(0, "day") && p.is(1, "after") && p.is(2, "tomorrow")):
		if p.is(0, "the") {
			p.i++
		}
		p.i += 3
		return p.setDay(2)
	case p.is(0, "next", "this") && p.is(1, "week", "month") && p.w.rec && p.w.start == nil && p.w.until == nil:
		// "every day next week at 9am": the recurrence within that week
		u, next := p.s(1), p.is(0, "next")
		p.i += 2
		end := endOf(p.now, u)
		if next {
			p.w.start = &bound{at: end, isDay: true}
			end = endOf(end, u)
		}
		return p.setUntil(end, true)
	case p.is(0, "next", "this") && p.is(1, "week", "weekend", "month", "year"),
		p.is(0, "later") && p.is(1, "this", "today") || p.is(0, "some") && p.is(1, "day", "time"):
		p.w.vague = p.s(0) + " " + p.s(1)
		p.w.vagueQ = "Which day and time exactly? For example “next Monday at 9am”."
		p.i += 2
		if p.s(-1) == "this" && p.is(0, "week") {
			p.i++
		}
		return true
	}
	return false
}

func (p *parser) setDay(rel int) bool {
	if p.w.hasDay || p.w.date != nil || p.w.wdOnce && len(p.w.dows) > 1 {
		return false
	}
	p.w.hasDay, p.w.dayRel, p.w.dateAny = true, rel, true
	return true
}

// looseWords say an offset loosely ("in like 10 mins", "in about 2h").
var looseWords = []string{"like", "about", "around", "roughly", "approximately", "approx", "~"}

// pRelative: "in 2 hours", "in 1.5 hours", "in 2h", "in 1d 3h 10min",
// "in half an hour", "in an hour and a half", "2 hours from now".
func (p *parser) pRelative() bool {
	start := p.i
	if p.is(0, "at") && p.tk(1).kind == tNum && unit(p.s(2)) != "" && p.is(3, "from") && p.is(4, "now") {
		p.i++ // "at 8 hours from now"
	}
	in := p.is(0, "in", "within", "after")
	if in {
		p.i++
		if p.is(0, looseWords...) && p.tk(1).kind == tNum {
			p.i++ // "in like 10 mins": the offset said loosely is the offset
		}
	}
	var total float64
	days := false
	items := 0
	for {
		if s := compactDuration(p.s(0)); s > 0 && p.tk(0).kind == tNum {
			total += s
			p.i++
			items++
		} else {
			j := p.i
			amt, ok := p.readAmount()
			if !ok {
				p.i = j
				break
			}
			u := p.readUnit()
			if u == "month" && in && items == 0 && amt >= 1 && amt <= 24 && amt == float64(int(amt)) {
				// "in 3 months": that day of the month then (the last, where
				// the month is shorter), at a time said or now's time
				total += float64(monthsAhead(p.now, int(amt))) * 86400
				days, items = true, items+1
				continue
			}
			if u == "" || u == "month" || u == "year" {
				p.i = j
				break
			}
			if u == "day" || u == "week" || u == "fortnight" {
				days = true
			}
			total += amt * unitSeconds[u]
			items++
			if p.is(0, "and") && p.is(1, "a") && p.is(2, "half") {
				total += unitSeconds[u] / 2
				p.i += 3
			}
		}
		if p.is(0, "and", ",") {
			j := p.i
			p.i++
			if _, isNumber := number(p.s(0)); compactDuration(p.s(0)) > 0 || isNumber || p.is(0, "a", "an") {
				continue
			}
			p.i = j
		}
		if compactDuration(p.s(0)) > 0 && p.tk(0).kind == tNum {
			continue
		}
		if numberIn(p.s(0), 1, math.MaxInt) && unit(p.s(1)) != "" && len(p.s(1)) > 1 {
			continue // "2 hours 30 minutes"
		}
		break
	}
	if items == 0 && in && p.tk(0).kind == tNum && !strings.ContainsAny(p.s(0), ":.") {
		// "ping me in 20 to switch the laundry": minutes or hours, asked
		// (the answer "minutes", "20 minutes" takes the place of "in 20");
		// "standup in 5" alone may be a message's words
		if n, _ := number(p.s(0)); n >= 1 && n <= 90 && p.is(1, "to", ",") {
			p.why = askTimeFor(p.t[start:p.i+1], fmt.Sprintf("In %d minutes or %d hours? Say “in %d minutes” or “in %d hours”.", n, n, n, n))
			p.why.ask.soft = true
		}
	}
	if items == 0 {
		p.i = start
		return false
	}
	fromNow := false
	if p.is(0, "from") && p.is(1, "now") {
		p.i += 2
		fromNow = true
	} else if p.is(0, "from") && p.is(1, "today", "tomorrow") && days && !in {
		// "a week from today": a day, at a time said
		if p.is(1, "tomorrow") {
			total += 86400
		}
		p.i += 2
		fromNow = true
	} else if p.is(0, "later", "hence") {
		p.i++ // "20 minutes hence"
		fromNow = true
	}
	if !in && !fromNow {
		p.i = start
		return false
	}
	if total < 60 && total > 0 {
		p.why = refusal("That is less than a minute away; I schedule at least a minute ahead.")
	}
	if p.w.hasRel || p.w.dateAny || total <= 0 || total > 10*366*86400 || total != float64(int64(total)) {
		return false
	}
	if days && float64(int64(total/86400))*86400 == total {
		// in 2 days: that day, at a time said or now's time
		p.w.relDays = int(total / 86400)
	}
	p.w.rel, p.w.hasRel, p.w.dateAny = time.Duration(total)*time.Second, true, true
	return true
}

// monthsAhead is how many days from now's date to the same day n months
// on, or the last day of that month where it has no such day.
func monthsAhead(now time.Time, n int) int {
	y, m, d := now.Date()
	from := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	to := time.Date(y, m+time.Month(n), d, 12, 0, 0, 0, time.UTC)
	if to.Day() != d {
		to = time.Date(to.Year(), to.Month(), 0, 12, 0, 0, 0, time.UTC) // Jan 31 + 1 month: Feb 28
	}
	return int(to.Sub(from).Hours() / 24)
}

// whileRe: a while that could be any time ("in a bit", "in a little
// while"), said first or last in a message with no other when.
var whileRe = regexp.MustCompile(`(?i)^(?:(in\s+a\s+(?:little\s+)?(?:bit|while))\s+(?:to\s+)?(\S.*)|(\S.*?)\s+(in\s+a\s+(?:little\s+)?(?:bit|while)))$`)

// whileSaid splits a message that says only such a while about when
// into its words and the while (lowercase, as lexed); ok false when it
// says none.
func whileSaid(text string) (msg, while string, ok bool) {
	m := whileRe.FindStringSubmatch(strings.TrimSpace(text))
	switch {
	case m == nil:
		return "", "", false
	case m[1] != "":
		msg, while = m[2], m[1]
	default:
		msg, while = m[3], m[4]
	}
	return msg, strings.Join(strings.Fields(strings.ToLower(while)), " "), true
}
