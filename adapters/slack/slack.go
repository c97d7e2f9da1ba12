// Package slack is the Slack channel: it turns app mentions, direct
// messages, the slash command and button clicks (Socket Mode, or the
// Events API over HTTP with verified signatures) into message items of the
// profile's orchestrator, and delivers outgoing items with chat.postMessage.
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/schedbot/schedbot/orchestrator"
)

// Inbox takes people's messages into an orchestrator's incoming queue.
type Inbox interface {
	// Enqueue queues m for the profile's orchestrator. A dedupeKey seen
	// before (a Slack retry, even across a restart) is ErrDuplicate.
	Enqueue(ctx context.Context, profileID, dedupeKey string, m orchestrator.Message) error
}

// ErrDuplicate is an event already taken in.
var ErrDuplicate = errors.New("duplicate event")

// Profile is a Slack channel profile: the team and the channels it covers.
type Profile struct {
	ID       string
	TeamID   string
	Channels []string // channel ids, or "*" for all
}

// Options configure the adapter. Tokens come from the environment.
type Options struct {
	BotToken      string // xoxb-
	AppToken      string // xapp-, Socket Mode
	SigningSecret string // Events API over HTTP
	APIURL        string // "" for Slack's; a local fake in tests
	Profiles      []Profile
	Inbox         Inbox
	Logger        *slog.Logger
	UserTTL       time.Duration // users.info cache; default 1h
	ChannelTTL    time.Duration // channel name cache; default 10m
	MinInterval   time.Duration // between posts to one channel; default 1s
	HTTPTimeout   time.Duration // bounds every Web API request; default 30s
}

// Adapter is one Slack workspace connection.
type Adapter struct {
	api *slack.Client
	opt Options
	log *slog.Logger

	botUserID string
	ready     chan struct{}

	mu       sync.Mutex
	users    map[string]userInfo
	channels map[string]channelInfo // by name, without '#'
	lastPost map[string]time.Time   // per channel
	work     sync.WaitGroup         // event handling after the ack
}

type userInfo struct {
	name, tz string
	at       time.Time
}

type channelInfo struct {
	id       string
	isMember bool
	at       time.Time
}

// New returns an adapter; Run connects it.
func New(opt Options) (*Adapter, error) {
	if opt.BotToken == "" {
		return nil, errors.New("slack: SLACK_BOT_TOKEN is not set")
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.UserTTL <= 0 {
		opt.UserTTL = time.Hour
	}
	if opt.ChannelTTL <= 0 {
		opt.ChannelTTL = 10 * time.Minute
	}
	if opt.MinInterval <= 0 {
		opt.MinInterval = time.Second
	}
	if opt.HTTPTimeout <= 0 {
		opt.HTTPTimeout = 30 * time.Second
	}
	// Every request has a deadline even when its context has none.
	opts := []slack.Option{slack.OptionAppLevelToken(opt.AppToken), slack.OptionHTTPClient(&http.Client{Timeout: opt.HTTPTimeout})}
	if opt.APIURL != "" {
		u := opt.APIURL
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		opts = append(opts, slack.OptionAPIURL(u))
	}
	return &Adapter{api: slack.New(opt.BotToken, opts...), opt: opt, log: opt.Logger.With(slog.String("adapter", "slack")),
		ready: make(chan struct{}), users: map[string]userInfo{}, channels: map[string]channelInfo{}, lastPost: map[string]time.Time{}}, nil
}

// Ready is closed once the adapter knows its own bot user.
func (a *Adapter) Ready() <-chan struct{} { return a.ready }

func (a *Adapter) whoAmI(ctx context.Context) error {
	auth, err := a.api.AuthTestContext(ctx)
	if err != nil {
		return fmt.Errorf("slack auth.test: %w", err)
	}
	a.botUserID = auth.UserID
	close(a.ready)
	return nil
}

// RunSocketMode connects over Socket Mode and handles events until ctx is
// done, reconnecting after a dropped connection.
func (a *Adapter) RunSocketMode(ctx context.Context) error {
	if a.opt.AppToken == "" {
		return errors.New("slack: socket mode needs SLACK_APP_TOKEN (xapp-)")
	}
	if err := a.whoAmI(ctx); err != nil {
		return err
	}
	defer a.work.Wait()
	for backoff := time.Second; ; backoff = min(2*backoff, time.Minute) {
		sm := socketmode.New(a.api)
		// socketmode never closes Events: stop this reader with the client.
		stop := make(chan struct{})
		read := make(chan struct{})
		go func() {
			defer close(read)
			for {
				select {
				case evt := <-sm.Events:
					a.handleSocket(ctx, sm, evt)
				case <-stop:
					return
				}
			}
		}()
		err := sm.RunContext(ctx)
		close(stop)
		<-read
		if ctx.Err() != nil {
			return nil
		}
		a.log.Warn("socket mode connection ended; reconnecting", slog.Any("error", err), slog.Duration("in", backoff))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

func (a *Adapter) handleSocket(ctx context.Context, sm *socketmode.Client, evt socketmode.Event) {
	switch evt.Type {
	case socketmode.EventTypeEventsAPI:
		sm.Ack(*evt.Request) // within Slack's 3 s, whatever follows
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok {
			return
		}
		a.async(func() { a.handleEvent(ctx, ev) })
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			sm.Ack(*evt.Request)
			return
		}
		sm.Ack(*evt.Request, slashAck(cmd))
		a.async(func() { a.handleSlash(ctx, cmd) })
	case socketmode.EventTypeInteractive:
		sm.Ack(*evt.Request)
		cb, ok := evt.Data.(slack.InteractionCallback)
		if !ok {
			return
		}
		a.async(func() { a.handleInteraction(ctx, cb) })
	case socketmode.EventTypeConnected:
		a.log.Info("socket mode connected")
	case socketmode.EventTypeInvalidAuth:
		a.log.Error("socket mode: invalid auth (check SLACK_APP_TOKEN)")
	}
}

func (a *Adapter) async(fn func()) {
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		fn()
	}()
}

func slashAck(cmd slack.SlashCommand) map[string]any {
	return map[string]any{"response_type": "ephemeral", "text": "On it: “" + truncate(cmd.Text, 200) + "”. I'll answer in the channel."}
}

var mentionRe = regexp.MustCompile(`<@[UW][A-Z0-9]+(?:\|[^>]*)?>`)

// handleEvent takes an app mention or a direct message in. Bot messages,
// our own, and edits are ignored.
func (a *Adapter) handleEvent(ctx context.Context, ev slackevents.EventsAPIEvent) {
	outer, _ := ev.Data.(*slackevents.EventsAPICallbackEvent)
	eventID := ""
	if outer != nil {
		eventID = outer.EventID
	}
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == a.botUserID || e.User == "" {
			return
		}
		text := strings.TrimSpace(strings.Replace(e.Text, "<@"+a.botUserID+">", "", 1))
		a.inbound(ctx, ev.TeamID, e.Channel, e.User, text, e.TimeStamp, e.ThreadTimeStamp, eventID)
	case *slackevents.MessageEvent:
		if e.ChannelType != "im" || e.BotID != "" || e.SubType != "" || e.User == a.botUserID || e.User == "" {
			return
		}
		a.inbound(ctx, ev.TeamID, e.Channel, e.User, e.Text, e.TimeStamp, e.ThreadTimeStamp, eventID)
	}
}

func (a *Adapter) handleSlash(ctx context.Context, cmd slack.SlashCommand) {
	// A slash command has no message ts: the answer goes to the channel.
	a.inbound(ctx, cmd.TeamID, cmd.ChannelID, cmd.UserID, cmd.Text, "", "", "slash-"+cmd.TriggerID)
}

// Button values are "<verb>:<jobId>".
const (
	actionPause         = "schedbot_pause"
	actionDelete        = "schedbot_delete"
	actionDeleteConfirm = "schedbot_delete_confirm"
)

var jobIDRe = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// handleInteraction turns a button click into what its clicker says; the
// clicker comes from the verified payload, and the functions check that
// they created the job or are an admin.
func (a *Adapter) handleInteraction(ctx context.Context, cb slack.InteractionCallback) {
	if cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) == 0 {
		return
	}
	act := cb.ActionCallback.BlockActions[0]
	if !jobIDRe.MatchString(act.Value) {
		return
	}
	thread := cb.Message.ThreadTimestamp
	if thread == "" {
		thread = cb.Message.Timestamp
	}
	var text string
	switch act.ActionID {
	case actionPause:
		text = "pause job " + act.Value
	case actionDelete:
		// Deleting asks first, in the same thread.
		if prof := a.profileFor(cb.Team.ID, cb.Channel.ID); prof == nil {
			return
		}
		_, _, err := a.api.PostMessageContext(ctx, cb.Channel.ID, slack.MsgOptionTS(thread),
			slack.MsgOptionText("Delete job "+act.Value+"? This stops it for good.", false),
			slack.MsgOptionBlocks(
				slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "Delete job `"+act.Value+"`? This stops it for good.", false, false), nil, nil),
				slack.NewActionBlock("", slack.NewButtonBlockElement(actionDeleteConfirm, act.Value,
					slack.NewTextBlockObject(slack.PlainTextType, "Yes, delete", false, false)).WithStyle(slack.StyleDanger))))
		if err != nil {
			a.log.Warn("ask to confirm delete", slog.Any("error", err))
		}
		return
	case actionDeleteConfirm:
		text = "delete job " + act.Value
	default:
		return
	}
	a.inbound(ctx, cb.Team.ID, cb.Channel.ID, cb.User.ID, text, thread, thread, "action-"+cb.ActionTs+"-"+cb.User.ID)
}

// profileFor is the profile covering a team and channel, or nil.
func (a *Adapter) profileFor(teamID, channelID string) *Profile {
	for i := range a.opt.Profiles {
		p := &a.opt.Profiles[i]
		if p.TeamID != teamID {
			continue
		}
		if slices.Contains(p.Channels, "*") || slices.Contains(p.Channels, channelID) || len(p.Channels) == 0 && strings.HasPrefix(channelID, "D") {
			return p
		}
	}
	return nil
}

// inbound takes one message in: a covered channel's becomes a message item
// with the sender's zone; any other gets a polite refusal and nothing else.
func (a *Adapter) inbound(ctx context.Context, teamID, channelID, userID, text, ts, threadTS, eventID string) {
	prof := a.profileFor(teamID, channelID)
	if prof == nil {
		thread := threadTS
		if thread == "" {
			thread = ts
		}
		opts := []slack.MsgOption{slack.MsgOptionText("Sorry, I'm not set up for this channel. An admin can add it to a schedbot channel profile.", false)}
		if thread != "" {
			opts = append(opts, slack.MsgOptionTS(thread))
		}
		if _, _, err := a.api.PostMessageContext(ctx, channelID, opts...); err != nil {
			a.log.Warn("refuse message", slog.Any("error", err))
		}
		return
	}
	u := a.user(ctx, userID)
	m := orchestrator.Message{Text: strings.TrimSpace(mentionRe.ReplaceAllStringFunc(text, func(s string) string {
		if strings.Contains(s, a.botUserID) {
			return ""
		}
		return s
	})), SenderID: userID, Sender: u.name, ChannelID: channelID, ThreadTS: threadTS, MessageTS: ts, Timezone: u.tz, Via: "slack"}
	key := ""
	if eventID != "" {
		key = "slack-" + eventID
	}
	err := a.opt.Inbox.Enqueue(ctx, prof.ID, key, m)
	switch {
	case errors.Is(err, ErrDuplicate):
		a.log.Info("duplicate event ignored", slog.String("eventId", eventID))
	case err != nil:
		a.log.Error("enqueue message", slog.Any("error", err))
	}
}

// user is the sender's name and IANA zone (never the numeric offset),
// cached; a lookup failure leaves the zone to the profile's.
func (a *Adapter) user(ctx context.Context, id string) userInfo {
	a.mu.Lock()
	u, ok := a.users[id]
	a.mu.Unlock()
	if ok && time.Since(u.at) < a.opt.UserTTL {
		return u
	}
	info, err := a.api.GetUserInfoContext(ctx, id)
	if err != nil {
		a.log.Warn("users.info", slog.String("user", id), slog.Any("error", err))
		return userInfo{name: id}
	}
	u = userInfo{name: info.Name, tz: info.TZ, at: time.Now()}
	if info.RealName != "" {
		u.name = info.RealName
	}
	a.mu.Lock()
	a.users[id] = u
	a.mu.Unlock()
	return u
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
