package slack

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/slack-go/slack"

	"github.com/schedbot/schedbot/store"
)

// Connected says whether the adapter can hear Slack now: its Socket Mode
// connection is up (or, over HTTP, it knows its bot user).
func (a *Adapter) Connected() bool { return a.connected.Load() }

// HomeChanged has the Home tabs opened in this process published again
// (each shows its own user's schedules). It never blocks.
func (a *Adapter) HomeChanged() {
	select {
	case a.homeDirty <- struct{}{}:
	default:
	}
}

// homeLoop publishes the Home tabs again after a change, until ctx ends.
func (a *Adapter) homeLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.homeDirty:
		}
		a.mu.Lock()
		users := maps.Clone(a.home)
		a.mu.Unlock()
		for user, profileID := range users {
			for i := range a.opt.Profiles {
				if a.opt.Profiles[i].ID == profileID {
					a.publishHome(ctx, &a.opt.Profiles[i], user)
				}
			}
		}
	}
}

func (a *Adapter) openedHome(ctx context.Context, prof *Profile, user string) {
	a.mu.Lock()
	a.home[user] = prof.ID
	a.mu.Unlock()
	a.publishHome(ctx, prof, user)
}

// publishHome publishes a user's Home tab: "Your schedules" (those they
// created, and all of a profile they administer), each with its next run
// in the reader's own zone and its buttons, and New schedule.
func (a *Adapter) publishHome(ctx context.Context, prof *Profile, user string) {
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("Your schedules")),
		slack.NewActionBlock("home_new", button(actionNew, "new", "New schedule").WithStyle(slack.StylePrimary)),
	}
	var jobs []*store.Job
	var err error
	if a.opt.Backend != nil {
		jobs, err = a.opt.Backend.HomeJobs(ctx, prof.ID, user)
	}
	switch {
	case err != nil:
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("I can't read your schedules right now: "+err.Error()), nil, nil))
	case len(jobs) == 0:
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("No schedules yet. Try *New schedule*, or `/schedule post “standup” in #team every weekday at 9:25am`."), nil, nil))
	}
	// Two blocks a job; the rest is said in one line.
	room := (maxViewBlocks - len(blocks) - 1) / 2
	for i, j := range jobs {
		if i == room {
			blocks = append(blocks, slack.NewContextBlock("home_more", mrkdwn(fmt.Sprintf("…and %d more: `/schedule list` shows them all.", len(jobs)-room))))
			break
		}
		next := "not scheduled (" + string(j.State) + ")"
		if !j.NextRunAt.IsZero() && j.State == store.JobEnabled {
			next = "next " + slackDate(j.NextRunAt, "{date_short_pretty} at {time}")
		}
		name := j.Description
		if j.Name != "" {
			name = "“" + j.Name + "” — " + name
		}
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(fmt.Sprintf("*%s*\n%s · `%s`", escape(name), next, j.JobID)), nil, nil))
		if b := jobButtons(j); b != nil {
			blocks = append(blocks, b)
		}
	}
	view := slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: limit(blocks, maxViewBlocks)}}
	if _, err := a.api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: view}); err != nil {
		a.log.Warn("views.publish", slog.String("user", user), slog.Any("error", err))
	}
}

// NotifyOwner sends a job's creator a DM (a failure, and its fix).
func (a *Adapter) NotifyOwner(ctx context.Context, userID, text string) error {
	_, _, err := a.api.PostMessageContext(ctx, userID, slack.MsgOptionText(clip(text, maxText), false))
	return err
}

// FailureFix says why a Slack post failed for good and what fixes it.
func FailureFix(cause string) string {
	switch {
	case contains(cause, "is_archived", "channel_not_found"):
		return "its channel is archived or gone. Fix: point the job at another channel (“move it to #team”) or delete it."
	case contains(cause, "not_in_channel"):
		return "I was removed from its channel. Fix: invite me there with `/invite @schedbot`."
	case contains(cause, "token_revoked", "invalid_auth", "account_inactive", "not_authed"):
		return "the app's token was revoked. Fix: a workspace admin reinstalls schedbot and updates SLACK_BOT_TOKEN."
	case contains(cause, "restricted_action"):
		return "the channel does not let apps post. Fix: a channel manager allows it, or move the job."
	}
	return "Slack kept refusing it after every retry (" + clip(cause, 200) + "). Fix: check the channel, then run it now to try again."
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
