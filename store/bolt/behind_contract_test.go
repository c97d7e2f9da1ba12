package bolt_test

import (
	"encoding/json"
	"errors"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// A change to a record's bytes after its put does not reach the store
// (storetest's testPutCopies), in JobsDue's callback too: a trigger's
// payload is copied with it, not shared with the encoding goroutine.
func TestJobsDueBehind_PayloadChangedAfterQueueAddInCallback(t *testing.T) {
	s := burstStore(t)
	var ids []string
	err := s.Update(t.Context(), func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error {
			it := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID, Payload: json.RawMessage(`{"a":1}`)}
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
			it.Payload[2] = 'b' // after the put: must not be stored
			ids = append(ids, it.ItemID)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.View(t.Context(), func(tx store.Tx) error {
		for _, id := range ids {
			if q, err := tx.QueueGet(id); err != nil || string(q.Payload) != `{"a":1}` {
				t.Errorf("item %s payload = %s, %v; want {\"a\":1}", id, q.Payload, err)
			}
		}
		return nil
	})
}

// The same for an audit event's Before/After.
func TestJobsDueBehind_AuditBeforeChangedAfterAppendInCallback(t *testing.T) {
	s := burstStore(t)
	err := s.Update(t.Context(), func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error {
			ev := &store.AuditEvent{At: t0, OrchestratorID: "default", Action: "x", JobID: j.JobID, Before: json.RawMessage(`{"a":1}`)}
			if err := tx.AuditAppend(ev); err != nil {
				return err
			}
			ev.Before[2] = 'b'
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.View(t.Context(), func(tx store.Tx) error {
		evs, err := tx.AuditList(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if string(ev.Before) != `{"a":1}` {
				t.Errorf("event %d before = %s; want {\"a\":1}", ev.Seq, ev.Before)
			}
		}
		return nil
	})
}

// AuditHead in the callback: seq and hash must name the same event.
func TestJobsDueBehind_AuditHeadInCallback(t *testing.T) {
	s := burstStore(t)
	err := s.Update(t.Context(), func(tx store.Tx) error {
		rows := ops.RowsOf(tx)
		if err := tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "before"}); err != nil {
			return err
		}
		return rows.JobsDue(t0, 10, func(j *store.Job) error {
			ev := &store.AuditEvent{At: t0, OrchestratorID: "default", Action: "x", JobID: j.JobID}
			if err := tx.AuditAppend(ev); err != nil {
				return err
			}
			seq, hash, err := rows.AuditHead()
			if err != nil {
				return err
			}
			evs, err := tx.AuditList(&store.AuditListParams{AfterSeq: seq - 1}) // drains
			if err != nil || len(evs) != 1 {
				t.Fatalf("AuditList: %v %v", evs, err)
			}
			if evs[0].Hash != hash {
				t.Errorf("AuditHead in callback = seq %d hash %s; event %d's hash is %s", seq, hash, seq, evs[0].Hash)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A panicking callback: the encoder ends (goleak at TestMain), the
// transaction rolls back.
func TestJobsDueBehind_CallbackPanics(t *testing.T) {
	s := burstStore(t)
	func() {
		defer func() { recover() }()
		s.Update(t.Context(), func(tx store.Tx) error {
			return ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error {
				for i := 0; i < 200; i++ {
					tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "x"})
				}
				tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(j.JobID, t0), JobID: j.JobID, ScheduledAt: t0, Status: store.RunDispatched})
				panic("boom")
			})
		})
	}()
	s.View(t.Context(), func(tx store.Tx) error {
		if _, err := tx.RunGet(store.ExecutionID("A", t0)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("run after a panicking tx: %v", err)
		}
		return nil
	})
	if n, err := s.AuditVerify(t.Context()); err != nil || n != 0 {
		t.Errorf("AuditVerify = %d %v", n, err)
	}
}

// Payload bytes shared with the encoding goroutine: with 64 items in a
// batch, the batch is encoded while the caller writes the next payload
// into the same buffer (go test -race reports it).
func TestJobsDueBehind_PayloadBufferReusedInCallbackRace(t *testing.T) {
	s := burstStore(t)
	err := s.Update(t.Context(), func(tx store.Tx) error {
		buf := []byte(`{"n":0}`)
		return ops.RowsOf(tx).JobsDue(t0, 1, func(j *store.Job) error {
			for i := range 200 {
				buf[5] = byte('0' + i%10)
				if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", Payload: buf}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.View(t.Context(), func(tx store.Tx) error {
		items, _ := tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming, Limit: 500})
		for i, it := range items {
			if want := `{"n":` + string(rune('0'+i%10)) + `}`; string(it.Payload) != want {
				t.Errorf("item %d payload %s, want %s", i, it.Payload, want)
				break
			}
		}
		return nil
	})
}

var errStop = errors.New("stop")

// Read paths and ordering inside/after the callback (expected to hold).
func TestJobsDueBehind_ReadsAndOrdering(t *testing.T) {
	s := burstStore(t)
	var kept, deleted, moved string
	err := s.Update(t.Context(), func(tx store.Tx) error {
		rows := ops.RowsOf(tx)
		err := rows.JobsDue(t0, 10, func(j *store.Job) error {
			id := store.ExecutionID(j.JobID, t0)
			if err := tx.RunPut(&store.Run{ExecutionID: id, JobID: j.JobID, ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
				return err
			}
			if rs, err := tx.RunList(j.JobID, 10); err != nil || len(rs) != 1 {
				t.Errorf("RunList in callback = %v %v", rs, err)
			}
			a := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID}
			b := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID}
			c := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID}
			for _, it := range []*store.QueueItem{a, b, c} {
				if err := tx.QueueAdd(it); err != nil {
					return err
				}
			}
			if err := rows.QueueDelete(a.ItemID); err != nil {
				return err
			}
			b.Queue = store.QueueProcessing
			if err := tx.QueuePut(b); err != nil {
				return err
			}
			c.Attempts = 5
			if err := tx.QueuePut(c); err != nil {
				return err
			}
			if n, err := rows.QueueCount(store.QueueIncoming); err != nil || n != 1 {
				t.Errorf("QueueCount incoming = %d %v", n, err)
			}
			j.RunCount = 9
			if err := rows.JobStatusPut(j); err != nil {
				return err
			}
			if p, err := tx.JobList(nil); err != nil || len(p.Jobs) != 3 {
				t.Errorf("JobList: %v %v", p, err)
			} else {
				for _, g := range p.Jobs {
					if g.JobID == j.JobID && g.RunCount != 9 {
						t.Errorf("JobList sees runCount %d", g.RunCount)
					}
				}
			}
			if err := tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "x"}); err != nil {
				return err
			}
			if n, err := rows.AuditVerify(); err != nil || n == 0 {
				t.Errorf("AuditVerify in callback = %d %v", n, err)
			}
			if err := tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "y"}); err != nil {
				return err
			}
			if j.JobID == "A" {
				kept, deleted, moved = c.ItemID, a.ItemID, b.ItemID
				// Claim the one left in incoming (c), then put c back.
				cl, err := rows.QueueClaim(t0, 10)
				if err != nil || len(cl) != 1 || cl[0].ItemID != c.ItemID {
					t.Errorf("QueueClaim in callback = %v %v", cl, err)
				}
				cl[0].Queue = store.QueueIncoming
				if err := tx.QueuePut(cl[0]); err != nil {
					return err
				}
				return errStop
			}
			return nil
		})
		if !errors.Is(err, errStop) {
			return err
		}
		// After an early return: a direct overwrite of a run written behind.
		id := store.ExecutionID("A", t0)
		if err := tx.RunPut(&store.Run{ExecutionID: id, JobID: "A", ScheduledAt: t0, Status: store.RunCompleted}); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "after"})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.View(t.Context(), func(tx store.Tx) error {
		if r, err := tx.RunGet(store.ExecutionID("A", t0)); err != nil || r.Status != store.RunCompleted {
			t.Errorf("run A = %+v %v", r, err)
		}
		if q, err := tx.QueueGet(kept); err != nil || q.Queue != store.QueueIncoming || q.Attempts != 5 {
			t.Errorf("kept = %+v %v", q, err)
		}
		if _, err := tx.QueueGet(deleted); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted: %v", err)
		}
		if q, err := tx.QueueGet(moved); err != nil || q.Queue != store.QueueProcessing {
			t.Errorf("moved = %+v %v", q, err)
		}
		return nil
	})
	if n, err := s.AuditVerify(t.Context()); err != nil || n != 3 {
		t.Errorf("AuditVerify = %d %v", n, err)
	}
}

// The caller goes on after UnreadableJobsError (ops.FireOnce) and commits.
func TestJobsDueBehind_UnreadableThenCommit(t *testing.T) {
	for _, badEncode := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "s.db")
		s, err := bolt.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Update(t.Context(), func(tx store.Tx) error {
			for _, id := range []string{"A", "BAD", "C"} {
				if err := tx.JobPut(storetest.NewJob(id, t0)); err != nil {
					return err
				}
			}
			return nil
		})
		s.Close()
		corruptJob(t, path, "BAD")
		s, err = bolt.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Update(t.Context(), func(tx store.Tx) error {
			rows := ops.RowsOf(tx)
			err := rows.JobsDue(t0, 10, func(j *store.Job) error {
				at := t0
				if badEncode && j.JobID == "C" {
					at = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
				}
				if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(j.JobID, t0), JobID: j.JobID, ScheduledAt: at, Status: store.RunDispatched}); err != nil {
					return err
				}
				if err := tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "x", JobID: j.JobID}); err != nil {
					return err
				}
				j.RunCount = 4
				return rows.JobStatusPut(j)
			})
			var ue *store.UnreadableJobsError
			if !errors.As(err, &ue) {
				return err
			}
			if err := rows.JobQuarantine("BAD"); err != nil {
				return err
			}
			return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: "q", JobID: "BAD"})
		})
		if badEncode {
			if err == nil {
				t.Errorf("bad encode: commit succeeded")
			}
			s.Close()
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		s.View(t.Context(), func(tx store.Tx) error {
			for _, id := range []string{"A", "C"} {
				if j, err := tx.JobGet(id); err != nil || j.RunCount != 4 {
					t.Errorf("job %s = %+v %v", id, j, err)
				}
			}
			return nil
		})
		if n, err := s.AuditVerify(t.Context()); err != nil || n != 3 {
			t.Errorf("AuditVerify = %d %v", n, err)
		}
		s.Close()
	}
}

// A record that does not encode, drained mid-callback by a get: JobsDue
// returns the failure (fn's first error, as its contract says), and the
// commit fails.
func TestJobsDueBehind_MidCallbackDrainErrorReturned(t *testing.T) {
	s := burstStore(t)
	var jobsDueErr error
	err := s.Update(t.Context(), func(tx store.Tx) error {
		jobsDueErr = ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error {
			if j.JobID != "B" {
				return nil
			}
			id := store.ExecutionID(j.JobID, t0)
			if err := tx.RunPut(&store.Run{ExecutionID: id, JobID: j.JobID, ScheduledAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Status: store.RunDispatched}); err != nil {
				return err
			}
			_, _ = tx.RunGet(id) // drains, and finds the record failed
			return nil
		})
		return nil
	})
	if err == nil {
		t.Error("committed")
	}
	if jobsDueErr == nil {
		t.Error("JobsDue returned nil though a record it was given failed to encode")
	}
}
