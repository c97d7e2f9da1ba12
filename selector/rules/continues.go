package rules

import (
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// A message that goes on with the last one about a job ("and sunday"
// after "skip tomorrow", "and the channel to #finance" after "change the
// day to thursday", "and at 8pm" after the job was made): NL_SPEC
// decision 23.

// andLeadRe opens a message that goes on with the last one.
var andLeadRe = regexp.MustCompile(`(?i)^\s*(?:(?:oh|ah|ok|okay|oh,?\s+and)[,]?\s+)?(?:and|&|plus|n)\s+(?:then\s+)?`)

// notRe opens what the job should no longer do ("and not on fridays").
var notRe = regexp.MustCompile(`(?i)^(?:not|no|except|but\s+not|never)\b`)

// againRe: words that say the when is one more time ("and again at 2am",
// "and the 10th too").
var againRe = regexp.MustCompile(`(?i)\b(?:again|too|also|as\s+well|(?:do\s+)?the\s+same(?:\s+thing)?)\b`)

// continued reads a message opened by "and" as the same kind of request
// as the last one about the job in context: a skip goes on skipping, a
// change goes on changing, and a when after a new job is one more like
// it. ok is false when it is not such a message, or reads as nothing
// more than without its "and".
func continued(in selector.Input, text string) (selector.Decision, bool) {
	m := andLeadRe.FindStringIndex(text)
	if m == nil || m[1] == len(text) || in.ContextJobID == "" || jobRef(in, in.ContextJobID) == nil {
		return selector.Decision{}, false
	}
	rest := strings.TrimSpace(text[m[1]:])
	if d, ok := rebound(in, rest); ok {
		return d, true // "and stop after june", "and only until march"
	}
	when := strings.TrimSpace(againRe.ReplaceAllString(rest, " "))
	if isChannelWords(when) {
		return selector.Decision{}, false // "and #eng": a copy there (correction)
	}
	if notRe.MatchString(rest) {
		when = "" // "and not on fridays": days taken away, never one more job
	}
	if isWhenWords(in, when) || isWhenWords(in, "at "+when) {
		var d selector.Decision
		switch {
		case in.ContextCall == "schedule.skip" && !(clockOnly(in, when) || clockOnly(in, "at "+when)):
			d = decide(in, "skip "+when) // "skip tomorrow", "and sunday"
		case in.ContextCall == "schedule.update" && !againRe.MatchString(rest) && (clockOnly(in, when) || clockOnly(in, "at "+when)):
			d = decide(in, when) // "change it to sundays", "and 10am": its time
		default:
			d = decide(in, "also "+when) // "and at 8pm", "and the 10th too": one more
		}
		return d, d.IsCall() || d.Clarify != ""
	}
	// the rest as a request of its own, else as the kind of request the
	// job is: a change of one of its parts, one more reminder or post
	job := jobRef(in, in.ContextJobID)
	tries := []string{rest}
	lower := strings.ToLower(rest)
	switch {
	case strings.HasPrefix(lower, "the ") && in.ContextCall == "schedule.update":
		tries = append(tries, "change "+rest) // "and the channel to #finance"
	case strings.HasPrefix(lower, "to ") && in.ContextCall == "schedule.update":
		tries = append(tries, "change it "+rest) // "and to wednesdays"
	}
	asks := len(tries) // a question from these is the rest's; from the posts below, a guess's
	if job.Action.FunctionID == "message.post" && !askedAboutRe.MatchString(rest) {
		more := anotherRe.ReplaceAllString(rest, "")
		if job.ChannelID != "" {
			tries = append(tries, "post "+more+" in "+job.ChannelID, "remind "+job.ChannelID+" "+more)
		} else {
			tries = append(tries, "remind me "+more) // "and saturday at 10am to finish them"
		}
	}
	var asked selector.Decision
	for k, t := range tries {
		d := decide(in, t)
		if d.IsCall() || d.Reply != "" {
			return d, true
		}
		if k < asks && asked.Clarify == "" && d.Clarify != "" && d.Missing != selector.MissingAction {
			asked = d // "and pause it over christmas week": Until when?
		}
	}
	return asked, asked.Clarify != ""
}

// anotherRe opens one more like the last ("and one on dec 9 …", "and
// another at 5pm").
var anotherRe = regexp.MustCompile(`(?i)^(?:(?:one|another)(?:\s+one)?|a\s+(?:second|new)\s+one)\s+`)
