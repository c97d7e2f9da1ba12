package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/scheduler"
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
//
// What a conversation remembers between messages (the open question, the
// job last spoken of) is in the Store, written with the reply: an answer
// that reaches another process sharing the store, or this one after a
// restart, still completes the question.
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
	// Keep is how long a conversation is remembered after its last change
	// (an open question expires sooner, by its own time). Default
	// DefaultKeepConversations.
	Keep time.Duration

	lastPrune atomic.Int64 // Unix nanoseconds of the last prune, or 0
}

// DefaultKeepConversations is how long a conversation (above all "it")
// is remembered after its last change when Keep is not set.
const DefaultKeepConversations = 7 * 24 * time.Hour

// Pruning: at most once a minute, at most pruneBatch old conversations.
const (
	pruneEvery = time.Minute
	pruneBatch = 1000
)

func (c *Conversations) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// conversationKey names the conversation a message belongs to: the
// thread it continues, or the channel's top level (a request made there
// is asked about in its thread, and answered there or by the sender's
// next mention at the top level: openQuestionKey), or the whole channel
// for a direct message (threads or not: it is answered in line) or the
// terminal. Its open question is stored under it.
func conversationKey(item *store.QueueItem, m *orchestrator.Message) string {
	root := m.ThreadTS
	if strings.HasPrefix(m.ChannelID, "D") {
		root = ""
	}
	return "q|" + item.ChannelProfileID + "|" + m.ChannelID + "|" + root + "|" + m.SenderID
}

// topLevelKey is where a reply in a thread finds a question asked about a
// request made at the channel's top level (its Pending.Thread is that
// thread); "" where there is no such place.
func topLevelKey(item *store.QueueItem, m *orchestrator.Message) string {
	if m.ThreadTS == "" || strings.HasPrefix(m.ChannelID, "D") {
		return ""
	}
	return conversationKey(item, &orchestrator.Message{ChannelID: m.ChannelID, SenderID: m.SenderID})
}

// questionThread is the thread a question about m is asked in: m's own,
// or the one its answer opens under m (Slack); "" in a DM.
func questionThread(m *orchestrator.Message) string {
	if m.ThreadTS != "" || strings.HasPrefix(m.ChannelID, "D") {
		return m.ThreadTS
	}
	return m.MessageTS
}

// findQuestion reads the conversation a message continues with get (nil
// for none): under its own key, else, for a reply in a thread, the
// question asked there about a request made at the top level. It returns
// the key it was found under (its own when none was).
func findQuestion(get func(key string) (*store.Conversation, error), item *store.QueueItem, m *orchestrator.Message) (*store.Conversation, string, error) {
	key := conversationKey(item, m)
	q, err := get(key)
	if err != nil || q != nil {
		return q, key, err
	}
	top := topLevelKey(item, m)
	if top == "" {
		return nil, key, nil
	}
	q, err = get(top)
	if err != nil || q == nil {
		return nil, key, err
	}
	var p selector.Pending
	if json.Unmarshal(q.Pending, &p) != nil || p.Thread != m.ThreadTS {
		return nil, key, nil // another thread's question
	}
	return q, top, nil
}

// itKey names "it": the job a sender last spoke of in a channel,
// whichever thread that was in.
func itKey(item *store.QueueItem, m *orchestrator.Message) string {
	return "it|" + item.ChannelProfileID + "|" + m.ChannelID + "|" + m.SenderID
}

// remembered is what a message's conversation holds when it arrives, and
// the keys it is stored under.
type remembered struct {
	qKey, itKey string
	pending     *selector.Pending // nil when none (or unreadable)
	hadPending  bool              // a record is stored under qKey, even expired
	lastJob     string
	lastCall    string // the function of the call that spoke of lastJob
}

// read returns the jobs a message may name and what its conversation
// remembers, from one read transaction. A stored conversation that
// cannot be read is taken as none (a new question replaces it, pruning
// removes it), not an error.
func (c *Conversations) read(ctx context.Context, item *store.QueueItem, m *orchestrator.Message) ([]selector.JobRef, remembered, error) {
	var refs []selector.JobRef
	var mem remembered
	jobKey := itKey(item, m)
	err := c.Store.View(ctx, func(tx store.Tx) error {
		refs, mem = nil, remembered{itKey: jobKey}
		var err error
		if refs, err = jobRefsTx(tx); err != nil {
			return err
		}
		q, qKey, err := findQuestion(func(key string) (*store.Conversation, error) { return c.conversation(tx, key) }, item, m)
		if err != nil {
			return err
		}
		mem.qKey = qKey
		if q != nil {
			mem.hadPending = true
			if len(q.Pending) > 0 {
				var p selector.Pending
				if err := json.Unmarshal(q.Pending, &p); err != nil {
					c.log().Warn("forgetting an unreadable question", slog.String("key", qKey), slog.Any("error", err))
				} else {
					mem.pending = &p
				}
			}
		}
		it, err := c.conversation(tx, jobKey)
		if it != nil {
			mem.lastJob, mem.lastCall = it.JobID, it.Call
		}
		return err
	})
	return refs, mem, err
}

func (c *Conversations) conversation(tx store.Tx, key string) (*store.Conversation, error) {
	cv, err := tx.ConversationGet(key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case errors.Is(err, store.ErrCorrupt):
		c.log().Warn("forgetting an unreadable conversation", slog.String("key", key), slog.Any("error", err))
		return nil, nil
	}
	return cv, err
}

// errAnsweredMeanwhile is a question that another message answered
// between this one's reading it and its reply's commit (two instances, two
// answers at once): the transaction rolls back, call and all, and the
// message is decided again, without the question.
var errAnsweredMeanwhile = errors.New("the question this message answers was answered meanwhile by another; it will be decided again")

// save returns what writes a message's conversation after its decision:
// the question asked (ask) or the closing of the open one, and the job
// now spoken of with the function of the call that did (call), when
// jobID is set. A message whose call answered the question (answered)
// closes it only if it is still open then, so that one question makes
// one job. It returns nil when nothing changes.
func (c *Conversations) save(mem remembered, ask *selector.Pending, answered bool, jobID, call string, now time.Time) func(store.Tx) error {
	var pending json.RawMessage
	if ask != nil {
		pending, _ = json.Marshal(ask) // plain strings and a time: it cannot fail
	}
	if pending == nil && !mem.hadPending && jobID == "" {
		return nil
	}
	return func(tx store.Tx) error {
		if pending != nil {
			if err := tx.ConversationPut(&store.Conversation{Key: mem.qKey, Pending: pending, UpdatedAt: now}); err != nil {
				return err
			}
		} else if mem.hadPending {
			err := tx.ConversationDelete(mem.qKey)
			if errors.Is(err, store.ErrNotFound) {
				if answered {
					return errAnsweredMeanwhile
				}
				err = nil
			}
			if err != nil {
				return err
			}
		}
		if jobID != "" {
			if err := tx.ConversationPut(&store.Conversation{Key: mem.itKey, JobID: jobID, Call: call, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	}
}

// prune forgets conversations unchanged for Keep, at most once a minute,
// as messages come: only a message makes them. A failure is logged and
// tried again a minute later.
func (c *Conversations) prune(ctx context.Context, now time.Time) {
	last := c.lastPrune.Load()
	if now.UnixNano()-last < int64(pruneEvery) || !c.lastPrune.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	keep := c.Keep
	if keep <= 0 {
		keep = DefaultKeepConversations
	}
	_, err := c.Store.Prune(ctx, &store.PruneParams{What: store.PruneConversations, Before: now.Add(-keep), Limit: pruneBatch})
	if err != nil && ctx.Err() == nil && c.Logger != nil {
		c.Logger.Error("forget old conversations", slog.Any("error", err))
	}
}

// Handle answers one message, making the decided call at once in its own
// transaction. The worker uses Decide, which defers the call to the
// transaction that also queues the reply and completes the message.
func (c *Conversations) Handle(ctx context.Context, item *store.QueueItem, m *orchestrator.Message) orchestrator.Reply {
	r := c.Decide(ctx, item, m)
	if r.Call != nil {
		res, err := c.Registry.Call(ctx, *r.Call)
		r = r.Done(res, err)
	}
	if r.SaveFunc != nil {
		if err := c.Store.Update(ctx, r.SaveFunc); err != nil {
			c.log().Error("remember conversation", slog.Any("error", err))
		}
	}
	return r
}

// Decide answers one message. When the answer is a call, the reply holds
// it and Done turns its result into the answer. It is the worker's
// MessageHandler.
func (c *Conversations) Decide(ctx context.Context, item *store.QueueItem, m *orchestrator.Message) orchestrator.Reply {
	c.prune(ctx, c.now())
	var asks bool
	text, save, req, finish := c.handle(ctx, item, m, &asks)
	if req == nil {
		// A question is asked where everyone sees it (in a channel, the
		// thread of the request, which it opens): it repeats what its
		// asker wrote there, and its answer there needs no mention.
		return orchestrator.Reply{Text: text, SaveFunc: save, Public: asks}
	}
	return orchestrator.Reply{Call: req, Done: func(res any, err error) orchestrator.Reply {
		text, save := finish(res, err)
		r := orchestrator.Reply{Text: text, SaveFunc: save}
		if err != nil {
			return r
		}
		if page, ok := res.(*store.JobPage); ok {
			for _, j := range page.Jobs {
				r.ListJobs = append(r.ListJobs, j.JobID)
			}
			r.ListArgs = req.Args
		}
		if jr, ok := res.(*functions.JobResult); ok && jr.Job.State != store.JobDeleted {
			fn := req.Function
			r.JobID, r.NextRuns = jr.Job.JobID, jr.NextRuns
			if fn == "schedule.create" || fn == "schedule.update" || fn == "schedule.pause" || fn == "schedule.resume" || fn == "schedule.show" {
				// the buttons follow the job's state: Resume on a paused one
				r.Actions = []string{"pause", "delete"}
			}
		}
		return r
	}}
}

// handle decides what a message asks for: an answer, or a call and how to
// answer once it has run. Each answer comes with what writes the
// conversation's new state (nil when it does not change); asks is set
// when the answer is a question left open.
func (c *Conversations) handle(ctx context.Context, item *store.QueueItem, m *orchestrator.Message, asks *bool) (string, func(store.Tx) error, *functions.Request, func(any, error) (string, func(store.Tx) error)) {
	prof, ok := c.Profiles[item.ChannelProfileID]
	via := orchestrator.ViaOf(prof.Channel)
	if !ok || via == "" {
		// A renamed or removed profile is nobody's: never the CLI's authority.
		return orchestrator.NotSetUp(item.ChannelProfileID), nil, nil, nil
	}
	jobs, mem, err := c.read(ctx, item, m)
	if err != nil {
		return "Sorry, I can't read the schedules right now: " + err.Error(), nil, nil, nil
	}
	now := c.now()
	in := selector.Input{
		Text: m.Text, SenderID: m.SenderID, Sender: m.Sender, ProfileID: prof.ID, Channel: prof.Channel,
		ChannelID: m.ChannelID, ThreadTS: m.ThreadTS, Timezone: c.zone(m, prof), Now: now,
		ContextJobID: mem.lastJob, ContextCall: mem.lastCall, Workflows: c.Workflows, Functions: c.Registry.Allowed(), Jobs: jobs,
		NoSlack: !c.hasChannel("slack"),
	}
	in.LastFiredJobID = c.lastFired(ctx, prof, m) // "snooze that": life.go
	if mem.pending != nil && now.Before(mem.pending.Expires) {
		in.Pending = mem.pending
		if in.Pending.Create && in.Pending.Text != "" {
			// "it" is the request asked about, not yet a job: never the
			// job spoken of before it. "What would you like me to
			// schedule?" is about no request: "it" is still that job.
			in.ContextJobID, in.ContextCall = "", ""
		}
	}
	live := in.Pending != nil
	// Any answer but another question closes the open one.
	closed := c.save(mem, nil, false, "", "", now)
	if in.Pending == nil && bareCancel(m.Text) {
		return nothingToCancel, closed, nil, nil
	}
	if in.Pending != nil {
		switch answer := settle(in.Pending, jobs, m.Text); {
		case answer.drop != "":
			return answer.drop, closed, nil, nil
		case answer.text != "":
			// The question is settled: decide the request it was about, as
			// if it had been complete ("pause the backup" + "2").
			in.Text, in.Pending = answer.text, nil
			if answer.jobID != "" {
				in.Jobs, in.PickedJobID = onlyJob(jobs, answer.jobID), answer.jobID
			}
		}
	}
	d, err := c.Selector.Select(ctx, in)
	if err != nil {
		c.log().Error("select", slog.Any("error", err))
		return "Sorry, I couldn't work that out. Try again, or say “list my schedules”.", nil, nil, nil
	}
	if d.Pending != nil && d.Pending.Question == "" {
		d.Pending.Question = d.Clarify
	}
	dropped := ""
	keep := (*selector.Pending)(nil) // the open question, kept past a look at the schedules
	switch {
	case d.Dropped != "" && readOnly[d.Function] && in.Pending != nil && in.Pending.Question != "":
		// "list my schedules", "what time is it set for?" while asked: the
		// answer, and the question still waits
		keep = in.Pending
		dropped = "\nI'm still asking about “" + in.Pending.Asked() + "”: " + in.Pending.Question + " (Or say “cancel” to drop it.)"
	case d.Dropped != "":
		dropped = " (I've dropped my earlier question about “" + d.Dropped + "”.)"
	}
	switch {
	case d.Clarify != "":
		if *asks = d.Pending != nil; *asks {
			d.Pending.Thread = questionThread(m)
		}
		return d.Clarify + dropped, c.save(mem, d.Pending, false, "", "", now), nil, nil
	case d.Unsupported != "":
		return d.Unsupported + dropped, closed, nil, nil
	case d.Reply != "" && d.Pending != nil:
		return d.Reply, c.save(mem, d.Pending, false, "", "", now), nil, nil // help while a question waits: it still does
	case d.Reply != "":
		return d.Reply + dropped, closed, nil, nil
	case !d.IsCall():
		return "Sorry, I couldn't work that out.", nil, nil, nil
	}
	if args, err := c.resolve(ctx, d, prof); err != nil {
		return err.Error(), closed, nil, nil
	} else {
		d.Args = args
	}
	actor := store.Actor{ChannelProfileID: prof.ID, SenderID: m.SenderID, Sender: m.Sender, MessageID: m.MessageTS, ChannelID: m.ChannelID, Via: via}
	req := &functions.Request{Function: d.Function, Args: d.Args, Actor: actor}
	return "", nil, req, func(res any, err error) (string, func(store.Tx) error) {
		if err != nil {
			return explain(err) + dropped, closed
		}
		spoken := ""
		switch r := res.(type) {
		case *functions.JobResult:
			spoken = r.Job.JobID
		case *functions.RunNowResult:
			spoken = r.Job.JobID
		}
		if keep != nil {
			spoken = "" // "it" is still the request asked about
		}
		if page, ok := res.(*store.JobPage); ok && len(page.Jobs) == 0 {
			return noneListed(d.Args) + dropped, c.save(mem, keep, live && d.Dropped == "", spoken, d.Function, now)
		}
		return DescribeFor(d.Function, res, c.zone(m, prof)) + dropped, c.save(mem, keep, live && d.Dropped == "", spoken, d.Function, now)
	}
}

// yourTime says when a job made or changed in another zone than the
// sender's first runs on the sender's clock ("9am JST tomorrow", said in
// New York, is Saturday evening there), unless both clocks read the same.
func yourTime(r *functions.JobResult, zone string) string {
	if len(r.NextRuns) == 0 || zone == "" || zone == r.Job.Schedule.Timezone {
		return ""
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return ""
	}
	first, here := r.NextRuns[0].In(zoneOf(r.Job)), r.NextRuns[0].In(loc)
	if first.Format("Mon 2 Jan 3:04 PM") == here.Format("Mon 2 Jan 3:04 PM") {
		return ""
	}
	lead := " The first is "
	if r.Job.ScheduleType == store.ScheduleOnce {
		lead = " That's "
	}
	return lead + here.Format("Mon 2 Jan 3:04 PM") + " your time (" + zone + ")."
}

// readOnly are the calls that only look: asked while a question waits,
// they answer and the question goes on waiting.
var readOnly = map[string]bool{"schedule.list": true, "schedule.show": true, "schedule.agenda": true, "schedule.history": true}

// resolve replaces a create's or update's Slack channel name by its id.
// On a terminal, when the orchestrator has no Slack profile, a #name is
// a label the terminal prints the post under ("[#team] hello world"), so
// every example works in chat.
func (c *Conversations) resolve(ctx context.Context, d selector.Decision, prof Profile) (json.RawMessage, error) {
	var args map[string]json.RawMessage
	if json.Unmarshal(d.Args, &args) != nil {
		return d.Args, nil
	}
	if prof.Channel == "terminal" && !c.hasChannel("slack") {
		return terminalTarget(d, args, prof.ID)
	}
	if c.ResolveTarget == nil {
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

func (c *Conversations) hasChannel(kind string) bool {
	for _, p := range c.Profiles {
		if p.Channel == kind {
			return true
		}
	}
	return false
}

// terminalTarget makes a Slack target the selector read ("in #team") a
// label on the terminal profile.
func terminalTarget(d selector.Decision, args map[string]json.RawMessage, profileID string) (json.RawMessage, error) {
	if (d.Function != "schedule.create" && d.Function != "schedule.update") || args["targetRef"] == nil {
		return d.Args, nil
	}
	var ref map[string]any
	if json.Unmarshal(args["targetRef"], &ref) != nil || ref["channel"] != "slack" {
		return d.Args, nil
	}
	ch, _ := ref["channelId"].(string)
	if !strings.HasPrefix(ch, "#") {
		return nil, fmt.Errorf("On the terminal I can post under a #name (“in #team”), not to %s: that needs a Slack channel profile in the config.", ch)
	}
	label := map[string]any{"channel": "terminal", "channelProfileId": profileID, "channelId": strings.ToLower(ch)}
	args["targetRef"], _ = json.Marshal(label)
	return json.Marshal(args)
}

// zone is the sender's timezone: from the channel (Slack's profile), else
// the channel profile's, else the orchestrator's.
func (c *Conversations) zone(m *orchestrator.Message, p Profile) string {
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

// JobRefs are an orchestrator's jobs as the selector sees them, so that
// chat and parse resolve "the standup job" alike.
func JobRefs(ctx context.Context, st store.Store) ([]selector.JobRef, error) {
	var out []selector.JobRef
	err := st.View(ctx, func(tx store.Tx) (err error) {
		out, err = jobRefsTx(tx)
		return err
	})
	return out, err
}

func jobRefsTx(tx store.Tx) ([]selector.JobRef, error) {
	page, err := tx.JobList(&store.JobListParams{Limit: store.MaxListLimit})
	if err != nil {
		return nil, err
	}
	out := make([]selector.JobRef, 0, len(page.Jobs))
	for _, j := range page.Jobs {
		out = append(out, selector.RefOf(j))
	}
	return out, nil
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
func Describe(fn string, res any) string { return DescribeFor(fn, res, "") }

// DescribeFor is Describe told to a sender in zone (IANA; "" for none): a
// job made or changed in another zone also says its first run on the
// sender's clock.
func DescribeFor(fn string, res any, zone string) string {
	switch r := res.(type) {
	case *functions.JobResult:
		if s, ok := describeLife(fn, r); ok { // skip, unskip, snooze, done: life.go
			return s
		}
		j := r.Job
		switch fn {
		case "schedule.create":
			return "OK — I'll " + jobSentence(j) + nextRuns(j, r.NextRuns) + clockNote(j, r.NextRuns) + shortMonths(j) + yourTime(r, zone) + " Job " + j.JobID + "."
		case "schedule.update":
			named := ""
			if j.Name != "" {
				named = " “" + j.Name + "”" // a rename says the new name
			}
			return "Updated" + named + " — I'll " + jobSentence(j) + nextRuns(j, r.NextRuns) + clockNote(j, r.NextRuns) + shortMonths(j) + yourTime(r, zone) + " Job " + j.JobID + "."
		// The job is named by what it does, not its id alone: "Deleted job
		// 01M… (Once on Sun 29 Nov …)" did not say which reminder went.
		case "schedule.pause":
			return fmt.Sprintf("Paused job %s — %s Say “resume it” to start it again.", j.JobID, jobSentence(j))
		case "schedule.resume":
			return fmt.Sprintf("Resumed job %s — %s%s", j.JobID, jobSentence(j), nextRuns(j, r.NextRuns))
		case "schedule.delete":
			return fmt.Sprintf("Deleted job %s — %s Its history stays in the audit log.", j.JobID, jobSentence(j))
		}
		if fn == "schedule.show" {
			return describeShow(r)
		}
		return "Job " + j.JobID + " — " + stateWord(j) + ": " + jobSentence(j) + nextRuns(j, r.NextRuns)
	case *functions.AgendaResult:
		return describeAgenda(r)
	case *functions.HistoryResult:
		return describeHistory(r)
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
			next := stateWord(j)
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
	case strings.HasPrefix(id, "D"):
		return "a direct message" // Slack links no DM conversation by id
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
// clockNote says when the clocks moved one of the runs listed, so a
// confirmation never shows 3:00 AM for 2:30 AM unexplained.
func clockNote(j *store.Job, runs []time.Time) string {
	sp, err := scheduler.JobSpec(j)
	if err != nil {
		return ""
	}
	if note := sp.ClockNote(runs); note != "" {
		return " " + note
	}
	return ""
}

// shortMonths says which months have no run on a monthly job's 29th,
// 30th or 31st (cron runs only on days a month has), and how to run in
// every month.
func shortMonths(j *store.Job) string {
	f := strings.Fields(j.Schedule.Cron)
	if j.ScheduleType != store.ScheduleCron || len(f) != 5 || f[3] != "*" || f[4] != "*" {
		return ""
	}
	last := 0
	for _, d := range strings.Split(f[2], ",") {
		n, err := strconv.Atoi(d)
		if err != nil {
			return ""
		}
		last = max(last, n)
	}
	short := map[int]string{29: "February has no 29th outside leap years", 30: "February has no 30th",
		31: "February, April, June, September and November have no 31st"}[last]
	if short == "" {
		return ""
	}
	return " " + short + ": no run then on the " + scheduler.Ordinal(last) + "; say “the last day of every month” for a run in every month."
}

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
	if runs[len(runs)-1].In(loc).Year() != runs[0].In(loc).Year() {
		layout = "Mon 2 Jan 2006" // a yearly job's runs are told apart by their years
	}
	if !sameClock || len(runs) == 1 {
		layout += " 3:04 PM"
	}
	var parts []string
	for _, t := range runs {
		parts = append(parts, t.In(loc).Format(layout))
	}
	return " Next: " + strings.Join(parts, ", ") + "."
}
