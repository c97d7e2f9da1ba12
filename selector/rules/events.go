package rules

import (
	"regexp"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// An event pasted from a calendar says its span ("Tue, Dec 8, 2026,
// 2:00 PM – 3:00 PM EST", "Thursday, January 14, 2027 ⋅ 9:00 –
// 10:30am"): a reminder of it is at its start. Read only where the
// request reads as nothing else, names a month as a calendar does, and
// makes a one-time reminder, or asks what to post at its start (the line
// alone, or after a title: "Dentist appointment Thu, Dec 3, …").

// eventSpanRe: a time span written with a dash: the first time's hour
// group 1, its minutes group 2, its half of the day group 3; the second
// time's hour group 4, its half group 5.
var eventSpanRe = regexp.MustCompile(`(?i)[⋅·•@,]?\s*\b(\d{1,2})(:\d\d)?\s*(am|pm|a\.m\.|p\.m\.)?\s*[–—-]\s*(\d{1,2})(?::\d\d)?\s*(am|pm|a\.m\.|p\.m\.)?`)

// eventStart decides text with its event span read as the start of the
// event; ok is false when there is none or that is no one-time job.
func eventStart(in selector.Input, text string) (selector.Decision, bool) {
	m := eventSpanRe.FindStringSubmatchIndex(text)
	if m == nil || recursRe.MatchString(text) || !slices.ContainsFunc(lex(text), isMonthTok) {
		return selector.Decision{}, false // "tomorrow 2-4pm" may as well be a stretch of time to repeat in
	}
	group := func(g int) string {
		if m[2*g] < 0 {
			return ""
		}
		return strings.ToLower(text[m[2*g]:m[2*g+1]])
	}
	half := group(3)
	if half == "" && group(5) != "" {
		// "9:00 – 10:30am": the first time is in the second's half of the
		// day, unless it is later on the clock ("11:30 – 1pm" starts in
		// the morning)
		half = group(5)
		if h, end := valueOf(group(1)), valueOf(group(4)); h > end && h != 12 {
			half = map[string]string{"am": "pm", "pm": "am", "a.m.": "p.m.", "p.m.": "a.m."}[half]
		}
	}
	at := strings.TrimRight(text[:m[0]], " ,⋅·•") + " at " + group(1) + group(2) + half + text[m[1]:]
	d := decide(in, at)
	if makesOnce(d) {
		return d, true
	}
	if d.Missing == selector.MissingAction && strings.HasPrefix(d.Clarify, "What should I post on ") {
		return d, true // the event alone: what to post at its start
	}
	return selector.Decision{}, false
}

// makesOnce says whether d makes a one-time job.
func makesOnce(d selector.Decision) bool {
	return d.Function == "schedule.create" && strings.Contains(string(d.Args), `"scheduleType":"once"`)
}
