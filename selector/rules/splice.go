package rules

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// How an answer to a question goes into the words it asked about: the
// words it replaces, and the ones around them it replaces too.

// workHoursRe: the hours of a working day, said so ("business hours").
var workHoursRe = regexp.MustCompile(`(?i)^(?:(?:during|in|within)\s+)?(?:(?:business|working|work|office)\s+hours|(?:my|our|his|her|their|the)\s+(?:[\w-]+\s+){0,3}(?:shifts?|rota|hours))$`)

// hoursLead is replace with the word before it when that opens hours
// ("during business hours"), which the answer ("from 9 to 6") replaces
// too.
func hoursLead(text, replace string) string {
	if workHoursRe.MatchString(replace) {
		for _, lead := range []string{"during ", "in ", "within "} {
			if replaced(text, lead+replace, "x") != "" {
				return lead + replace
			}
		}
	}
	return replace
}

// untilAnswer is the end of a pause for a while ("over the holidays",
// asked "Until when?") said as one: "jan 4" is "until jan 4".
func untilAnswer(replace, answer string) string {
	if isMonthWord(replace) && dayOnlyRe.MatchString(strings.TrimSpace(answer)) {
		// "Until which day?" of "until january": "the 8th" is January's
		return replace + " " + strings.TrimPrefix(strings.TrimSpace(strings.ToLower(answer)), "the ")
	}
	if workHoursRe.MatchString(replace) {
		// "during business hours": "9 to 6" is from 9 to 6
		if first := strings.ToLower(firstWord(strings.TrimSpace(answer))); first != "from" && first != "between" {
			return "from " + strings.TrimSpace(answer)
		}
		return answer
	}
	if first := firstWord(replace); first != "for" && first != "over" && first != "during" && first != "while" && first != "until" && first != "till" && first != "til" {
		return answer
	}
	switch strings.ToLower(firstWord(strings.TrimSpace(answer))) {
	case "until", "till", "til", "through", "thru":
		return answer
	}
	return "until " + strings.TrimSpace(answer)
}

// channelAndWhen splits an answer that names a channel beside a when
// ("in #eng-team at 3pm") into the channel and the rest.
func channelAndWhen(answer string) (ch, rest string, ok bool) {
	toks := lex(answer)
	for k, t := range toks {
		if t.kind != tChannel {
			continue
		}
		from := k
		if k > 0 && slices.Contains(targetPreps, toks[k-1].s) {
			from = k - 1
		}
		rest = strings.Trim(answer[:toks[from].i]+" "+answer[t.j:], " ,;") // "tuesday at 3pm, in #ops"
		return answer[t.i:t.j], rest, rest != ""
	}
	return "", "", false
}

// replaced is text with the last place its words replace stand in (as
// lexed: any case, any space between them) taken by answer; "" when
// there is none. A quotation is the message, never words asked about
// ("every biweekly monday … post “biweekly sync”"). "at" said twice
// ("at 25:00" answered "at 9am") is said once, and so are "every" and
// the day around a recurrence answered ("every biweekly monday"
// answered "every other monday").
func replaced(text, replace, answer string) string {
	words := strings.Fields(replace)
	if len(words) == 0 {
		return ""
	}
	toks := lex(text)
	if k := lastAt(toks, words, false); k >= 0 {
		return replacedAt(text, toks, k, words, answer)
	}
	if k := lastAt(toks, words, true); k >= 0 {
		return replacedAt(text, toks, k, words, answer) // words asked about that hold a quotation (code)
	}
	return ""
}

// lastAt is where words last stand in toks, a quotation among them only
// when quotes is set; -1 when nowhere.
func lastAt(toks []tok, words []string, quotes bool) int {
	for k := len(toks) - len(words); k >= 0; k-- {
		match := true
		for n, w := range words {
			if toks[k+n].s != w || toks[k+n].kind == tQuote && !quotes {
				match = false
				break
			}
		}
		if match {
			return k
		}
	}
	return -1
}

// replacedAt is text with toks[k:k+len(words)] taken by answer, as
// replaced says.
func replacedAt(text string, toks []tok, k int, words []string, answer string) string {
	answer = strings.TrimSpace(answer)
	if k > 0 && toks[k-1].s == "at" {
		if a := lex(answer); len(a) > 1 && a[0].s == "at" {
			answer = strings.TrimSpace(answer[a[0].j:])
		}
	}
	if last := words[len(words)-1]; strings.HasSuffix(last, "ish") && (strings.EqualFold(answer, "am") || strings.EqualFold(answer, "pm")) {
		answer = strings.TrimSuffix(strings.TrimSuffix(last, "ish"), "-") + answer // "About 3?" "pm"
	}
	if _, isNumber := number(words[len(words)-1]); isNumber && unit(strings.ToLower(answer)) != "" {
		answer = words[len(words)-1] + " " + answer // "In 2 minutes or 2 hours?" "hours"
	}
	if a := lex(answer); len(words) >= 2 && words[0] == "in" && (len(a) == 2 && numberIn(a[0].s, 1, math.MaxInt) && unit(a[1].s) != "" || len(a) == 1 && compactDuration(a[0].s) > 0) {
		answer = "in " + answer // "in 2" ("in a bit") asked, "2 hours" answered
	}
	from, to := toks[k].i, toks[k+len(words)-1].j
	if words[0] == "by" && len(words) == 2 {
		answer, to = dueAnswer(toks, k+2, to, words[1], answer)
	}
	if a := lex(answer); len(a) > 1 && (a[0].s == "every" || a[0].s == "each") {
		if k > 0 && (toks[k-1].s == "every" || toks[k-1].s == "each") {
			from = toks[k-1].i // "every biweekly": "every other monday" says "every" once
		}
		last := len(a) - 1
		if _, _, ok := weekday(a[last].s); ok && k+len(words) < len(toks) {
			if _, _, ok := weekday(toks[k+len(words)].s); ok && toks[k+len(words)].kind == tWord {
				to = toks[k+len(words)].j // "biweekly monday": the day answered takes its place
			}
		}
	}
	if k > 0 && strings.HasSuffix(words[len(words)-1], "ish") && slices.Contains([]string{"around", "about", "approx", "approximately", "roughly"}, toks[k-1].s) {
		from = toks[k-1].i // "around 9ish": the exact time answered takes both
		if a := lex(answer); len(a) > 0 && a[0].s != "at" {
			answer = "at " + answer
		}
	}
	return text[:from] + answer + text[to:]
}

// dayOnlyRe: a day of the month said alone ("the 8th", "8", "2nd").
var dayOnlyRe = regexp.MustCompile(`(?i)^(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?$`)

// dueAnswer fits the answer to "When should I post …? It is due “by 4pm
// tomorrow”" in place of "by 4pm": a day it names takes the place of the
// due day after (toks[next:], ending at to), and a bare time before the
// deadline ("3:30" of "by 4pm") is on its side of noon.
func dueAnswer(toks []tok, next, to int, due, answer string) (string, int) {
	a := lex(answer)
	if slices.ContainsFunc(a, func(t tok) bool {
		_, _, day := weekday(t.s)
		return day || slices.Contains(relativeDays, t.s)
	}) {
		for ; next < len(toks); next++ {
			t := toks[next]
			if _, _, day := weekday(t.s); !day && !slices.Contains(relativeDays, t.s) && t.s != "on" && t.s != "this" && t.s != "next" {
				break
			}
			to = t.j
		}
	}
	if len(a) == 1 && a[0].kind == tNum && !strings.ContainsAny(a[0].s, "apAP") {
		// a bare time before the deadline: the latest of its am and pm
		// that is not after it ("3:30" of "by 4pm" is 3:30pm, "11" of
		// "by 12pm" 11am)
		h, err := strconv.Atoi(strings.SplitN(a[0].s, ":", 2)[0])
		lower := strings.ToLower(due)
		d, err2 := strconv.Atoi(strings.TrimRight(strings.SplitN(lower, ":", 2)[0], "apm"))
		if err == nil && err2 == nil && h >= 1 && h <= 12 && d >= 1 && d <= 12 && (strings.HasSuffix(lower, "am") || strings.HasSuffix(lower, "pm")) {
			d24 := d % 12
			if strings.HasSuffix(lower, "pm") {
				d24 += 12
			}
			if pm := h%12 + 12; pm <= d24 {
				answer += "pm"
			} else if h%12 <= d24 {
				answer += "am"
			}
		}
	}
	return answer, to
}
