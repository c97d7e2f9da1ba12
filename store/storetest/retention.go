package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// testAuditPrune: pruning the oldest records and appending a checkpoint
// that names the last one pruned leaves a chain that verifies, from the
// first record kept; pruning without a checkpoint does not, and pruning
// past the head is refused.
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
		if _, err := ops.RowsOf(tx).AuditPrune(1); err == nil {
			t.Error("AuditPrune in a View = nil error, want it refused")
		}
		return nil
	})
	err := s.Update(t.Context(), func(tx store.Tx) error {
		_, err := ops.RowsOf(tx).AuditPrune(6)
		return err
	})
	if err == nil {
		t.Error("AuditPrune(past the head) = nil error, want it refused")
	}
	// Pruned with no checkpoint, the chain does not verify.
	err = s.Update(t.Context(), func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).AuditPrune(3); n != 3 || err != nil {
			t.Errorf("AuditPrune(3) = %d, %v; want 3", n, err)
		}
		var ce *store.ChainError
		if _, err := ops.RowsOf(tx).AuditVerify(); !errors.As(err, &ce) {
			t.Errorf("AuditVerify with records pruned and no checkpoint = %v, want a ChainError", err)
		}
		return errors.New("roll back")
	})
	if err == nil {
		t.Fatal("the rolled-back transaction committed")
	}
	cp, _ := json.Marshal(store.AuditCheckpoint{Through: 3, Hash: third.Hash})
	mustUpdate(t, s, func(tx store.Tx) error {
		if _, err := ops.RowsOf(tx).AuditPrune(3); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditPruned, After: cp})
	})
	mustView(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).AuditVerify(); n != 3 || err != nil {
			t.Errorf("AuditVerify after pruning = %d, %v; want records 4 to 6 intact", n, err)
		}
		evs, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		if seq, hash, err := ops.RowsOf(tx).AuditHead(); seq != 6 || len(evs) != 3 || hash != evs[2].Hash || err != nil {
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
		if _, err := ops.RowsOf(tx).AuditPrune(5); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditPruned, After: bad})
	})
	mustView(t, s, func(tx store.Tx) error {
		var ce *store.ChainError
		if _, err := ops.RowsOf(tx).AuditVerify(); !errors.As(err, &ce) {
			t.Errorf("AuditVerify with a checkpoint naming the wrong hash = %v, want a ChainError", err)
		}
		return nil
	})
	// Pruned through the head, the checkpoint alone is the chain.
	mustUpdate(t, s, func(tx store.Tx) error {
		seq, hash, err := ops.RowsOf(tx).AuditHead()
		if err != nil {
			return err
		}
		if _, err := ops.RowsOf(tx).AuditPrune(seq); err != nil {
			return err
		}
		cp, _ := json.Marshal(store.AuditCheckpoint{Through: seq, Hash: hash})
		return tx.AuditAppend(&store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditPruned, After: cp})
	})
	mustView(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).AuditVerify(); n != 1 || err != nil {
			t.Errorf("AuditVerify of a checkpoint alone = %d, %v; want 1, nil", n, err)
		}
		return nil
	})
}

// testRetention: RunPrune deletes a job's finished runs past the newest
// Keep and those finished before Before, never a run still going and
// never another job's; JobPrune deletes the jobs deleted before a time,
// with their runs, and no other job.
func testRetention(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, id := range []string{"J", "K"} {
			if err := tx.JobPut(NewJob(id, t0)); err != nil {
				return err
			}
			for h := 5; h >= 1; h-- {
				at := t0.Add(-time.Duration(h) * time.Hour)
				if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(id, at), JobID: id, ScheduledAt: at, CompletedAt: at.Add(time.Minute), Status: store.RunCompleted}); err != nil {
					return err
				}
			}
			if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(id, t0), JobID: id, ScheduledAt: t0, Status: store.RunRunning}); err != nil {
				return err
			}
		}
		for id, at := range map[string]time.Time{"OLD": t0.Add(-48 * time.Hour), "NEW": t0} {
			j := NewJob(id, time.Time{})
			j.State, j.UpdatedAt = store.JobDeleted, at
			if err := tx.JobPut(j); err != nil {
				return err
			}
			if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(id, at), JobID: id, ScheduledAt: at, Status: store.RunCompleted}); err != nil {
				return err
			}
		}
		return nil
	})
	prune := func(p *store.PruneParams) int {
		t.Helper()
		p.What, p.JobIDs = store.PruneRuns, []string{"J"}
		n, err := s.Prune(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	count := func(id string) int {
		t.Helper()
		var n int
		mustView(t, s, func(tx store.Tx) error {
			rs, err := tx.RunList(id, 100)
			n = len(rs)
			return err
		})
		return n
	}
	if n := prune(&store.PruneParams{Keep: 10, Before: t0.Add(-150 * time.Minute)}); n != 3 {
		t.Errorf("RunPrune by age = %d, want the 3 runs finished over 2.5h ago", n)
	}
	if n := prune(&store.PruneParams{Keep: 1, Limit: 1}); n != 1 {
		t.Errorf("RunPrune with limit 1 = %d, want 1", n)
	}
	if n := prune(&store.PruneParams{Keep: 1}); n != 1 {
		t.Errorf("RunPrune by count = %d, want the last finished run past the newest", n)
	}
	if n := prune(&store.PruneParams{Keep: 0, Before: t0.Add(time.Hour)}); n != 0 {
		t.Errorf("RunPrune of a job whose only run is running = %d, want it kept", n)
	}
	if got, want := count("J"), 1; got != want {
		t.Errorf("J's runs after pruning = %d, want %d (the running one)", got, want)
	}
	if got := count("K"); got != 6 {
		t.Errorf("K's runs = %d, want all 6: another job's runs are not pruned", got)
	}
	var n int
	mustUpdate(t, s, func(tx store.Tx) (err error) { n, err = ops.RowsOf(tx).JobPrune(t0.Add(-24*time.Hour), 10); return err })
	if n != 1 {
		t.Errorf("JobPrune = %d, want the job deleted 48h ago", n)
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGet("OLD"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("JobGet(pruned) = %v, want ErrNotFound", err)
		}
		for id, want := range map[string]int{"OLD": 0, "NEW": 1, "K": 6} {
			if rs, err := tx.RunList(id, 100); err != nil || len(rs) != want {
				t.Errorf("runs of %s = %d, %v; want %d", id, len(rs), err, want)
			}
		}
		if c, _ := tx.JobCount(store.JobDeleted); c != 1 {
			t.Errorf("deleted jobs = %d, want the recent one kept", c)
		}
		if c, _ := tx.JobCount(); c != 3 {
			t.Errorf("jobs = %d, want J, K and NEW", c)
		}
		return nil
	})
}
