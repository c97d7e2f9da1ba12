package bolt_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
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

func TestOpen_HeldFileNamesThePID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation", "automation.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	_, err = bolt.Open(path, &bolt.Options{LockTimeout: 50 * time.Millisecond})
	var le *store.LockedError
	if !errors.As(err, &le) || !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second Open = %v, want a LockedError", err)
	}
	if le.PID != os.Getpid() || !strings.Contains(err.Error(), "held by a running schedbot (pid") {
		t.Errorf("error = %q (pid %d), want our pid %d", err, le.PID, os.Getpid())
	}
	if time.Since(start) > 5*time.Second {
		t.Error("Open waited far past its lock timeout")
	}
}

func TestOpen_PersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(t.Context(), func(tx store.Tx) error {
		if err := tx.JobPut(storetest.NewJob("J", t0)); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobCreated})
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(t.Context(), func(tx store.Tx) error {
		if _, err := tx.JobGet("J"); err != nil {
			return err
		}
		ev := &store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobPaused}
		if err := tx.AuditAppend(ev); err != nil {
			return err
		}
		if ev.Seq != 2 {
			t.Errorf("seq after reopen = %d, want 2", ev.Seq)
		}
		_, err := tx.AuditVerify()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpen_DamagedFilesAreCorruptNotPanics(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	s, err := bolt.Open(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Update(t.Context(), func(tx store.Tx) error {
		for i := range 200 {
			j := storetest.NewJob(string(rune('A'+i%26))+strings.Repeat("x", i), t0.Add(time.Duration(i)*time.Minute))
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	s.Close()
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt preallocates; truncate within the pages in use.
	var used int64
	db, err := bbolt.Open(good, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bbolt.Tx) error { used = tx.Size(); return nil })
	db.Close()
	garbage := []byte(strings.Repeat("not a database ", 1000))
	cases := map[string][]byte{
		"truncated": data[:used/3],
		"half":      data[:used/2],
		"tiny":      data[:100],
		"garbage":   garbage,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := bolt.Open(path, nil)
			if err == nil {
				// Some damage only shows on read; it must be an error there.
				err = s.View(t.Context(), func(tx store.Tx) error {
					_, err := tx.JobList(&store.JobListParams{States: store.JobStates, Limit: 500})
					return err
				})
				s.Close()
			}
			if err == nil {
				t.Fatal("damaged file opened and read without error")
			}
			if !errors.Is(err, store.ErrCorrupt) && !strings.Contains(err.Error(), "invalid") {
				t.Errorf("error = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestOpen_ForeignBoltFileIsRejected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("theirs")); return err })
	db.Close()
	if _, err := bolt.Open(path, nil); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Open(foreign) = %v, want ErrCorrupt", err)
	}
}

// tamper rewrites the raw audit records with fn, as someone editing the file would.
func tamper(t *testing.T, path string, fn func(b *bbolt.Bucket) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error { return fn(tx.Bucket([]byte("audit"))) }); err != nil {
		t.Fatal(err)
	}
}

func seq(n uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, n)
	return k
}

func TestAuditVerify_FindsTheFirstBadRecord(t *testing.T) {
	// edit gets the stored values of events 1-5 (hash, then body) and
	// returns the ones to store, each under the seq its body names.
	cases := map[string]struct {
		edit    func(entries [][]byte) [][]byte
		wantSeq uint64
	}{
		"edited": {func(e [][]byte) [][]byte {
			e[2] = append(slices.Clone(e[2][:32]), strings.Replace(string(e[2][32:]), "job.paused", "job.resumed", 1)...)
			return e
		}, 3},
		"removed":      {func(e [][]byte) [][]byte { return slices.Delete(e, 1, 2) }, 2},
		"last removed": {func(e [][]byte) [][]byte { return e[:4] }, 5},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.db")
			s, err := bolt.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Update(t.Context(), func(tx store.Tx) error {
				for range 5 {
					if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "o", Action: store.AuditJobPaused, JobID: "J"}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			tamper(t, path, func(b *bbolt.Bucket) error {
				var entries [][]byte
				b.ForEach(func(k, v []byte) error {
					entries = append(entries, slices.Clone(v))
					return nil
				})
				if len(entries) != 5 {
					t.Fatalf("%d entries stored, want 5", len(entries))
				}
				for i := range entries {
					if err := b.Delete(seq(uint64(i + 1))); err != nil {
						return err
					}
				}
				for _, e := range c.edit(entries) {
					var ev struct{ Seq uint64 }
					json.Unmarshal(e[32:], &ev)
					if err := b.Put(seq(ev.Seq), e); err != nil {
						return err
					}
				}
				return nil
			})
			s, err = bolt.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.View(t.Context(), func(tx store.Tx) error { _, err := tx.AuditVerify(); return err })
			var ce *store.ChainError
			if !errors.As(err, &ce) {
				t.Fatalf("AuditVerify = %v, want a ChainError", err)
			}
			if ce.Seq != c.wantSeq {
				t.Errorf("first bad record = %d (%v), want %d", ce.Seq, err, c.wantSeq)
			}
		})
	}
}

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
		if n, err := tx.AuditVerify(); n != 3 || err != nil {
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
		got, err := tx.JobGetByName("weekly-report")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("upgraded job =\n%+v\nwant\n%+v", got, want)
		}
		var due []*store.Job
		err = tx.JobsDue(t0, 10, func(j *store.Job) error { due = append(due, j); return nil })
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
		if j, err := tx.JobGetByName("weekly-report"); err != nil || j.JobID != want[0].JobID {
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
		if n, err := tx.AuditVerify(); n != 6 || err != nil {
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

func storetestJobsDue(tx store.Tx, at time.Time) ([]*store.Job, error) {
	var out []*store.Job
	err := tx.JobsDue(at, 100, func(j *store.Job) error { out = append(out, j); return nil })
	return out, err
}

// TestOpen_RefusesAnEmptyOrUnreadableFile: a store file that exists but is
// empty (zero bytes), or is not a file, is refused with an error that says
// so, and is left as it was; only where no file is does Open create one.
func TestOpen_RefusesAnEmptyOrUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := bolt.Open(empty, nil)
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "empty (0 bytes)") {
		t.Errorf("Open(empty file) = %v, want ErrCorrupt saying it is empty", err)
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Errorf("the empty file after Open: %v, %v; want it left as it was", st, err)
	}
	notFile := filepath.Join(dir, "dir.db")
	if err := os.Mkdir(notFile, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := bolt.Open(notFile, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open(a directory) = %v, want it refused as not a regular file", err)
	}
	// A FIFO blocks whoever opens it until a writer comes: Open must not
	// open it to learn what it is.
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		_, err := bolt.Open(fifo, nil)
		opened <- err
	}()
	select {
	case err := <-opened:
		if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(a FIFO) = %v, want it refused as not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the stuck open so the test can end.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("Open(a FIFO) still blocked after 10s; want it refused at once")
	}
	fresh := filepath.Join(dir, "new", "automation.db")
	s, err := bolt.Open(fresh, nil)
	if err != nil {
		t.Fatalf("Open(no file) = %v, want a new store", err)
	}
	s.Close()
	s, err = bolt.Open(fresh, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reopening the new store = %v", err)
	}
	s.Close()
	left, _ := filepath.Glob(filepath.Join(dir, "new", "*.new-*"))
	if len(left) != 0 {
		t.Errorf("files left from creating the store: %v", left)
	}
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
		err := tx.JobsDue(t0, 10, func(j *store.Job) error { got = append(got, j.JobID); return nil })
		var ue *store.UnreadableJobsError
		if !errors.As(err, &ue) || !errors.Is(err, store.ErrCorrupt) || len(ue.Jobs) != 1 || ue.Jobs[0].ID != "BAD" {
			t.Fatalf("JobsDue over a bad record = %v, want an UnreadableJobsError naming BAD", err)
		}
		if d := cmp.Diff([]string{"A", "C"}, got); d != "" {
			t.Errorf("JobsDue handed out (-want +got):\n%s", d)
		}
		if err := tx.JobQuarantine("A"); err == nil {
			t.Error("JobQuarantine of a job that reads succeeded")
		}
		return tx.JobQuarantine("BAD")
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

// rewriteAudit rewrites a closed store's audit log as someone with the
// file but not the audit key can: edit turns the events (as stored, MACs
// included) into new ones, which are renumbered, re-chained and re-hashed,
// and the head is moved to the last.
func rewriteAudit(t *testing.T, path string, edit func([]*store.AuditEvent) []*store.AuditEvent) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		var evs []*store.AuditEvent
		var keys [][]byte
		b.ForEach(func(k, v []byte) error {
			var ev store.AuditEvent
			if err := json.Unmarshal(v[32:], &ev); err != nil {
				return err
			}
			evs, keys = append(evs, &ev), append(keys, slices.Clone(k))
			return nil
		})
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		var prev []byte
		for i, ev := range edit(evs) {
			ev.Seq, ev.PrevHash, ev.Hash = uint64(i+1), hex.EncodeToString(prev), ""
			body, err := bolt.Encode(ev)
			if err != nil {
				return err
			}
			hash := store.AuditHash(prev, body)
			k := binary.BigEndian.AppendUint64(nil, ev.Seq)
			if err := b.Put(k, append(hash, body...)); err != nil {
				return err
			}
			prev = hash
			if err := tx.Bucket([]byte("meta")).Put([]byte("audit_head"), append(k, hash...)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuditVerify_RewriteIsCaughtOnlyWithTheKey: editing one record,
// deleting another and re-hashing the rest and the head passes AuditVerify
// when the store has no audit key — the chain proves only that the file
// is consistent with itself — and fails it when the store has one, at the
// first record rewritten, whether the rewrite keeps or strips the MACs.
func TestAuditVerify_RewriteIsCaughtOnlyWithTheKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	attack := func(evs []*store.AuditEvent) []*store.AuditEvent {
		evs[1].Detail = "nothing happened here"
		return append(evs[:2], evs[3:]...)
	}
	strip := func(evs []*store.AuditEvent) []*store.AuditEvent {
		for _, ev := range evs {
			ev.MAC = ""
		}
		return attack(evs)
	}
	for _, tc := range []struct {
		name    string
		key     []byte
		rewrite func([]*store.AuditEvent) []*store.AuditEvent
		broken  uint64 // 0: passes
	}{
		{"no key: the rewrite passes", nil, attack, 0},
		{"key: the rewrite fails", key, attack, 2},
		{"key: a rewrite that strips the MACs fails", key, strip, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			s, err := bolt.Open(path, &bolt.Options{AuditKey: tc.key})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Update(t.Context(), func(tx store.Tx) error {
				for i := range 5 {
					ev := &store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobCreated, JobID: fmt.Sprint("J", i)}
					if err := tx.AuditAppend(ev); err != nil {
						return err
					}
					if (ev.MAC != "") != (tc.key != nil) {
						t.Errorf("event %d MAC = %q with key %q", ev.Seq, ev.MAC, tc.key)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := verify(t, s); n != 5 || err != nil {
				t.Fatalf("AuditVerify before the rewrite = %d, %v", n, err)
			}
			s.Close()
			rewriteAudit(t, path, tc.rewrite)
			s, err = bolt.Open(path, &bolt.Options{AuditKey: tc.key})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			n, err := verify(t, s)
			var ce *store.ChainError
			switch {
			case tc.broken == 0 && (err != nil || n != 4):
				t.Errorf("AuditVerify after the rewrite = %d, %v; want it to pass (4 records)", n, err)
			case tc.broken > 0 && (!errors.As(err, &ce) || ce.Seq != tc.broken || !strings.Contains(ce.Reason, "MAC")):
				t.Errorf("AuditVerify after the rewrite = %d, %v; want record %d's MAC refused", n, err, tc.broken)
			}
		})
	}
	// A store keyed later refuses records that were written without the key.
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Update(t.Context(), func(tx store.Tx) error { return tx.AuditAppend(&store.AuditEvent{Action: store.AuditJobCreated}) })
	s.Close()
	if s, err = bolt.Open(path, &bolt.Options{AuditKey: key}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := verify(t, s); err == nil || !strings.Contains(err.Error(), "carries no MAC") {
		t.Errorf("AuditVerify with a key over a record written without it = %v, want it refused", err)
	}
}

func verify(t *testing.T, s store.Store) (n int, err error) {
	t.Helper()
	verr := s.View(t.Context(), func(tx store.Tx) error {
		n, err = tx.AuditVerify()
		return nil
	})
	if verr != nil {
		t.Fatal(verr)
	}
	return n, err
}
