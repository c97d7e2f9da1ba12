package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestReadAheadSeesLaterWrites: the runs read ahead for due jobs (none
// yet) do not hide a run written later in the same transaction, before or
// after what was kept has been sent.
func TestReadAheadSeesLaterWrites(t *testing.T) {
	s := mustOpen(t, pgtest.DSN(t), "ops")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J", t0)) })
	mustUpdate(t, s, func(tx store.Tx) error {
		exec := store.ExecutionID("J", t0)
		return ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error {
			if _, err := tx.RunGet(exec); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("RunGet before the put = %v, want not found", err)
			}
			if err := tx.RunPut(&store.Run{ExecutionID: exec, JobID: "J", ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
				return err
			}
			if r, err := tx.RunGet(exec); err != nil || r.Status != store.RunDispatched {
				t.Errorf("RunGet of the kept put = %+v, %v", r, err)
			}
			if _, err := ops.RowsOf(tx).QueueCount(store.QueueIncoming); err != nil { // sends what was kept
				return err
			}
			if r, err := tx.RunGet(exec); err != nil || r.Status != store.RunDispatched {
				t.Errorf("RunGet after the flush = %+v, %v", r, err)
			}
			return nil
		})
	})
}

// TestReadAheadLocksTheJobsAndSeesLaterWrites: jobs read ahead (the
// worker's batch of triggers) are locked as JobGet locks them, so another
// process's dispatch passes them over, and a job written after it was read
// ahead reads as written.
func TestReadAheadLocksTheJobsAndSeesLaterWrites(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	mustUpdate(t, a, func(tx store.Tx) error {
		for _, id := range []string{"J1", "J2"} {
			if err := tx.JobPut(storetest.NewJob(id, now.Add(-time.Minute))); err != nil {
				return err
			}
		}
		return nil
	})
	release := holding(t, a, func(tx store.Tx) error {
		return tx.(ops.ReadAheader).ReadAhead([]string{"J1", "nope"}, []string{"J1@x"})
	})
	var due []string
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := b.Update(ctx, func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(now, 10, func(j *store.Job) error { due = append(due, j.JobID); return nil })
	})
	release()
	if err != nil || fmt.Sprint(due) != "[J2]" {
		t.Errorf("another process's dispatch = %v, %v; want J2 only (J1 is read ahead and held)", due, err)
	}
	mustUpdate(t, a, func(tx store.Tx) error {
		if err := tx.(ops.ReadAheader).ReadAhead([]string{"J1", "nope"}, nil); err != nil {
			return err
		}
		j, err := tx.JobGet("J1")
		if err != nil {
			return err
		}
		j.Description = "changed"
		if err := tx.JobPut(j); err != nil {
			return err
		}
		if _, err := tx.JobCount(); err != nil { // a range read: sends the write
			return err
		}
		if again, err := tx.JobGet("J1"); err != nil || again.Description != "changed" {
			t.Errorf("J1 after its write reads %q, %v; want it as written", again.Description, err)
		}
		if _, err := tx.JobGet("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a job read ahead and absent: %v", err)
		}
		return nil
	})
}
