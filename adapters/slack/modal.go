package slack

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

const previewHint = "Type what to schedule, e.g. _post “standup in 5” every weekday at 9:25am_. What I make of it shows here as you type."

// newModal is the New schedule form: one text box whose every change
// (dispatch_action on character entry) updates the preview under it, and
// a channel picker.
func newModal(text, preview, channel string) slack.ModalViewRequest {
	in := slack.NewPlainTextInputBlockElement(plain("post “hello” every Friday at 9am"), actionDraft).
		WithDispatchActionConfig(&slack.DispatchActionConfig{TriggerActionsOn: []string{"on_character_entered"}})
	in.InitialValue = text
	in.MaxLength = 1000
	where := slack.NewOptionsSelectBlockElement(slack.OptTypeConversations, plain("Pick a channel"), actionWhere)
	where.DefaultToCurrentConversation = channel == ""
	where.InitialConversation = channel
	if preview == "" {
		preview = previewHint
	}
	return slack.ModalViewRequest{
		Type: slack.VTModal, CallbackID: callbackNew, Title: plain("New schedule"), Submit: plain("Create"), Close: plain("Cancel"),
		PrivateMetadata: channel,
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("when", plain("What and when"), nil, in).WithDispatchAction(true),
			slack.NewSectionBlock(mrkdwn(preview), nil, nil, slack.SectionBlockOptionBlockID("preview")),
			slack.NewInputBlock("where", plain("Post in"), nil, where).WithDispatchAction(true),
		}},
	}
}

func (a *Adapter) openNew(ctx context.Context, prof *Profile, triggerID, channel string) {
	if _, err := a.api.OpenViewContext(ctx, triggerID, newModal("", "", channel)); err != nil {
		a.log.Warn("views.open", slog.String("profile", prof.ID), slog.Any("error", err))
	}
}

// formState reads the New schedule form: its text and channel.
func formState(v slack.View) (text, channel string) {
	if v.State == nil {
		return "", v.PrivateMetadata
	}
	text = v.State.Values["when"][actionDraft].Value
	channel = v.State.Values["where"][actionWhere].SelectedConversation
	if channel == "" {
		channel = v.PrivateMetadata
	}
	return strings.TrimSpace(text), channel
}

var jobSuffix = regexp.MustCompile(` Job [0-9A-HJKMNP-TV-Z]{26}\.$`)

// draft is what the form's text would do in channel, as the preview says
// it: a create's confirmation without its (not yet real) job id, or the
// question schedbot would ask.
func (a *Adapter) draft(ctx context.Context, prof *Profile, user, text, channel string) (*functions.Request, string) {
	if text == "" {
		return nil, previewHint
	}
	u := a.user(ctx, user)
	req, preview := a.opt.Backend.Draft(ctx, prof.ID, orchestrator.Message{Text: text, SenderID: user, Sender: u.name,
		ChannelID: channel, Timezone: u.tz, Via: store.ViaSlack})
	switch {
	case req == nil:
		return nil, "❓ " + preview
	case req.Function != "schedule.create":
		return nil, "This form creates schedules: say what to post and when, e.g. _post “hello” every Friday at 9am_."
	}
	preview = jobSuffix.ReplaceAllString(preview, "")
	if rest, ok := strings.CutPrefix(preview, "OK — I'll "); ok {
		preview = "✅ I'll " + rest
	}
	return req, preview
}

func (a *Adapter) formProfile(teamID, channel string) *Profile {
	if p := a.profileFor(teamID, channel); p != nil {
		return p
	}
	return a.profileForTeam(teamID)
}

// updatePreview answers a keystroke in the form: the preview block
// replaced (views.update, with the view's hash so that a later keystroke
// wins).
func (a *Adapter) updatePreview(ctx context.Context, cb slack.InteractionCallback) {
	text, channel := formState(cb.View)
	prof := a.formProfile(cb.Team.ID, channel)
	if prof == nil || a.opt.Backend == nil {
		return
	}
	_, preview := a.draft(ctx, prof, cb.User.ID, text, channel)
	if _, err := a.api.UpdateViewContext(ctx, newModal(text, preview, channel), "", cb.View.Hash, cb.View.ID); err != nil {
		a.log.Info("views.update of a preview", slog.Any("error", err))
	}
}

func formErrors(block, msg string) map[string]any {
	return map[string]any{"response_action": "errors", "errors": map[string]string{block: clip(msg, 150)}}
}

// submitNew creates the form's schedule through schedule.create as the
// submitter, with the checks of chat; what stops it is shown under the
// text box and the form stays open.
func (a *Adapter) submitNew(ctx context.Context, cb slack.InteractionCallback) (func(), any, error) {
	text, channel := formState(cb.View)
	prof := a.formProfile(cb.Team.ID, channel)
	if prof == nil || a.opt.Backend == nil {
		return nil, formErrors("when", "schedbot is not set up for this channel."), nil
	}
	req, preview := a.draft(ctx, prof, cb.User.ID, text, channel)
	if req == nil {
		return nil, formErrors("when", strings.TrimPrefix(preview, "❓ ")), nil
	}
	res, err := a.opt.Backend.Call(ctx, prof.ID, *req)
	if err != nil {
		return nil, formErrors("when", err.Error()), nil
	}
	return func() { a.confirmCreated(ctx, prof, cb.User.ID, res) }, nil, nil
}

// confirmCreated tells the creator, in their DM, what a form made.
func (a *Adapter) confirmCreated(ctx context.Context, prof *Profile, user string, res any) {
	a.HomeChanged()
	jr, ok := res.(*functions.JobResult)
	if !ok {
		return
	}
	text := escape(conversation.Describe("schedule.create", res))
	d := &orchestrator.Delivery{Text: text, ReplyJobID: jr.Job.JobID, Actions: []string{"pause", "delete"}, NextRuns: jr.NextRuns,
		Target: store.TargetRef{ChannelProfileID: prof.ID}}
	opts := []slack.MsgOption{slack.MsgOptionText(clip(text, maxText), false)}
	if blocks := a.blocks(ctx, d, text); blocks != nil {
		opts = append(opts, slack.MsgOptionBlocks(blocks...))
	}
	if _, _, err := a.api.PostMessageContext(ctx, user, opts...); err != nil {
		a.log.Warn("confirm a form's schedule", slog.Any("error", err))
	}
}

// remindChoices are the Remind me about this form's times.
var remindChoices = []struct{ value, label string }{
	{"20m", "In 20 minutes"}, {"1h", "In 1 hour"}, {"tom9", "Tomorrow at 9:00 AM"},
}

type remindMeta struct {
	Permalink string `json:"p"`
	Snippet   string `json:"s"`
	Channel   string `json:"c"`
}

// openRemind answers the Remind me about this message shortcut: a form
// with the times to choose from and a box to type one.
func (a *Adapter) openRemind(ctx context.Context, cb slack.InteractionCallback) {
	link, err := a.api.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: cb.Channel.ID, Ts: cb.Message.Timestamp})
	if err != nil {
		a.log.Info("chat.getPermalink", slog.Any("error", err))
	}
	meta, _ := json.Marshal(remindMeta{Permalink: link, Snippet: clip(cb.Message.Text, 120), Channel: cb.Channel.ID})
	var opts []*slack.OptionBlockObject
	for _, c := range remindChoices {
		opts = append(opts, slack.NewOptionBlockObject(c.value, plain(c.label), nil))
	}
	choice := slack.NewInputBlock("when_choice", plain("When"), nil,
		slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Pick a time"), actionRemindWhen, opts...))
	choice.Optional = true
	words := slack.NewInputBlock("when_words", plain("…or say when"), plain("e.g. “friday at 3pm”, “in 2 days”"),
		slack.NewPlainTextInputBlockElement(plain("friday at 3pm"), actionRemindWords))
	words.Optional = true
	view := slack.ModalViewRequest{Type: slack.VTModal, CallbackID: callbackRemind, Title: plain("Remind me about this"),
		Submit: plain("Remind me"), Close: plain("Cancel"), PrivateMetadata: string(meta),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("I'll send you a DM with a link to this message."), nil, nil), choice, words}}}
	if _, err := a.api.OpenViewContext(ctx, cb.TriggerID, view); err != nil {
		a.log.Warn("views.open", slog.Any("error", err))
	}
}

// submitRemind creates the reminder: a job that DMs the submitter the
// message's permalink, once at the chosen time, or when the typed words
// say (read as chat reads them).
func (a *Adapter) submitRemind(ctx context.Context, cb slack.InteractionCallback) (func(), any, error) {
	prof := a.profileForTeam(cb.Team.ID)
	if prof == nil || a.opt.Backend == nil {
		return nil, formErrors("when_choice", "schedbot is not set up for this workspace."), nil
	}
	var meta remindMeta
	json.Unmarshal([]byte(cb.View.PrivateMetadata), &meta)
	user := cb.User.ID
	args := map[string]any{}
	var choice, words string
	if cb.View.State != nil {
		choice = cb.View.State.Values["when_choice"][actionRemindWhen].SelectedOption.Value
		words = strings.TrimSpace(cb.View.State.Values["when_words"][actionRemindWords].Value)
	}
	switch {
	case words != "":
		req, preview := a.draft(ctx, prof, user, "remind me "+words+" to look at this", user)
		if req == nil {
			return nil, formErrors("when_words", strings.TrimPrefix(preview, "❓ ")), nil
		}
		var drafted map[string]any
		json.Unmarshal(req.Args, &drafted)
		for _, k := range []string{"scheduleType", "schedule", "startAt", "endAt"} {
			if v, ok := drafted[k]; ok {
				args[k] = v
			}
		}
	case choice != "":
		at, ok := snoozeUntil(choice, time.Now(), a.zone(ctx, user))
		if !ok {
			return nil, formErrors("when_choice", "Pick one of the times."), nil
		}
		args["scheduleType"] = "once"
		args["schedule"] = map[string]any{"runAt": at.UTC().Truncate(time.Second).Format(time.RFC3339)}
	default:
		return nil, formErrors("when_choice", "Pick a time, or say one below."), nil
	}
	text := "Reminder: " + meta.Permalink
	if meta.Snippet != "" {
		text += " — “" + meta.Snippet + "”"
	}
	if meta.Permalink == "" && meta.Channel != "" {
		text = "Reminder about a message in <#" + meta.Channel + ">: “" + meta.Snippet + "”"
	}
	args["targetAction"] = map[string]any{"type": "command_invoke", "functionId": "message.post", "functionArgs": map[string]any{"text": clip(text, 1000)}}
	args["targetRef"] = map[string]any{"channel": "slack", "channelProfileId": prof.ID, "channelId": user}
	raw, _ := json.Marshal(args)
	res, err := a.opt.Backend.Call(ctx, prof.ID, functions.Request{Function: "schedule.create", Args: raw, Actor: a.actor(ctx, prof, user)})
	if err != nil {
		block := "when_choice"
		if words != "" {
			block = "when_words"
		}
		return nil, formErrors(block, err.Error()), nil
	}
	return func() { a.confirmCreated(ctx, prof, user, res) }, nil, nil
}
