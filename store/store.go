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
	// ErrLeaseLost: the queue item was claimed by another process after
	// this one's lease on it ran out; what this process did with it must
	// not be kept.
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

// UnreadableJobsError is what JobsDue returns when it passed over due jobs
// whose stored records cannot be read. It unwraps to ErrCorrupt.
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
// a job change and its audit event commit together or not at all.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction, committed (durably) when
	// fn returns nil and rolled back otherwise. A panic in fn rolls the
	// transaction back and goes on up to Update's caller, as it was.
	Update(ctx context.Context, fn func(Tx) error) error
	Close() error
}

// Tx is one transaction. Write methods fail in a View transaction.
type Tx interface {
	// JobGet returns the job with id, or ErrNotFound.
	JobGet(id string) (*Job, error)
	// JobGetByName returns the job that holds name (deleted jobs hold none), or ErrNotFound.
	JobGetByName(name string) (*Job, error)
	// JobPut inserts or replaces a job and keeps its indexes (next run, state,
	// name) in step. A name held by another job is ErrExists.
	JobPut(j *Job) error
	// JobStatusPut writes only the status of a stored job, the fields its
	// runs change (State, NextRunAt, NextRunAtLocal, LastRunAt, LastResult,
	// RunCount, UpdatedAt, Remaining, SnoozeAt), and keeps its indexes in step; the rest of j is
	// not written: the job keeps its stored definition (and name). The
	// scheduler fires with it: a burst changes 10,000 statuses and no
	// definition. A job not stored is ErrNotFound; the name kept held by
	// another job (a deleted job brought back) is ErrExists.
	JobStatusPut(j *Job) error
	// JobList returns one page of jobs: enabled jobs by nextRunAt, then the
	// other states in the order of JobStates, each by jobId.
	JobList(p *JobListParams) (*JobPage, error)
	// JobCount counts jobs in the given states (all states when none given).
	JobCount(states ...JobState) (int, error)
	// JobsDue calls fn with up to limit enabled jobs whose nextRunAt is at
	// or before t, earliest first (read from the next-run index), and
	// returns fn's first error. fn may write in the transaction: each job
	// is read when its turn comes, as the transaction has it then, and one
	// that is no longer due by then is passed over. A due job whose stored
	// record cannot be read is passed over too: JobsDue goes on with the
	// others, then returns an *UnreadableJobsError naming those, so that
	// the caller may keep what fn did and set them aside (JobQuarantine).
	// A ParallelWriter may hand out none in a write transaction while
	// other transactions are firing the due jobs (postgres: both dispatch
	// slots taken); the caller looks again later.
	JobsDue(t time.Time, limit int, fn func(*Job) error) error
	// JobQuarantine sets aside a job whose stored record cannot be read:
	// it is no longer due and counts as disabled; its record is kept as it
	// is, for repair. A job that reads is disabled with JobPut instead
	// (JobQuarantine refuses it). A job whose records are gone but whose
	// index entries are left (a damaged store) loses those entries.
	JobQuarantine(id string) error
	// JobNextRunAt returns the earliest nextRunAt of any enabled job; ok is
	// false when no job is due ever.
	JobNextRunAt() (t time.Time, ok bool, err error)

	// RunPut inserts or replaces a run record. Its executionId starts with
	// its jobId and "@" (ExecutionID, ManualExecutionID).
	RunPut(r *Run) error
	// RunGet returns the run with executionID, or ErrNotFound.
	RunGet(executionID string) (*Run, error)
	// RunList returns a job's runs, newest first (executionId order, which
	// ExecutionID makes time order), at most limit.
	RunList(jobID string, limit int) ([]*Run, error)
	// RunPrune deletes up to p.Limit of a job's finished runs (neither
	// dispatched nor running): those past its newest p.Keep and those
	// that finished (else were scheduled) before p.Before. A run that does
	// not read is left (schedbot doctor's). It returns how many it deleted.
	RunPrune(p *RunPruneParams) (int, error)
	// JobPrune deletes up to limit jobs deleted before before (their
	// updatedAt), with their runs, and returns how many jobs it deleted.
	JobPrune(before time.Time, limit int) (int, error)

	// QueueAdd stores a new item in item.Queue (incoming when empty),
	// assigning ItemID when empty. An existing ItemID is ErrExists.
	QueueAdd(item *QueueItem) error
	// QueueGet returns the item with id, wherever it is, or ErrNotFound.
	QueueGet(id string) (*QueueItem, error)
	// QueuePut rewrites an existing item, moving it to item.Queue.
	QueuePut(item *QueueItem) error
	// QueueClaim moves up to limit of the oldest incoming items whose
	// NotBefore has passed at now into processing and returns them.
	QueueClaim(now time.Time, limit int) ([]*QueueItem, error)
	// QueueNextAt returns the earliest NotBefore after now of the items
	// in queue q: when one not yet due becomes due. ok is false when no
	// item of q waits for a time.
	QueueNextAt(q QueueName, now time.Time) (t time.Time, ok bool, err error)
	// QueueRecover moves back to incoming, due at notBefore (zero: at
	// once), the items in processing that no live process holds: its
	// own, which the caller must not have in hand, and those whose claimer
	// died or whose lease ran out. It returns how many it moved.
	QueueRecover(now, notBefore time.Time) (int, error)
	// LaneTake takes the delivery lane key (one channel's deliveries, which
	// go one at a time) for this process until until, unless another live
	// process holds it at now: ok is false then. last is when the lane
	// last delivered (zero: never), whichever process did.
	LaneTake(key string, now, until time.Time) (ok bool, last time.Time, err error)
	// LaneKeep renews this process's hold on a lane it took, until until;
	// ok is false when it no longer holds it (another process took it
	// over), and the caller must leave the lane's items alone.
	LaneKeep(key string, until time.Time) (ok bool, err error)
	// LaneRelease lets go of a lane this process holds, noting when it last
	// delivered (zero: unchanged).
	LaneRelease(key string, last time.Time) error
	// QueueList returns items of one queue, oldest first.
	QueueList(p *QueueListParams) ([]*QueueItem, error)
	// QueueCount counts the items in one queue.
	QueueCount(q QueueName) (int, error)
	// QueueDelete removes an item for good.
	QueueDelete(id string) error
	// QueuePrune deletes up to limit done items last updated before t,
	// whatever their ids, and returns how many it deleted.
	QueuePrune(t time.Time, limit int) (int, error)

	// AuditAppend appends ev, assigning At when zero at once, and Seq,
	// PrevHash and Hash by the time the transaction commits (a store
	// shared by processes learns the chain's head only then).
	AuditAppend(ev *AuditEvent) error
	// AuditList returns events matching p, oldest first.
	AuditList(p *AuditListParams) ([]*AuditEvent, error)
	// AuditVerify checks the whole hash chain and returns a *ChainError
	// naming the first record that does not hold; n is how many it checked.
	// A store opened with an audit key checks every record's MAC too
	// (AuditSeal). A chain may begin past record 1 when a checkpoint
	// record (AuditPruned) in it names the records pruned before.
	AuditVerify() (n int, err error)
	// AuditHead returns the chain's head: the last record's seq and hash
	// (hex); 0 and "" when nothing was ever appended.
	AuditHead() (seq uint64, hash string, err error)
	// AuditPrune deletes the records up to seq through, at most the
	// head, and returns how many it deleted. The caller appends
	// the AuditPruned checkpoint naming through and its hash in the same
	// transaction, so that the chain still verifies.
	AuditPrune(through uint64) (n int, err error)

	// RequestGet returns the request recorded under key, or ErrNotFound.
	RequestGet(key string) (*Request, error)
	// RequestPut records r under r.Key; a key already recorded is ErrExists.
	RequestPut(r *Request) error
	// RequestPrune removes up to limit requests created before t, oldest
	// first, and returns how many it removed.
	RequestPrune(before time.Time, limit int) (int, error)

	// ConversationGet returns the conversation recorded under key, or
	// ErrNotFound.
	ConversationGet(key string) (*Conversation, error)
	// ConversationPut records c under c.Key, replacing what was there.
	ConversationPut(c *Conversation) error
	// ConversationDelete forgets the conversation under key, or returns
	// ErrNotFound when none is recorded (another transaction may have
	// just deleted it: a question is answered once).
	ConversationDelete(key string) error
	// ConversationPrune removes up to limit conversations last updated
	// before t, oldest first, and returns how many it removed.
	ConversationPrune(before time.Time, limit int) (int, error)

	// TokenGet returns the HTTP API token whose hash is hash, or
	// ErrNotFound.
	TokenGet(hash string) (*Token, error)
	// TokenPut records t under t.Hash, replacing what was there (its last
	// use, its revocation).
	TokenPut(t *Token) error
	// TokenList returns every token, revoked ones too, by id.
	TokenList() ([]*Token, error)
}

// ParallelWriter is a Store whose write transactions run at once, not one
// after another, several processes' included. ParallelWrites says how
// many transactions fire a burst at once, in all processes together
// (all), and how many of them this process should run now (mine): one
// transaction's work in a process then overlaps another's in the
// database. DueCount counts the enabled jobs due at or before t
// (unreadable ones too), for the burst to be split evenly between all.
type ParallelWriter interface {
	ParallelWrites(ctx context.Context) (all, mine int)
	DueCount(ctx context.Context, t time.Time) (int, error)
}

// LaneReader is a Tx that keeps the outgoing queue indexed by lane
// (LaneOf), so that a delivery round reads what it picks, not another
// channel's backlog. QueueDueLanes returns the due outgoing items (not
// before now) of the lanes busy does not name, each lane's in queue order,
// at most limit in all, passing over a busy lane without reading its
// items. indexed is false when the store has no index to read (a read
// transaction before a write made one): the caller reads the queue.
type LaneReader interface {
	QueueDueLanes(now time.Time, limit int, busy map[string]bool) (items []*QueueItem, indexed bool, err error)
}

// ReadAheader is a Tx of a store across a network: it reads, in one round
// trip, jobs and runs its caller is about to read one by one (in a write
// transaction locking the jobs, as JobGet does there). A local store needs
// none; callers test for it.
type ReadAheader interface {
	ReadAhead(jobIDs, executionIDs []string) error
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

// RunPruneParams says which of a job's runs RunPrune deletes.
type RunPruneParams struct {
	JobID  string
	Keep   int       // the newest runs kept whatever their age; 0 keeps none
	Before time.Time // older finished runs go; zero: none by age
	Limit  int       // at most this many deleted; 0: DefaultListLimit
}

// Prunable reports whether RunPrune may delete r, the i-th newest run of
// its job (from 0), under p.
func (p *RunPruneParams) Prunable(r *Run, i int) bool {
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
