package store

import "time"

// Firing is what the scheduler does with due jobs in one transaction of a
// Fire. A Fire makes a new one for each transaction it runs (and for each
// time it runs one again), so that what a Firing notes belongs to one
// transaction.
type Firing interface {
	// Fire writes in tx what job j's due windows call for (runs, triggers,
	// audit events) and moves j's status on (State, NextRunAt, LastRunAt,
	// LastResult, RunCount, Remaining, SnoozeAt, UpdatedAt); Fire writes
	// that status after it returns nil. An error rolls the transaction
	// back and ends the Fire with it.
	Fire(tx Tx, j *Job) error
	// SetAside is told, in the transaction, of a due job whose stored
	// record cannot be read: the store has set it aside (it counts as
	// disabled and is due no more; its record is kept for repair) and
	// the others fire.
	SetAside(tx Tx, e *RecordError) error
	// Committed is called once the transaction has committed.
	Committed()
}

// FireParams bound a Fire.
type FireParams struct {
	Now   time.Time // jobs whose nextRunAt is at or before Now are due
	Batch int       // at most this many jobs a transaction; 0: 5000
	// First, when set, is the most jobs the first transaction fires; each
	// next one fires four times as many, up to Batch, so that the first
	// windows reach the worker while the rest commit. 0: the store's
	// choice.
	First int
}

// Lane is one channel's due deliveries, claimed by ClaimDeliveries: they
// go one at a time, in order (LaneOf).
type Lane struct {
	Key string
	// Items have their attempt counted (Attempts, and FirstAttemptAt on
	// a first attempt) and stored: an attempt cut short by a crash is
	// known to be uncertain.
	Items []*QueueItem
	// LastPost is when the channel last had a delivery (zero: never), so
	// that a paced channel keeps its pace.
	LastPost time.Time
}

// LaneClaim says which deliveries ClaimDeliveries takes.
type LaneClaim struct {
	Now   time.Time
	Limit int // at most this many items in all
	// Busy names the lanes whose deliveries the caller has in hand: they
	// are passed over, their items unread.
	Busy map[string]bool
	// Hold is how long a lane of n items stays claimed: no other store
	// on the same data takes it before then, unless it is released.
	Hold func(n int) time.Duration
}

// LaneRecord is where a claimed lane stands when its outcomes are
// recorded (RecordDeliveries).
type LaneRecord struct {
	Key  string
	Hold time.Time // the lane stays claimed until then
	// Release lets the lane go (its items are all attempted), noting
	// LastPost as its last delivery (zero: unchanged).
	Release  bool
	LastPost time.Time
}

// PruneParams says what one Prune deletes: one kind of record, in one
// transaction, at most Limit of them (0: DefaultListLimit), and how many
// it deleted is returned.
type PruneParams struct {
	What PruneKind
	// Before: records older than this go (runs: finished before it; jobs:
	// deleted before it; queue: done items last updated before it;
	// requests: created before it; conversations: unchanged since).
	Before time.Time
	Limit  int
	// Runs: the jobs whose runs are pruned, each keeping its Keep newest
	// whatever their age (Prunable).
	JobIDs []string
	Keep   int
	// Audit: the records up to seq Through (at most the head) go, and
	// Checkpoint is appended in their place, naming them, so that the
	// chain still verifies.
	Through    uint64
	Checkpoint *AuditEvent
}

// PruneKind is the kind of record a Prune deletes.
type PruneKind string

// The kinds of record pruned.
const (
	PruneRuns          PruneKind = "runs"
	PruneJobs          PruneKind = "jobs" // deleted jobs, with their runs
	PruneQueue         PruneKind = "queue"
	PruneRequests      PruneKind = "requests"
	PruneConversations PruneKind = "conversations"
	PruneAudit         PruneKind = "audit"
)

// Counts are a store's totals, read in one transaction.
type Counts struct {
	Jobs   map[JobState]int  // by state, every state present
	Queues map[QueueName]int // by queue, every queue present
	// AuditSeq and AuditHash are the chain's head: the last record's seq
	// and hash (hex); 0 and "" when nothing was ever appended.
	AuditSeq  uint64
	AuditHash string
}
