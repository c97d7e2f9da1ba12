package storetest

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/schedbot/schedbot/store"
)

// testAuditPrune: pruning the oldest records and appending a checkpoint
// that names the last one pruned leaves a chain that verifies, from the
// first record kept; pruning without a checkpoint, or up to the head, does
// not.
func testAuditPrune(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for range 5 {
			if err := tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditJobCreated, JobID: "J"}); err != nil {
				return err
			}
		}
		return nil
	})
	var third *store.AuditEvent
	mustView(t, s, func(tx store.Tx) error {
		evs, err := tx.AuditList(&store.AuditListParams{AfterSeq: 2, Limit: 1})
		if err != nil || len(evs) != 1 {
			t.Fatalf("AuditList(after 2) = %v, %v", evs, err)
		}
		third = evs[0]
		if _, err := tx.AuditPrune(1); err == nil {
			t.Error("AuditPrune in a View = nil error, want it refused")
		}
		return nil
	})
	err := s.Update(t.Context(), func(tx store.Tx) error {
		_, err := tx.AuditPrune(5)
		return err
	})
	if err == nil {
		t.Error("AuditPrune(the head) = nil error, want the last record kept")
	}
	// Pruned with no checkpoint, the chain does not verify.
	err = s.Update(t.Context(), func(tx store.Tx) error {
		if n, err := tx.AuditPrune(3); n != 3 || err != nil {
			t.Errorf("AuditPrune(3) = %d, %v; want 3", n, err)
		}
		var ce *store.ChainError
		if _, err := tx.AuditVerify(); !errors.As(err, &ce) {
			t.Errorf("AuditVerify with records pruned and no checkpoint = %v, want a ChainError", err)
		}
		return errors.New("roll back")
	})
	if err == nil {
		t.Fatal("the rolled-back transaction committed")
	}
	cp, _ := json.Marshal(store.AuditCheckpoint{Through: 3, Hash: third.Hash})
	mustUpdate(t, s, func(tx store.Tx) error {
		if _, err := tx.AuditPrune(3); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditPruned, After: cp})
	})
	mustView(t, s, func(tx store.Tx) error {
		if n, err := tx.AuditVerify(); n != 3 || err != nil {
			t.Errorf("AuditVerify after pruning = %d, %v; want records 4 to 6 intact", n, err)
		}
		evs, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		if seq, hash, err := tx.AuditHead(); seq != 6 || len(evs) != 3 || hash != evs[2].Hash || err != nil {
			t.Errorf("AuditHead = %d %s, %v; want the last record's (6)", seq, hash, err)
		}
		var seqs []uint64
		for _, ev := range evs {
			seqs = append(seqs, ev.Seq)
		}
		if len(seqs) != 3 || seqs[0] != 4 || seqs[2] != 6 {
			t.Errorf("records after pruning = %v, want 4 5 6", seqs)
		}
		return nil
	})
	// A checkpoint that names another hash does not make the chain whole.
	bad, _ := json.Marshal(store.AuditCheckpoint{Through: 5, Hash: third.Hash})
	mustUpdate(t, s, func(tx store.Tx) error {
		if _, err := tx.AuditPrune(5); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditPruned, After: bad})
	})
	mustView(t, s, func(tx store.Tx) error {
		var ce *store.ChainError
		if _, err := tx.AuditVerify(); !errors.As(err, &ce) {
			t.Errorf("AuditVerify with a checkpoint naming the wrong hash = %v, want a ChainError", err)
		}
		return nil
	})
}
