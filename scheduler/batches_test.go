package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/storetest"
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

func (t *failingTx) Unwrap() store.Tx { return t.Tx }

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
		_, err := scheduler.New(storetest.Through(&failingStore{Store: st, n: 3}), nil).FireDue(t.Context(), at)
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
