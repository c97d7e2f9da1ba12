package bolt_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/storetest"
)

// burstStore is a store holding due jobs A, B and C.
func burstStore(t *testing.T, o ...*bolt.Options) *bolt.Store {
	s, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), append(o, nil)[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Update(t.Context(), func(tx store.Tx) error {
		for _, id := range []string{"A", "B", "C"} {
			if err := tx.JobPut(storetest.NewJob(id, t0)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// The records JobsDue's callback writes are put after it (behind.go); in
// the transaction they read as written, copied when written, a second
// write of one wins, and all of them are committed.
func TestJobsDue_WritesBehindReadAsWritten(t *testing.T) {
	s := burstStore(t)
	var items []string
	err := s.Update(t.Context(), func(tx store.Tx) error {
		rows := ops.RowsOf(tx)
		return rows.JobsDue(t0, 10, func(j *store.Job) error {
			id := store.ExecutionID(j.JobID, t0)
			r := &store.Run{ExecutionID: id, JobID: j.JobID, ScheduledAt: t0, DispatchedAt: t0, Status: store.RunDispatched}
			if err := tx.RunPut(r); err != nil {
				return err
			}
			r.Status = "scribbled" // after the write: not what was written
			if got, err := tx.RunGet(id); err != nil || got.Status != store.RunDispatched {
				t.Errorf("RunGet of a run written in the callback = %+v, %v; want it dispatched", got, err)
			}
			if j.JobID == "B" {
				again := &store.Run{ExecutionID: id, JobID: j.JobID, ScheduledAt: t0, Status: store.RunRunning}
				if err := tx.RunPut(again); err != nil {
					return err
				}
			}
			item := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID, ExecutionID: id, ScheduledAt: t0}
			if err := tx.QueueAdd(item); err != nil {
				return err
			}
			items = append(items, item.ItemID)
			listed, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming})
			if err != nil || len(listed) != len(items) {
				t.Errorf("QueueList after %d QueueAdds in the callback = %d items, %v", len(items), len(listed), err)
			}
			j.RunCount, j.NextRunAt = 7, t0.Add(time.Hour)
			j.LastResult = &store.Result{ExecutionID: id, Status: string(store.RunDispatched)}
			if err := rows.JobStatusPut(j); err != nil {
				return err
			}
			j.LastResult.Status = "scribbled"
			if got, err := tx.JobGet(j.JobID); err != nil || got.RunCount != 7 || got.LastResult.Status != string(store.RunDispatched) {
				t.Errorf("JobGet after JobStatusPut in the callback = %+v, %v; want runCount 7, lastResult dispatched", got, err)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		for _, id := range []string{"A", "B", "C"} {
			want := store.RunDispatched
			if id == "B" {
				want = store.RunRunning // written twice: the second stays
			}
			if r, err := tx.RunGet(store.ExecutionID(id, t0)); err != nil || r.Status != want {
				t.Errorf("run of %s after commit = %+v, %v; want %s", id, r, err, want)
			}
			if j, err := tx.JobGet(id); err != nil || j.RunCount != 7 || !j.NextRunAt.Equal(t0.Add(time.Hour)) || j.LastResult.Status != string(store.RunDispatched) {
				t.Errorf("job %s after commit = %+v, %v; want its status as put", id, j, err)
			}
		}
		for _, it := range items {
			if _, err := tx.QueueGet(it); err != nil {
				t.Errorf("trigger %s after commit: %v", it, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A record written behind that does not encode fails the transaction,
// though the callback had gone on: nothing of it is committed.
func TestJobsDue_WriteBehindThatDoesNotEncodeFailsTheTransaction(t *testing.T) {
	s := burstStore(t)
	err := s.Update(t.Context(), func(tx store.Tx) error {
		rows := ops.RowsOf(tx)
		return rows.JobsDue(t0, 10, func(j *store.Job) error {
			at := t0
			if j.JobID == "B" {
				at = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // RFC 3339 cannot say it
			}
			if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(j.JobID, t0), JobID: j.JobID, ScheduledAt: at, Status: store.RunDispatched}); err != nil {
				return err
			}
			j.RunCount = 1
			return rows.JobStatusPut(j)
		})
	})
	if err == nil || !strings.Contains(err.Error(), "encode runs") {
		t.Fatalf("Update = %v, want the run's encoding error", err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		for _, id := range []string{"A", "B", "C"} {
			if _, err := tx.RunGet(store.ExecutionID(id, t0)); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("run of %s after the failed transaction: %v, want none", id, err)
			}
			if j, _ := tx.JobGet(id); j.RunCount != 0 {
				t.Errorf("job %s runCount %d after the failed transaction, want 0", id, j.RunCount)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Audit events appended in JobsDue's callback are chained behind: each
// caller's event has its seq at once and its hashes when JobsDue returns,
// an event appended after chains on from the last, and the chain (sealed
// with a key too) verifies after commit.
func TestJobsDue_AuditEventsChainedBehind(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("k")} {
		s := burstStore(t, &bolt.Options{AuditKey: key})
		var evs []*store.AuditEvent
		err := s.Update(t.Context(), func(tx store.Tx) error {
			first := &store.AuditEvent{At: t0, OrchestratorID: "default", Action: "test.before"}
			if err := tx.AuditAppend(first); err != nil {
				return err
			}
			evs = append(evs, first)
			err := ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error {
				ev := &store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditTriggerDispatched, JobID: j.JobID}
				if err := tx.AuditAppend(ev); err != nil {
					return err
				}
				if want := evs[len(evs)-1].Seq + 1; ev.Seq != want {
					t.Errorf("seq of an event appended in the callback = %d, want %d at once", ev.Seq, want)
				}
				evs = append(evs, ev)
				return nil
			})
			if err != nil {
				return err
			}
			last := &store.AuditEvent{At: t0, OrchestratorID: "default", Action: "test.after"}
			evs = append(evs, last)
			return tx.AuditAppend(last)
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range evs {
			if len(ev.Hash) != 64 || i > 0 && ev.PrevHash != evs[i-1].Hash || (key != nil) != (ev.MAC != "") {
				t.Errorf("key %q: event %d: prevHash %q hash %q mac %q; want it chained after %q", key, i, ev.PrevHash, ev.Hash, ev.MAC, evs[max(i-1, 0)].Hash)
			}
		}
		if n, err := s.AuditVerify(t.Context()); err != nil || n != len(evs) {
			t.Errorf("key %q: AuditVerify = %d, %v; want %d events and no error", key, n, err, len(evs))
		}
	}
}
