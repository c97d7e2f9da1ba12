package scheduler

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Describe says in English when r fires, in its zone's wall time: "Every 2
// weeks on Tuesday at 10:00 AM", "On the last weekday of every month at
// 4:00 PM", "Every year on the fourth Thursday of November at 12:00 PM".
// Clock fields the rule leaves out come from its dtstart, as they fire.
func (r *RRule) Describe() string {
	s := r.describeDays() + " at " + r.describeTimes()
	if r.p.count > 0 {
		if r.p.count == 1 {
			s += ", once"
		} else {
			s += fmt.Sprintf(", %d times", r.p.count)
		}
	}
	if r.p.hasUntil {
		if !r.p.untilUTC.IsZero() {
			s += ", until " + r.p.untilUTC.Format("Mon 2 Jan 2006 15:04") + " UTC"
		} else {
			u := wallTime(r.p.until)
			s += ", until " + u.Format("Mon 2 Jan 2006") + " " + Clock(u.Hour(), u.Minute())
		}
	}
	return s
}

var ordWords = map[int]string{1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last",
	-2: "second to last", -3: "third to last", -4: "fourth to last", -5: "fifth to last"}

func ordWord(n int) string {
	if w, ok := ordWords[n]; ok {
		return w
	}
	if n < 0 {
		return Ordinal(-n) + " to last"
	}
	return Ordinal(n)
}

// weekdaySet names a set of weekdays (bit 0 = Sunday) as a head ("every
// weekday"), a plain list ("Monday and Friday") and one noun ("weekday").
func weekdaySet(set uint8) (every, list, noun string) {
	switch set {
	case 0b0111110:
		return "every weekday", "Monday to Friday", "weekday"
	case 0b1000001:
		return "every Saturday and Sunday", "Saturday and Sunday", "weekend day"
	case 0b1111111:
		return "every day", "every day", "day"
	}
	var names []string
	for _, d := range []int{1, 2, 3, 4, 5, 6, 0} { // weeks read Monday first
		if set&(1<<d) != 0 {
			names = append(names, dayNames[d])
		}
	}
	noun = "day of " + join(names)
	if len(names) == 1 {
		noun = names[0]
	}
	return "every " + join(names), join(names), noun
}

func monthList(set uint16) string {
	var names []string
	for m := 1; m <= 12; m++ {
		if set&(1<<m) != 0 {
			names = append(names, monthNames[m])
		}
	}
	return join(names)
}

// monthDays is "the 4th", "the 1st and 15th", "the last day", "the 1st and
// the last day".
func (p *rruleParts) monthDays() string {
	var pos, neg []string
	for d := 1; d <= 31; d++ {
		if p.mdPos&(1<<d) != 0 {
			pos = append(pos, Ordinal(d))
		}
	}
	for d := 1; d <= 31; d++ {
		if p.mdNeg&(1<<d) != 0 {
			neg = append(neg, ordWord(-d))
		}
	}
	var parts []string
	if len(pos) > 0 {
		parts = append(parts, "the "+join(pos))
	}
	if len(neg) > 0 {
		parts = append(parts, "the "+join(neg)+" day")
	}
	return join(parts)
}

// ordinalDays is "the first Monday", "the first and third Monday", "the
// first Monday and the last Friday".
func (p *rruleParts) ordinalDays() string {
	byDay := map[int][]string{}
	var order []int
	for _, o := range p.ord {
		if _, ok := byDay[o.wd]; !ok {
			order = append(order, o.wd)
		}
		byDay[o.wd] = append(byDay[o.wd], ordWord(o.n))
	}
	var parts []string
	for _, wd := range order {
		parts = append(parts, "the "+join(byDay[wd])+" "+dayNames[wd])
	}
	return join(parts)
}

func every(k int, unit string) string {
	if k == 1 {
		return "every " + unit
	}
	return fmt.Sprintf("every %d %ss", k, unit)
}

func (r *RRule) describeDays() string {
	p := &r.p
	k := p.interval
	inMonths := ""
	if p.byMonth != 0 && p.freq != freqYearly {
		inMonths = " in " + monthList(p.byMonth)
	}
	dayPart := "" // what narrows the days within a month
	when := ""    // a weekday that BYMONTHDAY days must also be
	switch {
	case len(p.setPos) > 0:
		var ords []string
		for _, n := range p.setPos {
			ords = append(ords, ordWord(n))
		}
		switch {
		case p.wdPlain != 0 && !p.hasMonthDay:
			_, _, noun := weekdaySet(p.wdPlain)
			dayPart = "the " + join(ords) + " " + noun
		case p.freq == freqDaily:
			dayPart = ""
		default:
			return "By the rule " + r.expr
		}
	case len(p.ord) > 0:
		dayPart = p.ordinalDays()
	case p.hasMonthDay:
		dayPart = p.monthDays()
		if p.wdPlain != 0 {
			_, list, _ := weekdaySet(p.wdPlain)
			when = " when it is a " + strings.ReplaceAll(list, " and ", " or ")
		}
	}
	switch p.freq {
	case freqDaily:
		if p.hasMonthDay {
			return "On " + dayPart + " of " + every(1, "month") + inMonths + when
		}
		if p.wdPlain != 0 && k == 1 {
			head, _, _ := weekdaySet(p.wdPlain)
			return capitalize(head) + inMonths
		}
		s := capitalize(every(k, "day"))
		if p.wdPlain != 0 {
			_, list, _ := weekdaySet(p.wdPlain)
			s += " that is a " + strings.ReplaceAll(list, " and ", " or ")
		}
		return s + inMonths
	case freqWeekly:
		if len(p.setPos) > 0 {
			return "On " + dayPart + " of " + every(k, "week") + inMonths
		}
		head, list, _ := weekdaySet(r.p.wdPlain)
		s := ""
		if k == 1 {
			s = capitalize(head)
		} else {
			s = capitalize(every(k, "week")) + " on " + list
		}
		if p.hasMonthDay {
			s += " that falls on " + p.monthDays() + " of the month"
		}
		return s + inMonths
	case freqMonthly:
		of := every(k, "month")
		if dayPart == "" && p.wdPlain != 0 {
			head, _, _ := weekdaySet(p.wdPlain)
			return capitalize(head) + " of " + of + inMonths
		}
		if dayPart == "" {
			dayPart = p.monthDays() // dtstart's day, filled in by bindRRule
		}
		return "On " + dayPart + " of " + of + inMonths + when
	default: // yearly
		head := "Every year"
		if k > 1 {
			head = fmt.Sprintf("Every %d years", k)
		}
		months := monthList(r.p.byMonth)
		switch {
		case dayPart == "" && p.wdPlain != 0:
			d, _, _ := weekdaySet(p.wdPlain)
			if months == "" {
				return head + ", " + d
			}
			return head + ", " + d + " in " + months
		case dayPart == "":
			dayPart = r.p.monthDays() // dtstart's day
			if months != "" && bits.OnesCount16(r.p.byMonth) == 1 && r.p.mdNeg == 0 && bits.OnesCount32(r.p.mdPos) == 1 {
				return head + " on " + months + " " + strconv.Itoa(bits.TrailingZeros32(r.p.mdPos))
			}
		}
		if months == "" {
			return head + " on " + dayPart + " of the year" + when
		}
		if bits.OnesCount16(r.p.byMonth) == 1 && r.p.mdNeg == 0 && bits.OnesCount32(r.p.mdPos) == 1 && len(p.ord) == 0 && len(p.setPos) == 0 && p.wdPlain == 0 {
			return head + " on " + months + " " + strconv.Itoa(bits.TrailingZeros32(r.p.mdPos))
		}
		return head + " on " + dayPart + " of " + months + when
	}
}

func (r *RRule) describeTimes() string {
	if len(r.times) <= 6 {
		var out []string
		for _, t := range r.times {
			s := Clock(t/3600, t%3600/60)
			if t%60 != 0 {
				s = strings.Replace(s, " ", fmt.Sprintf(":%02d ", t%60), 1)
			}
			out = append(out, s)
		}
		return join(out)
	}
	var hs, ms []int
	for h := range 24 {
		if r.p.byHour&(1<<h) != 0 {
			hs = append(hs, h)
		}
	}
	for m := range 60 {
		if r.p.byMinute&(1<<m) != 0 {
			ms = append(ms, m)
		}
	}
	return "minute " + listOf(ms) + " past hour " + listOf(hs)
}
