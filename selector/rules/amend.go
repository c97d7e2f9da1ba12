package rules

import (
	"regexp"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Corrections of a request still being asked about (NL_SPEC decision
// 26): while "post hello every friday" waits for its time, "actually
// monday", "i meant #ops", "make it say hi" or "call dad not mom" change
// that request, which is asked about (or made) again as changed.

var (
	// amendVerbRe: the request said with its verb ("make it monday",
	// "post it in #eng instead", "change it to every monday").
	amendVerbRe = regexp.MustCompile(`(?i)^(?:(?:make|change|set|move|switch|have)\s+(?:it|that|this)(?:\s+(?:to|be|for))?|(?:post|send|put)\s+(?:it|that|this)|(?:it|that)\s+should\s+be)\s+(.+)$`)
	// amendSayRe: a new message ("make it say hi", "say hi instead").
	amendSayRe = regexp.MustCompile(`(?i)^(?:(?:make|have)\s+it\s+)?(?:say|says|read)\s+(.+)$`)
	// recurringRe: a when that repeats.
	recurringRe = regexp.MustCompile(`(?i)\b(?:every|each|daily|weekly|monthly|yearly|hourly|weekdays?|weekends?|fortnightly|biweekly)\b`)
	// actuallyTailRe closes a correction as "instead" does.
	actuallyTailRe = regexp.MustCompile(`(?i)[\s,]+actually$`)
)

// amended is the request p asks about with the correction reply made to
// it, when reply is one: it opens or closes as a correction does, or says
// the request's verb, and what it changes is its channel, its when or
// its message. ok is false for anything else, which is read as before.
func amended(in selector.Input, p *selector.Pending, reply string) (text string, ok bool) {
	if !p.Create || p.Yes != "" || len(p.Candidates) > 0 {
		return "", false
	}
	reply = strings.TrimSpace(reply)
	lead := correctionLeadRe.FindString(reply)
	rest := strings.TrimSpace(reply[len(lead):])
	tail, not := "", ""
	if !strings.ContainsAny(rest, "\"“”") {
		tail = correctionTailRe.FindString(rest)
		if tail == "" {
			not = correctionNotRe.FindString(rest)
		}
	}
	rest = strings.TrimSpace(rest[:len(rest)-len(tail)-len(not)])
	rest = strings.TrimRight(politeTailRe.ReplaceAllString(rest, ""), "?!.,; ")
	if m := actuallyTailRe.FindString(rest); m != "" && m != rest {
		rest, tail = rest[:len(rest)-len(m)], m // "monday actually"
	}
	rest = strings.TrimPrefix(rest, "and ") // "oh and in #eng"
	said := false
	if m := amendSayRe.FindStringSubmatch(rest); m != nil {
		rest, said = m[1], true
		if i := insteadOfRe.FindStringSubmatchIndex(rest); i != nil && strings.Contains(strings.ToLower(p.Text), strings.ToLower(rest[i[2]:i[3]])) {
			rest = rest[:i[0]] // "make it say standup in 10 instead of in 5"
		}
	} else if m := amendVerbRe.FindStringSubmatch(rest); m != nil {
		rest = m[1]
	} else if lead == "" && tail == "" && not == "" {
		return "", false // no word says it is a correction
	}
	not = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimLeft(not, ", ")), "not "))
	if rest == "" {
		return "", false
	}
	r, _, done := read(in, p.Text)
	if done {
		return "", false
	}
	s, body := r.s, r.body
	switch {
	case !said && isChannelWords(rest):
		ch := lex(rest)[len(lex(rest))-1].s
		for k, t := range s.toks {
			if t.kind == tChannel && s.used[k] {
				return body[:t.i] + ch + body[t.j:], true
			}
		}
		return "in " + ch + " " + body, true // first: a target, never words of a reminder
	case !said && len(s.blocks) == 0 && isWhenWords(in, rest):
		return body + " " + rest, true // "oh, tomorrow at 5pm": the when it lacked, without "oh"
	case !said && len(s.blocks) > 0 && (isWhenWords(in, rest) || oneToken(rest) && isWhenWords(in, "at "+rest)):
		if !isWhenWords(in, rest) {
			rest = "at " + rest // "actually 10"
		}
		return withWhen(body, s.blocks, rest), true
	case said || not != "" && lead != "" && s.text != "" && strings.Contains(strings.ToLower(s.text), strings.ToLower(not)) &&
		!strings.ContainsAny(rest, "'’") && !slices.Contains(notReplacements, strings.ToLower(firstWord(rest))):
		msg := unquote(rest)
		if !said && len(strings.Fields(msg)) <= 2 && !strings.EqualFold(firstWord(msg), firstWord(s.text)) {
			// "dad not mom": the word in the message replaced
			i := strings.Index(strings.ToLower(s.text), strings.ToLower(not))
			msg = s.text[:i] + msg + s.text[i+len(not):]
		}
		return withMessage(s, body, msg)
	}
	return "", false
}

// withWhen is body with the when its blocks say replaced by w, keeping
// what w does not say: days alone replace the days ("every friday at
// 9am" + "monday": every monday at 9am), a time alone the time
// ("tomorrow at 9" + "10": tomorrow at 10; "every monday" + "5pm": every
// monday at 5pm), and a recurrence stays one ("every friday" + "monday
// at 10": every monday at 10).
func withWhen(body string, blocks [][]tok, w string) string {
	isDay := func(t tok) bool { _, _, ok := weekday(t.s); return ok }
	wt := lex(w)
	daysOnly := !slices.ContainsFunc(wt, func(t tok) bool {
		return !isDay(t) && t.s != "and" && t.s != "," && t.s != "on" && t.s != "&"
	})
	if daysOnly {
		var days []tok
		for _, b := range blocks {
			days = append(days, slices.DeleteFunc(slices.Clone(b), func(t tok) bool { return !isDay(t) })...)
		}
		if len(days) > 0 {
			return body[:days[0].i] + strings.TrimPrefix(w, "on ") + body[days[len(days)-1].j:]
		}
	}
	hasDay := slices.ContainsFunc(wt, func(t tok) bool {
		_, isMonth := month(t.s)
		return isDay(t) || isMonth || t.s == "tomorrow" || t.s == "today" || t.s == "tonight"
	})
	hasTime := slices.ContainsFunc(wt, func(t tok) bool { return t.kind == tNum || t.s == "noon" || t.s == "midnight" })
	// the old time, said after "at", and where it is
	var atSpan []tok
	for _, b := range blocks {
		if at := slices.IndexFunc(b, func(t tok) bool { return t.s == "at" }); at >= 0 {
			end := at
			for end+1 < len(b) && (b[end+1].kind == tNum || slices.Contains([]string{"am", "pm", "a.m.", "p.m.", "noon", "midnight", "and", ","}, b[end+1].s)) {
				end++
			}
			atSpan = b[at : end+1]
			break
		}
	}
	if !hasDay && !recurringRe.MatchString(w) {
		// a time alone ("10", "half past 9", "7 in the evening")
		if !strings.HasPrefix(w, "at ") {
			w = "at " + w
		}
		if atSpan != nil {
			return body[:atSpan[0].i] + w + body[atSpan[len(atSpan)-1].j:]
		}
		return body + " " + w
	}
	old := ""
	for _, b := range blocks {
		old += body[b[0].i:b[len(b)-1].j] + " "
	}
	if recurringRe.MatchString(old) && !recurringRe.MatchString(w) {
		w = "every " + strings.TrimPrefix(w, "on ") // "every friday", then "monday at 10"
	}
	if !hasTime && atSpan != nil {
		w += " " + body[atSpan[0].i:atSpan[len(atSpan)-1].j] // "tomorrow at 9", then "sunday"
	}
	for k := len(blocks) - 1; k >= 0; k-- {
		b := blocks[k]
		body = body[:b[0].i] + body[b[len(b)-1].j:]
	}
	return strings.Join(strings.Fields(body), " ") + " " + w
}

// withMessage is body with its text replaced by msg, quoted so that it
// is read as the message whatever it says.
func withMessage(s *sentence, body, msg string) (string, bool) {
	var span []tok
	for _, t := range s.toks {
		if t.kind == tQuote && s.quoted {
			span = []tok{t}
			break
		}
	}
	if span == nil {
		span = s.textToks
	}
	if len(span) == 0 {
		return "", false
	}
	return body[:span[0].i] + "“" + msg + "”" + body[span[len(span)-1].j:], true
}

// notReplacements open words before "not" that replace nothing ("no,
// probably not mom", "sure, but not mom").
var notReplacements = []string{"probably", "definitely", "maybe", "perhaps", "sure", "ok", "okay", "why", "but", "and",
	"so", "just", "also", "still", "yes", "yeah", "really", "certainly", "obviously", "hopefully", "surely"}

func firstWord(s string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return f
}
