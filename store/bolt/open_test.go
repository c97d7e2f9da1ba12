package bolt_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/storetest"
)

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
		_, err := ops.RowsOf(tx).AuditVerify()
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
	// Every page past the two metas says it is another: bbolt's free list
	// rebuild (on a goroutine of its own) would panic the process.
	scrambled := slices.Clone(data)
	for off := 2 * os.Getpagesize(); off+8 <= int(used); off += os.Getpagesize() {
		binary.LittleEndian.PutUint64(scrambled[off:], 0xdeadbeef)
	}
	cases := map[string][]byte{
		"truncated":       data[:used/3],
		"half":            data[:used/2],
		"tiny":            data[:100],
		"garbage":         garbage,
		"pages scrambled": scrambled,
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

// The store does not write bbolt's free list at each commit (DBOptions):
// both meta pages say there is none, and a reopened store rebuilds it and
// reads on.
func TestOpen_NoFreelistWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i := range 3 { // commits that free the pages they rewrite
		err := s.Update(context.Background(), func(tx store.Tx) error {
			return tx.RunPut(&store.Run{ExecutionID: store.ExecutionID("J1", at.Add(time.Duration(i)*time.Minute)), JobID: "J1",
				ScheduledAt: at, Status: store.RunDispatched})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.LittleEndian.Uint32(b[16+8:]))
	for _, off := range []int{0, pageSize} { // the two meta pages
		if fl := binary.LittleEndian.Uint64(b[off+16+32:]); fl != ^uint64(0) {
			t.Errorf("meta page at %d names free list page %d, want none", off, fl)
		}
	}
	s, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.View(context.Background(), func(tx store.Tx) error {
		runs, err := tx.RunList("J1", 10)
		if err == nil && len(runs) != 3 {
			err = fmt.Errorf("reopened store has %d runs of J1, want 3", len(runs))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBurstWritesFullPages: a burst rewrites its jobs' statuses and moves
// their next-run entries together to one later instant, and appends their
// runs' triggers and audit events; each of those buckets is left packed
// (fillPercent), not at bbolt's half-full default.
func TestBurstWritesFullPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation.db")
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	fired := func(j *store.Job, at time.Time) {
		j.NextRunAt, j.LastRunAt, j.RunCount = at.Add(24*time.Hour), at, j.RunCount+1
		j.LastResult = &store.Result{ExecutionID: store.ExecutionID(j.JobID, at), Status: string(store.RunDispatched)}
	}
	jobs := make([]*store.Job, n)
	for i := range jobs {
		jobs[i] = &store.Job{JobID: fmt.Sprintf("01K%023d", i), OrchestratorID: "default", ScheduleType: store.ScheduleCron,
			Schedule: store.Schedule{Cron: "0 9 * * *", Timezone: "UTC"}, State: store.JobEnabled, NextRunAt: at}
		// In its steady state: it ran yesterday, and its status keeps its size.
		fired(jobs[i], at.Add(-24*time.Hour))
	}
	update := func(fn func(tx store.Tx, j *store.Job) error) {
		t.Helper()
		err := s.Update(context.Background(), func(tx store.Tx) error {
			for _, j := range jobs {
				if err := fn(tx, j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	update(func(tx store.Tx, j *store.Job) error { return tx.JobPut(j) })
	update(func(tx store.Tx, j *store.Job) error { // the burst
		exec := store.ExecutionID(j.JobID, at)
		if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID, ExecutionID: exec}); err != nil {
			return err
		}
		if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: store.AuditTriggerDispatched, JobID: j.JobID, ExecutionID: exec}); err != nil {
			return err
		}
		fired(j, at)
		return ops.RowsOf(tx).JobStatusPut(j)
	})
	s.Close()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		for _, name := range []string{"job_status", "jobs_next", "queue_incoming", "audit"} {
			st := tx.Bucket([]byte(name)).Stats()
			if fill := float64(st.LeafInuse) / float64(st.LeafAlloc); fill < 0.8 {
				t.Errorf("bucket %s: leaf pages %.0f%% full after a burst, want at least 80%%", name, 100*fill)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
