package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/schedbot/schedbot/store"
)

type outcome struct {
	item *store.QueueItem
	err  error
	ch   string
}

// leaseMargin is how long past its items' deadlines a lane stays its
// process's (in the store): a live attempt is never picked again while it
// may still be running. A crash frees the lane at once (a dead process's
// lanes are anyone's), and its attempts go again, each known uncertain.
const leaseMargin = 5 * time.Second

// laneLease is how long a lane of n items stays its process's: to the
// last one's deadline, and a margin.
func laneLease(timeout time.Duration, n int) time.Duration {
	return time.Duration(n)*timeout + leaseMargin
}

// lane is one channel's deliveries: they go one at a time, in order.
type lane struct {
	key   string
	items []*store.QueueItem
	ds    []*resolved
}

// deliverLoop delivers outgoing items until ctx is done, then waits for
// the lanes in flight (their deliveries cancelled with ctx).
func (w *Worker) deliverLoop(ctx context.Context) {
	defer w.inFly.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	pace := storePace{log: w.log, loop: "delivery"}
	for {
		n, err := w.deliverOutgoing(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			err = fmt.Errorf("deliver outgoing items: %w", err)
		}
		if n > 0 && err == nil {
			pace.after(nil, 0)
			continue
		}
		var wait time.Duration
		if err == nil {
			wait, err = w.idle(ctx, store.QueueOutgoing)
		}
		if ctx.Err() != nil {
			return // a shutdown, not a failing store
		}
		wait = pace.after(err, wait)
		if !sleep(ctx, timer, wait, w.wakeDeliver) {
			return
		}
	}
}

// deliverOutgoing starts the due outgoing items of every channel that has
// no delivery in flight, each channel on a lane of its own. The store
// claims the lanes and records the intent (the attempt) in one
// transaction, so that an attempt cut short by a crash is known to be
// uncertain; each lane records each outcome as it comes: delivered, retry
// later (backoff), or dead. It returns how many items it started.
func (w *Worker) deliverOutgoing(ctx context.Context) (int, error) {
	t := w.now()
	w.mu.Lock()
	busy := maps.Clone(w.lanes)
	w.mu.Unlock()
	claimed, err := w.opt.Store.ClaimDeliveries(ctx, &store.LaneClaim{Now: t, Limit: w.opt.Batch, Busy: busy,
		Hold: func(n int) time.Duration { return laneLease(w.opt.DeliveryTimeout, n) }})
	if err != nil {
		return 0, fmt.Errorf("record delivery intent: %w", err)
	}
	n := 0
	for _, c := range claimed {
		l := &lane{key: c.Key, items: c.Items}
		for _, it := range c.Items {
			d := w.resolve(it)
			d.Attempt, d.LastPost = it.Attempts, c.LastPost
			l.ds = append(l.ds, d)
		}
		w.mu.Lock()
		w.lanes[l.key] = true
		w.mu.Unlock()
		n += len(l.items)
		w.inFly.Add(1)
		go func() {
			defer w.inFly.Done()
			w.runLane(ctx, l)
		}()
	}
	return n, nil
}

// runLane delivers one channel's items in order, each within
// DeliveryTimeout, recording each outcome as it comes.
func (w *Worker) runLane(ctx context.Context, l *lane) {
	defer func() {
		w.mu.Lock()
		delete(w.lanes, l.key)
		w.mu.Unlock()
		select { // this channel may have more waiting
		case w.wakeDeliver <- struct{}{}:
		default:
		}
	}()
	// Outcomes are recorded together, one transaction for the lane, unless
	// a delivery takes longer than recordAfter: then those before it are
	// recorded at once, so that a hang (or a crash during it) leaves them
	// known as delivered. Recorded even when ctx ended (a shutdown): the
	// attempts happened.
	var mu sync.Mutex
	var pending []outcome
	var delivered time.Time // the lane's last delivery
	attempted := 0
	flush := func(release bool) {
		mu.Lock()
		outs := pending
		pending = nil
		end := &laneEnd{key: l.key, last: delivered, release: release, left: len(l.items) - attempted}
		mu.Unlock()
		if len(outs) == 0 && !release {
			return
		}
		// A transient failure (a connection reset) is tried again at
		// once: unrecorded, these deliveries would go again, each with a
		// check that it was not sent already.
		var err error
		for try := range recordTries {
			if err = w.record(context.WithoutCancel(ctx), outs, end); err == nil {
				return
			} else if errors.Is(err, store.ErrLeaseLost) {
				w.log.Warn("delivery lane taken over by another process: its outcomes are left to it",
					slog.String("lane", l.key), slog.Int("items", len(outs)))
				return
			}
			if try < recordTries-1 {
				time.Sleep(time.Duration(try+1) * 50 * time.Millisecond)
			}
		}
		w.log.Error("record delivery", slog.String("lane", l.key), slog.Int("items", len(outs)), slog.Any("error", err))
	}
	defer flush(true)
	for i, it := range l.items {
		d := l.ds[i]
		err := d.err
		ch := d.Target.Channel
		if err == nil {
			if dl := w.opt.Deliverers[ch]; dl == nil {
				err = Permanent(fmt.Errorf("no deliverer for channel %q in this daemon", ch))
			} else {
				var slow *time.Timer
				flushed := make(chan struct{})
				mu.Lock()
				if len(pending) > 0 {
					slow = time.AfterFunc(recordAfter, func() { defer close(flushed); flush(false) })
				}
				mu.Unlock()
				dctx, cancel := context.WithTimeout(ctx, w.opt.DeliveryTimeout)
				err = deliverSafely(dctx, dl, &d.Delivery)
				if err != nil && dctx.Err() != nil && ctx.Err() == nil {
					err = fmt.Errorf("no answer within %s: %w", w.opt.DeliveryTimeout, err)
				}
				cancel()
				if slow != nil && !slow.Stop() {
					<-flushed // the flush it started is waited for
				}
			}
		}
		mu.Lock()
		pending = append(pending, outcome{item: it, err: err, ch: ch})
		attempted++
		if err == nil {
			delivered = w.now()
		}
		mu.Unlock()
	}
}

// recordTries is how many times a lane's outcomes are offered to the store.
const recordTries = 3

// recordAfter is how long a delivery may take before the outcomes of the
// lane's earlier deliveries are recorded without waiting for it.
const recordAfter = 50 * time.Millisecond

// laneEnd is where a lane stands when outcomes are recorded.
type laneEnd struct {
	key     string
	last    time.Time // its last delivery
	release bool      // all its items are attempted: let it go
	left    int       // its items not attempted yet
}

// record commits the outcomes of a lane's attempts, if the lane is still
// this process's (keeping it for the items left, or letting it go), and
// reports failures.
func (w *Worker) record(ctx context.Context, outs []outcome, end *laneEnd) error {
	rec := &store.LaneRecord{Key: end.key, Hold: w.now().Add(laneLease(w.opt.DeliveryTimeout, end.left)), Release: end.release, LastPost: end.last}
	err := w.opt.Store.RecordDeliveries(ctx, rec, func(tx store.Tx) error {
		for _, o := range outs {
			it := *o.item
			it.UpdatedAt = w.now()
			var ra *RetryAfterError
			switch {
			case errors.As(o.err, &ra):
				// A rate limit is the channel's pace, not a failure, and
				// nothing was sent.
				it.Attempts--
				it.NotBefore = w.now().Add(max(ra.After, 10*time.Millisecond))
			case o.err == nil:
				it.Queue, it.LastError, it.NotBefore = store.QueueDone, "", time.Time{}
				if it.ExecutionID != "" { // a job's post: "snooze that" now means it (fired.go)
					if err := FiredPut(tx, w.resolve(&it).Target, it.JobID, w.now()); err != nil {
						return err
					}
				}
			case isPermanent(o.err) || it.Attempts >= w.opt.MaxAttempts:
				it.Queue, it.LastError = store.QueueDead, o.err.Error()
				if err := w.recordDead(tx, &it, o.err); err != nil {
					return err
				}
			default:
				it.LastError = o.err.Error()
				it.NotBefore = w.now().Add(w.backoff(it.Attempts))
			}
			if err := tx.QueuePut(&it); err != nil {
				return err
			}
			*o.item = it
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, o := range outs {
		var ra *RetryAfterError
		if o.err == nil || errors.As(o.err, &ra) {
			continue
		}
		isDead := o.item.Queue == store.QueueDead
		lvl := slog.LevelWarn
		if isDead {
			lvl = slog.LevelError
		}
		w.log.Log(ctx, lvl, "delivery failed", slog.String("itemId", o.item.ItemID), slog.String("channel", o.ch),
			slog.Int("attempt", o.item.Attempts), slog.Bool("deadLettered", isDead), slog.String("error", o.err.Error()))
		if w.opt.DeliveryFailedFunc != nil {
			w.opt.DeliveryFailedFunc(o.ch, isDead)
		}
		if isDead && o.item.JobID != "" && w.opt.DeadFunc != nil {
			w.opt.DeadFunc(o.item, o.err)
		}
	}
	return nil
}

func deliverSafely(ctx context.Context, d Deliverer, del *Delivery) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("deliverer panicked: %v", r)
		}
	}()
	return d.Deliver(ctx, del)
}

func isPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

func (w *Worker) backoff(attempt int) time.Duration {
	d := w.opt.Backoff << min(attempt-1, 20)
	return min(d, w.opt.MaxBackoff)
}

// recordDead audits a dead-lettered delivery and notes it on the run that
// produced it, so `schedule.show` says why nothing arrived.
func (w *Worker) recordDead(tx store.Tx, it *store.QueueItem, cause error) error {
	detail := fmt.Sprintf("item %s after %d attempt(s): %v", it.ItemID, it.Attempts, cause)
	if it.ExecutionID != "" {
		if r, err := tx.RunGet(it.ExecutionID); err == nil {
			r.Error = truncate("delivery failed: "+cause.Error(), 500)
			if err := tx.RunPut(r); err != nil {
				return err
			}
		}
	}
	return tx.AuditAppend(&store.AuditEvent{OrchestratorID: w.opt.OrchestratorID, Actor: workerActor,
		Action: store.AuditDeliveryFailed, JobID: it.JobID, ExecutionID: it.ExecutionID, Detail: truncate(detail, 500)})
}

// resolved is a delivery, or why the item cannot be delivered.
type resolved struct {
	Delivery
	err error
}

// resolve reads an outgoing item's text and decides where it goes: its own
// target, else the channel profile it came from, else the default.
func (w *Worker) resolve(it *store.QueueItem) *resolved {
	var p ReplyPayload
	d := &resolved{Delivery: Delivery{ItemID: it.ItemID, OrchestratorID: it.OrchestratorID, JobID: it.JobID, ExecutionID: it.ExecutionID, InReplyTo: it.InReplyTo,
		Attempt: it.Attempts + 1, Created: it.CreatedAt, FirstAttempt: it.FirstAttemptAt}}
	if err := json.Unmarshal(it.Payload, &p); err != nil {
		d.Target = w.opt.DefaultTarget
		d.err = Permanent(fmt.Errorf("payload is not a message: %v", err))
		return d
	}
	d.Text, d.ReplyJobID, d.Actions, d.NextRuns, d.ListJobs = p.Text, p.JobID, p.Actions, p.NextRuns, p.ListJobs
	d.ListArgs, d.Private, d.Asker, d.ResponseURL = p.ListArgs, p.Private, p.Asker, p.ResponseURL
	switch {
	case p.TargetRef != nil:
		d.Target = *p.TargetRef
		if d.Target.ChannelProfileID == "" {
			d.Target.ChannelProfileID = it.ChannelProfileID
		}
	case it.ChannelProfileID != "" && w.opt.ProfileChannels[it.ChannelProfileID] != "":
		d.Target = store.TargetRef{Channel: w.opt.ProfileChannels[it.ChannelProfileID], ChannelProfileID: it.ChannelProfileID}
	default:
		d.Target = w.opt.DefaultTarget
	}
	return d
}
