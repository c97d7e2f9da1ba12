package bolt_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/storetest"
)

func TestStore(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) store.Store {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "store.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

var t0 = time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)

func storetestJobsDue(tx store.Tx, at time.Time) ([]*store.Job, error) {
	var out []*store.Job
	err := ops.RowsOf(tx).JobsDue(at, 100, func(j *store.Job) error { out = append(out, j); return nil })
	return out, err
}

// corruptJob overwrites a job's stored definition with bytes that do not
// decode, as a damaged disk or an editor would.
func corruptJob(t *testing.T, path, id string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("jobs")).Put([]byte(id), []byte("{not json")) }); err != nil {
		t.Fatal(err)
	}
}

// TestJobsDue_UnreadableJobIsPassedOverAndQuarantined: JobsDue hands out the
// due jobs that read and names the one that does not (an
// UnreadableJobsError, ErrCorrupt); JobQuarantine takes it out of the due
// index and counts it disabled, keeping its bytes; a job that reads it
// refuses.
func TestJobsDue_UnreadableJobIsPassedOverAndQuarantined(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(t.Context(), func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C"} {
			if err := tx.JobPut(storetest.NewJob(id, t0)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	corruptJob(t, path, "BAD")
	s, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(t.Context(), func(tx store.Tx) error {
		var got []string
		err := ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error { got = append(got, j.JobID); return nil })
		var ue *store.UnreadableJobsError
		if !errors.As(err, &ue) || !errors.Is(err, store.ErrCorrupt) || len(ue.Jobs) != 1 || ue.Jobs[0].ID != "BAD" {
			t.Fatalf("JobsDue over a bad record = %v, want an UnreadableJobsError naming BAD", err)
		}
		if d := cmp.Diff([]string{"A", "C"}, got); d != "" {
			t.Errorf("JobsDue handed out (-want +got):\n%s", d)
		}
		if err := ops.RowsOf(tx).JobQuarantine("A"); err == nil {
			t.Error("JobQuarantine of a job that reads succeeded")
		}
		return ops.RowsOf(tx).JobQuarantine("BAD")
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		due, err := storetestJobsDue(tx, t0)
		if err != nil || len(due) != 2 {
			t.Errorf("JobsDue after quarantine = %d jobs, %v; want A and C, no error", len(due), err)
		}
		if n, _ := tx.JobCount(store.JobDisabled); n != 1 {
			t.Errorf("disabled jobs = %d, want the quarantined one", n)
		}
		if _, err := tx.JobGet("BAD"); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("JobGet(quarantined) = %v, want ErrCorrupt (its bytes kept for repair)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
