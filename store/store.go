package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Callers test them with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
	ErrLocked   = errors.New("store is held by another process")
	ErrCorrupt  = errors.New("store file is corrupt")
	ErrClosed   = errors.New("store is closed")
	// ErrLeaseLost: a claim (a queue item's, a delivery lane's) is no
	// longer this store's, its lease having run out; what was done under
	// it must not be kept.
	ErrLeaseLost = errors.New("lease lost to another process")
)

// LockedError says which process holds a store file, when that is known.
type LockedError struct {
	Path string
	PID  int // 0 when unknown
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by a running schedbot (pid %d); stop it or use its local API", e.Path, e.PID)
	}
	return fmt.Sprintf("%s is held by another process", e.Path)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// ChainError names the first audit record whose hash chain does not hold.
type ChainError struct {
	Seq    uint64
	Reason string
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("audit record %d: %s", e.Seq, e.Reason)
}

// RecordError is a stored record that cannot be read. It unwraps to
// ErrCorrupt.
type RecordError struct {
	Kind string // "job", "run", "queue item", "audit record"
	ID   string
	Err  error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s %q: %v: %v", e.Kind, e.ID, ErrCorrupt, e.Err)
}

func (e *RecordError) Unwrap() error { return ErrCorrupt }

// UnreadableJobsError names due jobs whose stored records cannot be read.
// It unwraps to ErrCorrupt.
type UnreadableJobsError struct {
	Jobs []*RecordError
}

func (e *UnreadableJobsError) Error() string {
	if len(e.Jobs) == 1 {
		return e.Jobs[0].Error()
	}
	return fmt.Sprintf("%d due jobs cannot be read; the first: %v", len(e.Jobs), e.Jobs[0])
}

func (e *UnreadableJobsError) Unwrap() error { return ErrCorrupt }

// Store is one orchestrator's durable state. Writes go through Update so that
// a job change and its audit event commit together or not at all. The
// scheduler and the worker speak to it in whole operations (Fire, Claim,
// Complete, ClaimDeliveries, RecordDeliveries): how a store shares them
// between the processes that open it is its own (docs/DESIGN.md, §9).
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction, committed (durably) when
	// fn returns nil and rolled back otherwise. A panic in fn rolls the
	// transaction back and goes on up to Update's caller, as it was.
	Update(ctx context.Context, fn func(Tx) error) error
	Close() error

	// Fire hands every enabled job due at p.Now to a Firing, once, in
	// write transactions of at most p.Batch jobs, earliest first, each
	// with a Firing of its own from begin; a job is read when its turn
	// comes, and passed over when it is no longer due then. It returns
	// when none is left due that another transaction does not hold, or
	// at the first error (a Firing's, after its rollback); what earlier
	// transactions committed stays.
	Fire(ctx context.Context, p FireParams, begin func() Firing) error
	// Claim moves up to limit of the oldest incoming items due at now
	// into processing and, in the same transaction, calls then (if any)
	// with them (none claimed: not called). A claimed item is this store's until it is
	// completed or Requeue finds it abandoned.
	Claim(ctx context.Context, now time.Time, limit int, then func(Tx, []*QueueItem) error) ([]*QueueItem, error)
	// Complete calls fn with each of items (claimed by Claim) in one write
	// transaction, having read ahead the jobs and runs they name; fn moves
	// each out of processing (QueuePut). An error rolls them all back.
	Complete(ctx context.Context, items []*QueueItem, fn func(Tx, *QueueItem) error) error
	// Requeue moves back to incoming, due at notBefore (zero: at once),
	// the items in processing that are abandoned at now: this store's own
	// (the caller has none in hand) and those whose claim has lapsed. It
	// returns how many it moved.
	Requeue(ctx context.Context, now, notBefore time.Time) (int, error)
	// ClaimDeliveries claims the lanes of the due outgoing items that c
	// allows and returns them, each item's attempt counted.
	ClaimDeliveries(ctx context.Context, c *LaneClaim) ([]*Lane, error)
	// RecordDeliveries keeps (or releases) a claimed lane as r says and
	// calls fn, which writes its items' outcomes, in one write
	// transaction. A lane no longer this store's is ErrLeaseLost, fn
	// uncalled: its items are another's to record.
	RecordDeliveries(ctx context.Context, r *LaneRecord, fn func(Tx) error) error
	// NextRun is the earliest nextRunAt of an enabled job; zero: none.
	NextRun(ctx context.Context) (time.Time, error)
	// NextItem is when the first item of queue q waiting past now falls
	// due; zero: none waits.
	NextItem(ctx context.Context, q QueueName, now time.Time) (time.Time, error)
	// Prune deletes old records of one kind in one transaction (PruneParams).
	Prune(ctx context.Context, p *PruneParams) (int, error)
	// AuditVerify checks the whole hash chain and returns a *ChainError
	// naming the first record that does not hold; n is how many it checked.
	// A store opened with an audit key checks every record's MAC too
	// (AuditSeal). A chain may begin past record 1 when a checkpoint
	// record (AuditPruned) in it names the records pruned before.
	AuditVerify(ctx context.Context) (n int, err error)
	// Count returns the store's totals.
	Count(ctx context.Context) (*Counts, error)
}

// Tx is one transaction: the records, one at a time. Write methods fail in
// a View transaction.
type Tx interface {
	// JobGet returns the job with id, or ErrNotFound.
	JobGet(id string) (*Job, error)
	// JobPut inserts or replaces a job and keeps its indexes (next run, state,
	// name) in step. A name held by another job is ErrExists.
	JobPut(j *Job) error
	// JobList returns one page of jobs: enabled jobs by nextRunAt, then the
	// other states in the order of JobStates, each by jobId.
	JobList(p *JobListParams) (*JobPage, error)
	// JobCount counts jobs in the given states (all states when none given).
	JobCount(states ...JobState) (int, error)

	// RunPut inserts or replaces a run record. Its executionId starts with
	// its jobId and "@" (ExecutionID, ManualExecutionID).
	RunPut(r *Run) error
	// RunGet returns the run with executionID, or ErrNotFound.
	RunGet(executionID string) (*Run, error)
	// RunList returns a job's runs, newest first (executionId order, which
	// ExecutionID makes time order), at most limit.
	RunList(jobID string, limit int) ([]*Run, error)

	// QueueAdd stores a new item in item.Queue (incoming when empty),
	// assigning ItemID when empty. An existing ItemID is ErrExists.
	QueueAdd(item *QueueItem) error
	// QueueGet returns the item with id, wherever it is, or ErrNotFound.
	QueueGet(id string) (*QueueItem, error)
	// QueuePut rewrites an existing item, moving it to item.Queue. An item
	// claimed (Claim) or in a claimed lane (ClaimDeliveries) whose claim
	// is no longer this store's is ErrLeaseLost: what was done with it
	// must not be kept.
	QueuePut(item *QueueItem) error
	// QueueList returns items of one queue, oldest first.
	QueueList(p *QueueListParams) ([]*QueueItem, error)

	// AuditAppend appends ev, assigning At when zero at once, and Seq,
	// PrevHash and Hash by the time the transaction commits.
	AuditAppend(ev *AuditEvent) error
	// AuditList returns events matching p, oldest first.
	AuditList(p *AuditListParams) ([]*AuditEvent, error)

	// RequestGet returns the request recorded under key, or ErrNotFound.
	RequestGet(key string) (*Request, error)
	// RequestPut records r under r.Key; a key already recorded is ErrExists.
	RequestPut(r *Request) error

	// ConversationGet returns the conversation recorded under key, or
	// ErrNotFound.
	ConversationGet(key string) (*Conversation, error)
	// ConversationPut records c under c.Key, replacing what was there.
	ConversationPut(c *Conversation) error
	// ConversationDelete forgets the conversation under key, or returns
	// ErrNotFound when none is recorded (another transaction may have
	// just deleted it: a question is answered once).
	ConversationDelete(key string) error

	// TokenGet returns the HTTP API token whose hash is hash, or
	// ErrNotFound.
	TokenGet(hash string) (*Token, error)
	// TokenPut records t under t.Hash, replacing what was there (its last
	// use, its revocation).
	TokenPut(t *Token) error
	// TokenList returns every token, revoked ones too, by id.
	TokenList() ([]*Token, error)
}

// Locker is a Tx of a store whose write transactions run at once
// (postgres): Lock takes the named lock of the orchestrator until the
// transaction ends, however it ends, waiting while another transaction
// holds it. A check then a write that must hold together under
// concurrency (a quota's count then the insert, a request id looked up
// then recorded) takes one first. A store whose write transactions run
// one at a time (bolt) needs none; callers test for it.
type Locker interface {
	Lock(name string) error
}

// JobListParams filters and pages JobList.
type JobListParams struct {
	States    []JobState // empty: every state but deleted
	CreatedBy string     // senderId; empty: anyone
	ChannelID string     // the target's channelId; empty: any
	Limit     int        // 1..MaxListLimit; 0 means DefaultListLimit
	Cursor    string     // from a previous JobPage.NextCursor
}

// Prunable reports whether a PruneRuns may delete r, the i-th newest run
// of its job (from 0), under p: a finished run (neither dispatched nor
// running) past the Keep newest, or finished (else scheduled) before
// Before.
func (p *PruneParams) Prunable(r *Run, i int) bool {
	if r.Status == RunDispatched || r.Status == RunRunning {
		return false
	}
	at := r.CompletedAt
	if at.IsZero() {
		at = r.ScheduledAt
	}
	return i >= p.Keep || !p.Before.IsZero() && at.Before(p.Before)
}

// JobPage is one page of a job listing.
type JobPage struct {
	Jobs       []*Job `json:"jobs"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// Listing limits.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// QueueListParams selects items of one queue.
type QueueListParams struct {
	Queue QueueName
	Limit int    // 0: DefaultListLimit
	After string // item id to continue after
}

// AuditListParams filters AuditList. Zero fields match everything.
type AuditListParams struct {
	JobID    string
	Actor    string // matches senderId or sender
	Since    time.Time
	AfterSeq uint64
	Limit    int // 0: no limit
}

// Problem is one stored record a store cannot read, or an index entry
// whose record is gone: what `schedbot doctor` lists.
type Problem struct {
	Kind  string `json:"kind"`  // "job", "run", "queue item", "next-run index", "state index", "name index"
	ID    string `json:"id"`    // the record's key
	Error string `json:"error"` // why it does not read
	Bytes []byte `json:"bytes,omitempty"`
	// Repair is what Doctor.Check did with it when asked to repair ("").
	Repair string `json:"repair,omitempty"`
}

// Doctor is a Store that can list the records it cannot read and, asked
// to repair, remove them (a job with its index entries and runs stays
// disabled, or goes when it does not read) in one write transaction. Both
// stores implement it; callers test for it.
type Doctor interface {
	Check(ctx context.Context, repair bool) ([]Problem, error)
}
