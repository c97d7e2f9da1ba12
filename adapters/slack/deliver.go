package slack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// permanentErrors are Slack answers that retrying cannot change.
var permanentErrors = map[string]bool{
	"channel_not_found": true, "not_in_channel": true, "is_archived": true, "invalid_auth": true,
	"account_inactive": true, "token_revoked": true, "msg_too_long": true, "no_text": true,
	"restricted_action": true, "user_not_found": true, "cannot_dm_bot": true, "not_authed": true,
}

// DeliveryEventType is the metadata event type of every post schedbot
// delivers; its payload's delivery_id is the outgoing item's id.
const DeliveryEventType = "schedbot_delivery"

// Deliver posts one outgoing item with chat.postMessage: at most one post
// per channel per MinInterval, a 429's Retry-After honoured, permanent
// errors reported as such. Each post carries its delivery id in its
// metadata; a retry (an earlier attempt may have arrived: a crash or a
// timeout cut it short) first looks for it in the channel, and posts only
// when it is not there.
func (a *Adapter) Deliver(ctx context.Context, d *orchestrator.Delivery) error {
	channel := d.Target.ChannelID
	if channel == "" {
		return orchestrator.Permanent(errors.New("no Slack channel to post to"))
	}
	if strings.HasPrefix(channel, "#") {
		id, err := a.Resolve(ctx, channel)
		if err != nil {
			return orchestrator.Permanent(err)
		}
		channel = id
	}
	thread := ""
	if d.Target.PostingMode == store.PostThread && d.Target.ThreadTS != "" {
		thread = d.Target.ThreadTS
	}
	text := escape(d.Text)
	blocks := a.blocks(ctx, d, text)
	if d.Private && d.Asker != "" && !isDirect(channel) {
		return a.deliverPrivate(ctx, d, channel, thread, text, blocks)
	}
	if d.Attempt > 1 {
		found, err := a.posted(ctx, channel, thread, d)
		var se slack.SlackErrorResponse
		if errors.As(err, &se) && se.Err == "missing_scope" {
			// An app installed before the history scopes: it cannot
			// look, so it posts (at least once rather than never).
			a.log.Warn("cannot check for an earlier attempt: reinstall the app with the manifest's history scopes",
				slog.String("itemId", d.ItemID), slog.Any("error", err))
			found, err = false, nil
		}
		if err != nil {
			return fmt.Errorf("check for an earlier attempt before posting again: %w", classify(err))
		}
		if found {
			a.log.Info("an earlier attempt had arrived; not posting again", slog.String("itemId", d.ItemID), slog.String("channel", channel))
			return nil
		}
	}
	if wait := a.reserve(channel, d.LastPost); wait > 0 {
		return orchestrator.RetryAfter(wait, fmt.Errorf("channel %s: at most one post per %s", channel, a.opt.MinInterval))
	}
	opts := []slack.MsgOption{slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl(),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: DeliveryEventType, EventPayload: map[string]any{"delivery_id": d.ItemID}})}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	opts = append(opts, slack.MsgOptionText(clip(text, maxText), false))
	if blocks != nil {
		opts = append(opts, slack.MsgOptionBlocks(blocks...))
	}
	_, _, err := a.api.PostMessageContext(ctx, channel, opts...)
	// The pace counts from when Slack had the post: a slow request must
	// not let the next one arrive sooner than the interval.
	a.mu.Lock()
	a.lastPost[channel] = time.Now()
	a.mu.Unlock()
	var se slack.SlackErrorResponse
	if d.ResponseURL != "" && errors.As(err, &se) && (se.Err == "not_in_channel" || se.Err == "channel_not_found") {
		// A slash command where the bot is not: never silent.
		if rerr := a.respond(ctx, d.ResponseURL, map[string]any{"response_type": "ephemeral", "text": clip(text, maxText) + "\n\n" + inviteHint(channel)}); rerr == nil {
			return nil
		}
	}
	return classify(err)
}

// isDirect is a DM channel or a person: nobody else reads it.
func isDirect(channel string) bool {
	return strings.HasPrefix(channel, "D") || strings.HasPrefix(channel, "U") || strings.HasPrefix(channel, "W")
}

// deliverPrivate shows an answer to its asker alone: through the slash
// command's response_url, else with chat.postEphemeral in the thread.
// Slack keeps no ephemeral message to look for, so a retry may show one
// twice; that is better than never.
func (a *Adapter) deliverPrivate(ctx context.Context, d *orchestrator.Delivery, channel, thread, text string, blocks []slack.Block) error {
	if d.ResponseURL != "" {
		payload := map[string]any{"response_type": "ephemeral", "text": clip(text, maxText)}
		if blocks != nil {
			payload["blocks"] = blocks
		}
		if err := a.respond(ctx, d.ResponseURL, payload); err == nil {
			return nil
		} else {
			a.log.Warn("answer through response_url; trying chat.postEphemeral", slog.Any("error", err))
		}
	}
	opts := []slack.MsgOption{slack.MsgOptionText(clip(text, maxText), false)}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	if blocks != nil {
		opts = append(opts, slack.MsgOptionBlocks(blocks...))
	}
	_, err := a.api.PostEphemeralContext(ctx, channel, d.Asker, opts...)
	return classify(err)
}

// checkMargin is how far before an item's first attempt an earlier post
// of it is looked for: clocks differ between hosts and Slack.
const checkMargin = 5 * time.Minute

// posted reports whether the channel (or the thread) already has the post
// of d, by its metadata, reading back to shortly before d's first attempt
// (or, not known, before it was queued) however many messages came since:
// the search is bounded by time, and by the delivery's deadline.
func (a *Adapter) posted(ctx context.Context, channel, thread string, d *orchestrator.Delivery) (bool, error) {
	if strings.HasPrefix(channel, "U") || strings.HasPrefix(channel, "W") {
		// A post to a person went to their DM with the bot.
		ch, _, _, err := a.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{channel}, ReturnIM: true})
		if err != nil {
			return false, err
		}
		channel = ch.ID
	}
	oldest := ""
	if from := cmp.Or(d.FirstAttempt, d.Created); !from.IsZero() {
		oldest = strconv.FormatInt(from.Add(-checkMargin).Unix(), 10) + ".000000"
	}
	mine := func(msgs []slack.Message) bool {
		for _, m := range msgs {
			if m.Metadata.EventType == DeliveryEventType && m.Metadata.EventPayload["delivery_id"] == d.ItemID {
				return true
			}
		}
		return false
	}
	cursor := ""
	for {
		var msgs []slack.Message
		var err error
		if thread != "" {
			msgs, _, cursor, err = a.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
				ChannelID: channel, Timestamp: thread, Oldest: oldest, Cursor: cursor, Limit: 200, IncludeAllMetadata: true})
		} else {
			var h *slack.GetConversationHistoryResponse
			h, err = a.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
				ChannelID: channel, Oldest: oldest, Cursor: cursor, Limit: 200, IncludeAllMetadata: true})
			if h != nil {
				msgs, cursor = h.Messages, h.ResponseMetaData.NextCursor
			}
		}
		if err != nil {
			return false, err
		}
		if mine(msgs) {
			return true, nil
		}
		if cursor == "" {
			return false, nil
		}
	}
}

// reserve says how long to wait before posting to a channel again: after
// this process's last post there, or another's (shared, the last post of
// the lane as the store has it).
func (a *Adapter) reserve(channel string, shared time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	last := shared
	if mine, ok := a.lastPost[channel]; ok && mine.After(last) {
		last = mine
	}
	if since := time.Since(last); since < a.opt.MinInterval {
		return a.opt.MinInterval - since
	}
	return 0
}

func classify(err error) error {
	if err == nil {
		return nil
	}
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return orchestrator.RetryAfter(rl.RetryAfter, err)
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) && permanentErrors[se.Err] {
		return orchestrator.Permanent(fmt.Errorf("slack: %s", se.Err))
	}
	if permanentErrors[err.Error()] {
		return orchestrator.Permanent(fmt.Errorf("slack: %s", err.Error()))
	}
	return err
}

// Slack's own markup that schedbot writes on purpose: channel and user
// links. Everything else of a text is escaped, so a message can never
// ping @channel or forge a link.
var safeTokens = regexp.MustCompile(`&lt;([#@][CGUW][A-Z0-9]{2,20})&gt;`)

func escape(s string) string {
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	return safeTokens.ReplaceAllString(s, "<$1>")
}

// ErrNotReachable is a channel the bot cannot post to.
var ErrNotReachable = errors.New("channel not reachable")

// Resolve turns "#name" into a channel id the bot is in (cached); a name
// that does not resolve, or a channel without the bot, is an error that
// asks to invite it.
func (a *Adapter) Resolve(ctx context.Context, channel string) (string, error) {
	name := strings.TrimPrefix(channel, "#")
	if !strings.HasPrefix(channel, "#") {
		info, err := a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
		if err != nil {
			return "", fmt.Errorf("%w: I can't see channel <#%s> (%v). Invite me with /invite @schedbot there", ErrNotReachable, channel, err)
		}
		if !info.IsMember && !info.IsIM {
			return "", fmt.Errorf("%w: I'm not in <#%s>. Invite me with /invite @schedbot there, then ask again", ErrNotReachable, channel)
		}
		return channel, nil
	}
	a.mu.Lock()
	c, ok := a.channels[name]
	a.mu.Unlock()
	if !ok || time.Since(c.at) > a.opt.ChannelTTL {
		if err := a.loadChannels(ctx); err != nil {
			return "", err
		}
		a.mu.Lock()
		c, ok = a.channels[name]
		a.mu.Unlock()
	}
	switch {
	case !ok:
		return "", fmt.Errorf("%w: I can't find #%s. Check the name, or invite me there with /invite @schedbot", ErrNotReachable, name)
	case !c.isMember:
		return "", fmt.Errorf("%w: I'm not in #%s. Invite me with /invite @schedbot there, then ask again", ErrNotReachable, name)
	}
	return c.id, nil
}

func (a *Adapter) loadChannels(ctx context.Context) error {
	params := &slack.GetConversationsParameters{Types: []string{"public_channel", "private_channel"}, Limit: 1000, ExcludeArchived: true}
	found := map[string]channelInfo{}
	for pages := 0; pages < 50; pages++ {
		chs, next, err := a.api.GetConversationsContext(ctx, params)
		if err != nil {
			return fmt.Errorf("list Slack channels: %w", err)
		}
		for _, ch := range chs {
			found[ch.Name] = channelInfo{id: ch.ID, isMember: ch.IsMember, at: time.Now()}
		}
		if next == "" {
			break
		}
		params.Cursor = next
	}
	a.mu.Lock()
	a.channels = found
	a.mu.Unlock()
	return nil
}
