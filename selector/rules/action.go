package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// action is what the job does.
type action struct {
	text      string // message.post text
	remindWho string // "me", "team", "<@U…>", "@ana": who a reminder is for
	tell      bool
	implicit  bool // no verb: "every monday 9am: standup"
	workflow  string
	function  string
	// unclearWho: a reminder names several people or someone Slack
	// cannot know ("remind me and bob", "remind bob to"): ask whom.
	unclearWho bool
}

func (a action) verb() string {
	switch {
	case a.workflow != "":
		return "start workflow " + a.workflow
	case a.function != "":
		return "run " + a.function
	case a.text != "":
		return fmt.Sprintf("post “%s”", a.text)
	}
	return "do that"
}

func (a action) json() map[string]any {
	switch {
	case a.workflow != "":
		return map[string]any{"type": "workflow_start", "workflowId": a.workflow}
	case a.function != "":
		return map[string]any{"type": "command_invoke", "functionId": a.function, "functionArgs": map[string]any{}}
	}
	return map[string]any{"type": "command_invoke", "functionId": "message.post", "functionArgs": map[string]any{"text": a.text}}
}

var (
	slackIDRe = regexp.MustCompile(`^[CG][A-Z0-9]{2,20}$`) // as Slack writes ids: upper case
	userIDRe  = regexp.MustCompile(`^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$`)
	// everyoneRe: Slack's mentions of everyone in a channel
	everyoneRe = regexp.MustCompile(`^(?:@(?:channel|here|everyone)|<!(?:channel|here|everyone)(?:\|[^>]*)?>)$`)
)

// targetRef says where the job posts: the channel the text names, this
// thread, the person reminded, else (in Slack) the channel of the request.
func targetRef(in selector.Input, t target, a action) map[string]any {
	user := ""
	switch {
	case a.remindWho == "me" || a.remindWho == "myself":
		user = in.SenderID
	case userIDRe.MatchString(a.remindWho):
		user = userIDRe.FindStringSubmatch(a.remindWho)[1]
	case strings.HasPrefix(a.remindWho, "<@"):
		user = ""
	}
	if in.Channel != "slack" {
		if t.channelID != "" {
			return map[string]any{"channel": "slack", "channelId": t.channelID}
		}
		return nil
	}
	ref := map[string]any{"channel": "slack", "postingMode": "channel_post"}
	if in.ProfileID != "" {
		ref["channelProfileId"] = in.ProfileID
	}
	switch {
	case t.channelID != "":
		ref["channelId"] = t.channelID
	case everyoneRe.MatchString(a.remindWho):
		// "@channel", "<!here>": everyone in the channel of the request
		if in.ChannelID != "" {
			ref["channelId"] = in.ChannelID
		} else {
			return nil
		}
	case strings.HasPrefix(a.remindWho, "@"):
		ref["channelId"] = a.remindWho // a name: the adapter finds the person
	case user != "":
		ref["channelId"] = user
	case in.ChannelID != "":
		ref["channelId"] = in.ChannelID
	default:
		return nil
	}
	if t.thread && in.ThreadTS != "" {
		ref["postingMode"], ref["threadTs"] = "thread_reply", in.ThreadTS
		if t.channelID == "" {
			ref["channelId"] = in.ChannelID
		}
	}
	return ref
}
