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
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/schedbot/schedbot/orchestrator"
)

// Inbox takes people's messages into an orchestrator's incoming queue.
type Inbox interface {
	// Enqueue queues m for the profile's orchestrator, durably before it
	// returns: the event is acknowledged only after. A key seen before (a
	// Slack retry, even across a restart) is ErrDuplicate. With hold > 0
	// the item waits that long for Amend before it is worked.
	Enqueue(ctx context.Context, profileID, key string, m orchestrator.Message, hold time.Duration) error
	// Amend replaces the message of the item with key, when it is still
	// waiting in incoming, and releases it to be worked now.
	Amend(ctx context.Context, profileID, key string, m orchestrator.Message) error
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
	// Backend runs clicks, forms and shortcuts; without it they are
	// answered that they do not work here.
	Backend     Backend
	Logger      *slog.Logger
	UserTTL     time.Duration // users.info cache; default 1h
	ChannelTTL  time.Duration // channel name cache; default 10m
	MinInterval time.Duration // between posts to one channel; default 1s
	HTTPTimeout time.Duration // bounds every Web API request; default 30s
	// UserWait is how long a message from a sender not yet known waits
	// for users.info (their name and zone) before it is worked without
	// them. Default 3s.
	UserWait time.Duration
}

// Adapter is one Slack workspace connection.
type Adapter struct {
	api *slack.Client
	opt Options
	log *slog.Logger

	botUserID string
	ready     chan struct{}
	connected atomic.Bool

	homeDirty chan struct{}

	mu       sync.Mutex
	users    map[string]userInfo
	channels map[string]channelInfo // by name, without '#'
	lastPost map[string]time.Time   // per channel
	home     map[string]string      // users who opened the Home tab: their profile
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
	if opt.UserWait <= 0 {
		opt.UserWait = 3 * time.Second
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
		ready: make(chan struct{}), users: map[string]userInfo{}, channels: map[string]channelInfo{}, lastPost: map[string]time.Time{},
		home: map[string]string{}, homeDirty: make(chan struct{}, 1)}, nil
}

// Ready is closed once the adapter knows its own bot user.
func (a *Adapter) Ready() <-chan struct{} { return a.ready }

func (a *Adapter) whoAmI(ctx context.Context) error {
	auth, err := a.api.AuthTestContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // stopped before it knew itself: not a failure
		}
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
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer a.work.Wait()
	a.work.Add(1)
	go func() { defer a.work.Done(); a.homeLoop(ctx) }()
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
		a.connected.Store(false)
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

// handleSocket acknowledges an envelope once what it brings is stored
// (an event left unacknowledged is sent again by Slack); what needs the
// network (users.info, a refusal, a question) runs after the ack.
func (a *Adapter) handleSocket(ctx context.Context, sm *socketmode.Client, evt socketmode.Event) {
	var after func()
	var err error
	var payload []any
	switch evt.Type {
	case socketmode.EventTypeEventsAPI:
		if ev, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
			after, err = a.takeEvent(ctx, ev)
		}
	case socketmode.EventTypeSlashCommand:
		if cmd, ok := evt.Data.(slack.SlashCommand); ok {
			var ack any
			after, ack, err = a.takeSlash(ctx, cmd)
			payload = append(payload, ack)
		}
	case socketmode.EventTypeInteractive:
		if cb, ok := evt.Data.(slack.InteractionCallback); ok {
			var ack any
			after, ack, err = a.takeInteraction(ctx, cb)
			if ack != nil {
				payload = append(payload, ack)
			}
		}
	case socketmode.EventTypeConnected:
		a.log.Info("socket mode connected")
		a.connected.Store(true)
		return
	case socketmode.EventTypeDisconnect, socketmode.EventTypeConnectionError:
		a.connected.Store(false)
		return
	case socketmode.EventTypeInvalidAuth:
		a.log.Error("socket mode: invalid auth (check SLACK_APP_TOKEN)")
		return
	default:
		return
	}
	if err != nil {
		a.log.Error("event not stored, so not acknowledged: Slack will send it again", slog.Any("error", err))
		return
	}
	if evt.Request != nil {
		sm.Ack(*evt.Request, payload...)
	}
	if after != nil {
		a.async(after)
	}
}

func (a *Adapter) async(fn func()) {
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		fn()
	}()
}

var mentionRe = regexp.MustCompile(`<@[UW][A-Z0-9]+(?:\|[^>]*)?>`)

// takeEvent takes an app mention or a direct message in. Bot messages,
// our own, and edits are ignored.
func (a *Adapter) takeEvent(ctx context.Context, ev slackevents.EventsAPIEvent) (func(), error) {
	outer, _ := ev.Data.(*slackevents.EventsAPICallbackEvent)
	eventID := ""
	if outer != nil {
		eventID = outer.EventID
	}
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == a.botUserID || e.User == "" {
			return nil, nil
		}
		text := strings.TrimSpace(strings.Replace(e.Text, "<@"+a.botUserID+">", "", 1))
		return a.take(ctx, ev.TeamID, e.Channel, e.User, text, e.TimeStamp, e.ThreadTimeStamp, eventID, "")
	case *slackevents.MessageEvent:
		if e.BotID != "" || e.SubType != "" || e.User == a.botUserID || e.User == "" {
			return nil, nil
		}
		if e.ChannelType != "im" && !a.answersQuestion(ctx, ev.TeamID, e) {
			return nil, nil
		}
		return a.take(ctx, ev.TeamID, e.Channel, e.User, e.Text, e.TimeStamp, e.ThreadTimeStamp, eventID, "")
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab != "home" || e.User == "" {
			return nil, nil
		}
		prof := a.profileForTeam(ev.TeamID)
		if prof == nil {
			return nil, nil
		}
		return func() { a.openedHome(ctx, prof, e.User) }, nil
	}
	return nil, nil
}

// answersQuestion says whether a channel message (not a mention: those
// come as app_mention) is a reply in the thread of a question schedbot
// asked its sender and still waits on. Nothing else in channels is read.
func (a *Adapter) answersQuestion(ctx context.Context, teamID string, e *slackevents.MessageEvent) bool {
	if e.ThreadTimeStamp == "" || e.ThreadTimeStamp == e.TimeStamp || strings.Contains(e.Text, "<@"+a.botUserID) || a.opt.Backend == nil {
		return false
	}
	prof := a.profileFor(teamID, e.Channel)
	if prof == nil {
		return false
	}
	return a.opt.Backend.OpenQuestion(ctx, prof.ID, orchestrator.Message{SenderID: e.User, ChannelID: e.Channel, ThreadTS: e.ThreadTimeStamp, MessageTS: e.TimeStamp})
}

// profileForTeam is the first profile of a team: the one its Home tab,
// shortcuts and DMs belong to.
func (a *Adapter) profileForTeam(teamID string) *Profile {
	for i := range a.opt.Profiles {
		if a.opt.Profiles[i].TeamID == teamID {
			return &a.opt.Profiles[i]
		}
	}
	return nil
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

// take stores one message before it is acknowledged: a covered channel's
// becomes a message item. The sender's name and zone come from a cache;
// for a sender not in it the item waits (UserWait) while the returned
// func, run after the ack, asks users.info and completes it. Any other
// channel gets a polite refusal (after the ack) and nothing else.
func (a *Adapter) take(ctx context.Context, teamID, channelID, userID, text, ts, threadTS, eventID, responseURL string) (func(), error) {
	prof := a.profileFor(teamID, channelID)
	if prof == nil {
		thread := threadTS
		if thread == "" {
			thread = ts
		}
		return func() { a.refuse(ctx, channelID, thread, responseURL) }, nil
	}
	m := orchestrator.Message{Text: plainText(mentionRe.ReplaceAllStringFunc(text, func(s string) string {
		if strings.Contains(s, a.botUserID) {
			return ""
		}
		return s
	})), SenderID: userID, Sender: userID, ChannelID: channelID, ThreadTS: threadTS, MessageTS: ts, Via: "slack", ResponseURL: responseURL}
	key := "slack-" + eventID
	if eventID == "" {
		key = "slack-msg-" + teamID + "-" + channelID + "-" + ts
	}
	u, known := a.cachedUser(userID)
	hold := a.opt.UserWait
	if known {
		m.Sender, m.Timezone, hold = u.name, u.tz, 0
	}
	err := a.opt.Inbox.Enqueue(ctx, prof.ID, key, m, hold)
	switch {
	case errors.Is(err, ErrDuplicate):
		a.log.Info("duplicate event ignored", slog.String("key", key))
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("enqueue message: %w", err)
	case known:
		return nil, nil
	}
	return func() {
		u := a.user(ctx, userID)
		m.Sender, m.Timezone = u.name, u.tz
		if err := a.opt.Inbox.Amend(ctx, prof.ID, key, m); err != nil {
			a.log.Warn("complete a message with its sender's zone", slog.String("key", key), slog.Any("error", err))
		}
	}, nil
}

func (a *Adapter) refuse(ctx context.Context, channelID, thread, responseURL string) {
	const text = "Sorry, I'm not set up for this channel. An admin can add it to a schedbot channel profile."
	if responseURL != "" {
		a.respond(ctx, responseURL, ephemeral(text))
		return
	}
	opts := []slack.MsgOption{slack.MsgOptionText(text, false)}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	if _, _, err := a.api.PostMessageContext(ctx, channelID, opts...); err != nil {
		a.log.Warn("refuse message", slog.Any("error", err))
	}
}

// cachedUser is a sender known and fresh in the cache.
func (a *Adapter) cachedUser(id string) (userInfo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u, ok := a.users[id]
	return u, ok && time.Since(u.at) < a.opt.UserTTL
}

// user is the sender's name and IANA zone (never the numeric offset),
// cached; a lookup failure leaves the zone to the profile's.
func (a *Adapter) user(ctx context.Context, id string) userInfo {
	if u, ok := a.cachedUser(id); ok {
		return u
	}
	info, err := a.api.GetUserInfoContext(ctx, id)
	if err != nil {
		a.log.Warn("users.info", slog.String("user", id), slog.Any("error", err))
		return userInfo{name: id}
	}
	u := userInfo{name: info.Name, tz: info.TZ, at: time.Now()}
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
