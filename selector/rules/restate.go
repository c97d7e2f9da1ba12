package rules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/selector"
)

// Restatements: a when said twice, the second time in other words — "at
// 17:00 (5pm)", "at 21:00 / 9pm", "tomorrow at 9am, so saturday morning",
// "on Dec 1st, a tuesday, at 9am", "every monday at 9am, i.e. once a week
// on mondays", "at 9am London time, which is 4am here". The request is
// read without the second saying, and made only when every first run it
// makes agrees with it (in the job's zone or the sender's); one that
// disagrees ("at 9am (10am)") is left to the question the whole request
// asks.

// restateRe finds a second saying: group 1 in parentheses, group 2 after
// a slash, group 3 after a comma and a word that restates.
var restateRe = regexp.MustCompile(`(?i)\s*\(([^()]{1,60})\)|\s*/\s*(\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)?)(?:\s|$)|,\s*(?:so|i\.e\.?|ie|that\s+is|that's|which\s+is|which's|aka|an?)\s+([^,;()]{1,60}?)\s*(?:,|$)`)

// restateFillerRe are words of a restatement that say no time: where or
// how often it was said again ("here", "once a week").
var restateFillerRe = regexp.MustCompile(`(?i)\b(?:(?:my|our|your|local)\s+time|here|locally|for\s+(?:me|us)|once\s+a\s+(?:week|day))\b`)

// senderClockRe: a restatement on the sender's clock ("which is 4am here").
var senderClockRe = regexp.MustCompile(`(?i)\b(?:(?:my|our|local)\s+time|here|locally|for\s+(?:me|us))\b`)

// endsWithWhen says whether text ends with words of a when (one to four
// tokens), which a restatement follows.
func endsWithWhen(in selector.Input, text string) bool {
	t := lex(text)
	for n := 1; n <= 4 && n <= len(t); n++ {
		if _, ok, _ := parseBlock(t[len(t)-n:], when{}, in.Now); ok {
			return true
		}
	}
	return false
}

// restated reads text without a second saying of its when, as above.
func restated(in selector.Input, text string) (selector.Decision, bool) {
	for _, m := range restateRe.FindAllStringSubmatchIndex(text, 4) {
		inner := ""
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				inner = text[m[2*g]:m[2*g+1]]
			}
		}
		said, ok := restatedWhen(in, inner)
		if !ok || !endsWithWhen(in, text[:m[0]]) {
			continue // "prep for the meeting (tomorrow at 10)": the message's
		}
		without := strings.TrimSpace(text[:m[0]] + " " + strings.TrimLeft(text[m[1]:], " "))
		d := decide(in, without)
		if d.Function != "schedule.create" {
			continue
		}
		first, ok := agrees(in, d, said, senderClockRe.MatchString(inner))
		if ok {
			return d, true
		}
		if m[4] >= 0 && ampm(lex(text[:m[0]])) && ampm(lex(inner)) {
			// "at 9am/5pm": two times, each with its half of the day
			if both := decide(in, text[:m[0]]+" and "+text[m[4]:]); both.IsCall() || both.Clarify != "" || both.Unsupported != "" {
				return both, true // or what it says of two times once
			}
		}
		// yes keeps the first saying, no takes the second in its place,
		// and a day or time said replaces the first
		again := strings.TrimSpace(inner)
		q := clarify(in, without, selector.MissingTime, fmt.Sprintf("I read that as running %s, but you also said “%s”. Is the first right? Say yes, no for “%s”, or the day or time again.", first, again, again))
		q.Pending.Replace = firstSaying(in, without, said)
		q.Pending.Yes = without
		if r := replaced(without, q.Pending.Replace, again); r != "" && q.Pending.Replace != "" && !senderClockRe.MatchString(inner) {
			q.Pending.No = r
		}
		return q, true
	}
	return selector.Decision{}, false
}

// restatedWhen reads a restatement's words as a when that says a time,
// a part of the day, a weekday or a date, and nothing else.
func restatedWhen(in selector.Input, inner string) (when, bool) {
	t := lex(strings.TrimSpace(restateFillerRe.ReplaceAllString(inner, " ")))
	if len(t) == 0 || !slices.ContainsFunc(t, func(x tok) bool { return timeBearing(x) || strongTime(x) || slices.Contains(dayParts, x.s) }) {
		return when{}, false
	}
	if t[0].s == "on" || t[0].s == "at" {
		t = t[1:]
	}
	if len(t) == 1 && t[0].kind == tNum && numberIn(t[0].s, 0, 23) {
		t = lex("at " + t[0].s) // "at 5pm (17)": a bare number by a clock is an hour
	}
	w, ok, _ := parseBlock(t, when{}, in.Now)
	if !ok || w.hasRel || w.vague != "" || w.until != nil || w.start != nil || w.count > 0 || w.rec && len(w.dows) == 0 {
		return when{}, false
	}
	return w, len(w.clocks) > 0 || w.part != "" || len(w.dows) > 0 || w.date != nil || w.hasDay
}

// agrees says whether each run d makes in the next weeks falls as w
// says, on the clock of the zone w names, else the sender's (here) or
// else the job's or the sender's; first names the first runs, for a
// question.
func agrees(in selector.Input, d selector.Decision, w when, here bool) (first string, ok bool) {
	var p callWhen
	if json.Unmarshal(d.Args, &p) != nil {
		return "", false
	}
	// a week and more of runs: "every day, so monday to friday" runs on
	// a Saturday too
	sp, err := newJobSpec(p.ScheduleType, p.Schedule, p.StartAt, p.EndAt, in.Now)
	if err != nil {
		return "", false
	}
	fires := sp.NextN(in.Now, 30)
	if len(fires) == 0 {
		return "", false
	}
	zones := []string{p.Schedule.Timezone, in.Timezone}
	switch {
	case w.zone != "":
		zones = []string{w.zone} // "at 10am (10am London time)"
	case here:
		zones = []string{in.Timezone}
	}
	if loc, err := time.LoadLocation(p.Schedule.Timezone); err == nil {
		first = strings.TrimSuffix(describeFires(fires[:min(len(fires), 3)], loc), " …")
	}
	for _, zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(fires, func(f time.Time) bool { return !fallsAs(f.In(loc), in.Now.In(loc), w) }) {
			return first, true
		}
	}
	return first, false
}

// fallsAs says whether the run at f (said at now, both on one clock)
// falls as w says.
func fallsAs(f, now time.Time, w when) bool {
	if len(w.clocks) > 0 && !slices.ContainsFunc(w.clocks, func(c clk) bool {
		h, amb := c.resolved(w.part)
		return c.m == f.Minute() && (h == f.Hour() || amb && (h+12)%24 == f.Hour())
	}) {
		return false
	}
	if r, ok := partHours[w.part]; ok && len(w.clocks) == 0 && (f.Hour() < r[0] || f.Hour() >= r[1]) {
		return false
	}
	if len(w.dows) > 0 && !slices.Contains(w.dows, int(f.Weekday())) {
		return false
	}
	if d := w.date; d != nil && (d.m != int(f.Month()) || d.d != f.Day() || d.y != 0 && d.y != f.Year()) {
		return false
	}
	if w.hasDay && f.Format(time.DateOnly) != now.AddDate(0, 0, w.dayRel).Format(time.DateOnly) {
		return false
	}
	return true
}

// firstSaying is the words of text that said what w says again (the
// clock where w is a clock, the day where it is a day), which the answer
// to "Which is right?" replaces; "" when no one to three words do.
func firstSaying(in selector.Input, text string, w when) string {
	t := lex(text)
	for n := 1; n <= 3; n++ {
		for k := 0; k+n <= len(t); k++ {
			v, ok, _ := parseBlock(t[k:k+n], when{}, in.Now)
			day := len(v.dows) > 0 || v.hasDay || v.date != nil
			if ok && len(w.clocks) > 0 && len(v.clocks) > 0 && !day || ok && len(w.clocks) == 0 && day && len(v.clocks) == 0 {
				return strings.Join(spanWords(t[k:k+n]), " ")
			}
		}
	}
	return ""
}

// ampm says whether t ends with a clock that says its half of the day.
func ampm(t []tok) bool {
	if len(t) == 0 {
		return false
	}
	x := t[len(t)-1].s
	return strings.HasSuffix(x, "am") || strings.HasSuffix(x, "pm")
}
