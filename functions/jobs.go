package functions

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// Bounds on what a job may hold (docs/DESIGN.md section 4).
const (
	MaxNameLen     = 80
	MaxTextLen     = 4000
	MaxInputsBytes = 16 << 10
	GraceRunAt     = 60 * time.Second
	MaxAhead       = 10 * 365 * 24 * time.Hour
	NextRunsShown  = 3
	MaxCount       = 10000 // runs a count may give
)

var (
	jobIDPattern    = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)
	namePattern     = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} _.:'-]*$`)
	identPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	channelPattern  = regexp.MustCompile(`^(#[a-z0-9][a-z0-9_-]{0,79}|[CGDU][A-Z0-9]{2,20})$`)
	labelPattern    = regexp.MustCompile(`^#[a-z0-9][a-z0-9_-]{0,79}$`)
	threadTSPattern = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,8}$`)
)

// JobResult is what the job functions return: the job as stored, and its
// next fire instants for the confirmation a person reads.
type JobResult struct {
	Job      *store.Job   `json:"job"`
	NextRuns []time.Time  `json:"nextRuns"`
	Runs     []*store.Run `json:"runs,omitempty"`
	change   *jobChange   // made inside a caller's transaction: for Committed
}

func (c *Call) orch() Orchestrator { return c.r.deps.Orchestrator }

// jobSpec is the Spec of a job's schedule, bounded by its startAt and endAt.
func jobSpec(j *store.Job) (*scheduler.Spec, error) { return scheduler.JobSpec(j) }

func invalid(err error) error {
	var ie *scheduler.InvalidError
	if errors.As(err, &ie) {
		return &FieldError{Field: ie.Field, Rule: ie.Rule}
	}
	return err
}

// checkSchedule validates a job's schedule against now, fills defaults
// (zone, interval anchor, rrule dtstart) and returns its spec.
func (c *Call) checkSchedule(j *store.Job) (*scheduler.Spec, error) {
	if j.ScheduleType != store.ScheduleCron && j.Schedule.Timezone == "" {
		j.Schedule.Timezone = c.orch().Timezone
	}
	j.StartAt = j.StartAt.UTC()
	if j.ScheduleType == store.ScheduleInterval && j.Schedule.StartAt.IsZero() {
		j.Schedule.StartAt = c.Now
		if j.StartAt.After(c.Now) { // "every 2 hours starting Monday 9:00": the grid starts there
			j.Schedule.StartAt = j.StartAt
		}
	}
	j.Schedule.StartAt = j.Schedule.StartAt.UTC()
	j.Schedule.RunAt = j.Schedule.RunAt.UTC()
	j.EndAt = j.EndAt.UTC()
	limit := c.Now.Add(MaxAhead)
	// No instant before 1970 (Unix time 0): a year-0 start is a typo, and
	// iCalendar feeds would show two thousand years of runs that never were.
	epoch := time.Unix(0, 0)
	if j.StartAt.Before(epoch) && !j.StartAt.IsZero() {
		return nil, fieldErr("startAt", "%s is before 1970", j.StartAt.Format(time.RFC3339))
	}
	if j.Schedule.StartAt.Before(epoch) && !j.Schedule.StartAt.IsZero() {
		return nil, fieldErr("schedule.startAt", "%s is before 1970", j.Schedule.StartAt.Format(time.RFC3339))
	}
	if dt, err := scheduler.ParseWall(j.Schedule.Dtstart); err == nil && j.Schedule.Dtstart != "" && dt.Year() < 1970 {
		return nil, fieldErr("schedule.dtstart", "%s is before 1970", j.Schedule.Dtstart)
	}
	if !j.StartAt.IsZero() {
		if j.StartAt.After(limit) {
			return nil, fieldErr("startAt", "more than 10 years ahead")
		}
		if !j.EndAt.IsZero() && !j.EndAt.After(j.StartAt) {
			return nil, fieldErr("endAt", "%s is not after startAt %s", j.EndAt.Format(time.RFC3339), j.StartAt.Format(time.RFC3339))
		}
	}
	if j.ScheduleType == store.ScheduleRRule {
		if err := c.checkRRule(j); err != nil {
			return nil, err
		}
	}
	sp, err := jobSpec(j)
	if err != nil {
		return nil, invalid(err)
	}
	switch j.ScheduleType {
	case store.ScheduleOnce:
		if j.Schedule.RunAt.Before(c.Now.Add(-GraceRunAt)) {
			return nil, fieldErr("schedule.runAt", "%s is in the past (now is %s)", j.Schedule.RunAt.Format(time.RFC3339), c.Now.Format(time.RFC3339))
		}
		if j.Schedule.RunAt.After(limit) {
			return nil, fieldErr("schedule.runAt", "more than 10 years ahead")
		}
	case store.ScheduleInterval:
		if j.Schedule.StartAt.After(limit) {
			return nil, fieldErr("schedule.startAt", "more than 10 years ahead")
		}
	}
	if !j.EndAt.IsZero() {
		if !j.EndAt.After(c.Now) {
			return nil, fieldErr("endAt", "%s is not in the future", j.EndAt.Format(time.RFC3339))
		}
		if j.EndAt.After(limit) {
			return nil, fieldErr("endAt", "more than 10 years ahead")
		}
	}
	return sp, nil
}

// checkRRule fills an rrule's dtstart when none is given (its first
// occurrence after now, or after startAt: see scheduler.AnchorRRule) and
// checks that the rule fires within 10 years.
func (c *Call) checkRRule(j *store.Job) error {
	s := &j.Schedule
	loc, err := scheduler.LoadLocation(s.Timezone)
	if err != nil {
		return fieldErr("schedule.timezone", "%v", err)
	}
	if s.RRule == "" {
		return fieldErr("schedule.rrule", "is required for an rrule schedule (e.g. FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0)")
	}
	if s.Dtstart == "" {
		from := c.Now
		if j.StartAt.After(from) {
			from = j.StartAt.Add(-time.Nanosecond) // the first occurrence at or after startAt
		}
		dt, err := scheduler.AnchorRRule(s.RRule, loc, from)
		if err != nil {
			return fieldErr("schedule.rrule", "%v", err)
		}
		s.Dtstart = dt
	}
	sp, err := scheduler.NewSpec(j.ScheduleType, *s, time.Time{})
	if err != nil {
		return invalid(err)
	}
	next, ok := sp.Next(c.Now)
	switch {
	case !ok:
		return fieldErr("schedule.rrule", "never fires after %s (see its COUNT, UNTIL and schedule.dtstart)", c.Now.Format(time.RFC3339))
	case next.After(c.Now.Add(MaxAhead)):
		return fieldErr("schedule.rrule", "first fires on %s, more than 10 years ahead", next.Format(time.RFC3339))
	}
	return nil
}

// firstRun is the job's next fire after now. A once job inside the
// past-grace window fires now.
func firstRun(sp *scheduler.Spec, now time.Time) (time.Time, bool) {
	if sp.Type == store.ScheduleOnce && !sp.RunAt.After(now) {
		return now, sp.End.IsZero() || now.Before(sp.End)
	}
	return sp.Next(now)
}

// arm sets the job's derived fields from its schedule: description and,
// when enabled, nextRunAt (an error when it never fires again).
func (c *Call) arm(j *store.Job, sp *scheduler.Spec) error {
	j.Description = sp.DescribeWithZone()
	j.NextRunAt, j.NextRunAtLocal = time.Time{}, ""
	if j.State != store.JobEnabled {
		return nil
	}
	next, ok := firstRun(sp, c.Now)
	if !ok {
		if !j.EndAt.IsZero() {
			return fieldErr("endAt", "the schedule does not fire before %s", j.EndAt.Format(time.RFC3339))
		}
		return fieldErr("schedule", "never fires after %s", c.Now.Format(time.RFC3339))
	}
	next = withSnooze(j, sp, next, c.Now)
	j.NextRunAt, j.NextRunAtLocal = next, sp.Local(next)
	return nil
}

// withSnooze is the job's next fire given its schedule's next: its snooze
// when that comes first. A snooze that has passed unfired (the job was
// paused) is dropped.
func withSnooze(j *store.Job, sp *scheduler.Spec, next, now time.Time) time.Time {
	switch {
	case j.SnoozeAt.IsZero():
	case !j.SnoozeAt.After(now):
		j.SnoozeAt = time.Time{}
	case j.SnoozeAt.Before(next):
		return j.SnoozeAt
	}
	return next
}

// result is j as a function answers with it: its description as of now
// and its next NextRunsShown runs (none unless enabled).
func (c *Call) result(j *store.Job) *JobResult { return c.resultNext(j, NextRunsShown) }

// resultNext is result with the job's next n runs.
func (c *Call) resultNext(j *store.Job, n int) *JobResult {
	res := &JobResult{Job: j, NextRuns: []time.Time{}}
	sp, err := jobSpec(j)
	if err != nil {
		return res
	}
	if j.Remaining != 0 || len(j.Skip) > 0 && !j.Skip[0].After(c.Now) {
		// The count changes as it fires and skips pass, and only the
		// definition's writers set the description: say what is left now.
		pruneSkips(j, c.Now)
		sp.Skip = j.Skip
		j.Description = sp.DescribeWithZone()
	}
	if j.State != store.JobEnabled {
		return res
	}
	res.NextRuns = append(res.NextRuns, j.NextRunAt)
	if !j.NextRunAt.Equal(j.SnoozeAt) && sp.Limit > 0 {
		if sp.Limit--; sp.Limit == 0 { // the first of them is j.NextRunAt
			return res
		}
	}
	res.NextRuns = append(res.NextRuns, sp.NextN(j.NextRunAt, n-1)...)
	return res
}

func checkName(name string) error {
	switch {
	case name == "":
		return nil
	case utf8.RuneCountInString(name) > MaxNameLen:
		return fieldErr("name", "at most %d characters", MaxNameLen)
	case jobIDPattern.MatchString(name):
		return fieldErr("name", "must not look like a job id")
	case !namePattern.MatchString(name):
		return fieldErr("name", "letters, digits, spaces and _ . : ' - only, starting with a letter or digit")
	}
	return nil
}

func (c *Call) checkAction(a *store.TargetAction) error {
	switch a.Type {
	case store.ActionWorkflowStart:
		if a.FunctionID != "" || len(a.FunctionArgs) > 0 {
			return fieldErr("targetAction", "workflow_start takes workflowId and inputs only")
		}
		if a.WorkflowID == "" {
			return fieldErr("targetAction.workflowId", "is required for workflow_start")
		}
		if !c.orch().Workflows[a.WorkflowID] {
			return fieldErr("targetAction.workflowId", "no workflow %q in orchestrator %q (its workflows: %s)", a.WorkflowID, c.orch().ID, workflowList(c.orch().Workflows))
		}
		if b, _ := json.Marshal(a.Inputs); len(b) > MaxInputsBytes {
			return fieldErr("targetAction.inputs", "%d bytes, at most %d", len(b), MaxInputsBytes)
		}
	case store.ActionCommandInvoke:
		if a.WorkflowID != "" || a.Inputs != nil {
			return fieldErr("targetAction", "command_invoke takes functionId and functionArgs only")
		}
		if a.FunctionID == "" {
			return fieldErr("targetAction.functionId", "is required for command_invoke")
		}
		if !IsAction(a.FunctionID) {
			return fieldErr("targetAction.functionId", "%s is a schedule function; a job runs action functions only (message.post and the orchestrator's own), as it acts with nobody's authority", a.FunctionID)
		}
		e, err := c.r.lookup(a.FunctionID)
		if err != nil {
			return fieldErr("targetAction.functionId", "%v", err)
		}
		args := a.FunctionArgs
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		raw, err := e.parseArgs(args)
		if err == nil {
			err = e.check(c, raw)
		}
		var fe *FieldError
		if errors.As(err, &fe) {
			return fieldErr(joinPath("targetAction.functionArgs", fe.Field), "%s", fe.Rule)
		} else if err != nil {
			return fieldErr("targetAction.functionArgs", "%v", err)
		}
		a.FunctionArgs = raw
	default:
		return fieldErr("targetAction.type", "must be workflow_start or command_invoke, got %q", a.Type)
	}
	return nil
}

// checkRefShape validates a target by shape; Call.checkRef also scopes it.
func checkRefShape(ref *store.TargetRef) error {
	switch ref.Channel {
	case "slack":
		if ref.ChannelID == "" {
			return fieldErr("targetRef.channelId", "is required for slack")
		}
		if !channelPattern.MatchString(ref.ChannelID) {
			return fieldErr("targetRef.channelId", "%q is neither a Slack channel id (C024BE91L) nor a #name", ref.ChannelID)
		}
	case "terminal":
		// A terminal takes a #name as a label it prints the post under, so
		// that "post hi in #team" reads the same in chat as in Slack.
		if ref.ChannelID != "" && !labelPattern.MatchString(ref.ChannelID) {
			return fieldErr("targetRef.channelId", "%q is not a #name (a terminal prints posts under a #label)", ref.ChannelID)
		}
	default:
		return fieldErr("targetRef.channel", "must be slack or terminal, got %q", ref.Channel)
	}
	if ref.ChannelProfileID != "" && !identPattern.MatchString(ref.ChannelProfileID) {
		return fieldErr("targetRef.channelProfileId", "not a profile id")
	}
	switch ref.PostingMode {
	case "":
		ref.PostingMode = store.PostChannel
	case store.PostChannel:
	case store.PostThread:
		if ref.ThreadTS == "" {
			return fieldErr("targetRef.threadTs", "is required when postingMode is thread_reply")
		}
	default:
		return fieldErr("targetRef.postingMode", "must be channel_post or thread_reply")
	}
	if ref.ThreadTS != "" && !threadTSPattern.MatchString(ref.ThreadTS) {
		return fieldErr("targetRef.threadTs", "%q is not a Slack message ts (1700000000.000100)", ref.ThreadTS)
	}
	return nil
}

func checkJobID(id string) error {
	if !jobIDPattern.MatchString(id) {
		return fieldErr("jobId", "%q is not a job id (26 characters, as schedule.list shows)", id)
	}
	return nil
}

// getJob loads a job of this orchestrator; deleted jobs count as missing
// unless withDeleted.
func getJob(tx store.Tx, id string, withDeleted bool) (*store.Job, error) {
	if err := checkJobID(id); err != nil {
		return nil, err
	}
	j, err := tx.JobGet(id)
	if err != nil {
		return nil, err
	}
	if j.State == store.JobDeleted && !withDeleted {
		return nil, fmt.Errorf("job %s: %w (deleted)", id, store.ErrNotFound)
	}
	return j, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// audit appends one event for a job change in the caller's transaction.
func (c *Call) audit(tx store.Tx, action string, j *store.Job, before *store.Job, detail string) error {
	ev := &store.AuditEvent{
		OrchestratorID: c.orch().ID, Actor: c.Actor, Action: action, Detail: detail,
	}
	if j != nil {
		ev.JobID = j.JobID
		ev.After = mustJSON(j)
	}
	if before != nil {
		ev.Before = mustJSON(before)
	}
	if err := tx.AuditAppend(ev); err != nil {
		return fmt.Errorf("append audit event: %w", err)
	}
	return nil
}

// jobChange is a committed change to a job, as the log says it.
type jobChange struct {
	orch, action, jobID string
	state               store.JobState
	actor               store.Actor
}

func (ch *jobChange) log(l *slog.Logger) {
	l.Info("job changed", slog.String("orchestrator", ch.orch), slog.String("action", ch.action),
		slog.String("jobId", ch.jobID), slog.String("state", string(ch.state)),
		slog.String("actor", ch.actor.Sender), slog.String("via", ch.actor.Via))
}

// logChange logs a change to j once it is committed: at once after the
// call's own transaction; inside a caller's (CallTx), which may yet roll
// back, it returns the change for Committed to log after the commit.
func (c *Call) logChange(action string, j *store.Job) *jobChange {
	ch := &jobChange{orch: c.orch().ID, action: action, jobID: j.JobID, state: j.State, actor: c.Actor}
	if c.tx != nil {
		return ch
	}
	ch.log(c.r.log)
	return nil
}

// floorSample is how many of a schedule's next occurrences checkFloor
// looks at: enough to pass through a cron's or an rrule's busiest day.
const floorSample = 64

// checkFloor refuses a schedule that fires more often than the
// orchestrator's min_interval: an interval shorter than it, or a cron or
// rrule two of whose next occurrences come closer together.
func (c *Call) checkFloor(sp *scheduler.Spec) error {
	floor := c.orch().MinInterval
	if floor <= 0 || sp.Type == store.ScheduleOnce {
		return nil
	}
	gap, even := sp.Every, true
	if sp.Type != store.ScheduleInterval {
		gap, even = 0, true
		at := sp.NextN(c.Now, floorSample)
		for i := 1; i < len(at); i++ {
			d := at[i].Sub(at[i-1])
			if gap > 0 && d != gap {
				even = false
			}
			if gap == 0 || d < gap {
				gap = d
			}
		}
	}
	if gap <= 0 || gap >= floor {
		return nil
	}
	how := "every "
	if !even {
		how = "as often as every "
	}
	return fieldErr("schedule", "fires %s%s; this orchestrator's floor is %s (min_interval)", how, spell(gap), spell(floor))
}

// spell says a duration as a person would: "5 minutes", "1 hour 30 minutes".
func spell(d time.Duration) string {
	var parts []string
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}} {
		if n := d / u.d; n > 0 {
			d -= n * u.d
			s := fmt.Sprintf("%d %s", n, u.name)
			if n != 1 {
				s += "s"
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return d.String()
	}
	return strings.Join(parts, " ")
}

// workflowList names an orchestrator's workflows, sorted: "none" when it
// defines none.
func workflowList(w map[string]bool) string {
	if len(w) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(w)), ", ")
}
