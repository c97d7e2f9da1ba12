package bolt_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestOpen_UpgradesSchema1: a file written before jobs were split into a
// definition and a status (one JSON record per job, one audit record per
// event) is upgraded when opened for writing, and keeps every field; a
// read-only open says what to do.
func TestOpen_UpgradesSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := storetest.NewJob("OLD", t0)
	want.Name, want.RunCount, want.LastRunAt = "weekly-report", 4, t0.Add(-7*24*time.Hour)
	want.LastResult = &store.Result{ExecutionID: store.ExecutionID("OLD", want.LastRunAt), Status: "completed"}
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.JobPut(want) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Rewrite it as schema 1 wrote it: the whole job in "jobs".
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		whole, _ := json.Marshal(want)
		if err := tx.Bucket([]byte("jobs")).Put([]byte("OLD"), whole); err != nil {
			return err
		}
		if err := tx.DeleteBucket([]byte("job_status")); err != nil {
			return err
		}
		// And its audit log: one record per event, hash then body.
		audit := tx.Bucket([]byte("audit"))
		var prev []byte
		for i := uint64(1); i <= 2; i++ {
			body, _ := json.Marshal(&store.AuditEvent{Seq: i, At: t0, OrchestratorID: "default", Action: store.AuditJobCreated,
				JobID: "OLD", PrevHash: hex.EncodeToString(prev)})
			hash := store.AuditHash(prev, body)
			if err := audit.Put(seq(i), append(slices.Clip(hash), body...)); err != nil {
				return err
			}
			prev = hash
		}
		if err := tx.Bucket([]byte("meta")).Put([]byte("audit_head"), append(seq(2), prev...)); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("version"), []byte("1"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := bolt.Open(path, &bolt.Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "open it once for writing") {
		t.Fatalf("read-only Open of schema 1 = %v, want advice to open it for writing", err)
	}
	s, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatalf("Open(schema 1) = %v", err)
	}
	defer s.Close()
	// The old audit records chain on into new blocks.
	if err := s.Update(t.Context(), func(tx store.Tx) error {
		return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobPaused, JobID: "OLD"})
	}); err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).AuditVerify(); n != 3 || err != nil {
			t.Errorf("AuditVerify over old and new records = %d, %v; want 3, nil", n, err)
		}
		evs, err := tx.AuditList(&store.AuditListParams{JobID: "OLD"})
		if err != nil || len(evs) != 3 || evs[2].PrevHash != evs[1].Hash || evs[1].PrevHash != evs[0].Hash {
			t.Errorf("AuditList over old and new records = %+v, %v", evs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		got, err := ops.RowsOf(tx).JobGetByName("weekly-report")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("upgraded job =\n%+v\nwant\n%+v", got, want)
		}
		var due []*store.Job
		err = ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error { due = append(due, j); return nil })
		if err != nil || len(due) != 1 || due[0].RunCount != 4 {
			t.Errorf("JobsDue after upgrade = %v, %v", due, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpen_UpgradesSchema2: testdata/schema2.db was written by the
// schedbot before schema 3 (a job's status binary, or JSON for the first
// such files; audit events in blocks): opened for writing it is upgraded
// in place and keeps every job, run, item and audit event, whose chain goes
// on.
func TestOpen_UpgradesSchema2(t *testing.T) {
	src, err := os.ReadFile("testdata/schema2.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "automation.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	var want []*store.Job
	b, err := os.ReadFile("testdata/schema2.jobs.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if _, err := bolt.Open(path, &bolt.Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "(schema 2): open it once for writing") {
		t.Fatalf("read-only Open of schema 2 = %v, want advice to open it for writing", err)
	}
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatalf("Open(schema 2) = %v", err)
	}
	defer s.Close()
	if err := s.Update(t.Context(), func(tx store.Tx) error {
		return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobResumed, JobID: want[1].JobID})
	}); err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error {
		page, err := tx.JobList(&store.JobListParams{States: store.JobStates})
		if err != nil {
			return err
		}
		byID := map[string]*store.Job{}
		for _, j := range page.Jobs {
			byID[j.JobID] = j
		}
		for _, w := range want {
			if d := cmp.Diff(w, byID[w.JobID]); d != "" {
				t.Errorf("job %s after the upgrade (-want +got):\n%s", w.JobID, d)
			}
		}
		if j, err := ops.RowsOf(tx).JobGetByName("weekly-report"); err != nil || j.JobID != want[0].JobID {
			t.Errorf("JobGetByName after the upgrade = %v, %v", j, err)
		}
		due, err := storetestJobsDue(tx, want[2].NextRunAt)
		if err != nil || len(due) != 2 {
			t.Errorf("JobsDue after the upgrade = %d jobs, %v; want 2", len(due), err)
		}
		if r, err := tx.RunGet(want[0].LastResult.ExecutionID); err != nil || r.Error != "boom" {
			t.Errorf("run after the upgrade = %+v, %v", r, err)
		}
		if it, err := tx.QueueGet("item-1"); err != nil || string(it.Payload) != `{"manual":true}` || it.Queue != store.QueueDone {
			t.Errorf("queue item after the upgrade = %+v, %v", it, err)
		}
		if n, err := ops.RowsOf(tx).AuditVerify(); n != 6 || err != nil {
			t.Errorf("AuditVerify after the upgrade = %d, %v; want 6 events (5 old, 1 new)", n, err)
		}
		evs, err := tx.AuditList(&store.AuditListParams{AfterSeq: 2})
		if err != nil || len(evs) != 4 || evs[0].Seq != 3 || evs[3].PrevHash != evs[2].Hash {
			t.Errorf("AuditList(after 2) = %+v, %v", evs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpen_AddsTheRequestBuckets: a store written before requests were
// recorded reads as having none (also read-only), and gains their buckets
// when opened for writing.
func TestOpen_AddsTheRequestBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket([]byte("requests")); err != nil {
			return err
		}
		return tx.DeleteBucket([]byte("requests_at"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := bolt.Open(path, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open read-only a store without request buckets: %v", err)
	}
	err = ro.View(t.Context(), func(tx store.Tx) error { _, err := tx.RequestGet("k"); return err })
	ro.Close()
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get from a store without request buckets = %v, want ErrNotFound", err)
	}
	s, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(t.Context(), func(tx store.Tx) error {
		return tx.RequestPut(&store.Request{Key: "k", CreatedAt: t0})
	}); err != nil {
		t.Errorf("put after reopening for writing: %v", err)
	}
}
