package bolt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

func openPrep(t *testing.T, opts *bolt.Options) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(filepath.Join(t.TempDir(), "store.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dueJob(id string) *store.Job {
	return &store.Job{JobID: id, OrchestratorID: "default", ScheduleType: store.ScheduleOnce, Name: "name-" + id,
		Schedule: store.Schedule{RunAt: t0, Timezone: "UTC"}, State: store.JobEnabled, NextRunAt: t0,
		TargetAction: store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post", FunctionArgs: json.RawMessage(`{"text":"x"}`)}}
}

func putDue(t *testing.T, s store.Store, ids ...string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for _, id := range ids {
			if err := tx.JobPut(dueJob(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fire is what the scheduler writes for one due job: its run, its trigger,
// its status moved on, an audit event.
func fire(tx store.Tx, j *store.Job) error {
	exec := store.ExecutionID(j.JobID, t0)
	if _, err := tx.RunGet(exec); !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %s: %v", exec, err)
	}
	if err := tx.RunPut(&store.Run{ExecutionID: exec, JobID: j.JobID, ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
		return err
	}
	if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID, ExecutionID: exec}); err != nil {
		return err
	}
	j.State, j.NextRunAt, j.RunCount = store.JobDisabled, time.Time{}, 1
	if err := tx.JobStatusPut(j); err != nil {
		return err
	}
	return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditTriggerDispatched, JobID: j.JobID, ExecutionID: exec})
}

func prepareFire(t *testing.T, s *bolt.Store, limit int) (store.Prepared, []string) {
	t.Helper()
	var ids []string
	p, err := s.Prepare(context.Background(), func(tx store.Tx) error {
		return tx.JobsDue(t0, limit, func(j *store.Job) error {
			ids = append(ids, j.JobID)
			return fire(tx, j)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, ids
}

func apply(t *testing.T, s store.Store, p store.Prepared) bool {
	t.Helper()
	var ok bool
	if err := s.Update(context.Background(), func(tx store.Tx) (err error) { ok, err = p.Apply(tx); return err }); err != nil {
		t.Fatal(err)
	}
	p.Discard()
	return ok
}

// snapshot is what a store holds of the records fire writes, audit
// events without the instant they were applied at.
func snapshot(t *testing.T, s store.Store, ids ...string) string {
	t.Helper()
	var out []any
	err := s.View(context.Background(), func(tx store.Tx) error {
		for _, id := range ids {
			j, err := tx.JobGet(id)
			if err != nil {
				return err
			}
			rs, err := tx.RunList(id, 10)
			if err != nil {
				return err
			}
			out = append(out, j, rs)
		}
		items, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming})
		if err != nil {
			return err
		}
		for _, it := range items {
			it.ItemID, it.CreatedAt, it.UpdatedAt = "", time.Time{}, time.Time{}
		}
		evs, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			ev.Hash, ev.PrevHash = "", ""
		}
		n, err := tx.AuditVerify()
		out = append(out, items, evs, n, err)
		due, ok, err := tx.JobNextRunAt()
		out = append(out, due, ok)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(out, "", " ")
	return string(b)
}

// TestPrepare_AppliedWritesWhatTheTransactionWouldHave: a prepared fire
// writes nothing until applied, then the same records as the same work
// done in the write transaction: runs, triggers, statuses with their
// indexes, and audit events chained (and sealed under a key) in place.
func TestPrepare_AppliedWritesWhatTheTransactionWouldHave(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("audit key")} {
		t.Run(fmt.Sprintf("key=%t", key != nil), func(t *testing.T) {
			direct, prep := openPrep(t, &bolt.Options{AuditKey: key}), openPrep(t, &bolt.Options{AuditKey: key})
			ids := []string{"j1", "j2", "j3"}
			putDue(t, direct, ids...)
			putDue(t, prep, ids...)
			err := direct.Update(context.Background(), func(tx store.Tx) error {
				return tx.JobsDue(t0, 10, func(j *store.Job) error { return fire(tx, j) })
			})
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, prep, ids...)
			p, got := prepareFire(t, prep, 10)
			if len(got) != 3 {
				t.Fatalf("prepared %v", got)
			}
			if snapshot(t, prep, ids...) != before {
				t.Fatal("a prepared transaction wrote before it was applied")
			}
			if !apply(t, prep, p) {
				t.Fatal("Apply = false with nothing changed")
			}
			if d := cmp.Diff(snapshot(t, direct, ids...), snapshot(t, prep, ids...)); d != "" {
				t.Errorf("applied differs from written in place (-direct +prepared):\n%s", d)
			}
		})
	}
}

// TestPrepare_ApplyWritesNothingWhenWhatItReadChanged: a job changed, or a
// run it found absent written, after the prepare and before the apply:
// Apply writes nothing and says so.
func TestPrepare_ApplyWritesNothingWhenWhatItReadChanged(t *testing.T) {
	for name, change := range map[string]func(tx store.Tx) error{
		"job paused": func(tx store.Tx) error {
			j, err := tx.JobGet("j2")
			if err != nil {
				return err
			}
			j.State = store.JobPaused
			return tx.JobPut(j)
		},
		"run written": func(tx store.Tx) error {
			return tx.RunPut(&store.Run{ExecutionID: store.ExecutionID("j1", t0), JobID: "j1", ScheduledAt: t0, Status: store.RunSkipped})
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := openPrep(t, nil)
			putDue(t, s, "j1", "j2")
			p, _ := prepareFire(t, s, 10)
			if err := s.Update(context.Background(), change); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, s, "j1", "j2")
			if apply(t, s, p) {
				t.Fatal("Apply = true over a change")
			}
			if snapshot(t, s, "j1", "j2") != before {
				t.Error("a refused Apply wrote")
			}
		})
	}
}

// TestPrepare_JobsDuePassesOverPreparedJobsUntilDiscarded: a second
// prepared transaction does not take the jobs a first one fires: not
// before the first is applied, not while the transaction applying it has
// yet to commit (another reader still sees them due), and takes them
// again once the first is discarded unapplied.
func TestPrepare_JobsDuePassesOverPreparedJobsUntilDiscarded(t *testing.T) {
	s := openPrep(t, nil)
	putDue(t, s, "j1", "j2", "j3")
	p1, first := prepareFire(t, s, 2)
	p2, second := prepareFire(t, s, 2)
	if fmt.Sprint(first, second) != "[j1 j2] [j3]" {
		t.Fatalf("prepared %v then %v, want [j1 j2] then [j3]", first, second)
	}
	p2.Discard()
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if ok, err := p1.Apply(tx); !ok || err != nil {
			return fmt.Errorf("Apply = %t, %v", ok, err)
		}
		// Not committed yet: a reader beside this transaction sees j1
		// and j2 due still.
		done := make(chan []string)
		go func() {
			p, ids := prepareFire(t, s, 10)
			p.Discard()
			done <- ids
		}()
		if ids := <-done; fmt.Sprint(ids) != "[j3]" {
			return fmt.Errorf("prepared beside the applying transaction: %v, want [j3]", ids)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p1.Discard()
	p3, third := prepareFire(t, s, 10)
	p3.Discard()
	if fmt.Sprint(third) != "[j3]" {
		t.Errorf("after the apply: %v, want [j3]", third)
	}
}

// TestPrepare_AWriteItCannotKeepFailsIt: a prepared transaction keeps
// only the writes a burst makes; another fails it, and nothing is kept.
func TestPrepare_AWriteItCannotKeepFailsIt(t *testing.T) {
	s := openPrep(t, nil)
	putDue(t, s, "j1")
	_, err := s.Prepare(context.Background(), func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, Queue: store.QueueOutgoing, OrchestratorID: "default"})
	})
	if err == nil {
		t.Error("an outgoing item was kept")
	}
	_, err = s.Prepare(context.Background(), func(tx store.Tx) error { return tx.JobQuarantine("j1") })
	if err == nil {
		t.Error("a quarantine was kept")
	}
	p, ids := prepareFire(t, s, 10)
	p.Discard()
	if fmt.Sprint(ids) != "[j1]" {
		t.Errorf("after the failed prepares: %v due, want [j1]", ids)
	}
}
