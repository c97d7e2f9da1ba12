package slack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// Backend is what clicks, forms and shortcuts ask of the orchestrator
// behind a profile. Every change goes through Call: the same functions,
// validation and authority as chat, with the Slack user as the actor.
type Backend interface {
	// Call runs req in the profile's orchestrator, in its own transaction.
	Call(ctx context.Context, profileID string, req functions.Request) (any, error)
	// Has says whether the profile's orchestrator has function id.
	Has(profileID, function string) bool
	// Job reads one job, deleted ones too.
	Job(ctx context.Context, profileID, jobID string) (*store.Job, error)
	// HomeJobs are the jobs a user created through the profile, and every
	// job of it when they administer it; deleted ones left out.
	HomeJobs(ctx context.Context, profileID, userID string) ([]*store.Job, error)
	// OpenQuestion says whether m continues a conversation in which
	// schedbot asked its sender a question still open.
	OpenQuestion(ctx context.Context, profileID string, m orchestrator.Message) bool
	// Draft is what m would do, run nowhere: the call (nil for a
	// question or a refusal) and how its confirmation, or the answer,
	// would read.
	Draft(ctx context.Context, profileID string, m orchestrator.Message) (req *functions.Request, preview string)
}

// Action ids of the buttons, selects and forms. A job's button value is
// "<jobId>:<version>[:<extra>]": a click on a job changed since its
// message was posted says so instead of acting.
const (
	actionPause         = "schedbot_pause"
	actionResume        = "schedbot_resume"
	actionDelete        = "schedbot_delete"
	actionDeleteConfirm = "schedbot_delete_confirm" // on messages posted before confirm dialogs
	actionRunNow        = "schedbot_run_now"
	actionComplete      = "schedbot_complete"
	actionSnooze        = "schedbot_snooze"
	actionSkip          = "schedbot_skip"
	actionStop          = "schedbot_stop"
	actionPage          = "schedbot_page"
	actionNew           = "schedbot_new"
	actionDraft         = "schedbot_draft"
	actionWhere         = "schedbot_where"
	actionRemindWhen    = "schedbot_remind_when"
	actionRemindWords   = "schedbot_remind_words"

	callbackNew    = "schedbot_new"    // the global shortcut and its modal
	callbackRemind = "schedbot_remind" // the message shortcut and its modal
)

// jobFunctions are the functions the job buttons call.
var jobFunctions = map[string]string{
	actionPause: "schedule.pause", actionResume: "schedule.resume", actionDelete: "schedule.delete",
	actionDeleteConfirm: "schedule.delete", actionStop: "schedule.delete", actionRunNow: "schedule.run_now",
	actionComplete: "schedule.complete", actionSnooze: "schedule.snooze", actionSkip: "schedule.skip",
}

var jobIDRe = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// Version is what a person can change of a job (its state, schedule,
// action and target), hashed: the scheduler's bookkeeping of runs leaves
// it as it is.
func Version(j *store.Job) string {
	b, _ := json.Marshal([]any{j.State, j.ScheduleType, j.Schedule, j.StartAt, j.EndAt, j.TargetAction, j.TargetRef})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:5])
}

func jobValue(j *store.Job, extra string) string {
	v := j.JobID + ":" + Version(j)
	if extra != "" {
		v += ":" + extra
	}
	return v
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}
func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, clip(s, maxText), false, false)
}

func button(action, value, label string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(action, value, plain(label))
}

func confirm(title, text, yes string) *slack.ConfirmationBlockObject {
	c := slack.NewConfirmationBlockObject(plain(title), mrkdwn(text), plain(yes), plain("Cancel"))
	return c.WithStyle(slack.StyleDanger)
}

// jobButtons are the buttons of a job in a confirmation, a listing or the
// Home tab: Pause or Resume as its state is, Run now and Delete, the
// last two asking first.
func jobButtons(j *store.Job) slack.Block {
	var els []slack.BlockElement
	switch j.State {
	case store.JobDeleted:
		return nil
	case store.JobEnabled:
		els = append(els, button(actionPause, jobValue(j, ""), "Pause"))
	default:
		els = append(els, button(actionResume, jobValue(j, ""), "Resume"))
	}
	els = append(els,
		button(actionRunNow, jobValue(j, ""), "Run now").WithConfirm(confirm("Run it now?", "This posts *"+clip(j.Description, 200)+"* once now; its schedule stays.", "Run now")),
		button(actionDelete, jobValue(j, ""), "Delete").WithStyle(slack.StyleDanger).WithConfirm(confirm("Delete this schedule?", "This stops *"+clip(j.Description, 200)+"* for good.", "Delete")))
	return slack.NewActionBlock("job_"+j.JobID, els...)
}

// snoozeChoices are the Snooze select's options, by value.
var snoozeChoices = []struct{ value, label string }{
	{"20m", "20 minutes"}, {"1h", "1 hour"}, {"3h", "3 hours"}, {"tom9", "Tomorrow at 9:00 AM"},
}

// snoozeUntil is when a snooze chosen at now ends, in the user's zone.
func snoozeUntil(choice string, now time.Time, loc *time.Location) (time.Time, bool) {
	switch choice {
	case "20m":
		return now.Add(20 * time.Minute), true
	case "1h":
		return now.Add(time.Hour), true
	case "3h":
		return now.Add(3 * time.Hour), true
	case "tom9":
		t := now.In(loc).AddDate(0, 0, 1)
		return time.Date(t.Year(), t.Month(), t.Day(), 9, 0, 0, 0, loc), true
	}
	return time.Time{}, false
}

// firedButtons are the buttons of a reminder as it fires: Mark as
// complete and Snooze always, Skip next and Pause (or Resume) for a
// repeating job, and Stop these reminders on a DM someone else asked for.
// Buttons whose function the orchestrator lacks are left out.
func (a *Adapter) firedButtons(profileID string, j *store.Job, executionID string) slack.Block {
	has := func(fn string) bool { return a.opt.Backend.Has(profileID, fn) }
	var els []slack.BlockElement
	if has("schedule.complete") {
		els = append(els, button(actionComplete, jobValue(j, executionID), "Mark as complete").WithStyle(slack.StylePrimary))
	}
	if has("schedule.snooze") {
		var opts []*slack.OptionBlockObject
		for _, c := range snoozeChoices {
			opts = append(opts, slack.NewOptionBlockObject(jobValue(j, c.value), plain(c.label), nil))
		}
		els = append(els, slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Snooze"), actionSnooze, opts...))
	}
	if j.ScheduleType != store.ScheduleOnce && j.State != store.JobDeleted {
		if has("schedule.skip") && j.State == store.JobEnabled {
			els = append(els, button(actionSkip, jobValue(j, ""), "Skip next"))
		}
		if j.State == store.JobEnabled {
			els = append(els, button(actionPause, jobValue(j, ""), "Pause"))
		} else {
			els = append(els, button(actionResume, jobValue(j, ""), "Resume"))
		}
	}
	if r := recipient(j); r != "" && r != j.CreatedBy.SenderID && j.State != store.JobDeleted {
		els = append(els, button(actionStop, jobValue(j, ""), "Stop these reminders").WithStyle(slack.StyleDanger).
			WithConfirm(confirm("Stop these reminders?", "<@"+j.CreatedBy.SenderID+"> set them up; this deletes the schedule.", "Stop them")))
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewActionBlock("fired_"+j.JobID, els[:min(len(els), maxElements)]...)
}

// recipient is the person a job's posts go to directly, or "".
func recipient(j *store.Job) string {
	if j.TargetRef == nil {
		return ""
	}
	if id := j.TargetRef.ChannelID; strings.HasPrefix(id, "U") || strings.HasPrefix(id, "W") {
		return id
	}
	return ""
}

// takeSlash takes /schedule in: with words, a message to the profile's
// orchestrator, answered through the command's response_url (the bot may
// not be in the channel); with none, the New schedule form.
func (a *Adapter) takeSlash(ctx context.Context, cmd slack.SlashCommand) (func(), any, error) {
	if strings.TrimSpace(cmd.Text) == "" {
		prof := a.profileFor(cmd.TeamID, cmd.ChannelID)
		if prof == nil {
			prof = a.profileForTeam(cmd.TeamID)
		}
		if prof == nil {
			return nil, ephemeral("Sorry, I'm not set up for this workspace."), nil
		}
		return func() { a.openNew(ctx, prof, cmd.TriggerID, cmd.ChannelID) }, ephemeral("Opening the New schedule form…"), nil
	}
	after, err := a.take(ctx, cmd.TeamID, cmd.ChannelID, cmd.UserID, cmd.Text, "", "", "slash-"+cmd.TriggerID, cmd.ResponseURL)
	ack := "On it: “" + truncate(cmd.Text, 200) + "”."
	if warn := a.notMember(ctx, cmd.ChannelID); warn != "" {
		ack += " " + warn
	}
	return after, ephemeral(ack), err
}

// notMember warns when the bot is not in a channel (a DM is always
// reachable); "" when it is, or when Slack does not say in time.
func (a *Adapter) notMember(ctx context.Context, channel string) string {
	if channel == "" || strings.HasPrefix(channel, "D") {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	info, err := a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil || info.IsMember || info.IsIM {
		return ""
	}
	return inviteHint(channel)
}

func inviteHint(channel string) string {
	return "I'm not in <#" + channel + ">, so I can't post there: invite me with `/invite @schedbot` in that channel."
}

func ephemeral(text string) map[string]any {
	return map[string]any{"response_type": "ephemeral", "text": text}
}

// respond posts payload to a response_url: Slack's, or (with APIURL set,
// a test's or a proxy's) any.
func (a *Adapter) respond(ctx context.Context, url string, payload map[string]any) error {
	if a.opt.APIURL == "" && !strings.HasPrefix(url, "https://hooks.slack.com/") {
		return fmt.Errorf("response_url %q is not Slack's", truncate(url, 60))
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: a.opt.HTTPTimeout}).Do(req)
	if err != nil {
		return fmt.Errorf("response_url: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("response_url: %s", resp.Status)
	}
	return nil
}

// takeInteraction takes a click, a shortcut or a form in. The clicker
// comes from the verified payload; what they ask runs after the ack,
// through the Backend, as them. A form's submission is answered in the
// ack (errors shown under its field).
func (a *Adapter) takeInteraction(ctx context.Context, cb slack.InteractionCallback) (func(), any, error) {
	switch cb.Type {
	case slack.InteractionTypeBlockActions:
		if len(cb.ActionCallback.BlockActions) == 0 {
			return nil, nil, nil
		}
		act := cb.ActionCallback.BlockActions[0]
		switch act.ActionID {
		case actionDraft, actionWhere:
			return func() { a.updatePreview(ctx, cb) }, nil, nil
		case actionNew:
			if prof := a.profileForTeam(cb.Team.ID); prof != nil {
				return func() { a.openNew(ctx, prof, cb.TriggerID, "") }, nil, nil
			}
			return nil, nil, nil
		case actionPage:
			return func() { a.nextPage(ctx, cb, act.Value) }, nil, nil
		}
		if jobFunctions[act.ActionID] == "" {
			return nil, nil, nil
		}
		value := act.Value
		if act.ActionID == actionSnooze {
			value = act.SelectedOption.Value
		}
		parts := strings.SplitN(value, ":", 3)
		if !jobIDRe.MatchString(parts[0]) {
			return nil, nil, nil
		}
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		prof := a.profileFor(cb.Team.ID, cb.Channel.ID)
		if prof == nil && cb.Channel.ID == "" {
			prof = a.profileForTeam(cb.Team.ID) // the Home tab
		}
		if prof == nil {
			return nil, nil, nil
		}
		return func() { a.act(ctx, prof, cb, act, parts[0], parts[1], parts[2]) }, nil, nil
	case slack.InteractionTypeShortcut:
		if prof := a.profileForTeam(cb.Team.ID); prof != nil && cb.CallbackID == callbackNew {
			return func() { a.openNew(ctx, prof, cb.TriggerID, "") }, nil, nil
		}
	case slack.InteractionTypeMessageAction:
		if prof := a.profileForTeam(cb.Team.ID); prof != nil && cb.CallbackID == callbackRemind {
			return func() { a.openRemind(ctx, cb) }, nil, nil
		}
	case slack.InteractionTypeViewSubmission:
		switch cb.View.CallbackID {
		case callbackNew:
			return a.submitNew(ctx, cb)
		case callbackRemind:
			return a.submitRemind(ctx, cb)
		}
	}
	return nil, nil, nil
}

// actor is a Slack user as the functions see them.
func (a *Adapter) actor(ctx context.Context, prof *Profile, userID string) store.Actor {
	u := a.user(ctx, userID)
	return store.Actor{ChannelProfileID: prof.ID, SenderID: userID, Sender: u.name, Via: store.ViaSlack}
}

// act runs a job button's function as the clicker, then shows the
// outcome where the button was: the message updated (Pause becomes
// Resume, "Completed by @ana"), or the Home tab republished.
func (a *Adapter) act(ctx context.Context, prof *Profile, cb slack.InteractionCallback, act *slack.BlockAction, jobID, version, extra string) {
	fn := jobFunctions[act.ActionID]
	if a.opt.Backend == nil || !a.opt.Backend.Has(prof.ID, fn) {
		a.say(ctx, cb, "Sorry, this button needs "+fn+", which this schedbot does not offer.")
		return
	}
	j, err := a.opt.Backend.Job(ctx, prof.ID, jobID)
	if err != nil {
		a.say(ctx, cb, "Sorry, I can't find job "+jobID+": "+err.Error()+".")
		return
	}
	if version != "" && Version(j) != version {
		a.say(ctx, cb, fmt.Sprintf("Job %s changed since this message was posted: it is now %s (%s). I did nothing; the buttons now show it as it is.", jobID, j.State, j.Description))
		a.showOutcome(ctx, prof, cb, act, j, "")
		return
	}
	args := map[string]any{"jobId": jobID}
	now := time.Now()
	note := ""
	who := "<@" + cb.User.ID + ">"
	switch act.ActionID {
	case actionComplete:
		if extra != "" {
			args["executionId"] = extra
		}
		note = "✅ Completed by " + who
	case actionSnooze:
		until, ok := snoozeUntil(extra, now, a.zone(ctx, cb.User.ID))
		if !ok {
			return
		}
		args["until"] = until.UTC().Format(time.RFC3339)
		note = "⏰ Snoozed until " + slackDate(until, "{time}") + " by " + who
	case actionSkip:
		note = "⏭ Next one skipped by " + who
	case actionPause:
		note = "⏸ Paused by " + who
	case actionResume:
		note = "▶️ Resumed by " + who
	case actionRunNow:
		note = "Running now, asked by " + who
	case actionStop:
		note = "🛑 Stopped by " + who
	default:
		note = "🗑 Deleted by " + who
	}
	raw, _ := json.Marshal(args)
	res, err := a.opt.Backend.Call(ctx, prof.ID, functions.Request{Function: fn, Args: raw, Actor: a.actor(ctx, prof, cb.User.ID)})
	if err != nil {
		a.say(ctx, cb, "Sorry — "+err.Error()+".")
		return
	}
	if jr, ok := res.(*functions.JobResult); ok && jr.Job != nil {
		j = jr.Job
	} else if fresh, err := a.opt.Backend.Job(ctx, prof.ID, jobID); err == nil {
		j = fresh
	}
	a.showOutcome(ctx, prof, cb, act, j, note)
	a.HomeChanged()
}

// slackDate shows t in each reader's own zone.
func slackDate(t time.Time, format string) string {
	return fmt.Sprintf("<!date^%d^%s|%s>", t.Unix(), format, t.UTC().Format("Mon 2 Jan 15:04 UTC"))
}

func (a *Adapter) zone(ctx context.Context, userID string) *time.Location {
	if loc, err := time.LoadLocation(a.user(ctx, userID).tz); err == nil {
		return loc
	}
	return time.UTC
}

// say answers the clicker alone: through the click's response_url, else
// ephemerally in its channel, else (the Home tab) in their DM.
func (a *Adapter) say(ctx context.Context, cb slack.InteractionCallback, text string) {
	var err error
	switch {
	case cb.ResponseURL != "":
		err = a.respond(ctx, cb.ResponseURL, map[string]any{"response_type": "ephemeral", "replace_original": false, "text": text})
	case cb.Channel.ID != "":
		_, err = a.api.PostEphemeralContext(ctx, cb.Channel.ID, cb.User.ID, slack.MsgOptionText(text, false))
	default:
		_, _, err = a.api.PostMessageContext(ctx, cb.User.ID, slack.MsgOptionText(text, false))
	}
	if err != nil {
		a.log.Warn("answer a click", slog.Any("error", err))
	}
}

// showOutcome puts a job's state where its button was clicked: the Home
// tab is published again; a message gets the clicked block replaced by
// the note and the job's buttons as they now are.
func (a *Adapter) showOutcome(ctx context.Context, prof *Profile, cb slack.InteractionCallback, act *slack.BlockAction, j *store.Job, note string) {
	if cb.View.Type == slack.VTHomeTab || cb.Container.Type == "view" {
		a.publishHome(ctx, prof, cb.User.ID)
		return
	}
	if cb.Message.Timestamp == "" && cb.Container.MessageTs == "" {
		return
	}
	var fresh []slack.Block
	if strings.HasPrefix(act.BlockID, "fired_") {
		if act.ActionID != actionComplete && act.ActionID != actionStop && act.ActionID != actionDelete {
			if b := a.firedButtons(prof.ID, j, ""); b != nil {
				fresh = append(fresh, b)
			}
		}
	} else if b := jobButtons(j); b != nil {
		fresh = append(fresh, b)
	}
	if note != "" {
		fresh = append(fresh, slack.NewContextBlock("note_"+j.JobID, mrkdwn(note)))
	}
	var blocks []slack.Block
	replaced := false
	for _, b := range cb.Message.Blocks.BlockSet {
		id := blockID(b)
		if id == act.BlockID || id == "note_"+j.JobID {
			if !replaced {
				blocks = append(blocks, fresh...)
				replaced = true
			}
			continue
		}
		blocks = append(blocks, b)
	}
	if !replaced {
		blocks = append(blocks, fresh...)
	}
	blocks = blocks[:min(len(blocks), maxMessageBlocks)]
	var err error
	if cb.Container.IsEphemeral {
		err = a.respond(ctx, cb.ResponseURL, map[string]any{"replace_original": true, "text": cb.Message.Text, "blocks": blocks})
	} else {
		ts := cmpOr(cb.Message.Timestamp, cb.Container.MessageTs)
		_, _, _, err = a.api.UpdateMessageContext(ctx, cmpOr(cb.Channel.ID, cb.Container.ChannelID), ts,
			slack.MsgOptionText(cb.Message.Text, false), slack.MsgOptionBlocks(blocks...))
	}
	if err != nil {
		a.log.Warn("update a clicked message", slog.Any("error", err))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// blockID is a block's id, whatever its kind.
func blockID(b slack.Block) string {
	raw, _ := json.Marshal(b)
	var v struct {
		BlockID string `json:"block_id"`
	}
	json.Unmarshal(raw, &v)
	return v.BlockID
}
