package rules

import (
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Corrections (NL_SPEC decision 39): right after a job was made or
// changed, "no, make it 10am", "actually Tuesdays", "I meant #eng" and
// "at 10 instead" change that job, the one in context.

var (
	// correctionLeadRe: the words that open a correction, as many as are
	// written ("no sorry, I meant …").
	correctionLeadRe = regexp.MustCompile(`(?i)^(?:(?:no+|nope|nah|oh|oops|whoops|sorry|wait|hmm+|um+|uh+|ah+|actually|i\s+meant(?:\s+to\s+say)?|i\s+mean|meant|correction|my\s+bad|rather|on\s+second\s+thought)(?:[\s,.!:;]+|\s*[—–-]+\s*))+`)
	// correctionTailRe: the words that close one ("… instead"), and
	// after opening words "…, not 9am".
	correctionTailRe = regexp.MustCompile(`(?i)(?:[\s,.!]+(?:instead|rather))+[\s.!]*$`)
	correctionNotRe  = regexp.MustCompile(`(?i)(?:,\s*|\s+)not\s+[^,]+$`)
	// postItInRe: the job in context sent elsewhere.
	postItInRe = regexp.MustCompile(`(?i)^(?:post|send|put|move)\s+(?:it|that|this)\s+(?:in|to|into|on)\s+(\S+)$`)
)

// correction reads text as a correction: opening or closing words say
// so, and the rest is a change said plainly ("no, move it to 10am") or,
// with a job in context, what a change of it says ("10am", "Tuesdays",
// "#eng"). A complete new request after "actually" is left to decide,
// which reads it as one.
func correction(in selector.Input, text string) (selector.Decision, bool) {
	if in.PickedJobID != "" {
		return selector.Decision{}, false
	}
	lead := correctionLeadRe.FindString(text)
	rest := strings.TrimSpace(text[len(lead):])
	tail := ""
	if !strings.ContainsAny(rest, "\"“”") { // a quoted message may say anything
		tail = correctionTailRe.FindString(rest)
		if lead != "" && tail == "" {
			tail = correctionNotRe.FindString(rest)
		}
	}
	rest = strings.TrimSpace(strings.TrimRight(rest[:len(rest)-len(tail)], ",.!;: "))
	if m := postItInRe.FindStringSubmatch(rest); m != nil && in.ContextJobID != "" {
		// "post it in #eng (instead)": not a create, whose message cannot
		// be "it" (decision 28)
		if d := update(in, text, "it "+m[1]); d.Function == "schedule.update" {
			return d, true
		}
	}
	if mins, dir, ok := shiftOf(politeTailRe.ReplaceAllString(rest, "")); ok && dir != 0 && in.ContextJobID != "" {
		// "an hour later", "10 min earlier pls": the job in context moves
		return shift(in, text, jobRef(in, in.ContextJobID), mins, dir), true
	}
	if lead == "" && tail == "" || rest == "" || retractRe.MatchString(outsideQuotes(rest)) {
		return selector.Decision{}, false
	}
	if d, ok := manage(in, rest); ok {
		return d, true
	}
	if in.ContextJobID == "" {
		return selector.Decision{}, false
	}
	// what is left must be a when or a target, nothing to post
	if d := create(in, rest); d.Function != "" || d.Missing != selector.MissingAction {
		return selector.Decision{}, false
	}
	if d := update(in, text, "it "+strings.ToLower(rest)); d.Function == "schedule.update" {
		return d, true
	}
	return selector.Decision{}, false
}
