package bolt_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
)

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
			err = s.View(t.Context(), func(tx store.Tx) error { _, err := ops.RowsOf(tx).AuditVerify(); return err })
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
		n, err = ops.RowsOf(tx).AuditVerify()
		return nil
	})
	if verr != nil {
		t.Fatal(verr)
	}
	return n, err
}
