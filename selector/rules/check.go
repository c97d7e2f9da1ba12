package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// CheckProposal holds another reader's schedule.create (a model's) to the
// rules' own standard before it is acted on (NL_SPEC decision 24): the
// message text it proposes must be the sender's words with no schedule
// word left in it; every other word that says when must be read by the
// when grammar; and the proposed schedule must fire exactly when the rules
// read those words to fire. Anything else becomes the rules' question (or
// refusal), never the call. A question it asks is marked as the rules
// mark theirs about the same words (Pending.Create, Pending.Unread), so
// that the conversation treats "delete it" and unread answers alike
// whichever selector asked. Other decisions pass unchanged.
func CheckProposal(in selector.Input, d selector.Decision) selector.Decision {
	if d.Pending != nil && d.Function == "" {
		if r := Decide(in); r.Pending != nil {
			d.Pending.Create = d.Pending.Create || r.Pending.Create
			d.Pending.Unread = d.Pending.Unread || r.Pending.Unread
		}
		return d
	}
	if d.Function == "schedule.update" {
		return checkUpdate(in, d)
	}
	if d.Function != "schedule.create" {
		return d
	}
	text := strings.TrimSpace(in.Text)
	var p struct {
		callWhen
		TargetAction struct {
			FunctionID   string `json:"functionId"`
			FunctionArgs struct {
				Text string `json:"text"`
			} `json:"functionArgs"`
		} `json:"targetAction"`
	}
	if err := json.Unmarshal(d.Args, &p); err != nil {
		return unsupported("I couldn't read that request. Could you say it another way?")
	}
	frame := text
	if msg := strings.TrimSpace(p.TargetAction.FunctionArgs.Text); msg != "" {
		// the message is the sender's words, nothing time-like left in it
		i := strings.Index(strings.ToLower(text), strings.ToLower(msg))
		if i < 0 {
			return clarify(in, text, selector.MissingAction, fmt.Sprintf("Should the message be “%s”? Those aren't your words: put the message in quotes to say exactly what to post.", msg))
		}
		quoted := i > 0 && strings.ContainsAny(text[i-1:i], `"“'‘`)
		if bad, _ := leftover(lex(msg), in.Now, false); bad != "" && !quoted {
			return clarify(in, text, selector.MissingTime, fmt.Sprintf("Is “%s” part of the message or of the schedule? If it is the message, put it in quotes.", bad))
		}
		frame = text[:i] + " … " + text[i+len(msg):]
	}
	loc, err := scheduler.LoadLocation(in.Timezone)
	if err != nil {
		loc = time.UTC
	}
	now := in.Now.In(loc)
	toks := lex(strings.TrimSpace(prefixRe.ReplaceAllString(frame, "")))
	blocks, dropped := whenBlocks(toks, now)
	if len(dropped) > 0 {
		return clarify(in, text, selector.MissingTime, fmt.Sprintf("I didn't understand “%s” as part of the schedule. Could you say when another way?", spanText(dropped)))
	}
	if len(blocks) == 0 {
		return clarify(in, text, selector.MissingTime, "When should it run? For example “every Friday at 9am” or “tomorrow at 3pm”.")
	}
	var parts []string
	for _, b := range blocks {
		parts = append(parts, spanText(b))
	}
	when := strings.Join(parts, " ")
	mine := decide(in, "post “x” "+when)
	if !mine.IsCall() {
		if mine.Pending != nil {
			mine.Pending.Text = text
		}
		return mine
	}
	var r callWhen
	json.Unmarshal(mine.Args, &r)
	got, err1 := fireList(p.ScheduleType, p.Schedule, p.StartAt, p.EndAt, in.Now)
	want, err2 := fireList(r.ScheduleType, r.Schedule, r.StartAt, r.EndAt, in.Now)
	if err1 != nil || err2 != nil || !slices.Equal(got, want) {
		return clarify(in, text, selector.MissingTime, fmt.Sprintf("I read “%s” to run %s, and the reading I was offered would run otherwise. Could you say when again, in other words?", when, describeFires(want, loc)))
	}
	return d
}

// fireList is a schedule's next fires after now and after six months on,
// as the create handler would anchor it.
func fireList(typ string, s store.Schedule, startAt, endAt, now time.Time) ([]time.Time, error) {
	sp, err := newJobSpec(typ, s, startAt, endAt, now)
	if err != nil {
		return nil, err
	}
	out := sp.NextN(now, 5)
	out = append(out, sp.NextN(now.AddDate(0, 6, 0), 3)...)
	for i := range out {
		out[i] = out[i].Truncate(time.Minute)
	}
	return out, nil
}

// callWhen is the schedule a create or update call carries, as its
// arguments spell it.
type callWhen struct {
	ScheduleType string         `json:"scheduleType"`
	Schedule     store.Schedule `json:"schedule"`
	StartAt      time.Time      `json:"startAt"`
	EndAt        time.Time      `json:"endAt"`
}

// newJobSpec is the spec of a schedule as a new job's would be: an interval
// anchored now, an rrule at its first occurrence after now.
func newJobSpec(typ string, s store.Schedule, startAt, endAt, now time.Time) (*scheduler.Spec, error) {
	if typ == store.ScheduleInterval && s.StartAt.IsZero() {
		s.StartAt = now.UTC().Truncate(time.Second)
	}
	if typ == store.ScheduleRRule && s.Dtstart == "" {
		loc, err := scheduler.LoadLocation(s.Timezone)
		if err != nil {
			return nil, err
		}
		if s.Dtstart, err = scheduler.AnchorRRule(s.RRule, loc, now); err != nil {
			return nil, err
		}
	}
	sp, err := scheduler.NewSpec(typ, s, endAt)
	if err != nil {
		return nil, err
	}
	sp.NotBefore = startAt
	return sp, nil
}

// describeFires names the first fires, for a question.
func describeFires(fs []time.Time, loc *time.Location) string {
	var s []string
	for i, f := range fs {
		if i == 3 {
			break
		}
		s = append(s, f.In(loc).Format("Mon 2 Jan 3:04 PM"))
	}
	if len(s) == 0 {
		return "never"
	}
	return "on " + strings.Join(s, ", ") + " …"
}

// checkUpdate holds a model's schedule.update to the rules' reading of the
// same words: the same job, and, when it changes the schedule, the same
// fires. A change the rules cannot read is their question, never the
// model's guess: an update keeps what the words do not change, which only
// a reading of every word can tell.
func checkUpdate(in selector.Input, d selector.Decision) selector.Decision {
	text := strings.TrimSpace(in.Text)
	mine := Decide(selector.Input{Text: text, SenderID: in.SenderID, Sender: in.Sender, ProfileID: in.ProfileID,
		Channel: in.Channel, ChannelID: in.ChannelID, ThreadTS: in.ThreadTS, Timezone: in.Timezone, Now: in.Now,
		Jobs: in.Jobs, ContextJobID: in.ContextJobID, LastFiredJobID: in.LastFiredJobID, Workflows: in.Workflows, Functions: in.Functions})
	if !mine.IsCall() {
		return mine
	}
	type patch struct {
		JobID string `json:"jobId"`
		callWhen
	}
	var p, r patch
	again := clarify(in, text, selector.MissingTime, "I'm not sure I read that change right. Could you say it again, naming the job and its new schedule (“move the standup to 10am”)?")
	if json.Unmarshal(d.Args, &p) != nil || mine.Function != "schedule.update" || json.Unmarshal(mine.Args, &r) != nil || p.JobID != r.JobID {
		return again
	}
	if p.ScheduleType == "" && r.ScheduleType == "" {
		return mine // the text or the target: the rules' reading of the words stands
	}
	got, err1 := fireList(p.ScheduleType, p.Schedule, p.StartAt, p.EndAt, in.Now)
	want, err2 := fireList(r.ScheduleType, r.Schedule, r.StartAt, r.EndAt, in.Now)
	if err1 != nil || err2 != nil || !slices.Equal(got, want) {
		return again
	}
	return d
}
