package rules

import (
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// A job moved or copied to a channel: "post it in #eng instead", "also
// send the standup to #eng".

// movedTo reads "post it in #eng", "send the dentist reminder to #eng",
// "move to #eng": a job, the one in context when no words name it, sent
// to a channel. Job words must say they are a job (a job noun, "it"), or
// "instead" must close the request: "post hello in #eng" is a create.
func movedTo(in selector.Input, text, rest string, instead bool) (selector.Decision, bool) {
	var words, to string
	if m := toMeRe.FindStringSubmatch(rest); m != nil {
		words, to = m[1]+m[2]+m[3], "me"
	} else if m := postItInRe.FindStringSubmatch(rest); m != nil {
		if p := lex(m[2]); len(p) != 1 || p[0].kind != tChannel {
			return selector.Decision{}, false
		}
		words, to = m[1], m[2]
	} else {
		return selector.Decision{}, false
	}
	words = strings.ToLower(words)
	switch {
	case strings.ContainsAny(words, "\"“”'‘’"):
		return selector.Decision{}, false // a quoted message: a create
	case words == "" || slices.Contains(itWords, words):
		if in.ContextJobID == "" {
			return selector.Decision{}, false
		}
		words = "it"
	case !namesJob(in, words) || !instead && !jobNounRe.MatchString(words):
		return selector.Decision{}, false
	}
	if d := update(in, text, words+" to "+to); d.Function == "schedule.update" {
		return d, true
	}
	return selector.Decision{}, false
}

// copiedTo reads "post it in #eng too", "also send the standup to #eng":
// a new job as the one named (in context, when no words name it), posting
// to another channel. Job words must say they are a job ("the standup
// reminder"), or, when named says the verb did, be its name ("copy the
// weekly report");
// quoted words are a message, and so a create of its own.
func copiedTo(in selector.Input, text, rest string, named bool) (selector.Decision, bool) {
	m := alsoRe.FindStringSubmatch(rest)
	if m == nil || m[1] == "" && m[4] == "" || strings.ContainsAny(m[2], "\"“”'‘’") {
		return selector.Decision{}, false
	}
	p := lex(m[3])
	toMe := strings.EqualFold(m[3], "me") // "send it to me too": a copy to the sender
	if !toMe && (len(p) != 1 || p[0].kind != tChannel) {
		return selector.Decision{}, false
	}
	id, words := in.ContextJobID, strings.ToLower(m[2])
	if words != "" && !slices.Contains(itWords, words) {
		if _, byName := namedJob(in.Jobs, words); !jobNounRe.MatchString(words) && !(named && byName) || !namesJob(in, words) {
			return selector.Decision{}, false
		}
		var d selector.Decision
		var ok bool
		if id, d, ok = pickJob(in, text, words); !ok {
			return d, true
		}
	}
	job := jobRef(in, id)
	if job == nil {
		return selector.Decision{}, false
	}
	var ref map[string]any
	switch {
	case toMe:
		if job.ChannelID == in.SenderID || in.Channel != "slack" && job.ChannelID == "" {
			return unsupported("It already posts to you."), true
		}
		ref = targetRef(in, target{}, action{remindWho: "me"}) // outside Slack: none, the conversation
	default:
		var why string
		if ref, why = channelRef(in, p[0]); why != "" {
			return unsupported("%s", why), true
		}
		if ch, _ := ref["channelId"].(string); strings.EqualFold(ch, job.ChannelID) {
			return unsupported("It already posts in %s.", m[3]), true
		}
	}
	args := map[string]any{"scheduleType": job.ScheduleType, "schedule": job.Schedule, "targetAction": job.Action}
	if ref != nil {
		args["targetRef"] = ref
	}
	if job.Remaining > 0 {
		args["count"] = job.Remaining // "3 more times": the copy as many
	}
	if !job.StartAt.IsZero() {
		args["startAt"] = job.StartAt
	}
	if !job.EndAt.IsZero() {
		args["endAt"] = job.EndAt
	}
	return call("schedule.create", args), true
}
