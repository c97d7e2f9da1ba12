package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// TestWorker_ATriggerTakenOverMidBatchIsLeftToItsNewHolder: while a
// worker runs a batch of two triggers, another process takes the first
// over (its lease ran out). The batch fails at its commit, and the
// triggers go one by one: the second completes, the first is neither
// completed nor put back by the worker that lost it.
func TestWorker_ATriggerTakenOverMidBatchIsLeftToItsNewHolder(t *testing.T) {
	dsn := pgtest.DSN(t)
	var stores []*postgres.Store
	for _, owner := range []string{"a", "b"} {
		st, err := postgres.Open(t.Context(), dsn, "default", &postgres.Options{Owner: owner, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
	}
	a, b := stores[0], stores[1]
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var execs, items []string
	err := a.Update(t.Context(), func(tx store.Tx) error {
		for i := range 2 {
			id := fmt.Sprintf("01KTAKEOVER000000000000%03d", i)
			j := &store.Job{JobID: id, OrchestratorID: "default", ScheduleType: "cron",
				Schedule: store.Schedule{Cron: "0 9 * * *", Timezone: "UTC"}, State: store.JobPaused,
				TargetAction:  store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "test.block", FunctionArgs: json.RawMessage(`{}`)},
				MisfirePolicy: store.MisfireFireOnce, OverlapPolicy: store.OverlapSkip}
			exec := store.ExecutionID(id, t0)
			if err := tx.JobPut(j); err != nil {
				return err
			}
			if err := tx.RunPut(&store.Run{ExecutionID: exec, JobID: id, ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
				return err
			}
			it := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: id, ExecutionID: exec, CreatedAt: t0}
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
			execs, items = append(execs, exec), append(items, it.ItemID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := functions.NewRegistry(functions.Deps{Store: a, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 100, Functions: []string{"test.*"}}})
	started, open := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	functions.MustRegister(reg, functions.Spec[struct{}]{ID: "test.block", Schema: []byte(`{"type":"object"}`),
		Handle: func(context.Context, *functions.Call, *struct{}) (any, error) {
			if calls.Add(1) == 1 {
				close(started)
				<-open
			}
			return nil, nil
		}})
	w := orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: a, Registry: reg,
		Now: func() time.Time { return t0 }})
	stepErr := make(chan error, 1)
	go func() {
		_, err := w.Step(t.Context())
		stepErr <- err
	}()
	<-started
	// The first trigger's lease has run out: another process takes it.
	var taken []*store.QueueItem
	taken, err = b.Claim(t.Context(), t0.Add(61*time.Second), 1, nil)
	if err != nil || len(taken) != 1 || taken[0].ItemID != items[0] {
		t.Fatalf("the other process took %+v, %v; want the first trigger", taken, err)
	}
	close(open)
	if err := <-stepErr; err == nil {
		t.Error("Step = nil, want the lost trigger's error")
	}
	err = b.View(t.Context(), func(tx store.Tx) error {
		for i, want := range []struct {
			q   store.QueueName
			run store.RunStatus
		}{{store.QueueProcessing, store.RunRunning}, {store.QueueDone, store.RunCompleted}} {
			it, err := tx.QueueGet(items[i])
			if err != nil {
				return err
			}
			r, err := tx.RunGet(execs[i])
			if err != nil {
				return err
			}
			if it.Queue != want.q || r.Status != want.run {
				t.Errorf("trigger %d: item %s, run %s; want %s and %s", i, it.Queue, r.Status, want.q, want.run)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("the action ran %d times, want 4 (the batch, then each trigger alone)", n)
	}
}
