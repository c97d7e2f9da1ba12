package rules

import (
	"slices"
	"strings"
)

// Within the hour and the day: "on the hour", "at :15", "every 15 minutes
// from 9am to 5pm".

// pHourMinute: "on the hour", "on the half hour", "at half past",
// "at :15", "at 15 past", "at quarter past and quarter to", "at minute 15".
func (p *parser) pHourMinute() bool {
	switch {
	case p.is(0, "on") && p.is(1, "the") && p.is(2, "hour"):
		p.i += 3
		p.w.onHour = true
		p.w.mins = append(slices.Clip(p.w.mins), 0)
		return true
	case (p.is(0, "at") && p.is(1, "the") && p.is(2, "top") || p.is(0, "the") && p.is(1, "top") || p.is(0, "top")) && (p.is(3, "of") || p.is(2, "of") || p.is(1, "of")):
		// "at the top of every hour", "top of the hour"
		for !p.is(0, "of") {
			p.i++
		}
		p.i++
		every := p.is(0, "every", "each")
		if p.is(0, "the", "every", "each") {
			p.i++
		}
		if !p.is(0, "hour") {
			return false
		}
		p.i++
		if every && !p.recurUnit("hour", 1) {
			return false
		}
		p.w.onHour = true
		p.w.mins = append(slices.Clip(p.w.mins), 0)
		return true
	case p.is(0, "on") && p.is(1, "the") && p.is(2, "half") && (p.is(3, "hour") || p.is(3, "-") && p.is(4, "hour")):
		p.i += 4
		if p.s(-1) == "-" {
			p.i++
		}
		p.w.mins = append(slices.Clip(p.w.mins), 30)
		return true
	}
	start := p.i
	if p.is(0, "at") {
		p.i++
	}
	var mins []int
	for {
		switch {
		case p.is(0, "half") && p.is(1, "past") && !p.nextIsHour(2):
			mins = append(mins, 30)
			p.i += 2
		case p.is(0, "quarter") && p.is(1, "past", "after") && !p.nextIsHour(2):
			mins = append(mins, 15)
			p.i += 2
		case p.is(0, "quarter") && p.is(1, "to", "till", "before") && !p.nextIsHour(2):
			mins = append(mins, 45)
			p.i += 2
		case p.is(0, "minute") && numberIn(p.s(1), 0, 59):
			mins = append(mins, valueOf(p.s(1)))
			p.i += 2
		case p.is(0, ":") && p.tk(1).kind == tNum && len(p.s(1)) == 2 && valueOf(p.s(1)) < 60:
			mins = append(mins, valueOf(p.s(1)))
			p.i += 2
		case p.tk(0).kind == tNum && numberIn(p.s(0), 0, 59) && (p.is(1, "past", "after") || p.is(1, "minutes", "mins", "min") && p.is(2, "past", "after")) && !p.nextIsHour(2+btoi(!p.is(1, "past", "after"))):
			mins = append(mins, valueOf(p.s(0)))
			p.i += 2
			if p.s(-1) != "past" && p.s(-1) != "after" {
				p.i++
			}
		default:
			if len(mins) == 0 {
				p.i = start
				return false
			}
			goto done
		}
		if p.is(0, "the") && p.is(1, "hour") {
			p.i += 2
		}
		if p.is(0, "and", ",", "&") {
			p.i++
			continue
		}
		break
	}
done:
	if p.s(-1) == "and" || p.s(-1) == "," {
		p.i--
	}
	if p.is(0, "the") && p.is(1, "hour") {
		p.i += 2
	}
	p.w.mins = append(slices.Clip(p.w.mins), mins...)
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nextIsHour: "half past four" names an hour; "half past every hour" and
// "half past the hour" do not.
func (p *parser) nextIsHour(k int) bool {
	s := p.s(k)
	if s == "" || s == "every" || s == "each" || s == "the" || s == "and" || s == "," {
		return false
	}
	_, isNumber := number(s)
	return isNumber || strings.HasSuffix(s, "am") || strings.HasSuffix(s, "pm") || s == "noon" || s == "midnight"
}

// pWindow: "from 9 to 5", "between 9am and 5:30pm", "9am-5pm",
// "during business hours" is not read.
func (p *parser) pWindow() bool {
	start := p.i
	kw := p.is(0, "from", "between")
	if kw {
		p.i++
	}
	a, strongA, ok := p.readClock()
	// "every hour 9-17": after a step within the day, a range of hours
	hourly := p.w.rec && (p.w.unit == "hour" || p.w.unit == "minute") && p.is(0, "-")
	if !ok || (!kw && !strongA && !hourly) {
		p.i = start
		return false
	}
	if !p.is(0, "to", "and", "until", "till", "through", "-", "thru") || (!kw && !p.is(0, "-")) {
		p.i = start
		return false
	}
	p.i++
	b, _, ok := p.readClock()
	if !ok {
		p.i = start
		return false
	}
	from, amb1 := a.resolved("")
	to, amb2 := b.resolved("")
	if !amb1 && (b.ap == 0 || b.ap == a.ap) && b.h == a.h && b.m > a.m && p.w.window == nil {
		// "between 11:00 and 11:10": minutes within one hour
		p.w.window, p.w.winMins = []int{from, from + 1}, []int{a.m, b.m}
		return true
	}
	if a.ap == 0 && amb1 && b.ap == 'p' && a.h < b.h {
		from, amb1 = a.h+12, false // "from 1 to 5pm"
	}
	if a.ap == 0 && amb1 && a.h < 7 && !a.zero {
		// "from 5 to 9": which 5?
		p.w.vague, p.w.vagueQ = "window", "Which hours exactly? For example “from 9am to 5pm”."
	}
	if b.ap == 0 && amb2 || b.ap == 0 && !b.zero && to <= from && to < 12 {
		to = b.h%12 + 12 // "from 9 to 5" ends at 5 pm
	}
	if hourly && !kw && !strongA && (to <= from || b.m != 0 || (a.h >= 13 || a.zero) && b.ap == 0 && b.h <= a.h) {
		p.i = start // "every hour 17-9", "9-17:30": not read as hours of a day
		return false
	}
	endH := to
	if b.m != 0 {
		endH++ // "until 5:30" runs through the 5 o'clock hour
	}
	if a.m != 0 || endH <= from || endH > 24 {
		p.why = refusal("I can only run a repeating time within whole hours, such as “every 15 minutes from 9am to 5pm”.")
		p.i = start
		return false
	}
	if p.w.window != nil {
		p.i = start
		return false
	}
	p.w.window = []int{from, endH}
	return true
}
