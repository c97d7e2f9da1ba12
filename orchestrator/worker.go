// Package orchestrator is the queue worker of one orchestrator: it claims
// items from incoming into processing, runs triggers (command_invoke and
// workflow_start) and messages, and delivers outgoing items through the
// channel deliverers, retrying with backoff and dead-lettering what cannot
// be delivered.
package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// Deliverer sends outgoing messages on one channel kind (terminal, slack).
type Deliverer interface {
	// Deliver sends d. An error wrapped by Permanent is not retried. A
	// deliverer that can tell it already sent d.ItemID returns nil.
	Deliver(ctx context.Context, d *Delivery) error
}

// Delivery is one outgoing message, its target resolved.
type Delivery struct {
	ItemID         string
	OrchestratorID string
	JobID          string
	ExecutionID    string
	InReplyTo      string // a reply: the message item it answers
	Text           string
	Target         store.TargetRef
	Attempt        int       // 1 for the first try
	Created        time.Time // when the item was queued
	// FirstAttempt is when the first attempt began (zero: not known, as
	// for an item queued by an older schedbot; Created is earlier still).
	FirstAttempt time.Time
	// LastPost is when the channel last had a delivery before this lane
	// began, by any process sharing the store (zero: not known): a channel
	// with a pace keeps it across processes.
	LastPost time.Time
	// For replies: the job they are about, the buttons to offer, and its
	// next runs.
	ReplyJobID string
	Actions    []string
	NextRuns   []time.Time
	ListJobs   []string
	// ListArgs are the schedule.list arguments of a listing, so that a
	// channel that pages it can ask for the next page.
	ListArgs json.RawMessage
	// Private is an answer meant for Asker alone (a listing, a question,
	// a refusal); a channel that can show it to them alone does.
	Private bool
	Asker   string
	// ResponseURL answers a Slack slash command or click where the bot
	// may not be able to post.
	ResponseURL string
}

// PermanentError is a delivery failure that retrying cannot fix.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as not worth retrying.
func Permanent(err error) error { return &PermanentError{Err: err} }

// RetryAfterError is a delivery the channel asked to try again later (a
// rate limit): it is not a failed attempt.
type RetryAfterError struct {
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string { return e.Err.Error() }
func (e *RetryAfterError) Unwrap() error { return e.Err }

// RetryAfter marks err as "try again after d".
func RetryAfter(d time.Duration, err error) error { return &RetryAfterError{After: d, Err: err} }

// Message is the payload of a message item: what a person wrote, and where.
type Message struct {
	Text      string `json:"text"`
	SenderID  string `json:"senderId,omitempty"`
	Sender    string `json:"sender,omitempty"`
	ChannelID string `json:"channelId,omitempty"`
	ThreadTS  string `json:"threadTs,omitempty"`
	MessageTS string `json:"messageTs,omitempty"`
	Timezone  string `json:"timezone,omitempty"`
	Via       string `json:"via,omitempty"`
	// ResponseURL is where a Slack slash command or click is answered.
	ResponseURL string `json:"responseUrl,omitempty"`
}

// MessageHandler turns a person's message into a reply. The worker's
// default executes a message that is a JSON function call and explains
// anything else; Conversations (the selector) replaces it.
type MessageHandler func(ctx context.Context, item *store.QueueItem, m *Message) Reply

// Reply is the answer to a message. A channel that can show buttons offers
// Actions on JobID, and shows NextRuns in each reader's own time.
type Reply struct {
	Text     string      `json:"text"`
	JobID    string      `json:"jobId,omitempty"`
	Actions  []string    `json:"actions,omitempty"` // "pause", "delete"
	NextRuns []time.Time `json:"nextRuns,omitempty"`
	// ListJobs are the jobs of a listing, one per "• " line of Text.
	ListJobs []string        `json:"listJobs,omitempty"`
	ListArgs json.RawMessage `json:"-"`
	// Public is an answer for everyone where it is posted (the
	// confirmation of a change to a job, a question); any other is for
	// the asker.
	Public bool `json:"-"`
	// Call, when set, is what the message asks to do. The worker runs it
	// in the transaction that queues the reply and completes the message,
	// so it happens once; Done then makes the reply from its result (or
	// its error, after a rollback).
	Call *functions.Request     `json:"-"`
	Done func(any, error) Reply `json:"-"`
	// SaveFunc, when set, writes what the conversation remembers (the
	// question asked, the job spoken of) in the transaction that queues
	// the reply, so the next message finds it whichever process takes it.
	SaveFunc func(store.Tx) error `json:"-"`
}

// ReplyPayload is an outgoing reply item's payload: message.post's
// arguments and what a rich channel needs.
type ReplyPayload struct {
	functions.MessagePostArgs
	JobID    string          `json:"jobId,omitempty"`
	Actions  []string        `json:"actions,omitempty"`
	NextRuns []time.Time     `json:"nextRuns,omitempty"`
	ListJobs []string        `json:"listJobs,omitempty"`
	ListArgs json.RawMessage `json:"listArgs,omitempty"`
	Private  bool            `json:"private,omitempty"`
	Asker    string          `json:"asker,omitempty"`
	// ResponseURL answers a slash command or a click.
	ResponseURL string `json:"responseUrl,omitempty"`
}

// Options configure a Worker.
type Options struct {
	OrchestratorID string
	Store          store.Store
	Registry       *functions.Registry
	Workflows      map[string]*config.Workflow
	Deliverers     map[string]Deliverer // by channel kind
	// ProfileChannels maps a channel profile id to its channel kind.
	ProfileChannels map[string]string
	// DefaultTarget is where a message with no target and no profile goes.
	DefaultTarget store.TargetRef
	Messages      MessageHandler
	Logger        *slog.Logger
	Batch         int           // items per transaction; default 256
	MaxAttempts   int           // delivery attempts before dead-letter; default 5
	Backoff       time.Duration // first retry delay, doubling; default 2s
	MaxBackoff    time.Duration // default 5m
	// Poll is the longest an idle loop sleeps: new items wake it (Wake),
	// and waiting items when they become due; default 1m, a safety net.
	Poll     time.Duration
	KeepDone time.Duration // how long done items are kept; default 24h
	// DeliveryTimeout bounds one delivery; an attempt still going then is
	// cancelled and retried. Default 30s.
	DeliveryTimeout time.Duration
	// ShutdownGrace is how long the item in hand may take to finish once
	// Run's context ends, before its context is cancelled too. Default 5s.
	ShutdownGrace time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// RunFunc is called after commit for every run that finished.
	RunFunc func(r *store.Run)
	// DeliveryFailedFunc is called for each failed delivery attempt.
	DeliveryFailedFunc func(channel string, dead bool)
	// DeadFunc is called after commit for each dead-lettered delivery of a
	// job's run, with why, so its owner can hear of it.
	DeadFunc func(it *store.QueueItem, cause error)
}

// Worker runs one orchestrator's queue.
type Worker struct {
	opt         Options
	log         *slog.Logger
	wake        chan struct{} // the processing loop
	wakeDeliver chan struct{} // the delivery loop

	mu    sync.Mutex
	lanes map[string]bool // delivery lanes (one per channel) in flight
	inFly sync.WaitGroup  // their goroutines

	// Messages claimed wait here for the message loop, in order, so that
	// a slow selector (a model taking its time) holds up no trigger.
	msgMu   sync.Mutex
	msgs    []*store.QueueItem
	msgBusy int           // messages claimed and not finished
	msgLoop bool          // Run's message loop is taking them
	wakeMsg chan struct{} // the message loop
}

// NewWorker returns a worker; Run starts it.
func NewWorker(o Options) *Worker {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Batch <= 0 {
		o.Batch = 256
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = time.Minute
	}
	if o.KeepDone <= 0 {
		o.KeepDone = 24 * time.Hour
	}
	if o.DeliveryTimeout <= 0 {
		o.DeliveryTimeout = 30 * time.Second
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.DefaultTarget.Channel == "" {
		o.DefaultTarget.Channel = config.ChannelTerminal
	}
	w := &Worker{opt: o, log: o.Logger.With(slog.String("orchestrator", o.OrchestratorID)),
		wake: make(chan struct{}, 1), wakeDeliver: make(chan struct{}, 1), wakeMsg: make(chan struct{}, 1), lanes: map[string]bool{}}
	if w.opt.Messages == nil {
		w.opt.Messages = w.jsonCallMessages
	}
	return w
}

// Wake makes Run look at the queue now. It never blocks.
func (w *Worker) Wake() {
	for _, c := range []chan struct{}{w.wake, w.wakeDeliver} {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

func (w *Worker) now() time.Time { return w.opt.Now().UTC() }

// Run works the queue until ctx is done: one loop claims incoming items
// and runs triggers, another answers messages (in order, so that a slow
// selector never delays a due job), another delivers outgoing ones, each
// channel on its own lane so that a slow channel holds up neither the
// others nor the runs. It first returns items a crash left in processing
// to incoming. When ctx ends, deliveries in flight are cancelled; the
// items in hand get ShutdownGrace to finish.
func (w *Worker) Run(ctx context.Context) error {
	n, err := w.Recover(ctx)
	if err != nil && ctx.Err() != nil {
		return nil // stopped before it began: a shutdown, not a failure
	} else if err != nil {
		return fmt.Errorf("recover processing items: %w", err)
	}
	if n > 0 {
		w.log.Warn("requeued items left in processing", slog.Int("items", n))
	}
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var wg sync.WaitGroup
	defer wg.Wait()
	stopped := make(chan struct{}) // the processing and message loops have returned
	w.msgMu.Lock()
	w.msgLoop = true
	w.msgMu.Unlock()
	defer func() {
		w.msgMu.Lock()
		w.msgLoop, w.msgs, w.msgBusy = false, nil, 0 // what was not started stays in processing
		w.msgMu.Unlock()
	}()
	wg.Add(2)
	go func() {
		defer wg.Done()
		w.deliverLoop(ctx)
	}()
	go func() { // the grace period of the items in hand
		defer wg.Done()
		select {
		case <-stopped:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(w.opt.ShutdownGrace)
		defer t.Stop()
		select {
		case <-stopped:
		case <-t.C:
			cancelWork()
		}
	}()
	var loops sync.WaitGroup
	loops.Add(1)
	go func() {
		defer loops.Done()
		w.messageLoop(ctx, work)
	}()
	w.processLoop(ctx, work)
	loops.Wait()
	close(stopped)
	return nil
}

// processLoop runs incoming items until ctx is done, each with work (which
// outlives ctx by the grace period).
func (w *Worker) processLoop(ctx, work context.Context) {
	lastPrune := time.Time{}
	timer := time.NewTimer(0)
	defer timer.Stop()
	pace := storePace{log: w.log, loop: "queue"}
	for {
		var wait time.Duration
		n, err := w.processIncoming(work)
		if err != nil {
			err = fmt.Errorf("queue step: %w", err)
			// Whatever the failed commit left in processing goes back to
			// incoming, after a pause, unless messages are in hand (each
			// of those that fails is put back on its own).
			if w.messagesInHand() == 0 {
				if _, rerr := w.requeue(work, w.opt.Backoff); rerr != nil {
					err = errors.Join(err, fmt.Errorf("requeue processing items: %w", rerr))
				}
			}
		}
		if w.now().Sub(lastPrune) > time.Minute {
			if perr := w.prune(work); perr != nil {
				err = errors.Join(err, fmt.Errorf("prune done items: %w", perr))
			}
			lastPrune = w.now()
		}
		if ctx.Err() != nil {
			return
		}
		if n > 0 && err == nil {
			pace.after(nil, 0)
			continue
		}
		if err == nil {
			wait, err = w.idle(work, store.QueueIncoming)
		}
		wait = pace.after(err, wait)
		if !sleep(ctx, timer, wait, w.wake) {
			return
		}
	}
}

// messageLoop answers the claimed messages one at a time, in the order
// they were claimed, each with work (which outlives ctx by the grace
// period). Those not started when ctx ends stay in processing, where the
// next start (or, on a shared database, another process) finds them.
func (w *Worker) messageLoop(ctx, work context.Context) {
	for {
		w.msgMu.Lock()
		var it *store.QueueItem
		if len(w.msgs) > 0 && ctx.Err() == nil {
			it, w.msgs = w.msgs[0], w.msgs[1:]
		}
		w.msgMu.Unlock()
		if it != nil {
			w.handleMessage(work, it)
			w.doneMessage()
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wakeMsg:
		}
	}
}

// takeMessage hands a claimed message to the message loop; without one
// (Step), the caller answers it itself. It reports whether it was taken.
func (w *Worker) takeMessage(it *store.QueueItem) bool {
	w.msgMu.Lock()
	defer w.msgMu.Unlock()
	if !w.msgLoop {
		return false
	}
	w.msgs = append(w.msgs, it)
	w.msgBusy++
	select {
	case w.wakeMsg <- struct{}{}:
	default:
	}
	return true
}

func (w *Worker) doneMessage() {
	w.msgMu.Lock()
	w.msgBusy--
	w.msgMu.Unlock()
}

// messagesInHand counts the messages claimed and not yet finished.
func (w *Worker) messagesInHand() int {
	w.msgMu.Lock()
	defer w.msgMu.Unlock()
	return w.msgBusy
}

// idle is how long a loop with nothing to do may sleep: until the next
// waiting item of q is due, at most Poll.
func (w *Worker) idle(ctx context.Context, q store.QueueName) (time.Duration, error) {
	at, err := w.opt.Store.NextItem(ctx, q, w.now())
	if err != nil || at.IsZero() {
		return w.opt.Poll, err
	}
	return min(max(at.Sub(w.now()), time.Millisecond), w.opt.Poll), nil
}

// A failing store is retried after firstStoreBackoff, doubling up to
// maxStoreBackoff.
const (
	firstStoreBackoff = time.Second
	maxStoreBackoff   = time.Minute
)

// storePace paces a loop whose store access fails (a full disk), as the
// scheduler does: a wait that doubles from the loop's poll up to
// maxStoreBackoff, so that a failing write neither spins nor floods the
// log; the first failure is said at error level, the next ones at debug,
// and the recovery once.
type storePace struct {
	log     *slog.Logger
	loop    string // "queue", "delivery"
	failing int    // rounds in a row that failed
}

// after notes how a round went and returns how long to wait before the
// next: poll after a good one, a growing back-off after a failed one.
func (p *storePace) after(err error, poll time.Duration) time.Duration {
	if err == nil {
		if p.failing > 0 {
			p.log.Info("store writes recovered: "+p.loop+" resumed", slog.Int("failedAttempts", p.failing))
			p.failing = 0
		}
		return poll
	}
	p.failing++
	wait := min(firstStoreBackoff<<min(p.failing-1, 20), maxStoreBackoff)
	if p.failing > 1 {
		p.log.Debug("store still failing", slog.String("loop", p.loop), slog.Any("error", err),
			slog.Int("attempts", p.failing), slog.Duration("retryIn", wait))
		return wait
	}
	msg := "store writes failing: " + p.loop + " paused, retrying with back-off"
	if errors.Is(err, syscall.ENOSPC) {
		msg = "store's disk is full: " + p.loop + " paused until there is space, retrying with back-off"
	}
	p.log.Error(msg, slog.Any("error", err), slog.Duration("maxBackoff", maxStoreBackoff))
	return wait
}

// sleep waits for d, a wake-up or the end of ctx (false).
func sleep(ctx context.Context, timer *time.Timer, d time.Duration, wake <-chan struct{}) bool {
	timer.Reset(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
	case <-wake:
	}
	return true
}

// Recover moves items left in processing back to incoming: those a crash
// left, and those whose claim has lapsed.
func (w *Worker) Recover(ctx context.Context) (int, error) {
	return w.requeue(ctx, 0)
}

// requeue moves the abandoned items in processing back to incoming, due
// after delay. Only call it when no item is in hand.
func (w *Worker) requeue(ctx context.Context, delay time.Duration) (int, error) {
	var due time.Time
	if delay > 0 {
		due = w.now().Add(delay)
	}
	return w.opt.Store.Requeue(ctx, w.now(), due)
}

// putBack returns one item whose commit failed to incoming, to be tried
// again after a growing delay. When even that fails, the processing loop's
// requeue after the failed step catches it.
func (w *Worker) putBack(ctx context.Context, it *store.QueueItem, cause error) {
	back := *it
	back.Attempts++
	back.Queue, back.UpdatedAt, back.LastError = store.QueueIncoming, w.now(), truncate(cause.Error(), 500)
	back.NotBefore = w.now().Add(w.backoff(back.Attempts))
	err := w.opt.Store.Update(ctx, func(tx store.Tx) error { return tx.QueuePut(&back) })
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		w.log.Warn("item taken over by another process", slog.String("itemId", it.ItemID))
	case err != nil:
		w.log.Error("put item back in incoming", slog.String("itemId", it.ItemID), slog.Any("error", err))
	}
}

// Step claims and runs one batch of incoming items, then delivers one batch
// of outgoing ones. busy says whether there was anything to do.
// Unlike Run, it waits for the deliveries it starts.
func (w *Worker) Step(ctx context.Context) (busy bool, err error) {
	n, err := w.processIncoming(ctx)
	if err != nil {
		return n > 0, err
	}
	m, err := w.deliverOutgoing(ctx)
	w.inFly.Wait()
	return n+m > 0, err
}

// processIncoming claims a batch (marking trigger runs running in the same
// transaction) and runs it: triggers together in one transaction, falling
// back to one transaction each when any of them fails; messages go to the
// message loop (under Step, one by one here).
func (w *Worker) processIncoming(ctx context.Context) (int, error) {
	items, err := w.opt.Store.Claim(ctx, w.now(), w.opt.Batch, func(tx store.Tx, items []*store.QueueItem) error {
		for _, it := range items {
			if it.Kind == store.KindTrigger {
				if err := w.markRunning(tx, it); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil || len(items) == 0 {
		return 0, err
	}
	var triggers []*store.QueueItem
	var errs []error
	for _, it := range items {
		switch it.Kind {
		case store.KindTrigger:
			triggers = append(triggers, it)
		case store.KindMessage:
			if !w.takeMessage(it) {
				errs = append(errs, w.handleMessage(ctx, it))
			}
		default:
			w.finishUnknown(ctx, it)
		}
	}
	errs = append(errs, w.runTriggers(ctx, triggers))
	return len(items), errors.Join(errs...)
}

func (w *Worker) markRunning(tx store.Tx, it *store.QueueItem) error {
	r, err := tx.RunGet(it.ExecutionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // handled (and failed) when the trigger runs
	} else if err != nil {
		return err
	}
	if r.Status != store.RunDispatched {
		return nil
	}
	r.Status, r.StartedAt = store.RunRunning, w.now()
	return tx.RunPut(r)
}

// finished is a trigger's outcome, reported after commit.
type finished struct {
	item *store.QueueItem
	run  *store.Run
}

func (w *Worker) runTriggers(ctx context.Context, items []*store.QueueItem) error {
	if len(items) == 0 {
		return nil
	}
	var done []finished
	err := w.opt.Store.Complete(ctx, items, func(tx store.Tx, it *store.QueueItem) error {
		f, err := w.runTrigger(ctx, tx, it)
		if err == nil {
			done = append(done, f)
		}
		return err
	})
	if err == nil {
		w.after(done)
		return nil
	}
	// One of them failed and the batch rolled back: one transaction each,
	// so the others still complete and the failure is recorded alone.
	var errs []error
	for _, it := range items {
		var f finished
		err := w.opt.Store.Update(ctx, func(tx store.Tx) (err error) {
			f, err = w.runTrigger(ctx, tx, it)
			return err
		})
		var ae *actionError
		if errors.As(err, &ae) {
			err = w.opt.Store.Update(ctx, func(tx store.Tx) (err error) {
				f, err = w.failTrigger(tx, it, ae.err)
				return err
			})
		}
		if err != nil {
			// The store failed: this one goes back to incoming, the
			// others still run.
			err = fmt.Errorf("trigger %s: %w", it.ItemID, err)
			errs = append(errs, err)
			w.putBack(ctx, it, err)
			continue
		}
		w.after([]finished{f})
	}
	return errors.Join(errs...)
}

func (w *Worker) after(done []finished) {
	changed := false
	for _, f := range done {
		if f.run == nil {
			continue
		}
		changed = true
		attrs := []any{slog.String("jobId", f.run.JobID), slog.String("executionId", f.run.ExecutionID), slog.String("status", string(f.run.Status))}
		if f.run.Status == store.RunFailed {
			w.log.Warn("trigger failed", append(attrs, slog.String("error", f.run.Error))...)
		} else {
			w.log.Info("trigger completed", attrs...)
		}
		if w.opt.RunFunc != nil {
			w.opt.RunFunc(f.run)
		}
	}
	if changed {
		w.opt.Registry.NotifyChanged()
		w.Wake() // outgoing items may be waiting
	}
}

// actionError is a failure of a job's action (as opposed to the store):
// the transaction is rolled back and the run recorded as failed.
type actionError struct{ err error }

func (e *actionError) Error() string { return e.err.Error() }

var workerActor = store.Actor{Via: store.ViaScheduler, Sender: "schedbot", SenderID: "scheduler"}

// runTrigger runs one trigger in tx: the action, the run's completion, the
// job's lastResult and the item's move to done commit together.
func (w *Worker) runTrigger(ctx context.Context, tx store.Tx, it *store.QueueItem) (finished, error) {
	run, err := tx.RunGet(it.ExecutionID)
	if errors.Is(err, store.ErrNotFound) {
		return w.dropItem(tx, it, "no run record for execution "+it.ExecutionID)
	} else if err != nil {
		return finished{}, err
	}
	if run.Status != store.RunDispatched && run.Status != store.RunRunning {
		// Already ran (a redelivered trigger): never twice.
		return w.dropItem(tx, it, fmt.Sprintf("duplicate trigger: run %s is already %s", run.ExecutionID, run.Status))
	}
	job, err := tx.JobGet(it.JobID)
	if err != nil {
		return finished{}, &actionError{fmt.Errorf("load job %s: %w", it.JobID, err)}
	}
	if job.State == store.JobDeleted {
		return finished{}, &actionError{fmt.Errorf("job %s was deleted before this run started", job.JobID)}
	}
	if err := w.execute(ctx, tx, job, run, it); err != nil {
		return finished{}, &actionError{err}
	}
	t := w.now()
	run.Status, run.CompletedAt = store.RunCompleted, t
	if run.StartedAt.IsZero() {
		run.StartedAt = t
	}
	return finished{item: it, run: run}, w.complete(tx, it, run, job)
}

func (w *Worker) failTrigger(tx store.Tx, it *store.QueueItem, cause error) (finished, error) {
	run, err := tx.RunGet(it.ExecutionID)
	if err != nil {
		return finished{}, err
	}
	t := w.now()
	run.Status, run.CompletedAt, run.Error = store.RunFailed, t, cause.Error()
	if run.StartedAt.IsZero() {
		run.StartedAt = t
	}
	job, err := tx.JobGet(it.JobID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return finished{}, err
	}
	it.LastError = cause.Error()
	if err := w.complete(tx, it, run, job); err != nil {
		return finished{}, err
	}
	ev := &store.AuditEvent{At: t, OrchestratorID: w.opt.OrchestratorID, Actor: workerActor, Action: store.AuditTriggerFailed,
		JobID: it.JobID, ExecutionID: it.ExecutionID, Detail: truncate(cause.Error(), 500)}
	return finished{item: it, run: run}, tx.AuditAppend(ev)
}

// complete writes a finished run, the job's lastResult when this run is
// its latest, and moves the item to done.
func (w *Worker) complete(tx store.Tx, it *store.QueueItem, run *store.Run, job *store.Job) error {
	if err := tx.RunPut(run); err != nil {
		return err
	}
	if job != nil && job.LastResult != nil && job.LastResult.ExecutionID == run.ExecutionID {
		job.LastResult = &store.Result{ExecutionID: run.ExecutionID, Status: string(run.Status), Error: run.Error}
		if err := tx.JobPut(job); err != nil {
			return err
		}
	}
	it.Queue, it.UpdatedAt = store.QueueDone, w.now()
	return tx.QueuePut(it)
}

func (w *Worker) dropItem(tx store.Tx, it *store.QueueItem, why string) (finished, error) {
	it.Queue, it.UpdatedAt, it.LastError = store.QueueDone, w.now(), why
	if err := tx.QueuePut(it); err != nil {
		return finished{}, err
	}
	w.log.Warn("trigger dropped", slog.String("executionId", it.ExecutionID), slog.String("reason", why))
	return finished{item: it}, tx.AuditAppend(&store.AuditEvent{OrchestratorID: w.opt.OrchestratorID, Actor: workerActor,
		Action: store.AuditTriggerDuplicate, JobID: it.JobID, ExecutionID: it.ExecutionID, Detail: why})
}

// execute runs a job's action in tx. A panicking function is an error.
func (w *Worker) execute(ctx context.Context, tx store.Tx, job *store.Job, run *store.Run, it *store.QueueItem) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("function panicked: %v", r)
		}
	}()
	actor := workerActor
	actor.ChannelProfileID = job.CreatedBy.ChannelProfileID
	origin := &functions.Origin{JobID: job.JobID, ExecutionID: run.ExecutionID, TargetRef: job.TargetRef,
		ProfileID: job.CreatedBy.ChannelProfileID, CreatorID: job.CreatedBy.SenderID,
		CreatorName: job.CreatedBy.Sender, CreatorChannelID: job.CreatedBy.ChannelID}
	a := job.TargetAction
	switch a.Type {
	case store.ActionCommandInvoke:
		_, err := w.opt.Registry.CallTx(ctx, tx, functions.Request{Function: a.FunctionID, Args: a.FunctionArgs, Actor: actor, Origin: origin})
		if err != nil {
			return fmt.Errorf("%s: %w", a.FunctionID, err)
		}
		return nil
	case store.ActionWorkflowStart:
		wf := w.opt.Workflows[a.WorkflowID]
		if wf == nil {
			return fmt.Errorf("no workflow %q in orchestrator %q", a.WorkflowID, w.opt.OrchestratorID)
		}
		data := templateData(job, run, it)
		for i, step := range wf.Steps {
			args, err := render(step.Args, data)
			if err != nil {
				return fmt.Errorf("workflow %s step %d (%s): %w", a.WorkflowID, i+1, step.Function, err)
			}
			raw, err := json.Marshal(args)
			if err != nil {
				return fmt.Errorf("workflow %s step %d (%s): %w", a.WorkflowID, i+1, step.Function, err)
			}
			if _, err := w.opt.Registry.CallTx(ctx, tx, functions.Request{Function: step.Function, Args: raw, Actor: actor, Origin: origin}); err != nil {
				return fmt.Errorf("workflow %s step %d (%s): %w", a.WorkflowID, i+1, step.Function, err)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown action type %q", a.Type)
}

func (w *Worker) finishUnknown(ctx context.Context, it *store.QueueItem) {
	err := w.opt.Store.Update(ctx, func(tx store.Tx) error {
		it.Queue, it.LastError = store.QueueDead, fmt.Sprintf("unknown item kind %q", it.Kind)
		return tx.QueuePut(it)
	})
	if err != nil {
		w.log.Error("dead-letter item", slog.String("itemId", it.ItemID), slog.Any("error", err))
	}
}

// prune deletes done items older than KeepDone, 5000 a transaction.
func (w *Worker) prune(ctx context.Context) error {
	p := &store.PruneParams{What: store.PruneQueue, Before: w.now().Add(-w.opt.KeepDone), Limit: 5000}
	for {
		n, err := w.opt.Store.Prune(ctx, p)
		if err != nil || n < p.Limit {
			return err
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
