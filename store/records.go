package store

import (
	"crypto/sha256"
	"encoding/json"
	"time"
)

// JobState is a job's lifecycle state.
type JobState string

// Job states. Only enabled jobs have a nextRunAt and fire.
const (
	JobEnabled  JobState = "enabled"
	JobPaused   JobState = "paused"
	JobDisabled JobState = "disabled"
	JobDeleted  JobState = "deleted"
)

// JobStates lists every state in listing order.
var JobStates = []JobState{JobEnabled, JobPaused, JobDisabled, JobDeleted}

// Valid reports whether s is a known state.
func (s JobState) Valid() bool {
	for _, k := range JobStates {
		if s == k {
			return true
		}
	}
	return false
}

// Schedule types.
const (
	ScheduleCron     = "cron"
	ScheduleInterval = "interval"
	ScheduleOnce     = "once"
	ScheduleRRule    = "rrule"
)

// Policies.
const (
	MisfireFireOnce = "fire_once_on_recovery"
	MisfireSkip     = "skip_missed"
	OverlapSkip     = "skip"
	OverlapAllow    = "allow"
)

// Action types.
const (
	ActionWorkflowStart = "workflow_start"
	ActionCommandInvoke = "command_invoke"
)

// Via values of an Actor.
const (
	ViaSlack     = "slack"
	ViaCLI       = "cli"
	ViaAPI       = "api"
	ViaScheduler = "scheduler"
	ViaTerminal  = "terminal"
	ViaHTTP      = "http"
)

// Actor is who did something: a person through a channel, or schedbot itself.
type Actor struct {
	ChannelProfileID string `json:"channelProfileId,omitempty"`
	SenderID         string `json:"senderId,omitempty"`
	Sender           string `json:"sender,omitempty"`
	MessageID        string `json:"messageId,omitempty"`
	// ChannelID is the conversation the message came from, as the channel
	// reported it (Slack: C…, or the sender's own D… DM).
	ChannelID string `json:"channelId,omitempty"`
	Via       string `json:"via"`
	// Token is the name of the HTTP API token the actor came with.
	Token string `json:"token,omitempty"`
}

// Schedule says when a job fires; which fields apply depends on the job's scheduleType.
type Schedule struct {
	Cron         string    `json:"cron,omitempty"`
	Timezone     string    `json:"timezone,omitempty"`
	EverySeconds int64     `json:"everySeconds,omitzero"`
	StartAt      time.Time `json:"startAt,omitzero"`
	RunAt        time.Time `json:"runAt,omitzero"`
	RRule        string    `json:"rrule,omitempty"`   // RFC 5545 parts: FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0
	Dtstart      string    `json:"dtstart,omitempty"` // rrule anchor, local wall time "2006-01-02T15:04:05"
}

// TargetAction is what a job does when it fires.
type TargetAction struct {
	Type         string          `json:"type"`
	WorkflowID   string          `json:"workflowId,omitempty"`
	Inputs       map[string]any  `json:"inputs,omitzero"`
	FunctionID   string          `json:"functionId,omitempty"`
	FunctionArgs json.RawMessage `json:"functionArgs,omitzero"`
}

// TargetRef is where a job's output goes. It is channel-agnostic.
type TargetRef struct {
	Channel          string `json:"channel"`
	ChannelProfileID string `json:"channelProfileId,omitempty"`
	ChannelID        string `json:"channelId,omitempty"`
	ThreadTS         string `json:"threadTs,omitempty"`
	PostingMode      string `json:"postingMode,omitempty"`
}

// Posting modes of a TargetRef.
const (
	PostChannel = "channel_post"
	PostThread  = "thread_reply"
)

// Result is the outcome of a job's latest run.
type Result struct {
	ExecutionID string `json:"executionId"`
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
}

// MaxSkips bounds how many future occurrences one job may leave out
// (Job.Skip).
const MaxSkips = 100

// Job is a scheduled automation.
type Job struct {
	JobID          string       `json:"jobId"`
	OrchestratorID string       `json:"orchestratorId"`
	Name           string       `json:"name,omitempty"`
	CreatedBy      Actor        `json:"createdBy"`
	ScheduleType   string       `json:"scheduleType"`
	Schedule       Schedule     `json:"schedule"`
	StartAt        time.Time    `json:"startAt,omitzero"` // no fire before it
	EndAt          time.Time    `json:"endAt,omitzero"`
	TargetAction   TargetAction `json:"targetAction"`
	TargetRef      *TargetRef   `json:"targetRef,omitempty"`
	State          JobState     `json:"state"`
	MisfirePolicy  string       `json:"misfirePolicy"`
	OverlapPolicy  string       `json:"overlapPolicy"`
	NextRunAt      time.Time    `json:"nextRunAt,omitzero"`
	NextRunAtLocal string       `json:"nextRunAtLocal,omitempty"`
	Description    string       `json:"description"`
	LastRunAt      time.Time    `json:"lastRunAt,omitzero"`
	LastResult     *Result      `json:"lastResult,omitempty"`
	RunCount       int64        `json:"runCount"`
	CreatedAt      time.Time    `json:"createdAt"`
	UpdatedAt      time.Time    `json:"updatedAt"`

	// Skip lists occurrences left out ("skip the standup on Dec 24"):
	// instants the schedule would fire at and does not. A definition
	// field; the functions drop those passed whenever they write the job.
	// At most MaxSkips.
	Skip []time.Time `json:"skip,omitempty"`
	// Remaining is how many more times a job given a count ("3 times")
	// fires, a status field: each dispatched window takes one, and the
	// job is disabled when none is left, which -1 says. Zero: no count.
	Remaining int64 `json:"remaining,omitzero"`
	// SnoozeAt is when the job's action runs once more, outside its
	// schedule ("snooze that 10 minutes"), a status field: the scheduler
	// fires it once and clears it. Zero: none.
	SnoozeAt time.Time `json:"snoozeAt,omitzero"`
}

// JobStatus is the part of a job its runs change: what Tx.JobStatusPut
// writes, and what the stores keep apart from the definition. Its JSON
// names are Job's, so that a status decodes onto the job its definition
// decoded into. A field added to Job that runs change is added here, to
// Status and to ApplyStatus (storetest's RecordsRoundTripExactly fails
// until they agree).
type JobStatus struct {
	State          JobState  `json:"state"`
	NextRunAt      time.Time `json:"nextRunAt,omitzero"`
	NextRunAtLocal string    `json:"nextRunAtLocal,omitempty"`
	LastRunAt      time.Time `json:"lastRunAt,omitzero"`
	LastResult     *Result   `json:"lastResult,omitempty"`
	RunCount       int64     `json:"runCount"`
	UpdatedAt      time.Time `json:"updatedAt"`
	Remaining      int64     `json:"remaining,omitzero"`
	SnoozeAt       time.Time `json:"snoozeAt,omitzero"`
}

// Status returns j's status.
func (j *Job) Status() *JobStatus {
	return &JobStatus{j.State, j.NextRunAt, j.NextRunAtLocal, j.LastRunAt, j.LastResult, j.RunCount, j.UpdatedAt, j.Remaining, j.SnoozeAt}
}

// ApplyStatus sets j's status fields to s (all of them zero for a zero s:
// a definition alone).
func (j *Job) ApplyStatus(s *JobStatus) {
	j.State, j.NextRunAt, j.NextRunAtLocal = s.State, s.NextRunAt, s.NextRunAtLocal
	j.LastRunAt, j.LastResult, j.RunCount, j.UpdatedAt = s.LastRunAt, s.LastResult, s.RunCount, s.UpdatedAt
	j.Remaining, j.SnoozeAt = s.Remaining, s.SnoozeAt
}

// Definition returns a copy of j with its status fields zero: what the
// stores keep apart from the status.
func (j *Job) Definition() *Job {
	d := *j
	d.ApplyStatus(&JobStatus{})
	return &d
}

// SetStatus copies from's status onto j.
func (j *Job) SetStatus(from *Job) { j.ApplyStatus(from.Status()) }

// Clone returns a deep copy of j, so a before/after pair can be kept.
func (j *Job) Clone() *Job {
	b, err := json.Marshal(j)
	if err != nil {
		panic("store: job does not marshal: " + err.Error()) // a Job always marshals
	}
	var c Job
	if err := json.Unmarshal(b, &c); err != nil {
		panic("store: job does not unmarshal: " + err.Error())
	}
	return &c
}

// RunStatus is the state of one run.
type RunStatus string

// Run statuses.
const (
	RunDispatched RunStatus = "dispatched"
	RunRunning    RunStatus = "running"
	RunCompleted  RunStatus = "completed"
	RunFailed     RunStatus = "failed"
	RunSkipped    RunStatus = "skipped"
	RunMissed     RunStatus = "missed"
)

// Run is one execution (or skipped or missed window) of a job.
type Run struct {
	ExecutionID  string    `json:"executionId"`
	JobID        string    `json:"jobId"`
	ScheduledAt  time.Time `json:"scheduledAt"`
	DispatchedAt time.Time `json:"dispatchedAt,omitzero"`
	StartedAt    time.Time `json:"startedAt,omitzero"`
	CompletedAt  time.Time `json:"completedAt,omitzero"`
	Status       RunStatus `json:"status"`
	Reason       string    `json:"reason,omitempty"`
	Error        string    `json:"error,omitempty"`
	Manual       bool      `json:"manual,omitzero"`
	Missed       int       `json:"missed,omitzero"` // windows a missed record stands for

	// DoneBy and DoneAt say who marked this occurrence done ("done" after
	// a reminder fired: schedule.complete), and when. CompletedAt is the
	// run's own end, which the worker writes.
	DoneBy *Actor    `json:"doneBy,omitempty"`
	DoneAt time.Time `json:"doneAt,omitzero"`
}

// SnoozeExecutionID is the id of the run a snooze fires: deterministic,
// so the window is dispatched once, and apart from a scheduled window at
// the same instant.
func SnoozeExecutionID(jobID string, at time.Time) string {
	return ExecutionID(jobID, at) + "~snooze"
}

// ExecutionID is the deterministic id of a job's window, so a retried
// dispatch of the same window is recognised.
func ExecutionID(jobID string, scheduledAt time.Time) string {
	return jobID + "@" + scheduledAt.UTC().Format("20060102T150405Z")
}

// ManualExecutionID is the id of a run_now run: it sorts with the
// scheduled runs by time, and never collides with one.
func ManualExecutionID(jobID string, at time.Time, unique string) string {
	return ExecutionID(jobID, at) + "~manual-" + unique
}

// QueueName is one stage of an orchestrator's queue.
type QueueName string

// Queue stages. Items flow incoming -> processing -> outgoing -> done;
// an undeliverable item ends in dead.
const (
	QueueIncoming   QueueName = "incoming"
	QueueProcessing QueueName = "processing"
	QueueOutgoing   QueueName = "outgoing"
	QueueDone       QueueName = "done"
	QueueDead       QueueName = "dead"
)

// QueueNames lists every queue.
var QueueNames = []QueueName{QueueIncoming, QueueProcessing, QueueOutgoing, QueueDone, QueueDead}

// Valid reports whether q is a known queue.
func (q QueueName) Valid() bool {
	for _, k := range QueueNames {
		if q == k {
			return true
		}
	}
	return false
}

// Queue item kinds.
const (
	KindMessage = "message"
	KindTrigger = "trigger"
	KindReply   = "reply"
)

// QueueItem is one unit of work in an orchestrator's queue.
type QueueItem struct {
	ItemID           string          `json:"itemId"`
	Queue            QueueName       `json:"queue"`
	Kind             string          `json:"kind"`
	OrchestratorID   string          `json:"orchestratorId"`
	ChannelProfileID string          `json:"channelProfileId,omitempty"`
	JobID            string          `json:"jobId,omitempty"`
	ExecutionID      string          `json:"executionId,omitempty"`
	ScheduledAt      time.Time       `json:"scheduledAt,omitzero"`
	TriggerAt        time.Time       `json:"triggerAt,omitzero"`
	InReplyTo        string          `json:"inReplyTo,omitempty"`
	Payload          json.RawMessage `json:"payload,omitzero"`
	Attempts         int             `json:"attempts"`
	NotBefore        time.Time       `json:"notBefore,omitzero"`
	LastError        string          `json:"lastError,omitempty"`
	CreatedAt        time.Time       `json:"createdAt"`
	UpdatedAt        time.Time       `json:"updatedAt"`
	// FirstAttemptAt is when an outgoing item's first delivery attempt
	// began: an earlier attempt is looked for from then on.
	FirstAttemptAt time.Time `json:"firstAttemptAt,omitzero"`
}

// LaneOf is the delivery lane of an outgoing item: the channel, channel
// profile and channel id of its payload's targetRef (a reply's or
// message.post's), whose deliveries go one at a time, in order; with no
// targetRef, the lane of the profile it came through.
func LaneOf(it *QueueItem) string {
	var p struct {
		TargetRef *TargetRef `json:"targetRef"`
	}
	_ = json.Unmarshal(it.Payload, &p) // an unreadable payload is dead-lettered by its deliverer
	if p.TargetRef == nil {
		return "|" + it.ChannelProfileID + "|"
	}
	prof := p.TargetRef.ChannelProfileID
	if prof == "" {
		prof = it.ChannelProfileID
	}
	return p.TargetRef.Channel + "|" + prof + "|" + p.TargetRef.ChannelID
}

// TriggerPayload is the payload of a trigger queue item.
type TriggerPayload struct {
	Manual bool `json:"manual,omitzero"`
}

// Request is the recorded outcome of one idempotent call (the local API's
// request id): a retry that carries the same Key gets Result back instead
// of running the call again. It is written in the transaction of the
// call's effect, so the two commit together.
//
// Requests are kept RequestRetention, then pruned (PruneRequests).
type Request struct {
	Key       string          `json:"key"`
	Digest    string          `json:"digest"` // of what was asked, so a key reused for another call is refused
	Function  string          `json:"function"`
	Result    json.RawMessage `json:"result,omitzero"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Conversation is what schedbot remembers of a conversation between two
// messages, kept in the store so that the next message may reach any
// process sharing it, or one started since: the question it asked and
// waits an answer to (Pending, as the selector wrote it), or the job last
// spoken of ("it", JobID). Keys are the orchestrator's to choose.
type Conversation struct {
	Key     string          `json:"key"`
	Pending json.RawMessage `json:"pending,omitzero"`
	JobID   string          `json:"jobId,omitempty"`
	// Call is the function of the call that last spoke of JobID
	// ("schedule.skip"), which "and sunday" continues.
	Call      string    `json:"call,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Token is an HTTP API token: who it acts as (a sender of a channel
// profile) and when it may. The store keeps only the token's hash, as its
// key: the token itself is shown once, when made.
type Token struct {
	Hash             string    `json:"hash"` // hex SHA-256 of the token
	ID               string    `json:"id"`   // public, for list and revoke
	Name             string    `json:"name"`
	ChannelProfileID string    `json:"channelProfileId"`
	SenderID         string    `json:"senderId"`
	Feed             bool      `json:"feed,omitzero"` // reads the calendar feed only
	CreatedAt        time.Time `json:"createdAt"`
	ExpiresAt        time.Time `json:"expiresAt,omitzero"` // zero: never
	LastUsedAt       time.Time `json:"lastUsedAt,omitzero"`
	RevokedAt        time.Time `json:"revokedAt,omitzero"`
}

// Active reports whether t may be used at now: not revoked, not expired.
func (t *Token) Active(now time.Time) bool {
	return t.RevokedAt.IsZero() && (t.ExpiresAt.IsZero() || now.Before(t.ExpiresAt))
}

// AuditEvent is one append-only record of who did what.
type AuditEvent struct {
	Seq            uint64          `json:"seq"`
	At             time.Time       `json:"at"`
	OrchestratorID string          `json:"orchestratorId"`
	Actor          Actor           `json:"actor"`
	Action         string          `json:"action"`
	JobID          string          `json:"jobId,omitempty"`
	ExecutionID    string          `json:"executionId,omitempty"`
	Detail         string          `json:"detail,omitempty"`
	Before         json.RawMessage `json:"before,omitzero"`
	After          json.RawMessage `json:"after,omitzero"`
	PrevHash       string          `json:"prevHash"`
	Hash           string          `json:"hash,omitempty"`
	// MAC is the record's HMAC-SHA256 under the audit key (AuditSeal),
	// empty when the store has no key. It is the body's last member.
	MAC string `json:"mac,omitempty"`
}

// Audit actions.
const (
	AuditJobCreated        = "job.created"
	AuditJobUpdated        = "job.updated"
	AuditJobPaused         = "job.paused"
	AuditJobResumed        = "job.resumed"
	AuditJobDeleted        = "job.deleted"
	AuditJobDisabled       = "job.disabled"
	AuditJobTriggered      = "job.triggered"
	AuditJobSkipped        = "job.skipped"
	AuditJobUnskipped      = "job.unskipped"
	AuditJobSnoozed        = "job.snoozed"
	AuditRunCompleted      = "run.completed"
	AuditTriggerDue        = "trigger.due"
	AuditTriggerDispatched = "trigger.dispatched"
	AuditTriggerSkipped    = "trigger.skipped"
	AuditTriggerFailed     = "trigger.failed"
	AuditMisfireRecovered  = "misfire.recovered"
	AuditMessagePosted     = "message.queued"
	AuditTriggerDuplicate  = "trigger.duplicate"
	AuditDeliveryFailed    = "delivery.dead_lettered"
	AuditSchedulerStarted  = "scheduler.started"
	AuditSchedulerStopped  = "scheduler.stopped"
	AuditStoreRepaired     = "store.repaired" // schedbot doctor --repair
)

// AuditHash chains body to the previous record's hash (empty for the first).
func AuditHash(prev []byte, body []byte) []byte { return AppendAuditHash(nil, prev, body) }

// AppendAuditHash appends AuditHash(prev, body) to b.
func AppendAuditHash(b, prev, body []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(body)
	return h.Sum(b)
}

// RequestRetention is how long a Request (an idempotency key) is kept.
const RequestRetention = 7 * 24 * time.Hour
