package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Options tune a Scheduler. A nil *Options means the defaults.
type Options struct {
	OrchestratorID string
	Logger         *slog.Logger
	// Batch is the most jobs fired in one transaction. Default 5000.
	Batch int
	// FirstBatch is the most jobs the first transaction of a burst fires;
	// each next one fires four times as many, up to Batch, so that the first
	// windows are durable and handed to the worker while the rest commit.
	// Default: the store's choice (store.FireParams).
	FirstBatch int
	// Grace is how late a window may fire and still count as on time;
	// later than that, the job's misfire policy applies. Default 1 minute.
	Grace time.Duration
	// MaxWait is the safety-net wake interval. Default 1 minute.
	MaxWait time.Duration
	// RunTimeout bounds how long a run may stay dispatched or running
	// with no progress. A run that made none for longer (a crashed or
	// hung worker) is marked failed: at its job's next window, which it
	// then no longer blocks, or by a sweep of Run every RunTimeout/4
	// (between 1 and 15 minutes), whether or not the job fires again.
	// Default 1 hour.
	RunTimeout time.Duration
	// DispatchedFunc is called after a commit, once per fired window, with
	// how late it fired; one call at a time. It must not block.
	DispatchedFunc func(j *store.Job, r *store.Run, lateness time.Duration)
	// RecordedFunc is called after a commit for every run record written
	// (dispatched, skipped, missed); one call at a time. It must not block.
	RecordedFunc func(r *store.Run)
	// ArmedFunc is called each time the loop arms its timer, with the
	// instant it will wake at. For tests and benchmarks.
	ArmedFunc func(at time.Time)
}

// Scheduler fires one orchestrator's due jobs by writing trigger items into
// its incoming queue. It never runs an action itself.
type Scheduler struct {
	st   store.Store
	opt  Options
	log  *slog.Logger
	wake chan struct{}

	report sync.Mutex // one dispatcher at a time calls DispatchedFunc and RecordedFunc
}

// New returns a scheduler over st.
func New(st store.Store, opts *Options) *Scheduler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.OrchestratorID == "" {
		o.OrchestratorID = "default"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Batch <= 0 {
		o.Batch = 5000
	}
	if o.Grace <= 0 {
		o.Grace = time.Minute
	}
	if o.MaxWait <= 0 {
		o.MaxWait = time.Minute
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = time.Hour
	}
	return &Scheduler{st: st, opt: o, log: o.Logger.With(slog.String("orchestrator", o.OrchestratorID)), wake: make(chan struct{}, 1)}
}

// Wake makes Run look at the store again. It never blocks.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// scheduledPayload is the payload of every scheduled trigger (QueueAdd
// copies it), encoded once rather than 10,000 times a burst.
var scheduledPayload, _ = json.Marshal(store.TriggerPayload{})

var schedulerActor = store.Actor{Via: store.ViaScheduler, Sender: "schedbot", SenderID: "scheduler"}

// Run fires due jobs until ctx is done. On start it first applies each
// job's misfire policy to windows that passed while schedbot was down.
// Between wakes it sleeps until the earliest nextRunAt (read from the
// store's index, not a scan), at most MaxWait, or until Wake. When the
// store fails (a full disk), Run logs it once and retries after a back-off
// of 1s doubling up to MaxWait, and says when writes work again.
func (s *Scheduler) Run(ctx context.Context) error {
	if err := s.auditLifecycle(ctx, store.AuditSchedulerStarted); err != nil {
		// A full disk at start-up is the back-off's to wait out below, not
		// a reason to stop the daemon.
		s.log.Error("record scheduler start", slog.Any("error", err))
	}
	s.log.Info("scheduler started")
	defer func() {
		// ctx is done by now; the stop event still deserves to be written.
		if err := s.auditLifecycle(context.WithoutCancel(ctx), store.AuditSchedulerStopped); err != nil {
			s.log.Error("record scheduler stop", slog.Any("error", err))
		}
		s.log.Info("scheduler stopped")
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	failing := 0 // rounds in a row whose store access failed
	var swept time.Time
	for {
		if now := time.Now(); now.Sub(swept) >= s.sweepEvery() {
			// A stuck run of a job that never fires again (a once job) is
			// timed out here, not at a window that never comes.
			// A failure is tried again at the next sweep, not every round.
			if err := s.SweepStuck(ctx, now); err != nil && ctx.Err() == nil {
				s.log.Error("time out stuck runs", slog.Any("error", err))
			}
			swept = now
		}
		wait, err := s.round(ctx)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case err != nil:
			// A store error (a full disk, a busy file) is retried after a
			// back-off that grows to MaxWait, said once at error level, so
			// that a failing write neither spins nor floods the log.
			failing++
			wait = min(firstBackoff<<min(failing-1, 20), s.opt.MaxWait)
			if failing == 1 {
				msg := "store writes failing: firing paused, retrying with back-off"
				if errors.Is(err, syscall.ENOSPC) {
					msg = "store's disk is full: firing paused until there is space, retrying with back-off"
				}
				s.log.Error(msg, slog.Any("error", err), slog.Duration("maxBackoff", s.opt.MaxWait))
			} else {
				s.log.Debug("store still failing", slog.Any("error", err), slog.Int("attempts", failing), slog.Duration("retryIn", wait))
			}
		case failing > 0:
			s.log.Info("store writes recovered: firing resumed", slog.Int("failedAttempts", failing))
			failing = 0
		}
		if s.opt.ArmedFunc != nil {
			s.opt.ArmedFunc(time.Now().Add(wait))
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-s.wake:
			// A wake follows a committed change: the store writes again.
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
	}
}

// firstBackoff is the first wait after a failed round; each failure in a
// row doubles it, up to MaxWait.
const firstBackoff = time.Second

// round fires what is due and returns how long to wait for the next window
// (at most MaxWait).
func (s *Scheduler) round(ctx context.Context) (time.Duration, error) {
	fired, err := s.FireDue(ctx, time.Now())
	if err != nil {
		return 0, fmt.Errorf("fire due jobs: %w", err)
	}
	next, err := s.st.NextRun(ctx)
	if err != nil {
		return 0, fmt.Errorf("read next run: %w", err)
	}
	if next.IsZero() {
		return s.opt.MaxWait, nil
	}
	wait := min(max(time.Until(next), 0), s.opt.MaxWait)
	if wait == 0 && fired == 0 {
		// Due, yet none fired: other transactions hold them (changing or
		// firing them). Look again soon, not at once.
		wait = heldRetry
	}
	return wait, nil
}

// heldRetry is how soon a round looks again at due jobs it could not take.
const heldRetry = 50 * time.Millisecond

func (s *Scheduler) auditLifecycle(ctx context.Context, action string) error {
	return s.st.Update(ctx, func(tx store.Tx) error {
		return tx.AuditAppend(&store.AuditEvent{OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor, Action: action})
	})
}

// fired is what one window's dispatch produced, reported after commit.
type fired struct {
	job      *store.Job
	run      *store.Run
	lateness time.Duration
}

// FireDue fires every job due at now and returns how many windows it
// dispatched. The store hands each due job to one transaction
// (store.Store.Fire), so none fires a window twice.
func (s *Scheduler) FireDue(ctx context.Context, now time.Time) (int, error) {
	now = now.UTC()
	total := 0
	for {
		err := s.st.Fire(ctx, store.FireParams{Now: now, Batch: s.opt.Batch, First: s.opt.FirstBatch},
			func() store.Firing { return &firing{s: s, now: now, total: &total} })
		if bad := (*badJobError)(nil); errors.As(err, &bad) {
			if err := s.st.Update(ctx, func(tx store.Tx) error { return s.quarantineJob(tx, now, bad) }); err != nil {
				return total, fmt.Errorf("set aside job %s: %w", bad.job.JobID, err)
			}
			continue // each pass sets one job aside: the loop ends
		}
		return total, err
	}
}

// firing is one transaction of FireDue: what it fired, reported once it
// commits.
type firing struct {
	s       *Scheduler
	now     time.Time
	total   *int // FireDue's count, under s.report
	n       int  // jobs handed to it
	out     []fired
	records []*store.Run
}

func (f *firing) Fire(tx store.Tx, j *store.Job) error {
	f.n++
	fs, recs, err := f.s.fireJob(tx, j, f.now)
	if re := (*store.RecordError)(nil); errors.As(err, &re) {
		// One of this job's records (a run) does not read: the
		// transaction is given up, the job set aside on its own and the
		// burst fired again without it.
		return &badJobError{job: j, rec: re}
	}
	if err != nil {
		return fmt.Errorf("fire job %s: %w", j.JobID, err)
	}
	f.out = append(f.out, fs...)
	f.records = append(f.records, recs...)
	return nil
}

func (f *firing) SetAside(tx store.Tx, re *store.RecordError) error {
	f.n++
	return f.s.quarantine(tx, f.now, re)
}

func (f *firing) Committed() {
	s, ctx := f.s, context.Background()
	if f.n > 0 {
		s.log.Info("triggers due", slog.Int("jobs", f.n), slog.Time("now", f.now))
	}
	logged := s.log.Enabled(ctx, slog.LevelInfo) // a burst is 10k lines; build none unless kept
	s.report.Lock()
	defer s.report.Unlock()
	for _, fd := range f.out {
		if logged {
			s.log.LogAttrs(ctx, slog.LevelInfo, "trigger dispatched", slog.String("jobId", fd.job.JobID), slog.String("executionId", fd.run.ExecutionID),
				slog.Time("scheduledAt", fd.run.ScheduledAt), slog.Float64("latenessSeconds", fd.lateness.Seconds()))
		}
		if s.opt.DispatchedFunc != nil {
			s.opt.DispatchedFunc(fd.job, fd.run, fd.lateness)
		}
	}
	if s.opt.RecordedFunc != nil {
		for _, r := range f.records {
			s.opt.RecordedFunc(r)
		}
	}
	*f.total += len(f.out)
}

// maxCounted bounds how many due windows of a cron job are counted one by
// one; past it the count is reported as "at least".
const maxCounted = 1000

// dueWindows counts the windows from first (a due window) up to now and
// returns the latest of them. An interval's windows are counted by
// arithmetic; other schedules are walked up to maxCounted (capped says
// there were more) and the latest window is then found by bisection. After
// a year down an every-minute job costs about a thousand calls of Next
// inside the write transaction, not half a million.
func dueWindows(sp *Spec, first, now time.Time) (count int, capped bool, last time.Time) {
	if sp.Type == store.ScheduleInterval && sp.Every > 0 && len(sp.Skip) == 0 {
		return intervalWindows(sp, first, now)
	}
	return walkWindows(sp.Next, first, now)
}

func intervalWindows(sp *Spec, first, now time.Time) (int, bool, time.Time) {
	g, ok := sp.Next(first) // back on the grid, should first be off it
	if !ok || g.After(now) {
		return 1, false, first
	}
	last, k := gridFloor(g, now, sp.Every) // windows g, g+Every, … last are due
	if !sp.End.IsZero() && !last.Before(sp.End) {
		// Next said g is before End; no window at or after End counts.
		last, k = gridFloor(g, sp.End.Add(-1), sp.Every)
	}
	return int(k) + 2, false, last
}

func walkWindows(next func(time.Time) (time.Time, bool), first, now time.Time) (int, bool, time.Time) {
	count, last := 1, first
	for {
		t, ok := next(last)
		if !ok || t.After(now) {
			return count, false, last
		}
		if count == maxCounted {
			break
		}
		count++
		last = t
	}
	// More windows than are worth counting. next is monotone, so bisect
	// for the instant lo after which exactly one window is due: next(lo).
	lo, hi := last, now // next(lo) <= now < next(hi)
	for hi.Sub(lo) > 1 {
		mid := lo.Add(hi.Sub(lo) / 2)
		if t, ok := next(mid); ok && !t.After(now) {
			lo = mid
		} else {
			hi = mid
		}
	}
	last, _ = next(lo)
	return count, true, last
}

// fireJob handles one due job in tx: it applies the misfire and overlap
// policies, writes the run record, the trigger item and the audit events,
// and moves the job on to its next window (or disables it); the store
// writes the job's status after.
func (s *Scheduler) fireJob(tx store.Tx, j *store.Job, now time.Time) ([]fired, []*store.Run, error) {
	sp, err := JobSpec(j)
	if err != nil {
		before := j.Clone()
		// A stored job that no longer parses (say, a zone removed from
		// tzdata) is disabled, not retried forever.
		j.State, j.NextRunAt, j.NextRunAtLocal = store.JobDisabled, time.Time{}, ""
		j.LastResult = &store.Result{Status: string(store.RunFailed), Error: err.Error()}
		j.UpdatedAt = now
		return nil, nil, s.audit(tx, now, store.AuditJobDisabled, j, before, "schedule no longer valid: "+err.Error())
	}
	var out []fired
	var records []*store.Run
	first := j.NextRunAt // the first due window of the schedule
	if snooze := j.SnoozeAt; !snooze.IsZero() && !snooze.After(now) {
		// A snooze fires once, late or not, by its own execution id; the
		// job's nextRunAt was it or an earlier window of the schedule.
		f, rec, err := s.dispatchWindow(tx, j, store.SnoozeExecutionID(j.JobID, snooze), snooze, now)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			out = append(out, *f)
		}
		if rec != nil {
			records = append(records, rec)
		}
		j.SnoozeAt = time.Time{}
		if first.Equal(snooze) {
			t, ok := sp.Next(snooze.Add(-time.Nanosecond))
			if !ok || t.After(now) {
				first = time.Time{} // no window of the schedule is due
			} else {
				first = t
			}
		}
	}
	if !first.IsZero() {
		f, recs, err := s.fireWindows(tx, j, sp, first, now)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			out = append(out, *f)
		}
		records = append(records, recs...)
	}
	// Back on the grid: the first window after now, or the snooze before it.
	next, ok := sp.Next(now)
	reason := "no run after this one"
	if j.Remaining < 0 {
		ok, reason = false, "its count of runs is spent"
	}
	if !j.SnoozeAt.IsZero() && (!ok || j.SnoozeAt.Before(next)) {
		next, ok = j.SnoozeAt, true
	}
	if !ok {
		j.State, j.NextRunAt, j.NextRunAtLocal = store.JobDisabled, time.Time{}, ""
	} else {
		j.NextRunAt, j.NextRunAtLocal = next, sp.Local(next)
	}
	j.UpdatedAt = now
	if j.State == store.JobDisabled {
		if !j.EndAt.IsZero() && reason == "no run after this one" {
			reason = "past its end " + j.EndAt.Format(time.RFC3339)
		}
		if err := s.audit(tx, now, store.AuditJobDisabled, j, nil, reason); err != nil {
			return nil, nil, err
		}
	}
	return out, records, nil
}

// fireWindows applies the misfire policy to the schedule's windows due
// from first up to now and dispatches the one it fires, if any.
func (s *Scheduler) fireWindows(tx store.Tx, j *store.Job, sp *Spec, first, now time.Time) (*fired, []*store.Run, error) {
	// Count the windows due: the scheduled one and any later ones up to now.
	count, capped, last := dueWindows(sp, first, now)
	atLeast := ""
	if capped {
		atLeast = "at least "
	}
	onTime := now.Sub(last) <= s.opt.Grace
	var fire time.Time // the window to dispatch; zero: none
	var records []*store.Run
	switch {
	case count == 1 && onTime:
		fire = last
	case j.MisfirePolicy == store.MisfireSkip:
		missed := count
		if onTime {
			fire, missed = last, count-1
		}
		if missed > 0 {
			r := &store.Run{ExecutionID: store.ExecutionID(j.JobID, first), JobID: j.JobID, ScheduledAt: first,
				CompletedAt: now, Status: store.RunMissed, Missed: missed,
				Reason: fmt.Sprintf("skip_missed: %s%d window(s) passed while schedbot was not running", atLeast, missed)}
			if existing, err := tx.RunGet(r.ExecutionID); err == nil && existing.Status != store.RunMissed {
				r = nil // this window was dispatched before; nothing was missed
			} else if err := tx.RunPut(r); err != nil {
				return nil, nil, err
			}
			if r != nil {
				records = append(records, r)
				if err := s.audit(tx, now, store.AuditMisfireRecovered, j, nil, r.Reason); err != nil {
					return nil, nil, err
				}
				s.log.Warn("misfire recovered", slog.String("jobId", j.JobID), slog.String("policy", j.MisfirePolicy), slog.Int("missed", missed))
			}
		}
	default: // fire_once_on_recovery: one fire now for the latest window
		fire = last
		detail := fmt.Sprintf("fire_once_on_recovery: %s%d window(s) due, the latest %s fired %s late", atLeast, count, last.Format(time.RFC3339), now.Sub(last).Round(time.Second))
		if err := s.audit(tx, now, store.AuditMisfireRecovered, j, nil, detail); err != nil {
			return nil, nil, err
		}
		s.log.Warn("misfire recovered", slog.String("jobId", j.JobID), slog.String("policy", store.MisfireFireOnce), slog.Int("due", count))
	}

	var out *fired
	if !fire.IsZero() {
		f, rec, err := s.dispatch(tx, j, fire, now)
		if err != nil {
			return nil, nil, err
		}
		out = f
		if rec != nil {
			records = append(records, rec)
		}
		if f != nil && j.Remaining > 0 {
			// A counted job spends one a dispatched window; spent, it is
			// disabled (fireJob) and says so (-1, as zero is no count).
			if j.Remaining--; j.Remaining == 0 {
				j.Remaining = -1
			}
		}
	}
	return out, records, nil
}

// dispatch writes one window's run record and trigger item, unless the
// window was already dispatched (its executionId exists) or the previous
// run is still going and the job's overlap policy is skip.
func (s *Scheduler) dispatch(tx store.Tx, j *store.Job, window, now time.Time) (*fired, *store.Run, error) {
	return s.dispatchWindow(tx, j, store.ExecutionID(j.JobID, window), window, now)
}

// dispatchWindow is dispatch with the window's execution id given: a
// scheduled window's, or a snooze's (store.SnoozeExecutionID).
func (s *Scheduler) dispatchWindow(tx store.Tx, j *store.Job, execID string, window, now time.Time) (*fired, *store.Run, error) {
	if _, err := tx.RunGet(execID); err == nil {
		return nil, nil, nil // dispatched before (a clock step back); never twice
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, nil, err
	}
	// The job's lastResult follows its latest run (the worker writes both in
	// one transaction), so the overlap check reads the run only when the
	// job says it is still going.
	if last := j.LastResult; j.OverlapPolicy != store.OverlapAllow && last != nil && last.ExecutionID != "" &&
		(last.Status == string(store.RunDispatched) || last.Status == string(store.RunRunning)) {
		going, err := s.stillGoing(tx, j, last.ExecutionID, now)
		if err != nil {
			return nil, nil, err
		}
		if going {
			return s.skipOverlap(tx, j, last, execID, window, now)
		}
	}
	r := &store.Run{ExecutionID: execID, JobID: j.JobID, ScheduledAt: window, DispatchedAt: now, Status: store.RunDispatched}
	if err := tx.RunPut(r); err != nil {
		return nil, nil, err
	}
	item := &store.QueueItem{
		Kind: store.KindTrigger, OrchestratorID: j.OrchestratorID, ChannelProfileID: j.CreatedBy.ChannelProfileID,
		JobID: j.JobID, ExecutionID: execID, ScheduledAt: window, TriggerAt: now, Payload: scheduledPayload,
		CreatedAt: now, UpdatedAt: now,
	}
	if err := tx.QueueAdd(item); err != nil {
		return nil, nil, err
	}
	j.LastRunAt, j.RunCount = now, j.RunCount+1
	j.LastResult = &store.Result{ExecutionID: execID, Status: string(store.RunDispatched)}
	ev := &store.AuditEvent{At: now, OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor,
		Action: store.AuditTriggerDispatched, JobID: j.JobID, ExecutionID: execID,
		Detail: "window " + window.Format(time.RFC3339)}
	if err := tx.AuditAppend(ev); err != nil {
		return nil, nil, err
	}
	return &fired{job: j, run: r, lateness: now.Sub(window)}, r, nil
}

// skipOverlap records window as skipped: the job's previous run is still going.
func (s *Scheduler) skipOverlap(tx store.Tx, j *store.Job, last *store.Result, execID string, window, now time.Time) (*fired, *store.Run, error) {
	r := &store.Run{ExecutionID: execID, JobID: j.JobID, ScheduledAt: window, CompletedAt: now,
		Status: store.RunSkipped, Reason: "previous_still_running"}
	if err := tx.RunPut(r); err != nil {
		return nil, nil, err
	}
	ev := &store.AuditEvent{At: now, OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor,
		Action: store.AuditTriggerSkipped, JobID: j.JobID, ExecutionID: execID,
		Detail: "previous run " + last.ExecutionID + " is still " + last.Status}
	return nil, r, tx.AuditAppend(ev)
}

// stillGoing reports whether the job's latest run, which the job says is
// dispatched or running, still blocks its next window. A run with no
// progress (dispatch or start) for RunTimeout is marked failed, so that a
// crashed or hung worker does not make overlap skip the job forever; the
// job's lastResult then says so.
func (s *Scheduler) stillGoing(tx store.Tx, j *store.Job, execID string, now time.Time) (bool, error) {
	r, err := tx.RunGet(execID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // no worker runs a trigger without its run record
	} else if err != nil {
		return false, err
	}
	if r.Status != store.RunDispatched && r.Status != store.RunRunning {
		return false, nil
	}
	since := r.ScheduledAt
	for _, t := range []time.Time{r.DispatchedAt, r.StartedAt} {
		if t.After(since) {
			since = t
		}
	}
	if now.Sub(since) < s.opt.RunTimeout {
		return true, nil
	}
	msg := fmt.Sprintf("no result %s after it was %s (run timeout %s); it no longer blocks the next window",
		now.Sub(since).Round(time.Second), r.Status, s.opt.RunTimeout)
	r.Status, r.CompletedAt, r.Error = store.RunFailed, now, msg
	if err := tx.RunPut(r); err != nil {
		return false, err
	}
	j.LastResult = &store.Result{ExecutionID: execID, Status: string(store.RunFailed), Error: msg}
	s.log.Warn("run timed out", slog.String("jobId", j.JobID), slog.String("executionId", execID), slog.Duration("since", now.Sub(since)))
	return false, tx.AuditAppend(&store.AuditEvent{At: now, OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor,
		Action: store.AuditTriggerFailed, JobID: j.JobID, ExecutionID: execID, Detail: msg})
}

func (s *Scheduler) audit(tx store.Tx, now time.Time, action string, j *store.Job, before *store.Job, detail string) error {
	ev := &store.AuditEvent{At: now, OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor, Action: action, JobID: j.JobID, Detail: detail}
	if before != nil {
		ev.Before, _ = json.Marshal(before)
		ev.After, _ = json.Marshal(j)
	}
	return tx.AuditAppend(ev)
}

// sweepEvery is how often Run looks for runs stuck past RunTimeout.
func (s *Scheduler) sweepEvery() time.Duration {
	return min(max(s.opt.RunTimeout/4, time.Minute), 15*time.Minute)
}

// SweepStuck marks failed every run that made no progress for RunTimeout
// at now, as a job's next window would, and records on its job that it
// failed. It finds them through the jobs whose lastResult says dispatched
// or running (the worker writes a run and its job's lastResult together),
// deleted jobs included; a job whose run does not read is left to
// `schedbot doctor` and logged.
func (s *Scheduler) SweepStuck(ctx context.Context, now time.Time) error {
	now = now.UTC()
	var stuck []string
	p := &store.JobListParams{States: store.JobStates, Limit: store.MaxListLimit}
	for {
		var page *store.JobPage
		err := s.st.View(ctx, func(tx store.Tx) (err error) {
			page, err = tx.JobList(p)
			return err
		})
		if err != nil {
			return fmt.Errorf("list jobs: %w", err)
		}
		for _, j := range page.Jobs {
			if going(j.LastResult) {
				stuck = append(stuck, j.JobID)
			}
		}
		if page.NextCursor == "" {
			break
		}
		p.Cursor = page.NextCursor
	}
	for _, id := range stuck {
		var failed *store.Run
		err := s.st.Update(ctx, func(tx store.Tx) error {
			failed = nil
			j, err := tx.JobGet(id)
			if err != nil || !going(j.LastResult) {
				return err
			}
			if _, err := s.stillGoing(tx, j, j.LastResult.ExecutionID, now); err != nil {
				return err
			}
			if going(j.LastResult) {
				return nil // not timed out yet
			}
			failed = &store.Run{ExecutionID: j.LastResult.ExecutionID, JobID: id, Status: store.RunFailed, CompletedAt: now}
			j.UpdatedAt = now
			return tx.JobPut(j)
		})
		var re *store.RecordError
		switch {
		case errors.As(err, &re):
			s.log.Error("a stuck run cannot be read; see schedbot doctor", slog.String("jobId", id), slog.Any("error", err))
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return fmt.Errorf("time out the run of job %s: %w", id, err)
		}
		if failed != nil && s.opt.RecordedFunc != nil {
			s.report.Lock()
			s.opt.RecordedFunc(failed)
			s.report.Unlock()
		}
	}
	return nil
}

// going says whether a job's lastResult is a run still dispatched or running.
func going(r *store.Result) bool {
	return r != nil && r.ExecutionID != "" && (r.Status == string(store.RunDispatched) || r.Status == string(store.RunRunning))
}
