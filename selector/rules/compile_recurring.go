package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// Compiling a recurrence to a cron, an interval or an rrule.

// compileRecurring builds a cron, an interval or an rrule.
func compileRecurring(w when, hm [][2]int, now time.Time, zone string, loc *time.Location) outcome {
	if w.domOnce && w.unit == "month" && len(w.dows) == 0 {
		// "on the 1st at 9am every month": the recurrence said after
		// the day is the day's
		w.domOnce = false
	}
	if d := w.date; d != nil && d.y == 0 && w.unit == "year" && w.n <= 1 && len(w.months) == 0 && len(w.doms) == 0 && len(w.dows) == 0 && len(w.dates) == 0 && !w.hasDay {
		// "on march 14 at 9am …, every year": a yearly date said before
		// its recurrence, as "every year on march 14" is
		w.months, w.doms, w.date = []int{d.m}, []int{d.d}, nil
	}
	if w.date != nil || w.hasDay || w.domOnce && !w.multiOnce {
		return ask("Should that repeat, or happen once on that day? Say “every …” to repeat.")
	}
	if w.wdOnce && !w.dowsEv && w.unit != "week" && w.unit != "" && w.unit != "day" {
		return ask("Which days should it repeat on? For example “every Monday”.")
	}
	n := w.n
	if n == 0 {
		n = 1
	}
	u, asked := recurringUnit(w)
	if asked != nil {
		return *asked
	}
	if u == "hour" && clocksEvery(hm, n) {
		// "every 12 hours at 8am and 8pm": the times say it all
		u, n, w.unit, w.n = "day", 1, "day", 1
	}
	if out, done := compileByClock(w, hm, n, u, now, zone, loc); done {
		return out
	}
	minute := hm[0][1]
	var hours []int
	for _, x := range hm {
		if x[1] != minute {
			return refuse("I can't put %s and %s in one schedule (their minutes differ). I can make two schedules: ask for each time separately.", clockText(hm[0]), clockText(x))
		}
		hours = append(hours, x[0])
	}
	dows, doms, months, asked := recurringDays(w)
	if asked != nil {
		return *asked
	}
	// calendar rules need an rrule
	needRRule := n > 1 || len(w.nths) > 0 || slices.Contains(doms, -1)
	if len(dows) > 0 && len(doms) > 0 {
		return ask("Every %s, or on the %s? Say one of them.", dayList(dows), domList(doms))
	}
	if u == "day" && n == 1 && len(w.dows) == 1 && len(w.exDows) == 0 {
		return ask("Every day, or every %s? Say one of them.", dayList(w.dows))
	}
	if u == "day" && n == 1 && (len(doms) > 0 || len(w.nths) > 0) {
		return ask("Every day, or on the %s? Say one of them.", domList(doms))
	}
	if (u == "month" || u == "year") && len(doms) == 0 && len(dows) == 0 && len(w.nths) == 0 {
		// the day is today's ("every month at 9am"): a day some months
		// lack would skip them, which nobody who said no day means
		short := now.Day() > 28 && u == "month"
		ms := months
		if len(ms) == 0 {
			ms = []int{int(now.Month())}
		}
		for _, m := range ms {
			if u == "year" && now.Day() > daysIn(m, 2027) { // 2027: February 28
				return ask("Which day? %s has no %s every year: say the day, such as “on %s 28”.", time.Month(m), scheduler.Ordinal(now.Day()), time.Month(m))
			}
		}
		if short {
			return ask("Which day? Not every month has a %s: say “on the %s” (months without one are skipped) or “on the last day”.", scheduler.Ordinal(now.Day()), scheduler.Ordinal(now.Day()))
		}
	}
	if needRRule {
		return compileRRule(w, u, n, dows, doms, months, hours, minute, now, zone)
	}
	return compileCron(w, u, dows, doms, months, hours, minute, now, zone)
}

// recurringUnit is what a recurrence repeats by when no unit was said:
// the days or months named decide; only months named is asked about.
func recurringUnit(w when) (string, *outcome) {
	u := w.unit
	if u == "" {
		switch {
		case w.quart:
			u = "month"
		case len(w.nths) > 0:
			u = "month"
		case len(w.dates) > 0:
			u = "year"
		case len(w.doms) > 0 && len(w.months) > 0 && !w.monthLimit:
			u = "year"
		case len(w.doms) > 0:
			u = "month"
		case len(w.dows) > 0 || len(w.exDows) > 0:
			u = "week"
		case len(w.months) > 0:
			o := ask("Which day in %s? For example “on the 1st”.", monthList(w.months))
			return "", &o
		default:
			u = "day"
		}
	}
	return u, nil
}

// compileByClock compiles what repeats by the clock rather than on days
// at a time (seconds, minutes, hours, "on the hour", an interval of days
// with no time) and asks or refuses what a time must settle; done is
// false when the days and times go on to make a cron or an rrule.
func compileByClock(w when, hm [][2]int, n int, u string, now time.Time, zone string, loc *time.Location) (outcome, bool) {
	// every N minutes or hours
	if u == "second" {
		// every 90 seconds: only an interval can say it
		if len(w.dows) > 0 || len(w.months) > 0 || len(w.doms) > 0 || w.window != nil || len(hm) > 0 {
			return refuse("Every %d seconds can't be kept on set days or hours; use whole minutes (“every 2 minutes”).", n), true
		}
		return bounds(w, &compiled{typ: store.ScheduleInterval, sched: map[string]any{"everySeconds": n}}, now, zone), true
	}
	if u == "minute" || u == "hour" {
		return compileStep(w, hm, n, u, now, zone, loc), true
	}
	if len(w.mins) > 0 || w.onHour {
		if len(hm) > 0 {
			return ask("Every hour, or at %s? Say one of them.", clockText(hm[0])), true
		}
		// "every weekday on the hour": hourly on those days
		return compileStep(w, hm, 1, "hour", now, zone, loc), true
	}
	if w.window != nil {
		from, to := [2]int{w.window[0], 0}, [2]int{w.window[1] % 24, 0}
		if w.winMins != nil {
			from, to = [2]int{w.window[0], w.winMins[0]}, [2]int{w.window[0], w.winMins[1]}
		}
		return ask("How often between %s and %s? For example “every 30 minutes from 9am to 5pm”.", clockText(from), clockText(to)), true
	}
	// "twice a week on Monday and Thursday", "twice a month on the 1st
	// and 16th": the days are the times
	daysGiven := u == "week" && len(uniq(w.dows)) == w.timesPer || u == "month" && len(uniq(w.doms)) == w.timesPer && len(w.nths) == 0 ||
		u == "year" && len(w.dates) == w.timesPer // "twice a year on jun 1 and dec 1"
	if w.timesPer > 1 && len(hm) != w.timesPer && !(daysGiven && len(hm) == 1) {
		if len(hm) == 0 {
			return refuse("I can't spread several posts over a day or week by themselves: give the times (“every day at 9am and 5pm”)."), true
		}
		return ask("That is %d times a %s but %d times were given. Which times?", w.timesPer, u, len(hm)), true
	}
	// days and weeks with no time and no weekday: an interval from now
	// (decision 5)
	if len(hm) == 0 && n > 1 && (u == "day" || u == "week") && len(w.dows) == 0 && len(w.exDows) == 0 && len(w.months) == 0 {
		secs := n * 86400
		if u == "week" {
			secs *= 7
		}
		return bounds(w, &compiled{typ: store.ScheduleInterval, sched: map[string]any{"everySeconds": secs}}, now, zone), true
	}
	if len(hm) == 0 {
		return ask("What time? For example 9am or 17:30."), true
	}
	return outcome{}, false
}

// recurringDays are the weekdays, days of the month and months a
// recurrence runs on, less the ones excepted, quarters and yearly dates
// spelled out.
//
// oneAQuarter: four months three apart (Jan, Apr, Jul, Oct), which is
// every quarter said with its months.
func oneAQuarter(months []int) bool {
	m := uniq(months)
	return len(m) == 4 && m[1]-m[0] == 3 && m[2]-m[1] == 3 && m[3]-m[2] == 3
}

func recurringDays(w when) (dows, doms, months []int, asked *outcome) {
	// days and months, less the ones excepted
	dows, months, why := daysAndMonths(w)
	if why != "" {
		return nil, nil, nil, asking(refuse("%s", why))
	}
	doms = uniq(w.doms)
	if w.quart {
		if oneAQuarter(months) && len(doms) > 0 {
			return dows, doms, months, nil // "quarterly, on the 15th of jan, apr, jul and oct"
		}
		if len(months) > 0 {
			return nil, nil, nil, asking(ask("Every quarter, or in %s? Say one of them.", monthList(months)))
		}
		months = []int{1, 4, 7, 10}
		if len(doms) == 0 {
			doms = []int{1}
		}
	}
	if len(w.dates) > 0 {
		if len(doms) > 0 || len(months) > 0 {
			return nil, nil, nil, asking(ask("Which dates exactly? Say them once, such as “every Feb 14 and Aug 14 at noon”."))
		}
		for _, d := range w.dates {
			months, doms = append(months, d.m), append(doms, d.d)
		}
		months, doms = uniq(months), uniq(doms)
		if len(months) > 1 && len(doms) > 1 {
			return nil, nil, nil, asking(refuse("Those dates don't share a month or a day, so one schedule would fire on other dates too. I can make a schedule for each date."))
		}
	}
	return dows, doms, months, nil
}

// asking is o, as recurringDays returns a question or a refusal.
func asking(o outcome) *outcome { return &o }

// compileCron writes a recurrence a cron can say.
func compileCron(w when, u string, dows, doms, months, hours []int, minute int, now time.Time, zone string) outcome {
	hour := intList(uniq(hours))
	dom, mon, dow := "*", "*", "*"
	switch u {
	case "day":
		if len(doms) > 0 {
			dom = intList(doms)
		}
	case "week":
		if len(dows) == 0 {
			dows = []int{int(now.Weekday())} // "weekly": on today's weekday
		}
	case "month":
		if len(doms) == 0 {
			doms = []int{now.Day()}
		}
		dom = intList(doms)
	case "year":
		if len(doms) == 0 {
			doms = []int{now.Day()}
		}
		if len(months) == 0 {
			months = []int{int(now.Month())}
		}
		dom = intList(doms)
	}
	if len(doms) > 0 {
		dom = intList(doms)
	}
	if len(months) > 0 {
		mon = intList(months)
	}
	if len(dows) > 0 {
		dow = intList(dows)
		if dow == "1,2,3,4,5" {
			dow = "1-5"
		}
	}
	expr := fmt.Sprintf("%d %s %s %s %s", minute, hour, dom, mon, dow)
	c := &compiled{typ: store.ScheduleCron, sched: map[string]any{"cron": expr, "timezone": zone}}
	if w.multiOnce {
		w.count = 0
		for _, m := range months {
			for _, d := range doms {
				if d <= daysIn(m, 0) {
					w.count += len(hours)
				}
			}
		}
	}
	return bounds(w, c, now, zone)
}

// daysAndMonths are the weekdays and months a recurrence runs on, less the
// ones excepted; why says when nothing is left.
func daysAndMonths(w when) (dows, months []int, why string) {
	dows = uniq(w.dows)
	if len(w.exDows) > 0 {
		if len(dows) == 0 {
			dows = []int{0, 1, 2, 3, 4, 5, 6}
		}
		dows = slices.DeleteFunc(dows, func(d int) bool { return slices.Contains(w.exDows, d) })
		if len(dows) == 0 {
			return nil, nil, "That leaves no day to run on."
		}
	}
	months = uniq(w.months)
	if len(w.exMons) > 0 {
		if len(months) == 0 {
			months = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
		}
		months = slices.DeleteFunc(months, func(m int) bool { return slices.Contains(w.exMons, m) })
		if len(months) == 0 {
			return nil, nil, "That leaves no month to run in."
		}
	}
	return dows, months, ""
}

// compileStep: every n minutes or hours; an interval unless it is pinned
// to the wall clock or limited to days or hours (decision 4).
func compileStep(w when, hm [][2]int, n int, u string, now time.Time, zone string, loc *time.Location) outcome {
	pinned := len(w.dows) > 0 || len(w.exDows) > 0 || len(w.months) > 0 || len(w.exMons) > 0 || len(w.doms) > 0 || w.window != nil || w.onHour || len(w.mins) > 0
	step := n * 60
	if u == "hour" {
		step *= 60
	}
	if w.winMins != nil && u != "minute" {
		return refuse("Every %s between two times in the same hour is at most once: say the time (“at 9:15”).", humanDuration(time.Duration(step)*time.Second))
	}
	if len(w.nths) > 0 || slices.Contains(w.doms, -1) || slices.ContainsFunc(w.doms, func(d int) bool { return d < -1 }) {
		// "every minute on the last weekday of the month": a cron step
		// cannot say a position in the month, and an interval ignores it
		return refuse("I can't repeat every %s only on a day counted from the start or end of the month. I can do it on set weekdays (“every 15 minutes on weekdays”) or dates (“every hour on the 1st”).", humanDuration(time.Duration(step)*time.Second))
	}
	if w.timesPer > 1 {
		return refuse("I can't spread several posts over an hour by themselves: say “every 30 minutes”.")
	}
	if len(hm) == 1 && w.startClock == nil && w.start != nil && w.start.isDay && !pinned {
		// "every 12 hours starting tomorrow 7am": the grid starts then
		s := w.start.at
		anchor := scheduler.WallInstant(s.Year(), s.Month(), s.Day(), hm[0][0], hm[0][1], loc)
		if anchor.After(now) {
			return bounds(w, &compiled{typ: store.ScheduleInterval, sched: map[string]any{"everySeconds": step, "startAt": anchor.UTC().Format(time.RFC3339)}}, now, zone)
		}
	}
	if len(hm) > 0 && w.startClock == nil {
		// "every hour at 9am": every hour, or every day at 9am?
		return ask("Every %s, or at %s? Say “every %s starting at %s” or “every day at %s”.", humanDuration(time.Duration(step)*time.Second), clockText(hm[0]),
			humanDuration(time.Duration(step)*time.Second), clockText(hm[0]), clockText(hm[0]))
	}
	if len(hm) > 0 || w.startClock != nil {
		if pinned {
			return ask("Every %s, or at %s? Say one of them.", humanDuration(time.Duration(step)*time.Second), clockText(firstClock(hm, w)))
		}
		// "every 2 hours starting at 9am": the grid starts at the next 9am
		c := firstClock(hm, w)
		var anchor time.Time
		if len(hm) > 1 {
			return ask("Every %s starting when? Say one time.", humanDuration(time.Duration(step)*time.Second))
		}
		anchor = scheduler.WallInstant(now.Year(), now.Month(), now.Day(), c[0], c[1], loc)
		if !anchor.After(now) {
			anchor = scheduler.WallInstant(now.Year(), now.Month(), now.Day()+1, c[0], c[1], loc)
		}
		return bounds(w, &compiled{typ: store.ScheduleInterval, sched: map[string]any{"everySeconds": step, "startAt": anchor.UTC().Format(time.RFC3339)}}, now, zone)
	}
	if !pinned {
		if w.start != nil {
			return bounds(w, &compiled{typ: store.ScheduleInterval, sched: map[string]any{"everySeconds": step, "startAt": w.start.at.UTC().Format(time.RFC3339)}}, now, zone)
		}
		return bounds(w, &compiled{typ: store.ScheduleInterval, sched: map[string]any{"everySeconds": step}}, now, zone)
	}
	return stepCron(w, n, u, step, now, zone)
}

// stepCron compiles a step pinned to days, months or hours ("every 15
// minutes on weekdays", "every hour from 9 to 5") to a cron expression:
// the step must divide the hour (minutes) or the day (hours) to be kept
// evenly.
func stepCron(w when, n int, u string, step int, now time.Time, zone string) outcome {
	// days and months, less the ones excepted
	dows, months, why := daysAndMonths(w)
	if why != "" {
		return refuse("%s", why)
	}
	if len(dows) > 0 && len(w.doms) > 0 {
		return ask("Every %s, or on the %s? Say one of them.", dayList(dows), domList(w.doms))
	}
	dom, mon, dow := "*", "*", "*"
	if len(w.doms) > 0 {
		dom = intList(uniq(w.doms))
	}
	if len(months) > 0 {
		mon = intList(months)
	}
	if len(dows) > 0 {
		dow = intList(dows)
		if dow == "1,2,3,4,5" {
			dow = "1-5"
		}
	}
	days := dom + " " + mon + " " + dow
	hourField := "*"
	if w.window != nil {
		hourField = fmt.Sprintf("%d-%d", w.window[0], w.window[1]-1)
		if w.window[1]-1 == w.window[0] {
			hourField = itoa(w.window[0])
		}
	}
	var expr string
	switch {
	case u == "minute":
		if len(w.mins) > 0 || w.onHour {
			return ask("Every %s, or on the hour? Say one of them.", humanDuration(time.Duration(step)*time.Second))
		}
		if 60%n != 0 {
			return refuse("Every %d minutes on set days can't be kept evenly: use a step that divides the hour (5, 10, 15, 20, 30 minutes).", n)
		}
		if w.winMins != nil {
			var ms []int
			for m := w.winMins[0]; m < w.winMins[1]; m += n {
				ms = append(ms, m)
			}
			expr = intList(ms) + " " + hourField + " " + days
		} else if n == 1 {
			expr = "* " + hourField + " " + days
		} else {
			expr = fmt.Sprintf("*/%d %s %s", n, hourField, days)
		}
	default:
		mins := uniq(w.mins)
		if len(mins) == 0 {
			mins = []int{0}
		}
		if n > 1 && 24%n != 0 {
			return refuse("Every few hours on set days must divide the day (1, 2, 3, 4, 6, 8 or 12 hours).")
		}
		minute := intList(mins)
		switch {
		case w.window != nil && n > 1:
			var hs []int
			for h := w.window[0]; h <= w.window[1] && h < 24; h += n {
				hs = append(hs, h)
			}
			expr = fmt.Sprintf("%s %s %s", minute, intList(hs), days)
		case w.window != nil:
			// every hour from 9 to 5: 9:00 … 17:00, the end included
			end := w.window[1]
			if end > 23 {
				end = 23
			}
			expr = fmt.Sprintf("%s %d-%d %s", minute, w.window[0], end, days)
		case n > 1:
			expr = fmt.Sprintf("%s */%d %s", minute, n, days)
		default:
			expr = fmt.Sprintf("%s * %s", minute, days)
		}
	}
	return bounds(w, &compiled{typ: store.ScheduleCron, sched: map[string]any{"cron": expr, "timezone": zone}}, now, zone)
}

func firstClock(hm [][2]int, w when) [2]int {
	if len(hm) > 0 {
		return hm[0]
	}
	h, _ := w.startClock.resolved(w.part)
	return [2]int{h, w.startClock.m}
}

// compileRRule writes an RFC 5545 rule for what cron cannot say.
func compileRRule(w when, u string, n int, dows, doms, months, hours []int, minute int, now time.Time, zone string) outcome {
	freq := map[string]string{"day": "DAILY", "week": "WEEKLY", "month": "MONTHLY", "year": "YEARLY"}[u]
	parts := []string{"FREQ=" + freq}
	if n > 1 {
		parts = append(parts, "INTERVAL="+itoa(n))
	}
	if len(months) > 0 {
		parts = append(parts, "BYMONTH="+intList(months))
	}
	switch {
	case len(w.nths) > 0:
		var byday []string
		setpos := 0
		for _, x := range w.nths {
			switch x.counts {
			case anyDay:
				if x.ord == -1 {
					doms = append(doms, -1)
					continue
				}
				// the nth day, or the nth to last (BYMONTHDAY=-n)
				doms = append(doms, x.ord)
				continue
			case businessDay:
				if setpos != 0 || len(byday) > 0 {
					return refuse("I can only do one business day of the month per schedule.")
				}
				setpos = x.ord
				byday = append(byday, "MO", "TU", "WE", "TH", "FR")
			default:
				if setpos != 0 {
					return refuse("I can only do one business day of the month per schedule.")
				}
				byday = append(byday, fmt.Sprintf("%d%s", x.ord, rruleDay[x.dow]))
			}
		}
		if len(byday) > 0 {
			if len(dows) > 0 {
				return ask("Which days exactly? Say either the weekday or the day of the month.")
			}
			if u == "week" || u == "day" {
				return ask("Should that be every month? Say “of every month”.")
			}
			parts = append(parts, "BYDAY="+strings.Join(byday, ","))
			if setpos != 0 {
				parts = append(parts, "BYSETPOS="+itoa(setpos))
			}
		}
		if len(doms) > 0 {
			if len(byday) > 0 {
				return ask("Which days exactly? Say either the weekday or the day of the month.")
			}
			parts = append(parts, "BYMONTHDAY="+intList(doms))
		}
	case len(doms) > 0:
		parts = append(parts, "BYMONTHDAY="+intList(doms))
	case len(dows) > 0:
		var byday []string
		for _, d := range dows {
			byday = append(byday, rruleDay[d])
		}
		parts = append(parts, "BYDAY="+strings.Join(byday, ","))
	case u == "week":
		parts = append(parts, "BYDAY="+rruleDay[int(now.Weekday())])
	case u == "month":
		parts = append(parts, "BYMONTHDAY="+itoa(now.Day()))
	case u == "year":
		if len(months) == 0 {
			parts = append(parts, "BYMONTH="+itoa(int(now.Month())))
		}
		parts = append(parts, "BYMONTHDAY="+itoa(now.Day()))
	}
	if len(dows) > 0 && len(w.nths) == 0 && len(doms) > 0 {
		return ask("Which days exactly? Say either the weekday or the day of the month.")
	}
	parts = append(parts, "BYHOUR="+intList(uniq(hours)), "BYMINUTE="+itoa(minute))
	rule := strings.Join(parts, ";")
	sched := map[string]any{"rrule": rule, "timezone": zone}
	// INTERVAL counts from the first fire after now (or the start), as a
	// person means "every other Tuesday" from the next Tuesday; written
	// out so the call says exactly what it will do.
	from := now
	if w.start != nil && w.start.at.After(now) {
		from = w.start.at.Add(-time.Second)
	}
	anchor, err := scheduler.AnchorRRule(rule, now.Location(), from)
	if err != nil {
		return refuse("That schedule would never fire.")
	}
	if n > 1 && (u == "month" || u == "year") && len(doms) == 0 && len(dows) == 0 && len(w.nths) == 0 && from.Equal(now) {
		// "every 3 months at 9am", no day said: today is the first of the
		// cadence, so the next is 3 months on even once 9am has passed
		anchor = time.Date(now.Year(), now.Month(), now.Day(), slices.Min(hours), minute, 0, 0, time.UTC).Format("2006-01-02T15:04:05")
	}
	sched["dtstart"] = anchor
	return bounds(w, &compiled{typ: store.ScheduleRRule, sched: sched}, now, zone)
}

var rruleDay = []string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

// clocksEvery says whether the times hm are a whole day's runs n hours
// apart: 8am and 8pm for every 12 hours, 6, 14 and 22 for every 8.
func clocksEvery(hm [][2]int, n int) bool {
	if n < 2 || 24%n != 0 || len(hm) != 24/n {
		return false
	}
	hs := make([]int, len(hm))
	for k, c := range hm {
		if c[1] != hm[0][1] {
			return false
		}
		hs[k] = c[0]
	}
	slices.Sort(hs)
	for k := 1; k < len(hs); k++ {
		if hs[k]-hs[k-1] != n {
			return false
		}
	}
	return true
}
