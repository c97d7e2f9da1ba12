package rules

import (
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Words of a job's message replaced by others: "change the form to the
// survey" of "fill the form", "should be ch 6 not ch 5" (NL_SPEC 23).

// swapWords is the message of job with the words old said in it (as
// written, whole words) replaced by new; ok is false when its message
// does not say them, or they name a part of a job ("the time").
func swapWords(job *selector.JobRef, old, new string) (string, bool) {
	old = strings.TrimSpace(old)
	if job == nil || job.Action.FunctionID != "message.post" || old == "" || new == "" || messageHeadRe.MatchString(old) || partWordRe.MatchString(old) {
		return "", false
	}
	lower := strings.ToLower(job.Text)
	at := strings.Index(lower, strings.ToLower(old))
	if at < 0 || at > 0 && isWordByte(lower[at-1]) || at+len(old) < len(lower) && isWordByte(lower[at+len(old)]) {
		return "", false
	}
	return job.Text[:at] + new + job.Text[at+len(old):], true
}

// swapVerbRe opens a change of words ("change the form to the survey"),
// not a move ("move the dentist to 3" is a time).
var swapVerbRe = regexp.MustCompile(`(?i)^(?:change|replace|swap|switch|edit)\b`)

// partWordRe: words that name a part of a job, never words of its message.
var partWordRe = regexp.MustCompile(`(?i)^(?:the\s+|its\s+)?(?:time|day|days|date|channel|schedule|name|zone|timezone|hour|minute)s?$`)

func isWordByte(c byte) bool { return isASCIIAlnum(c) || c == '_' }

// notSwapRe: words of a message corrected ("ch 6 not ch 5", "not ch 5,
// ch 6"): groups 1 and 4 are the new words, 2 and 3 the old.
var notSwapRe = regexp.MustCompile(`(?i)^(?:(.+?),?\s+not\s+(.+?)|not\s+(.+?)\s*(?:,|but)\s+(.+?))[.!]?$`)

// swapSaid reads a correction of words of the message of the job in
// context; ok is false when the old words are not in it, or the new ones
// say when or where (a change of those).
func swapSaid(in selector.Input, rest string) (selector.Decision, bool) {
	m := notSwapRe.FindStringSubmatch(rest)
	job := jobRef(in, in.ContextJobID)
	if m == nil || job == nil {
		return selector.Decision{}, false
	}
	now, old := strings.TrimSpace(m[1]+m[4]), strings.TrimSpace(m[2]+m[3])
	if isWhenWords(in, now) || isWhenWords(in, "at "+now) || isChannelWords(now) || isWhenWords(in, old) || isChannelWords(old) || hasAction(in, now) {
		return selector.Decision{}, false
	}
	swapped, ok := swapWords(job, old, now)
	if !ok {
		return selector.Decision{}, false
	}
	return call("schedule.update", map[string]any{"jobId": job.JobID, "targetAction": action{text: swapped}.json()}), true
}
