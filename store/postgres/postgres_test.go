package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func mustOpen(t *testing.T, dsn, orch string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dsn, orch, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var orchSeq atomic.Int64

// TestStore runs the conformance suite. Each store is a new orchestrator
// in one database: empty because every query is scoped to it.
func TestStore(t *testing.T) {
	dsn := pgtest.DSN(t)
	storetest.Exercise(t, func(t *testing.T) store.Store {
		return mustOpen(t, dsn, fmt.Sprintf("orch%d", orchSeq.Add(1)))
	})
}

func TestClosedStoreSaysSo(t *testing.T) {
	s := mustOpen(t, pgtest.DSN(t), "a")
	s.Close()
	if err := s.View(t.Context(), func(store.Tx) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Errorf("View after Close = %v, want ErrClosed", err)
	}
}

func TestOpenRejectsABadDSNWithoutEchoingIt(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://u:s3cret@host:notaport/db", "a", nil)
	if err == nil {
		t.Fatal("Open with a malformed DSN succeeded")
	}
	if got := err.Error(); strings.Contains(got, "s3cret") {
		t.Errorf("error echoes the password: %s", got)
	}
}

func mustUpdate(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

func mustView(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.View(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

// fill writes one of everything into s: a named job with a target, a run,
// an item in every queue and two audit events. It returns the item ids.
func fill(t *testing.T, s store.Store, jobID string) []string {
	t.Helper()
	var items []string
	mustUpdate(t, s, func(tx store.Tx) error {
		j := storetest.NewJob(jobID, t0)
		j.Name = "standup"
		j.TargetRef = &store.TargetRef{Channel: "slack", ChannelID: "C1"}
		if err := tx.JobPut(j); err != nil {
			return err
		}
		if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(jobID, t0), JobID: jobID, ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
			return err
		}
		for _, q := range store.QueueNames {
			it := &store.QueueItem{Queue: q, Kind: store.KindTrigger, OrchestratorID: "x", JobID: jobID}
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
			items = append(items, it.ItemID)
		}
		if err := tx.RequestPut(&store.Request{Key: "req-" + jobID, Function: "schedule.create", CreatedAt: t0}); err != nil {
			return err
		}
		if err := tx.ConversationPut(&store.Conversation{Key: "conv-" + jobID, JobID: jobID, UpdatedAt: t0}); err != nil {
			return err
		}
		for range 2 {
			if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "x", Action: store.AuditJobCreated, JobID: jobID,
				Actor: store.Actor{SenderID: "U1", Sender: "ada", Via: store.ViaCLI}}); err != nil {
				return err
			}
		}
		return nil
	})
	return items
}

// requireEmpty reads s through every Tx read method and fails on anything found.
func requireEmpty(t *testing.T, s store.Store, jobID string, items []string) {
	t.Helper()
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGet(jobID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("JobGet(%s) = %v, want not found", jobID, err)
		}
		if _, err := ops.RowsOf(tx).JobGetByName("standup"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("JobGetByName = %v, want not found", err)
		}
		for _, p := range []*store.JobListParams{{States: store.JobStates}, {CreatedBy: "U1"}, {ChannelID: "C1"}} {
			if page, err := tx.JobList(p); err != nil || len(page.Jobs) != 0 {
				t.Errorf("JobList(%+v) = %d jobs, %v", p, len(page.Jobs), err)
			}
		}
		if n, err := tx.JobCount(); n != 0 || err != nil {
			t.Errorf("JobCount = %d, %v", n, err)
		}
		var due int
		if err := ops.RowsOf(tx).JobsDue(t0.Add(24*time.Hour), 10, func(*store.Job) error { due++; return nil }); err != nil || due != 0 {
			t.Errorf("JobsDue = %d jobs, %v", due, err)
		}
		if _, ok, err := ops.RowsOf(tx).JobNextRunAt(); ok || err != nil {
			t.Errorf("JobNextRunAt ok = %v, %v", ok, err)
		}
		if _, err := tx.RunGet(store.ExecutionID(jobID, t0)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RunGet = %v, want not found", err)
		}
		if runs, err := tx.RunList(jobID, 10); len(runs) != 0 || err != nil {
			t.Errorf("RunList = %d runs, %v", len(runs), err)
		}
		for _, id := range items {
			if _, err := tx.QueueGet(id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("QueueGet(%s) = %v, want not found", id, err)
			}
		}
		for _, q := range store.QueueNames {
			if n, err := ops.RowsOf(tx).QueueCount(q); n != 0 || err != nil {
				t.Errorf("QueueCount(%s) = %d, %v", q, n, err)
			}
			if l, err := tx.QueueList(&store.QueueListParams{Queue: q}); len(l) != 0 || err != nil {
				t.Errorf("QueueList(%s) = %d items, %v", q, len(l), err)
			}
		}
		if evs, err := tx.AuditList(nil); len(evs) != 0 || err != nil {
			t.Errorf("AuditList = %d events, %v", len(evs), err)
		}
		if n, err := ops.RowsOf(tx).AuditVerify(); n != 0 || err != nil {
			t.Errorf("AuditVerify = %d, %v", n, err)
		}
		if _, err := tx.RequestGet("req-" + jobID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RequestGet = %v, want not found", err)
		}
		if _, err := tx.ConversationGet("conv-" + jobID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("ConversationGet = %v, want not found", err)
		}
		return nil
	})
	var pruned int
	mustUpdate(t, s, func(tx store.Tx) (err error) {
		pruned, err = ops.RowsOf(tx).RequestPrune(t0.Add(time.Hour), 10)
		return
	})
	if pruned != 0 {
		t.Errorf("RequestPrune removed %d of another orchestrator's requests", pruned)
	}
	mustUpdate(t, s, func(tx store.Tx) (err error) {
		pruned, err = ops.RowsOf(tx).ConversationPrune(t0.Add(time.Hour), 10)
		return
	})
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.ConversationDelete("conv-" + jobID) }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ConversationDelete = %v, want not found", err)
	}
	if pruned != 0 {
		t.Errorf("ConversationPrune removed %d of another orchestrator's conversations", pruned)
	}
	// Writes by id reach nothing of the other orchestrator's either.
	for _, id := range items {
		err := s.Update(t.Context(), func(tx store.Tx) error {
			return tx.QueuePut(&store.QueueItem{ItemID: id, Queue: store.QueueDone})
		})
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("QueuePut(%s) = %v, want not found", id, err)
		}
		if err := s.Update(t.Context(), func(tx store.Tx) error { return ops.RowsOf(tx).QueueDelete(id) }); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("QueueDelete(%s) = %v, want not found", id, err)
		}
	}
	var claimed []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { claimed, err = ops.RowsOf(tx).QueueClaim(t0.Add(time.Hour), 10); return })
	if len(claimed) != 0 {
		t.Errorf("QueueClaim took %d of another orchestrator's items", len(claimed))
	}
}

var t0 = time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)

// TestOrchestratorsCannotReadEachOther: two orchestrators on one database
// see nothing of each other through any Store method, and the same job id
// and name in both are two jobs.
func TestOrchestratorsCannotReadEachOther(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "sales")
	itemsA := fill(t, a, "JA")
	requireEmpty(t, b, "JA", itemsA)
	itemsB := fill(t, b, "JA") // the same id and name, in the other scope
	mustUpdate(t, b, func(tx store.Tx) error {
		return tx.ConversationPut(&store.Conversation{Key: "conv-JA", JobID: "JB", UpdatedAt: t0.Add(time.Hour)})
	})
	mustView(t, a, func(tx store.Tx) error {
		// Neither the other's delete nor its put of the same key reached it.
		if c, err := tx.ConversationGet("conv-JA"); err != nil || c.JobID != "JA" {
			t.Errorf("ops ConversationGet = %+v, %v; want its own, of JA", c, err)
		}
		if n, err := ops.RowsOf(tx).AuditVerify(); n != 2 || err != nil {
			t.Errorf("ops AuditVerify = %d, %v; want its own 2 events", n, err)
		}
		if n, _ := ops.RowsOf(tx).QueueCount(store.QueueIncoming); n != 1 {
			t.Errorf("ops incoming = %d, want its own 1", n)
		}
		for _, id := range itemsB {
			if _, err := tx.QueueGet(id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("ops QueueGet(sales item) = %v", err)
			}
		}
		return nil
	})
	requireEmpty(t, mustOpen(t, dsn, "hr"), "JA", append(itemsA, itemsB...))
}

// TestPanicInUpdateRollsBack: a function that panics leaves nothing
// written and the store usable.
func TestPanicInUpdateRollsBack(t *testing.T) {
	s := mustOpen(t, pgtest.DSN(t), "a")
	func() {
		defer func() { recover() }()
		s.Update(t.Context(), func(tx store.Tx) error {
			if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "a", Action: store.AuditJobCreated}); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	ev := &store.AuditEvent{OrchestratorID: "a", Action: store.AuditJobCreated}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.AuditAppend(ev) })
	if ev.Seq != 1 {
		t.Errorf("seq after a panicked transaction = %d, want 1", ev.Seq)
	}
}

// TestDueCountCountsThisOrchestratorsDueJobs: what a burst is split
// between dispatchers by counts the enabled jobs due by then, of this
// orchestrator only.
func TestDueCountCountsThisOrchestratorsDueJobs(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "due-a"), mustOpen(t, dsn, "due-b")
	mustUpdate(t, a, func(tx store.Tx) error {
		for i, next := range []time.Time{t0, t0.Add(time.Minute), t0.Add(2 * time.Hour), t0} {
			j := storetest.NewJob(fmt.Sprintf("A%d", i), next)
			if i == 3 {
				j.State = store.JobPaused
			}
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	mustUpdate(t, b, func(tx store.Tx) error {
		for i := range 5 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("B%d", i), t0)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, c := range []struct {
		s    *postgres.Store
		at   time.Time
		want int
	}{{a, t0.Add(-time.Second), 0}, {a, t0, 1}, {a, t0.Add(time.Minute), 2}, {a, t0.Add(3 * time.Hour), 3}, {b, t0, 5}} {
		if n, err := c.s.DueCount(t.Context(), c.at); err != nil || n != c.want {
			t.Errorf("%s DueCount(%v) = %d, %v; want %d", c.s.OrchestratorID(), c.at, n, err, c.want)
		}
	}
}
