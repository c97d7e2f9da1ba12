package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/schedbot/schedbot/selector"
)

// What the rules refuse by name: holidays that move, sunrise, week
// numbers, events ("when the build fails").

// pUnsupported names what NL_SPEC decision 7 says cannot be done; it never
// consumes anything, so the block fails and the reason is said.
func (p *parser) pUnsupported() bool {
	s := p.s(0)
	switch {
	case slices.Contains(holidays, s) || p.is(0, "good") && p.is(1, "friday") || p.is(0, "memorial", "labor", "labour", "mother's", "father's", "mothers", "fathers", "independence", "presidents", "columbus", "veterans") && p.is(1, "day") || p.is(0, "chinese", "lunar") && p.is(1, "new"):
		p.why = refusal("I can't follow holidays that move from year to year. I can schedule a fixed date instead.")
	case p.is(0, "yesterday") || p.is(0, "last") && p.is(1, "night", "week", "month", "year"):
		p.why = refusal("That is in the past. When should it be instead?")
	case p.is(0, "sunrise", "sunset", "dawn", "dusk", "sundown", "sunup"):
		p.why = refusal("I can't schedule by sunrise or sunset. I can use a fixed time of day in your timezone.")
	case p.is(0, "iso") && p.is(1, "week") || p.is(0, "week") && p.is(1, "number") || p.is(0, "week") && numberIn(p.s(1), 1, math.MaxInt) || p.is(0, "odd", "even") && p.is(1, "weeks", "week"):
		p.why = refusal("I can't schedule by week number. I can repeat every week, or every 2 weeks on a weekday.")
	case p.is(0, "every", "each") && (p.is(1, "few", "couple", "several") || p.is(1, "now") && p.is(2, "and")):
		p.why = refusal("How often exactly? Give a number, such as “every 3 days at 9am”.")
	case p.is(0, "during", "within") && p.is(1, "business", "work", "working", "office") && p.is(2, "hours"):
		p.i++ // "every 15 minutes during business hours": asked below
		fallthrough
	case p.is(0, "business") && p.is(1, "hours") || p.is(0, "work", "working", "office") && p.is(1, "hours"):
		// the hours said answer, in the place of these words ("during
		// business hours" + "9 to 6": from 9 to 6)
		start := p.i
		if p.i > 0 && p.is(-1, "during", "in", "within") {
			start--
		}
		p.why = askTimeFor(p.t[start:p.i+2], "Which hours exactly? For example “from 9am to 5pm”.")
	}
	return false
}

// personalDayRe: a day only the sender knows ("on my birthday", "before
// our anniversary"); group 2 is whose, 3 the day.
var personalDayRe = regexp.MustCompile(`(?i)\b(on|for|before)\s+(?:(my|our|his|her|their|[a-z]+'s)\s+)?(birthday|bday|b-day|anniversary|payday|pay\s+day|wedding(?:\s+day)?|graduation|due\s+date|last\s+day|first\s+day|moving\s+day|interview|exam)\b`)

// personalDay asks the date of a day only the sender knows, when the
// request reads no other when: the answer ("it's march 14") takes the
// place of those words.
func personalDay(in selector.Input, text string, d selector.Decision) (selector.Decision, bool) {
	m := personalDayRe.FindStringSubmatch(text)
	if m == nil || d.IsCall() || d.Unsupported != "" || d.Missing == selector.MissingAction {
		return selector.Decision{}, false
	}
	if d, ok := forTheDay(in, text, m); ok {
		return d, true // "every oct 14 at 8am to call mom for her birthday": why, not when
	}
	whose := map[string]string{"my": "your ", "our": "your "}[strings.ToLower(m[2])]
	if whose == "" && m[2] != "" {
		whose = strings.ToLower(m[2]) + " "
	}
	q := clarify(in, text, selector.MissingTime, fmt.Sprintf("When is %s%s? Give the date, such as “March 14 at 9am”.", whose, strings.ToLower(m[3])))
	q.Pending.Replace = strings.ToLower(strings.Join(strings.Fields(m[0]), " "))
	return q, true
}

// forTheDay reads "for her birthday" closing a request that says its when
// without it as the message's last words: the reason for the reminder.
func forTheDay(in selector.Input, text string, m []string) (selector.Decision, bool) {
	trimmed := strings.TrimRightFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == '.' || r == '!' || isEmoji(r) })
	if !strings.EqualFold(m[1], "for") || !strings.HasSuffix(strings.ToLower(trimmed), strings.ToLower(m[0])) {
		return selector.Decision{}, false
	}
	d := decide(in, strings.TrimSpace(trimmed[:strings.LastIndex(strings.ToLower(trimmed), strings.ToLower(m[0]))]))
	var args map[string]any
	if d.Function != "schedule.create" || json.Unmarshal(d.Args, &args) != nil {
		return selector.Decision{}, false
	}
	act, _ := args["targetAction"].(map[string]any)
	fa, _ := act["functionArgs"].(map[string]any)
	said, ok := fa["text"].(string)
	if !ok {
		return selector.Decision{}, false
	}
	fa["text"] = said + " " + strings.TrimRight(text[strings.LastIndex(strings.ToLower(text), strings.ToLower(m[0])):], " .") // as written, emoji kept
	return call("schedule.create", args), true
}

// holidays are refused by name wherever a when may start.
var holidays = append(slices.Clone(movingHolidays), "hannukah", "purim", "pentecost", "whitsun")

// movingHolidays are one-word names of holidays whose date moves from
// year to year, and words that start one ("yom kippur", "mardi gras").
var movingHolidays = []string{"easter", "thanksgiving", "ramadan", "diwali", "passover", "hanukkah", "eid", "yom", "rosh", "mardi"}

var (
	eventRe = regexp.MustCompile(`(?i)\b(whenever|when(?:ever)?\s+(?:someone|somebody|anyone|a\s+\w+\s+(?:is|gets)|the\s+\w+\s+(?:is|fails|goes|finishes|breaks|passes)|\w+\s+(?:joins|leaves|fails|merges|deploys))|if\s+(?:the\s+)?\w+\s+(?:fails|is\s+down|goes\s+down|breaks)|after\s+(?:each|every)\s+(?:deploy|build|release|merge|commit|meeting)|(?:every|each)\s+time\b|when\s+(?:i|we|you|they)\s+\w+|except\s+(?:when|if)\b|unless\b|as\s+soon\s+as\b|once\s+(?:the|it|they|we|i)\s+\w+|on\s+(?:each|every)\s+(?:deploy|merge|commit|push|release))\b`)
	// holidays, sunrise… said anywhere outside the message's own words
	unsupportedWordRe = regexp.MustCompile(`(?i)\b(easter|thanksgiving|good\s+friday|memorial\s+day|labou?r\s+day|mother'?s\s+day|father'?s\s+day|ramadan|diwali|chinese\s+new\s+year|lunar\s+new\s+year|passover|hanukkah|yom\s+kippur|rosh\s+hashanah|sunrise|sunset|dawn|dusk|iso\s+week|week\s+number|week\s+\d{1,2}|odd\s+weeks|even\s+weeks|(?:public|bank|federal|national)\s+holidays?|full\s+moon|new\s+moon|moonrise|moonset|solstice|equinox)\b`)
)

// unsupportedIn says why the request cannot be done when it names events,
// holidays or sunrise outside a quoted message, and the schedule was not
// read whole without them.
func unsupportedIn(text string, s *sentence, strict bool) string {
	lower := strings.ToLower(text)
	if s.quoted {
		lower = strings.ReplaceAll(lower, strings.ToLower(s.text), " ")
	}
	if m := eventRe.FindString(lower); m != "" {
		return "I can't react to events (“" + m + "”); I run things on a schedule (a time, a day, an interval)."
	}
	if m := unsupportedWordRe.FindString(lower); m != "" {
		// the message's own words may name them: "post happy easter"
		if !strict && len(s.blocks) > 0 && !s.quoted && strings.Contains(strings.ToLower(s.text), strings.ToLower(m)) && !afterWhenPrep(lower, strings.ToLower(m)) {
			return ""
		}
		switch strings.ToLower(m) {
		case "sunrise", "sunset", "dawn", "dusk":
			return "I can't schedule by sunrise or sunset. I can use a fixed time of day in your timezone."
		}
		if strings.Contains(m, "moon") || m == "solstice" || m == "equinox" {
			if strings.HasPrefix(m, "moon") {
				return "I can't schedule by moonrise or moonset. I can use a fixed time of day in your timezone."
			}
			return "I can't follow the moon or the seasons. I can schedule a fixed date or a day of the week."
		}
		if strings.Contains(m, "week") {
			return "I can't schedule by week number. I can repeat every week, or every 2 weeks on a weekday."
		}
		return "I can't follow holidays that move from year to year. I can schedule a fixed date instead."
	}
	return ""
}

// afterWhenPrep: "on easter", "at sunset" say when; "happy easter" does not.
func afterWhenPrep(text, word string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], word)
		if i < 0 {
			return false
		}
		before := strings.Fields(text[:off+i])
		if len(before) > 0 && slices.Contains([]string{"on", "at", "for", "until", "till", "before", "after", "by", "every", "each", "around", "from", "except"}, before[len(before)-1]) {
			return true
		}
		off += i + len(word)
	}
}

// endOfRe: an end that only the sender can date ("until the end of the
// semester", "till end of Q1"); group 2 is what ends.
var endOfRe = regexp.MustCompile(`(?i)\b(until|till|til|through)\s+(?:the\s+)?end\s+of\s+(?:the\s+|this\s+|my\s+|our\s+)?(semester|term|school\s+year|academic\s+year|season|sprint|project|quarter|q[1-4]|fiscal\s+year|trip|holidays|course)\b`)

// endOfWhat asks when such an end is, where the request was read without it
// (its words left in the message, or not understood): the answer ("dec
// 11") takes the place of those words as "until dec 11".
func endOfWhat(in selector.Input, text string, d selector.Decision) (selector.Decision, bool) {
	m := endOfRe.FindStringSubmatchIndex(outsideQuotes(text))
	if m == nil || strings.Contains(string(d.Args), `"scheduleType":"once"`) {
		return selector.Decision{}, false // a one-time post's words ("… run till the end of the term")
	}
	if t, ok := createdText(d); d.IsCall() && !(ok && endOfRe.MatchString(t)) {
		return selector.Decision{}, false // read as a bound already
	}
	what, does := "the "+strings.ToLower(text[m[4]:m[5]]), "does"
	if len(what) == 6 {
		what = strings.ToUpper(what[4:]) // "Q1"
	} else if strings.HasSuffix(what, "s") {
		does = "do" // "When do the holidays end?"
	}
	q := clarify(in, text, selector.MissingTime, "When "+does+" "+what+" end? Give the date, such as “December 18”.")
	q.Pending.Replace = strings.ToLower(strings.Join(strings.Fields(text[m[0]:m[1]]), " "))
	return q, true
}
