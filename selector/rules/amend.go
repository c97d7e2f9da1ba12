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
	amendVerbRe = regexp.MustCompile(`(?i)^(?:(?:make|change|set|move|switch|have)\s+it(?:\s+(?:to|be|for))?|(?:post|send|put)\s+(?:it|that|this)|it\s+should\s+be)\s+(.+)$`)
	// amendSayRe: a new message ("make it say hi", "say hi instead").
	amendSayRe = regexp.MustCompile(`(?i)^(?:(?:make|have)\s+it\s+)?(?:say|says|read)\s+(.+)$`)
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
	case !said && len(s.blocks) > 0 && (isWhenWords(in, rest) || oneToken(rest) && isWhenWords(in, "at "+rest)):
		if !isWhenWords(in, rest) {
			rest = "at " + rest // "actually 10"
		}
		return withWhen(body, s.blocks, rest), true
	case said || not != "" && s.text != "" && strings.Contains(strings.ToLower(s.text), strings.ToLower(not)):
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

// withWhen is body with the when its blocks say replaced by w. Days
// alone ("monday") replace only the days said ("every friday at 9am"
// becomes "every monday at 9am"), a time alone only the time ("tomorrow
// at 9" becomes "tomorrow at 10"; "every monday", with no time, "every
// monday at 10").
func withWhen(body string, blocks [][]tok, w string) string {
	isDay := func(t tok) bool { _, _, ok := weekday(t.s); return ok }
	daysOnly := !slices.ContainsFunc(lex(w), func(t tok) bool {
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
	timeWords := []string{"at", "am", "pm", "a.m.", "p.m.", "noon", "midnight", "and", ",", "o'clock", "oclock"}
	isTime := func(t tok) bool { return t.kind == tNum || slices.Contains(timeWords, t.s) }
	if !slices.ContainsFunc(lex(w), func(t tok) bool { return !isTime(t) }) {
		// a time alone ("at 10") replaces the times said after "at"
		for _, b := range blocks {
			if at := slices.IndexFunc(b, func(t tok) bool { return t.s == "at" }); at >= 0 {
				end := at
				for end+1 < len(b) && isTime(b[end+1]) {
					end++
				}
				return body[:b[at].i] + w + body[b[end].j:]
			}
		}
		return body + " " + w // "every monday", then "at 5pm instead": the time it lacked
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

func firstWord(s string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return f
}
