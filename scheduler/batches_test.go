package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

func TestFireDue_ManyJobsInBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		at := time.Now().Add(time.Hour).Truncate(time.Minute)
		err := st.Update(t.Context(), func(tx store.Tx) error {
			for i := range 2500 {
				j := &store.Job{JobID: fmt.Sprintf("01K%023d", i), OrchestratorID: "default", ScheduleType: "once",
					Schedule: store.Schedule{RunAt: at, Timezone: "UTC"}, State: store.JobEnabled, NextRunAt: at,
					TargetAction:  store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post", FunctionArgs: json.RawMessage(`{"text":"x"}`)},
					MisfirePolicy: store.MisfireFireOnce, OverlapPolicy: store.OverlapSkip}
				if err := tx.JobPut(j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n, err := scheduler.New(st, &scheduler.Options{Batch: 1000}).FireDue(t.Context(), at)
		if err != nil || n != 2500 {
			t.Fatalf("FireDue = %d, %v", n, err)
		}
		if got := len(triggers(t, st)); got != 2500 {
			t.Errorf("%d triggers", got)
		}
	})
}

// parallelStore is a store that asks for n dispatchers. The first n
// transactions wait for each other (a second, at most): they meet only if
// they run at once.
type parallelStore struct {
	store.Store
	n      int
	mu     sync.Mutex
	came   int
	all    chan struct{}
	missed bool
}

func (p *parallelStore) ParallelWrites(context.Context) (all, mine int) { return p.n, p.n }

func (p *parallelStore) DueCount(ctx context.Context, t time.Time) (n int, err error) {
	err = p.Store.View(ctx, func(tx store.Tx) error {
		return tx.JobsDue(t, math.MaxInt32, func(*store.Job) error { n++; return nil })
	})
	return n, err
}

func (p *parallelStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	p.mu.Lock()
	p.came++
	first := p.came <= p.n
	if p.came == p.n {
		close(p.all)
	}
	p.mu.Unlock()
	if first {
		select {
		case <-p.all:
		case <-time.After(time.Second):
			p.mu.Lock()
			p.missed = true
			p.mu.Unlock()
		}
	}
	return p.Store.Update(ctx, fn)
}

// createOnceJobs creates n one-time jobs that post at at.
func createOnceJobs(t *testing.T, reg *functions.Registry, n int, at time.Time) {
	t.Helper()
	for range n {
		mustCreate(t, reg, fmt.Sprintf(`{"scheduleType":"once","schedule":{"runAt":%q},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`, at.Format(time.RFC3339)))
	}
}

// TestFireDue_SeveralDispatchersFireEachWindowOnce: a burst is fired by as
// many transactions at once as the store asks for, every due window once,
// and the callbacks are called one at a time (they append without a lock:
// -race says if not).
func TestFireDue_SeveralDispatchersFireEachWindowOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		at := time.Now().Add(time.Hour).Truncate(time.Minute)
		reg := registry(st, nil)
		createOnceJobs(t, reg, 60, at)
		var fired []string
		var recorded int
		ps := &parallelStore{Store: st, n: 3, all: make(chan struct{})}
		s := scheduler.New(ps, &scheduler.Options{Batch: 7,
			DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) { fired = append(fired, j.JobID) },
			RecordedFunc:   func(*store.Run) { recorded++ }})
		n, err := s.FireDue(t.Context(), at)
		if err != nil || n != 60 {
			t.Fatalf("FireDue = %d, %v; want 60 fired", n, err)
		}
		if ps.missed {
			t.Error("the dispatchers' first transactions did not run at once")
		}
		slices.Sort(fired)
		distinct := len(slices.Compact(slices.Clone(fired)))
		if len(fired) != 60 || distinct != 60 || recorded != 60 || len(triggers(t, st)) != 60 {
			t.Errorf("%d windows fired (%d jobs), %d runs recorded, %d triggers; want 60 of each",
				len(fired), distinct, recorded, len(triggers(t, st)))
		}
	})
}

// sizedStore records how many due jobs each of its write transactions
// was handed.
type sizedStore struct {
	*parallelStore
	mu    sync.Mutex
	sizes []int
}

func (s *sizedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	n := 0
	err := s.parallelStore.Update(ctx, func(tx store.Tx) error { n = 0; return fn(&sizedTx{Tx: tx, n: &n}) })
	if err == nil && n > 0 {
		s.mu.Lock()
		s.sizes = append(s.sizes, n)
		s.mu.Unlock()
	}
	return err
}

type sizedTx struct {
	store.Tx
	n *int
}

func (t *sizedTx) JobsDue(at time.Time, limit int, fn func(*store.Job) error) error {
	return t.Tx.JobsDue(at, limit, func(j *store.Job) error { *t.n++; return fn(j) })
}

// TestFireDue_ABurstIsSplitEvenlyBetweenDispatchers: 12 due jobs, two
// dispatchers, at most 4 a transaction: four transactions of 3, not three
// of 4 with one dispatcher firing two of them while the other waits.
func TestFireDue_ABurstIsSplitEvenlyBetweenDispatchers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		at := time.Now().Add(time.Hour).Truncate(time.Minute)
		reg := registry(st, nil)
		createOnceJobs(t, reg, 12, at)
		ss := &sizedStore{parallelStore: &parallelStore{Store: st, n: 2, all: make(chan struct{})}}
		n, err := scheduler.New(ss, &scheduler.Options{Batch: 4}).FireDue(t.Context(), at)
		if err != nil || n != 12 {
			t.Fatalf("FireDue = %d, %v; want 12 fired", n, err)
		}
		if want := []int{3, 3, 3, 3}; !slices.Equal(ss.sizes, want) {
			t.Errorf("transactions fired %v jobs, want %v", ss.sizes, want)
		}
	})
}

// failingStore makes the nth QueueAdd of an Update fail, as a full disk would.
type failingStore struct {
	store.Store
	n int
}

type failingTx struct {
	store.Tx
	left *int
}

func (f *failingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	left := f.n
	return f.Store.Update(ctx, func(tx store.Tx) error { return fn(&failingTx{Tx: tx, left: &left}) })
}

var errDiskFull = errors.New("no space left on device")

func (t *failingTx) QueueAdd(it *store.QueueItem) error {
	if *t.left--; *t.left <= 0 {
		return errDiskFull
	}
	return t.Tx.QueueAdd(it)
}

func TestFireDue_FailureLeavesNoPartialState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		reg := registry(st, nil)
		var jobs []*store.Job
		for range 3 {
			jobs = append(jobs, mustCreate(t, reg, cronJob("* * * * *", "UTC", "")))
		}
		at := jobs[0].NextRunAt
		var before []*store.AuditEvent
		st.View(t.Context(), func(tx store.Tx) (err error) { before, err = tx.AuditList(nil); return })
		_, err := scheduler.New(&failingStore{Store: st, n: 3}, nil).FireDue(t.Context(), at)
		if !errors.Is(err, errDiskFull) {
			t.Fatalf("FireDue = %v, want the disk error", err)
		}
		requireTriggers(t, st)
		for _, j := range jobs {
			if len(runs(t, st, j.JobID)) != 0 || !getJob(t, st, j.JobID).NextRunAt.Equal(at) {
				t.Errorf("job %s changed by a failed transaction", j.JobID)
			}
		}
		var after []*store.AuditEvent
		st.View(t.Context(), func(tx store.Tx) (err error) { after, err = tx.AuditList(nil); return })
		if len(after) != len(before) {
			t.Errorf("%d audit events written by a failed transaction", len(after)-len(before))
		}
		// The loop carries on: once the disk has room, the window fires.
		var fired atomic.Int32
		s := scheduler.New(st, &scheduler.Options{DispatchedFunc: func(*store.Job, *store.Run, time.Duration) { fired.Add(1) }})
		if n, err := s.FireDue(t.Context(), at); err != nil || n != 3 || fired.Load() != 3 {
			t.Errorf("retry: %d, %v (callbacks %d)", n, err, fired.Load())
		}
	})
}
