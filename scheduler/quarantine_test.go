package scheduler_test

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestFireDue_UnreadableJobIsDisabledAndTheRestFire: a due job whose stored
// record cannot be decoded is disabled and audited, and the other due jobs
// fire in the same pass, those of later batches too; the next pass has
// nothing left to do.
func TestFireDue_UnreadableJobIsDisabledAndTheRestFire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation.db")
	st, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC) // Friday 09:00 in New York
	err = st.Update(t.Context(), func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C", "D"} {
			if err := tx.JobPut(storetest.NewJob(id, due)); err != nil {
				return err
			}
		}
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("jobs")).Put([]byte("BAD"), []byte("{damaged")) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	s := scheduler.New(st, &scheduler.Options{Logger: testLogger(t), Batch: 2})
	fired, err := s.FireDue(t.Context(), due)
	if err != nil || fired != 3 {
		t.Fatalf("FireDue over one bad record = %d, %v; want the 3 good jobs fired", fired, err)
	}
	if fired, err := s.FireDue(t.Context(), due); err != nil || fired != 0 {
		t.Errorf("FireDue again = %d, %v; want nothing left", fired, err)
	}
	err = st.View(t.Context(), func(tx store.Tx) error {
		if n, _ := tx.JobCount(store.JobDisabled); n != 1 {
			t.Errorf("disabled jobs = %d, want the bad one", n)
		}
		if n, _ := tx.QueueCount(store.QueueIncoming); n != 3 {
			t.Errorf("triggers queued = %d, want 3", n)
		}
		evs, err := tx.AuditList(&store.AuditListParams{JobID: "BAD"})
		if err != nil {
			return err
		}
		if len(evs) != 1 || evs[0].Action != store.AuditJobDisabled || !strings.Contains(evs[0].Detail, "cannot be read") {
			t.Errorf("audit of the bad job = %+v, want one job.disabled saying its record cannot be read", evs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testLogger logs to t.Log.
func testLogger(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(tWriter{t}, nil)) }

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
