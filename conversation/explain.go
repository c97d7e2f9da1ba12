package conversation

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// explain says in words why a call a person asked for was refused, and
// what to do instead. A person in chat never sees a raw field path
// ("targetRef.channelId: …"); the CLI and the API, which name fields, keep
// the error as it is.
func explain(err error) string {
	var fe *functions.FieldError
	switch {
	case errors.Is(err, functions.ErrForbidden):
		return "Sorry — " + err.Error() + "."
	case errors.Is(err, store.ErrNotFound):
		return "I couldn't find that schedule any more (it may have been deleted). Say “list my schedules” to see them."
	case errors.Is(err, functions.ErrQuota):
		_, rule, _ := strings.Cut(err.Error(), ": ")
		return "I can't add another schedule: " + rule + "."
	case errors.As(err, &fe): // a name taken too, which is a conflict
		return explainField(fe)
	case errors.Is(err, functions.ErrConflict):
		_, rule, _ := strings.Cut(err.Error(), ": ")
		return "I can't do that now: " + rule + "."
	}
	return "Sorry, that didn't work: " + err.Error() + ". Nothing was changed."
}

var (
	notServedRe  = regexp.MustCompile(`^(\S+) is not a channel profile "([^"]*)" serves \(its channels: (.*)\)$`)
	noProfileRe  = regexp.MustCompile(`^orchestrator "[^"]*" has no (\w+) channel profile$`)
	pastRe       = regexp.MustCompile(`^(\S+) is in the past`)
	noWorkflowRe = regexp.MustCompile(`^no workflow "([^"]*)" in orchestrator "[^"]*" \(its workflows: (.*)\)$`)
)

func explainField(fe *functions.FieldError) string {
	switch fe.Field {
	case "targetRef.channelId":
		if m := notServedRe.FindStringSubmatch(fe.Rule); m != nil {
			served := "no channels, only direct messages"
			if m[3] != "none" {
				served = humanList(strings.Split(m[3], ", "), channelName)
			}
			return fmt.Sprintf("%s isn't a channel I post to from here — the channel profile %s serves %s. Nothing was scheduled.", channelName(m[1]), m[2], served)
		}
	case "targetRef.channel":
		if m := noProfileRe.FindStringSubmatch(fe.Rule); m != nil {
			return "I can't post to " + m[1] + " from here: no " + m[1] + " workspace is set up for these schedules. Nothing was scheduled."
		}
	case "schedule.runAt":
		if m := pastRe.FindStringSubmatch(fe.Rule); m != nil {
			return "That time has already passed. Say a time ahead, such as “tomorrow at 9am”. Nothing was scheduled."
		}
	case "name":
		if strings.Contains(fe.Rule, "already the name of another job") {
			return "Another schedule already has that name; pick another one. Nothing was changed."
		}
	case "endAt":
		if strings.Contains(fe.Rule, "does not fire before") {
			return "The schedule would never fire before it ends. Say a later end, or a start that comes sooner. Nothing was changed."
		}
	case "text":
		return "The message is empty: what should I post? Nothing was changed."
	case "targetAction.workflowId":
		if m := noWorkflowRe.FindStringSubmatch(fe.Rule); m != nil {
			can := "There are no workflows to start here."
			if m[2] != "none" {
				can = "Workflows I can start here: " + m[2] + "."
			}
			return "There is no workflow “" + m[1] + "”. " + can + " Nothing was scheduled."
		}
	}
	what := fieldWords[fe.Field]
	if what == "" {
		what = fieldWords[strings.SplitN(fe.Field, ".", 2)[0]]
	}
	if what == "" {
		what = "that request"
	}
	return fmt.Sprintf("I couldn't do that — %s: %s. Nothing was changed.", what, fe.Rule)
}

// fieldWords name an argument the way a person thinks of it.
var fieldWords = map[string]string{
	"schedule":                   "the schedule",
	"schedule.cron":              "the schedule",
	"schedule.rrule":             "the schedule",
	"schedule.timezone":          "the timezone",
	"schedule.everySeconds":      "the interval",
	"schedule.runAt":             "the time",
	"startAt":                    "the start",
	"endAt":                      "the end",
	"name":                       "the name",
	"targetRef":                  "where to post",
	"targetAction":               "what to do",
	"targetAction.workflowId":    "the workflow",
	"targetAction.functionId":    "the function",
	"targetAction.functionArgs":  "the message",
	"targetRef.channelProfileId": "where to post",
	"jobId":                      "the schedule",
	"text":                       "the message",
}

// humanList: "#ops and #eng", "#a, #b and #c".
func humanList(items []string, f func(string) string) string {
	for i := range items {
		items[i] = f(items[i])
	}
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
