package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Profile is what a conversation needs to know of a channel profile.
type Profile struct {
	ID       string
	Channel  string // slack or terminal
	Timezone string // "" when the profile sets none
}

// Conversations turns people's messages into calls through a selector,
// remembers the question each conversation was asked, and answers with
// what it understood. Who may change a job is the functions' to decide,
// from the sender it passes as the call's actor.
type Conversations struct {
	Selector  selector.Selector
	Registry  *functions.Registry
	Store     store.Store
	Profiles  map[string]Profile
	Timezone  string   // the orchestrator's default zone
	Workflows []string // what a message may start
	Logger    *slog.Logger
	Now       func() time.Time
	// ResolveTarget checks a Slack target before a job is made: "#name"
	// becomes the channel id, and a channel the bot cannot post to is an
	// error whose text asks to invite it. nil: targets are kept as written.
	ResolveTarget func(ctx context.Context, channelID string) (string, error)

	mu    sync.Mutex
	state map[string]*conversation
	jobs  map[string]string // "it": the job last spoken of, per channel and sender
}

type conversation struct {
	pending *selector.Pending
	seen    time.Time
}

// lastJob returns the job a sender last spoke of in a channel and, when
// set is not empty, makes it set.
func (c *Conversations) lastJob(key, set string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.jobs == nil {
		c.jobs = map[string]string{}
	}
	if set != "" {
		if len(c.jobs) >= maxConversations {
			clear(c.jobs) // a rare, harmless forgetting of "it"
		}
		c.jobs[key] = set
	}
	return c.jobs[key]
}

// maxConversations bounds the remembered conversations; the oldest go first.
const maxConversations = 10000

func (c *Conversations) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// conversationKey names the conversation a message belongs to: the
// thread it starts or continues (an answer in the thread of a question
// belongs with it), or the whole channel for a direct message or the
// terminal, which have no threads to speak of.
func conversationKey(item *store.QueueItem, m *Message) string {
	root := m.ThreadTS
	if root == "" && !strings.HasPrefix(m.ChannelID, "D") {
		root = m.MessageTS
	}
	return item.ChannelProfileID + "|" + m.ChannelID + "|" + root + "|" + m.SenderID
}

func (c *Conversations) get(key string) *conversation {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil {
		c.state = map[string]*conversation{}
	}
	cv := c.state[key]
	if cv == nil {
		if len(c.state) >= maxConversations {
			oldest, at := "", time.Time{}
			for k, v := range c.state {
				if oldest == "" || v.seen.Before(at) {
					oldest, at = k, v.seen
				}
			}
			delete(c.state, oldest)
		}
		cv = &conversation{}
		c.state[key] = cv
	}
	cv.seen = c.now()
	copy := *cv
	return &copy
}

func (c *Conversations) put(key string, cv *conversation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state[key] = cv
}

// Handle answers one message, making the decided call at once in its own
// transaction. The worker uses Decide, which defers the call to the
// transaction that also queues the reply and completes the message.
func (c *Conversations) Handle(ctx context.Context, item *store.QueueItem, m *Message) Reply {
	r := c.Decide(ctx, item, m)
	if r.Call == nil {
		return r
	}
	res, err := c.Registry.Call(ctx, *r.Call)
	return r.Done(res, err)
}

// Decide answers one message. When the answer is a call, the reply holds
// it and Done turns its result into the answer. It is the worker's
// MessageHandler.
func (c *Conversations) Decide(ctx context.Context, item *store.QueueItem, m *Message) Reply {
	text, req, finish := c.handle(ctx, item, m)
	if req == nil {
		return Reply{Text: text}
	}
	return Reply{Call: req, Done: func(res any, err error) Reply {
		text := finish(res, err)
		r := Reply{Text: text}
		if err != nil {
			return r
		}
		if page, ok := res.(*store.JobPage); ok {
			for _, j := range page.Jobs {
				r.ListJobs = append(r.ListJobs, j.JobID)
			}
		}
		if jr, ok := res.(*functions.JobResult); ok && jr.Job.State != store.JobDeleted {
			fn := req.Function
			r.JobID, r.NextRuns = jr.Job.JobID, jr.NextRuns
			if fn == "schedule.create" || fn == "schedule.update" || fn == "schedule.resume" || fn == "schedule.show" {
				r.Actions = []string{"pause", "delete"}
			}
		}
		return r
	}}
}

// handle decides what a message asks for: an answer, or a call and how to
// answer once it has run.
func (c *Conversations) handle(ctx context.Context, item *store.QueueItem, m *Message) (string, *functions.Request, func(any, error) string) {
	prof, ok := c.Profiles[item.ChannelProfileID]
	via := viaOf(prof.Channel)
	if !ok || via == "" {
		// A renamed or removed profile is nobody's: never the CLI's authority.
		return notSetUp(item.ChannelProfileID), nil, nil
	}
	key := conversationKey(item, m)
	cv := c.get(key)
	// "It" is the job this sender last spoke of in this channel, whichever
	// thread that was in.
	ctxKey := item.ChannelProfileID + "|" + m.ChannelID + "|" + m.SenderID
	lastJob := c.lastJob(ctxKey, "")
	now := c.now()
	in := selector.Input{
		Text: m.Text, SenderID: m.SenderID, Sender: m.Sender, ProfileID: prof.ID, Channel: prof.Channel,
		ChannelID: m.ChannelID, ThreadTS: m.ThreadTS, Timezone: c.zone(m, prof), Now: now,
		ContextJobID: lastJob, Workflows: c.Workflows, Functions: c.Registry.Allowed(),
	}
	if cv.pending != nil && now.Before(cv.pending.Expires) {
		in.Pending = cv.pending
	}
	jobs, err := c.jobRefs(ctx)
	if err != nil {
		return "Sorry, I can't read the schedules right now: " + err.Error(), nil, nil
	}
	in.Jobs = jobs
	d, err := c.Selector.Select(ctx, in)
	if err != nil {
		c.log().Error("select", slog.Any("error", err))
		return "Sorry, I couldn't work that out. Try again, or say “list my schedules”.", nil, nil
	}
	switch {
	case d.Clarify != "":
		cv.pending = d.Pending
		c.put(key, cv)
		return d.Clarify, nil, nil
	case d.Unsupported != "":
		cv.pending = nil
		c.put(key, cv)
		return d.Unsupported, nil, nil
	case d.Reply != "":
		cv.pending = nil
		c.put(key, cv)
		return d.Reply, nil, nil
	case !d.IsCall():
		return "Sorry, I couldn't work that out.", nil, nil
	}
	cv.pending = nil
	if args, err := c.resolve(ctx, d); err != nil {
		c.put(key, cv)
		return err.Error(), nil, nil
	} else {
		d.Args = args
	}
	actor := store.Actor{ChannelProfileID: prof.ID, SenderID: m.SenderID, Sender: m.Sender, MessageID: m.MessageTS, Via: via}
	req := &functions.Request{Function: d.Function, Args: d.Args, Actor: actor}
	return "", req, func(res any, err error) string {
		if errors.Is(err, functions.ErrForbidden) {
			c.put(key, cv)
			return "Sorry — " + err.Error() + "."
		} else if err != nil {
			c.put(key, cv)
			return "I couldn't do that: " + err.Error()
		}
		switch r := res.(type) {
		case *functions.JobResult:
			c.lastJob(ctxKey, r.Job.JobID)
		case *functions.RunNowResult:
			c.lastJob(ctxKey, r.Job.JobID)
		}
		c.put(key, cv)
		return Describe(d.Function, res)
	}
}

// viaOf is how a message on a channel profile of kind channel arrives: the
// terminal is the person at the machine (the CLI, an admin of the
// orchestrator), Slack is a Slack user. Any other kind is none ("").
func viaOf(channel string) string {
	switch channel {
	case "terminal":
		return store.ViaCLI
	case "slack":
		return store.ViaSlack
	}
	return ""
}

// notSetUp answers a message from a channel profile the orchestrator does
// not have (renamed or removed since the message came in).
func notSetUp(profileID string) string {
	return fmt.Sprintf("Sorry, this channel is not set up: %q is not a channel profile of this orchestrator.", profileID)
}

// resolve replaces a create's or update's Slack channel name by its id.
func (c *Conversations) resolve(ctx context.Context, d selector.Decision) (json.RawMessage, error) {
	if c.ResolveTarget == nil {
		return d.Args, nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(d.Args, &args) != nil {
		return d.Args, nil
	}
	if d.Function == "schedule.list" {
		// "what's scheduled in #ops": jobs store the channel's id.
		var ch string
		if json.Unmarshal(args["channelId"], &ch) != nil || !strings.HasPrefix(ch, "#") {
			return d.Args, nil
		}
		id, err := c.ResolveTarget(ctx, ch)
		if err != nil {
			return nil, err
		}
		args["channelId"], _ = json.Marshal(id)
		return json.Marshal(args)
	}
	if (d.Function != "schedule.create" && d.Function != "schedule.update") || args["targetRef"] == nil {
		return d.Args, nil
	}
	var ref map[string]any
	if json.Unmarshal(args["targetRef"], &ref) != nil || ref["channel"] != "slack" {
		return d.Args, nil
	}
	ch, _ := ref["channelId"].(string)
	if ch == "" || strings.HasPrefix(ch, "U") || strings.HasPrefix(ch, "W") || strings.HasPrefix(ch, "D") {
		return d.Args, nil // a person or a DM: Slack opens it on the first post
	}
	id, err := c.ResolveTarget(ctx, ch)
	if err != nil {
		return nil, err
	}
	ref["channelId"] = id
	args["targetRef"], _ = json.Marshal(ref)
	return json.Marshal(args)
}

// zone is the sender's timezone: from the channel (Slack's profile), else
// the channel profile's, else the orchestrator's.
func (c *Conversations) zone(m *Message, p Profile) string {
	for _, z := range []string{m.Timezone, p.Timezone, c.Timezone} {
		if z != "" {
			if _, err := time.LoadLocation(z); err == nil && z != "Local" {
				return z
			}
		}
	}
	return "UTC"
}

func (c *Conversations) log() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// jobRefs are the jobs a message may name by words.
func (c *Conversations) jobRefs(ctx context.Context) ([]selector.JobRef, error) {
	return JobRefs(ctx, c.Store)
}

// JobRefs are an orchestrator's jobs as the selector sees them, so that
// chat and parse resolve "the standup job" alike.
func JobRefs(ctx context.Context, st store.Store) ([]selector.JobRef, error) {
	var out []selector.JobRef
	err := st.View(ctx, func(tx store.Tx) error {
		page, err := tx.JobList(&store.JobListParams{Limit: store.MaxListLimit})
		if err != nil {
			return err
		}
		for _, j := range page.Jobs {
			out = append(out, selector.RefOf(j))
		}
		return nil
	})
	return out, err
}

func actionWords(a store.TargetAction) string {
	if a.Type == store.ActionWorkflowStart {
		return "workflow " + a.WorkflowID
	}
	var p functions.MessagePostArgs
	if a.FunctionID == "message.post" && json.Unmarshal(a.FunctionArgs, &p) == nil {
		return p.Text
	}
	return a.FunctionID
}

// Describe says what a call did, the way a person wants it confirmed:
// what will happen, where, when (with the zone) and the next runs.
func Describe(fn string, res any) string {
	switch r := res.(type) {
	case *functions.JobResult:
		j := r.Job
		switch fn {
		case "schedule.create":
			return "OK — I'll " + jobSentence(j) + nextRuns(j, r.NextRuns) + " Job " + j.JobID + "."
		case "schedule.update":
			return "Updated — I'll " + jobSentence(j) + nextRuns(j, r.NextRuns) + " Job " + j.JobID + "."
		case "schedule.pause":
			return fmt.Sprintf("Paused job %s (%s). Say “resume it” to start it again.", j.JobID, j.Description)
		case "schedule.resume":
			return fmt.Sprintf("Resumed job %s (%s).%s", j.JobID, j.Description, nextRuns(j, r.NextRuns))
		case "schedule.delete":
			return fmt.Sprintf("Deleted job %s (%s). Its history stays in the audit log.", j.JobID, j.Description)
		}
		return "Job " + j.JobID + " — " + string(j.State) + ": " + jobSentence(j) + nextRuns(j, r.NextRuns)
	case *store.JobPage:
		if len(r.Jobs) == 0 {
			return "No schedules yet. Try: post “hello” in #team every Friday at 9am."
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d schedule(s):", len(r.Jobs))
		for _, j := range r.Jobs {
			name := ""
			if j.Name != "" {
				name = " “" + j.Name + "”"
			}
			next := "not scheduled (" + string(j.State) + ")"
			if !j.NextRunAt.IsZero() {
				next = "next " + j.NextRunAt.In(zoneOf(j)).Format("Mon 2 Jan 3:04 PM")
			}
			fmt.Fprintf(&b, "\n• %s%s — %s — %s — %s", j.JobID, name, actionSentence(j), j.Description, next)
		}
		if r.NextCursor != "" {
			b.WriteString("\n(more: say “list my schedules” with fewer filters, or use the CLI)")
		}
		return b.String()
	case *functions.RunNowResult:
		return fmt.Sprintf("Running job %s now (%s). Its schedule is unchanged.", r.Job.JobID, actionSentence(r.Job))
	case *functions.MessagePostResult:
		return "Queued the message."
	}
	b, _ := json.Marshal(res)
	return "Done: " + string(b)
}

func zoneOf(j *store.Job) *time.Location {
	if loc, err := time.LoadLocation(j.Schedule.Timezone); err == nil && j.Schedule.Timezone != "" {
		return loc
	}
	return time.UTC
}

func actionSentence(j *store.Job) string {
	a := j.TargetAction
	switch {
	case a.Type == store.ActionWorkflowStart:
		return "start workflow " + a.WorkflowID
	case a.FunctionID == "message.post":
		where := ""
		if j.TargetRef != nil && j.TargetRef.ChannelID != "" {
			where = " in " + channelName(j.TargetRef.ChannelID)
			if j.TargetRef.PostingMode == store.PostThread {
				where = " in the thread"
			}
		}
		return fmt.Sprintf("post “%s”%s", actionWords(a), where)
	}
	return "run " + a.FunctionID
}

func channelName(id string) string {
	switch {
	case strings.HasPrefix(id, "#"):
		return id
	case strings.HasPrefix(id, "U") || strings.HasPrefix(id, "W"):
		return "a direct message to <@" + id + ">"
	}
	return "<#" + id + ">"
}

// jobSentence: post “hello world” in #team every Friday at 9:00 AM (America/New_York).
func jobSentence(j *store.Job) string {
	return actionSentence(j) + " " + lowerFirst(j.Description) + "."
}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "On ") || strings.HasPrefix(s, "Once ") || strings.HasPrefix(s, "Every ") || strings.HasPrefix(s, "At ") {
		if s != "" {
			return strings.ToLower(s[:1]) + s[1:]
		}
	}
	return s
}

// nextRuns: " Next: Fri 27 Nov, Fri 4 Dec, Fri 11 Dec." in the job's zone,
// with the time when the runs are not all at the same time of day.
func nextRuns(j *store.Job, runs []time.Time) string {
	if len(runs) == 0 {
		return ""
	}
	loc := zoneOf(j)
	sameClock := true
	for _, t := range runs[1:] {
		if t.In(loc).Format("15:04") != runs[0].In(loc).Format("15:04") {
			sameClock = false
		}
	}
	layout := "Mon 2 Jan"
	if !sameClock || len(runs) == 1 {
		layout = "Mon 2 Jan 3:04 PM"
	}
	var parts []string
	for _, t := range runs {
		parts = append(parts, t.In(loc).Format(layout))
	}
	return " Next: " + strings.Join(parts, ", ") + "."
}
