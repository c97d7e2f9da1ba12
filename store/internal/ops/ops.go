// Package ops writes store.Store's whole operations once, over the
// row-level methods both stores' transactions have (Rows); bolt and
// postgres run them in transactions of their own. Only the stores see
// this package: the scheduler and the worker speak in whole operations.
package ops

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Rows is a transaction of a store, row by row: store.Tx and what the
// whole operations are made of.
type Rows interface {
	store.Tx
	// JobGetByName returns the job that holds name (deleted jobs hold
	// none), or store.ErrNotFound.
	JobGetByName(name string) (*store.Job, error)
	// JobsDue calls fn with up to limit enabled jobs whose nextRunAt is
	// at or before t, earliest first, and returns fn's first error. fn
	// may write in the transaction: each job is read when its turn
	// comes, and one no longer due by then is passed over. A due job
	// whose record cannot be read is passed over too; JobsDue goes on,
	// then returns a *store.UnreadableJobsError naming those. In a write
	// transaction a job another transaction holds is passed over. A
	// record fn writes that cannot be stored may fail JobsDue (and the
	// transaction) rather than the write itself.
	JobsDue(t time.Time, limit int, fn func(*store.Job) error) error
	// JobStatusPut writes only the status of a stored job (the fields
	// its runs change) and keeps its indexes in step.
	JobStatusPut(j *store.Job) error
	// JobQuarantine sets aside a job whose stored record cannot be read:
	// no longer due, counted as disabled, its record kept for repair.
	JobQuarantine(id string) error
	// JobNextRunAt returns the earliest nextRunAt of an enabled job.
	JobNextRunAt() (t time.Time, ok bool, err error)
	// QueueClaim moves up to limit of the oldest due incoming items into
	// processing, under this store's claim.
	QueueClaim(now time.Time, limit int) ([]*store.QueueItem, error)
	// QueueNextAt returns the earliest NotBefore after now in queue q.
	QueueNextAt(q store.QueueName, now time.Time) (t time.Time, ok bool, err error)
	// QueueRecover is store.Store.Requeue in a transaction.
	QueueRecover(now, notBefore time.Time) (int, error)
	// QueueCount counts the items in one queue.
	QueueCount(q store.QueueName) (int, error)
	// QueueDelete removes an item for good.
	QueueDelete(id string) error
	// LaneTake claims a delivery lane until until, unless it is claimed
	// (ok false); last is when it last delivered.
	LaneTake(key string, now, until time.Time) (ok bool, last time.Time, err error)
	// LaneKeep renews a lane's claim until until; ok is false when the
	// claim is no longer this store's.
	LaneKeep(key string, until time.Time) (ok bool, err error)
	// LaneRelease lets a claimed lane go, noting its last delivery
	// (zero: unchanged).
	LaneRelease(key string, last time.Time) error
	// QueueDueLanes returns the due outgoing items of the lanes busy does
	// not name, each lane's in queue order, at most limit; indexed is
	// false when the store has no lane index to read (the caller reads
	// the queue).
	QueueDueLanes(now time.Time, limit int, busy map[string]bool) (items []*store.QueueItem, indexed bool, err error)
	// The prunes of PruneParams, and the audit chain.
	RunPrune(p *store.PruneParams, jobID string) (int, error)
	JobPrune(before time.Time, limit int) (int, error)
	QueuePrune(before time.Time, limit int) (int, error)
	RequestPrune(before time.Time, limit int) (int, error)
	ConversationPrune(before time.Time, limit int) (int, error)
	AuditPrune(through uint64) (int, error)
	AuditVerify() (int, error)
	AuditHead() (seq uint64, hash string, err error)
}

// ReadAheader is Rows of a store across a network: it reads in one round
// trip the jobs and runs its caller is about to read one by one.
type ReadAheader interface {
	ReadAhead(jobIDs, executionIDs []string) error
}

// Runner is a store's transactions.
type Runner interface {
	View(ctx context.Context, fn func(store.Tx) error) error
	Update(ctx context.Context, fn func(store.Tx) error) error
}

// view and update run fn with the transaction r hands out, tx (a test's
// wrapper, maybe), and the store's rows under it: the whole operations
// write what store.Tx has through tx.
func view(ctx context.Context, r Runner, fn func(tx store.Tx, rows Rows) error) error {
	return r.View(ctx, func(tx store.Tx) error { return fn(tx, RowsOf(tx)) })
}

func update(ctx context.Context, r Runner, fn func(tx store.Tx, rows Rows) error) error {
	return r.Update(ctx, func(tx store.Tx) error { return fn(tx, RowsOf(tx)) })
}

// DefaultBatch is FireParams.Batch's default.
const DefaultBatch = 5000

// errNoneDue rolls back a fire transaction that found nothing due: no
// commit (bbolt's costs two fsyncs).
var errNoneDue = errors.New("no job due")

// FireOnce runs one transaction of a Fire: up to limit due jobs, each
// handed to a Firing from begin, its status written after. It returns
// how many places of the batch it took (jobs fired and set aside): fewer
// than limit means none is left due.
func FireOnce(ctx context.Context, r Runner, now time.Time, limit int, begin func() store.Firing) (int, error) {
	var f store.Firing
	n := 0
	err := update(ctx, r, func(tx store.Tx, rows Rows) error {
		f, n = begin(), 0
		err := rows.JobsDue(now, limit, func(j *store.Job) error {
			n++
			if err := f.Fire(tx, j); err != nil {
				return err
			}
			return rows.JobStatusPut(j)
		})
		var bad *store.UnreadableJobsError
		if errors.As(err, &bad) {
			n += len(bad.Jobs) // places in the batch: a full batch is not the last
			for _, re := range bad.Jobs {
				if err := rows.JobQuarantine(re.ID); err != nil {
					return err
				}
				if err := f.SetAside(tx, re); err != nil {
					return err
				}
			}
			return nil
		}
		if err == nil && n == 0 {
			return errNoneDue
		}
		return err
	})
	if errors.Is(err, errNoneDue) {
		return 0, nil
	}
	if err != nil {
		return n, err
	}
	f.Committed()
	return n, nil
}

// FirstFire is FireParams.First's default for FireChunks: a transaction
// of 32 windows commits in a few milliseconds, and growing by four keeps
// a burst of 10,000 to five transactions.
const FirstFire = 32

// FireChunks is a Fire in transactions that start at p.First jobs and
// grow fourfold up to p.Batch, one after another, so that the first
// windows are durable (and with the worker) while the rest commit. The
// worker's next two transactions (completing the first triggers, taking
// their posts) then wait behind a chunk of 128 and one of 512, not
// longer: faster growth made the first post later, slower (doubling)
// made the burst 5% slower for its four more commits.
func FireChunks(ctx context.Context, r Runner, p store.FireParams, begin func() store.Firing) error {
	batch := p.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	first := p.First
	if first <= 0 {
		first = FirstFire
	}
	for size := min(first, batch); ; size = min(4*size, batch) {
		n, err := FireOnce(ctx, r, p.Now, size, begin)
		if err != nil || n < size {
			return err
		}
		// bbolt has one writer: yield, so that the worker the commit
		// woke takes the write lock before the next transaction does.
		// The burst's first post then leaves while it fires (half the
		// time to the first post in BenchmarkBurst10k).
		runtime.Gosched()
	}
}

// Claim is store.Store.Claim.
func Claim(ctx context.Context, r Runner, now time.Time, limit int, then func(store.Tx, []*store.QueueItem) error) ([]*store.QueueItem, error) {
	var items []*store.QueueItem
	err := update(ctx, r, func(tx store.Tx, rows Rows) (err error) {
		if items, err = rows.QueueClaim(now, limit); err != nil || len(items) == 0 || then == nil {
			return err
		}
		return then(tx, items)
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// Complete is store.Store.Complete.
func Complete(ctx context.Context, r Runner, items []*store.QueueItem, fn func(store.Tx, *store.QueueItem) error) error {
	return update(ctx, r, func(tx store.Tx, rows Rows) error {
		if ra, ok := rows.(ReadAheader); ok {
			var jobs, execs []string
			for _, it := range items {
				if it.JobID != "" {
					jobs, execs = append(jobs, it.JobID), append(execs, it.ExecutionID)
				}
			}
			if err := ra.ReadAhead(jobs, execs); err != nil {
				return err
			}
		}
		for _, it := range items {
			if err := fn(tx, it); err != nil {
				return err
			}
		}
		return nil
	})
}

// Requeue is store.Store.Requeue.
func Requeue(ctx context.Context, r Runner, now, notBefore time.Time) (n int, err error) {
	err = update(ctx, r, func(_ store.Tx, rows Rows) (err error) {
		n, err = rows.QueueRecover(now, notBefore)
		return err
	})
	return n, err
}

// NextRun is store.Store.NextRun.
func NextRun(ctx context.Context, r Runner) (next time.Time, err error) {
	err = view(ctx, r, func(_ store.Tx, rows Rows) error {
		t, ok, err := rows.JobNextRunAt()
		if ok {
			next = t
		}
		return err
	})
	return next, err
}

// NextItem is store.Store.NextItem.
func NextItem(ctx context.Context, r Runner, q store.QueueName, now time.Time) (next time.Time, err error) {
	err = view(ctx, r, func(_ store.Tx, rows Rows) error {
		t, ok, err := rows.QueueNextAt(q, now)
		if ok {
			next = t
		}
		return err
	})
	return next, err
}

// Prune is store.Store.Prune.
func Prune(ctx context.Context, r Runner, p *store.PruneParams) (n int, err error) {
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	err = update(ctx, r, func(tx store.Tx, rows Rows) (err error) {
		n = 0
		switch p.What {
		case store.PruneRuns:
			for _, id := range p.JobIDs {
				k, err := rows.RunPrune(&store.PruneParams{Keep: p.Keep, Before: p.Before, Limit: limit - n}, id)
				if n += k; err != nil || n >= limit {
					return err
				}
			}
			return nil
		case store.PruneJobs:
			n, err = rows.JobPrune(p.Before, limit)
		case store.PruneQueue:
			n, err = rows.QueuePrune(p.Before, limit)
		case store.PruneRequests:
			n, err = rows.RequestPrune(p.Before, limit)
		case store.PruneConversations:
			n, err = rows.ConversationPrune(p.Before, limit)
		case store.PruneAudit:
			if p.Checkpoint == nil {
				return errors.New("prune audit: no checkpoint to append")
			}
			if n, err = rows.AuditPrune(p.Through); err != nil {
				return err
			}
			return tx.AuditAppend(p.Checkpoint)
		default:
			return fmt.Errorf("prune: unknown kind %q", p.What)
		}
		return err
	})
	return n, err
}

// AuditVerify is store.Store.AuditVerify.
func AuditVerify(ctx context.Context, r Runner) (n int, err error) {
	err = view(ctx, r, func(_ store.Tx, rows Rows) (err error) {
		n, err = rows.AuditVerify()
		return err
	})
	return n, err
}

// Count is store.Store.Count.
func Count(ctx context.Context, r Runner) (*store.Counts, error) {
	c := &store.Counts{Jobs: map[store.JobState]int{}, Queues: map[store.QueueName]int{}}
	err := view(ctx, r, func(tx store.Tx, rows Rows) (err error) {
		for _, s := range store.JobStates {
			if c.Jobs[s], err = tx.JobCount(s); err != nil {
				return err
			}
		}
		for _, q := range store.QueueNames {
			if c.Queues[q], err = rows.QueueCount(q); err != nil {
				return err
			}
		}
		c.AuditSeq, c.AuditHash, err = rows.AuditHead()
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ClaimDeliveries is store.Store.ClaimDeliveries. It reads the due lanes,
// and only when there are some claims them in a write transaction: each
// lane claimed, then read again (what was delivered meanwhile is no
// longer due) and its attempts counted.
func ClaimDeliveries(ctx context.Context, r Runner, c *store.LaneClaim) ([]*store.Lane, error) {
	var lanes []*store.Lane
	err := view(ctx, r, func(tx store.Tx, rows Rows) (err error) {
		lanes, err = DueLanes(tx, rows, c)
		return err
	})
	if err != nil || len(lanes) == 0 {
		return nil, err
	}
	var taken []*store.Lane
	err = update(ctx, r, func(tx store.Tx, rows Rows) error {
		taken = taken[:0]
		held := map[string]time.Time{} // the lanes claimed, and their last delivery
		// In key order: stores sharing lanes claim them in one order.
		slices.SortFunc(lanes, func(a, b *store.Lane) int { return strings.Compare(a.Key, b.Key) })
		for _, l := range lanes {
			ok, last, err := rows.LaneTake(l.Key, c.Now, c.Now.Add(c.Hold(len(l.Items))))
			if err != nil {
				return err
			}
			if ok {
				held[l.Key] = last
			}
		}
		if len(held) == 0 {
			return nil
		}
		fresh, err := DueLanes(tx, rows, c)
		if err != nil {
			return err
		}
		for _, l := range fresh {
			last, ok := held[l.Key]
			if !ok {
				continue
			}
			delete(held, l.Key)
			// Held until the deadline of the last of its items as read now.
			if ok, err := rows.LaneKeep(l.Key, c.Now.Add(c.Hold(len(l.Items)))); err != nil || !ok {
				return cmp.Or(err, fmt.Errorf("lane %s: lost within its own transaction", l.Key))
			}
			for i, it := range l.Items {
				next := *it
				next.Attempts++
				next.UpdatedAt = c.Now
				if next.Attempts == 1 {
					next.FirstAttemptAt = c.Now
				}
				if err := tx.QueuePut(&next); err != nil {
					return err
				}
				l.Items[i] = &next
			}
			l.LastPost = last
			taken = append(taken, l)
		}
		for key := range held { // nothing left to deliver on it
			if err := rows.LaneRelease(key, time.Time{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return taken, nil
}

// DueLanes reads up to c.Limit due outgoing items, by lane, leaving out
// the lanes in c.Busy. A store that indexes outgoing by lane passes over
// a busy lane without reading its backlog; another is read page by page.
func DueLanes(tx store.Tx, rows Rows, c *store.LaneClaim) ([]*store.Lane, error) {
	byKey := map[string]*store.Lane{}
	var lanes []*store.Lane
	add := func(it *store.QueueItem) {
		key := store.LaneOf(it)
		l := byKey[key]
		if l == nil {
			l = &store.Lane{Key: key}
			byKey[key] = l
			lanes = append(lanes, l)
		}
		l.Items = append(l.Items, it)
	}
	items, indexed, err := rows.QueueDueLanes(c.Now, c.Limit, c.Busy)
	if err != nil {
		return nil, err
	}
	if indexed {
		for _, it := range items {
			add(it)
		}
		return lanes, nil
	}
	picked := 0
	after := ""
	for picked < c.Limit {
		page, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueOutgoing, Limit: c.Limit, After: after})
		if err != nil || len(page) == 0 {
			return lanes, err
		}
		for _, it := range page {
			if it.NotBefore.After(c.Now) || picked >= c.Limit || c.Busy[store.LaneOf(it)] {
				continue
			}
			add(it)
			picked++
		}
		after = page[len(page)-1].ItemID
	}
	return lanes, nil
}

// errLaneLost: the lane's claim is no longer this store's.
var errLaneLost = fmt.Errorf("delivery lane: %w", store.ErrLeaseLost)

// RecordDeliveries is store.Store.RecordDeliveries.
func RecordDeliveries(ctx context.Context, r Runner, rec *store.LaneRecord, fn func(store.Tx) error) error {
	return update(ctx, r, func(tx store.Tx, rows Rows) error {
		ok, err := rows.LaneKeep(rec.Key, rec.Hold)
		if err != nil {
			return err
		} else if !ok {
			return errLaneLost
		}
		if rec.Release {
			if err := rows.LaneRelease(rec.Key, rec.LastPost); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// RowsOf is tx row by row: for the stores and their tests. A wrapper of a
// store's Tx (a test's) says what it wraps with Unwrap.
func RowsOf(tx store.Tx) Rows {
	for {
		if r, ok := tx.(Rows); ok {
			return r
		}
		u, ok := tx.(interface{ Unwrap() store.Tx })
		if !ok {
			panic(fmt.Sprintf("ops: %T is not a store's transaction and wraps none", tx))
		}
		tx = u.Unwrap()
	}
}

// Ops is store.Store's whole operations over R's transactions, Fire as
// FireChunks: a store embeds it with R itself, and overrides what it
// does its own way.
type Ops struct{ R Runner }

func (o Ops) Fire(ctx context.Context, p store.FireParams, begin func() store.Firing) error {
	return FireChunks(ctx, o.R, p, begin)
}

func (o Ops) Claim(ctx context.Context, now time.Time, limit int, then func(store.Tx, []*store.QueueItem) error) ([]*store.QueueItem, error) {
	return Claim(ctx, o.R, now, limit, then)
}

func (o Ops) Complete(ctx context.Context, items []*store.QueueItem, fn func(store.Tx, *store.QueueItem) error) error {
	return Complete(ctx, o.R, items, fn)
}

func (o Ops) Requeue(ctx context.Context, now, notBefore time.Time) (int, error) {
	return Requeue(ctx, o.R, now, notBefore)
}

func (o Ops) ClaimDeliveries(ctx context.Context, c *store.LaneClaim) ([]*store.Lane, error) {
	return ClaimDeliveries(ctx, o.R, c)
}

func (o Ops) RecordDeliveries(ctx context.Context, r *store.LaneRecord, fn func(store.Tx) error) error {
	return RecordDeliveries(ctx, o.R, r, fn)
}

func (o Ops) NextRun(ctx context.Context) (time.Time, error) { return NextRun(ctx, o.R) }

func (o Ops) NextItem(ctx context.Context, q store.QueueName, now time.Time) (time.Time, error) {
	return NextItem(ctx, o.R, q, now)
}

func (o Ops) Prune(ctx context.Context, p *store.PruneParams) (int, error) { return Prune(ctx, o.R, p) }

func (o Ops) AuditVerify(ctx context.Context) (int, error) { return AuditVerify(ctx, o.R) }

func (o Ops) Count(ctx context.Context) (*store.Counts, error) { return Count(ctx, o.R) }
