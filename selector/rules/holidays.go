package rules

import (
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Holidays on a fixed date, said once ("remind me xmas eve at 6pm to wrap
// the presents", "on new year's day at noon"): that date. Said of every
// year ("every christmas eve") they stay left over (NL_SPEC decision 29),
// and holidays that move are refused there.

// holidayDates are the fixed-date holidays, by the words that name them.
var holidayDates = []struct{ re, date string }{
	{`christmas\s+eve|xmas\s+eve`, "dec 24"},
	{`christmas(?:\s+day)?|xmas(?:\s+day)?`, "dec 25"},
	{`boxing\s+day`, "dec 26"},
	{`new\s+year'?s\s+eve|nye`, "dec 31"},
	{`new\s+year'?s(?:\s+day)?`, "jan 1"},
	{`valentine'?s(?:\s+day)?`, "feb 14"},
	{`halloween`, "oct 31"},
	{`(?:the\s+)?(?:4th|fourth)\s+of\s+july|independence\s+day`, "jul 4"},
}

// holidayRe finds a holiday where a when is said: after "on", "for",
// "this", "by", "until" or at a block's start before "at", "morning" or a comma.
var holidayRe = func() *regexp.Regexp {
	alts := make([]string, len(holidayDates))
	for i, h := range holidayDates {
		alts[i] = "(" + h.re + ")"
	}
	return regexp.MustCompile(`(?i)(^|\s)(every\s+|each\s+)?(?:(on|for|this|by|until|till)\s+)?(?:` + strings.Join(alts, "|") + `)(\s+(?:at|morning|afternoon|evening|night)\b|\s*,|\s*$|\s+to\b)`)
}()

// holidayDated decides text with a fixed-date holiday said once read as
// its date; ok is false when there is none or that reads as no call.
func holidayDated(in selector.Input, text string) (selector.Decision, bool) {
	m := holidayRe.FindStringSubmatchIndex(text)
	if m == nil || m[4] >= 0 || strings.Count(text[:m[0]], "'")%2 == 1 || strings.ContainsAny(text[:m[0]], "\"“") {
		return selector.Decision{}, false // every year, or in quotes
	}
	date := ""
	for i := range holidayDates {
		if m[8+2*i] >= 0 {
			date = holidayDates[i].date
		}
	}
	if date == "dec 31" && nyeMidnightRe.MatchString(text) && !clockSaidRe.MatchString(text) {
		date = "jan 1" // "at midnight on new year's eve": as the year turns
	}
	lead := "on "
	if m[6] >= 0 {
		lead = strings.ToLower(text[m[6]:m[7]]) + " "
	}
	dated := text[:m[0]] + text[m[2]:m[3]] + lead + date + text[m[len(m)-2]:m[len(m)-1]] + text[m[1]:]
	d := decide(in, dated)
	if d.IsCall() && (strings.Contains(string(d.Args), `"scheduleType":"once"`) || lead == "until " || lead == "till ") {
		return d, true // said once, or an end ("until new year's"); "every 5 minutes on christmas day" would repeat each year
	}
	return selector.Decision{}, false
}

// nyeMidnightRe: midnight said of new year's eve, the turn of the year.
var nyeMidnightRe = regexp.MustCompile(`(?i)\bmidnight\b[^.!?]{0,25}\b(?:new\s+year'?s\s+eve|nye)\b|\b(?:new\s+year'?s\s+eve|nye)\b[^.!?]{0,25}\bmidnight\b`)

// clockSaidRe: a time of day in digits ("8pm", "20:00").
var clockSaidRe = regexp.MustCompile(`(?i)\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\b\d{1,2}:\d\d\b`)

// holidayWordRes are holidayDates' words, each alone.
var holidayWordRes = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(holidayDates))
	for i, h := range holidayDates {
		out[i] = regexp.MustCompile(`(?i)\b(?:` + h.re + `)\b`)
	}
	return out
}()

// holidaysDated writes the fixed-date holidays in words as their dates
// ("skip it on christmas eve": "skip it on dec 24").
func holidaysDated(words string) string {
	for i, re := range holidayWordRes {
		words = re.ReplaceAllString(words, holidayDates[i].date)
	}
	return words
}
