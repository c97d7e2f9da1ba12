package bolt_test

import (
	"bytes"
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
	"testing"
	"time"

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

// auditEntries splits a stored audit block into its entries (hash,
// length, body), as someone editing the file would.
func auditEntries(v []byte) [][]byte {
	var out [][]byte
	for len(v) >= 36 {
		n := 36 + int(binary.BigEndian.Uint32(v[32:36]))
		out = append(out, v[:n:n])
		v = v[n:]
	}
	return out
}

func TestAuditVerify_FindsTheFirstBadRecord(t *testing.T) {
	// edit gets the stored entries of events 1-5 (in one block or five)
	// and returns the ones to store.
	cases := map[string]struct {
		edit    func(entries [][]byte) [][]byte
		wantSeq uint64
	}{
		"edited": {func(e [][]byte) [][]byte {
			body := strings.Replace(string(e[2][36:]), "job.paused", "job.resumed", 1)
			e[2] = binary.BigEndian.AppendUint32(slices.Clone(e[2][:32]), uint32(len(body)))
			e[2] = append(e[2], body...)
			return e
		}, 3},
		"removed":      {func(e [][]byte) [][]byte { return slices.Delete(e, 1, 2) }, 2},
		"last removed": {func(e [][]byte) [][]byte { return e[:4] }, 5},
	}
	for name, c := range cases {
		for _, oneTx := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/one-transaction=%v", name, oneTx), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "s.db")
				s, err := bolt.Open(path, nil)
				if err != nil {
					t.Fatal(err)
				}
				perTx := 1
				if oneTx {
					perTx = 5
				}
				for range 5 / perTx {
					err := s.Update(t.Context(), func(tx store.Tx) error {
						for range perTx {
							if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "o", Action: store.AuditJobPaused, JobID: "J"}); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				s.Close()
				tamper(t, path, func(b *bbolt.Bucket) error {
					var keys [][]byte
					var entries [][]byte
					b.ForEach(func(k, v []byte) error {
						keys = append(keys, slices.Clone(k))
						entries = append(entries, auditEntries(slices.Clone(v))...)
						return nil
					})
					if len(entries) != 5 {
						t.Fatalf("%d entries stored, want 5", len(entries))
					}
					for _, k := range keys {
						if err := b.Delete(k); err != nil {
							return err
						}
					}
					kept := c.edit(entries)
					if oneTx {
						return b.Put(seq(1), bytes.Join(kept, nil))
					}
					for _, e := range kept { // each under the seq its body names
						var ev struct{ Seq uint64 }
						json.Unmarshal(e[36:], &ev)
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
}

// TestOpen_UpgradesSchema1: a file written before jobs were split into a
// definition and a status (one JSON record per job) is upgraded when opened
// for writing, and keeps every field; a read-only open says what to do.
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
