package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestUnreadableDueJobIsPassedOverAndQuarantined: a due job whose stored
// record does not decode does not stop the others; JobsDue names it, and
// JobQuarantine takes it out of the due index as disabled, keeping its bytes
// and its name (as bolt does): no other job takes the name meanwhile, and
// once repaired the job is found by it again.
func TestUnreadableDueJobIsPassedOverAndQuarantined(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C"} {
			j := storetest.NewJob(id, t0)
			j.Name = "name-" + id
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := mustConnect(t, dsn).Exec(t.Context(), `UPDATE schedbot_jobs SET body = 'not json' WHERE job_id = 'BAD'`); err != nil {
		t.Fatal(err)
	}
	var fired []string
	err := s.Update(t.Context(), func(tx store.Tx) error {
		err := ops.RowsOf(tx).JobsDue(t0, 10, func(j *store.Job) error { fired = append(fired, j.JobID); return nil })
		var ue *store.UnreadableJobsError
		if !errors.As(err, &ue) || len(ue.Jobs) != 1 || ue.Jobs[0].ID != "BAD" || !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("JobsDue = %v, want an UnreadableJobsError naming BAD", err)
		}
		if err := ops.RowsOf(tx).JobQuarantine("A"); err == nil {
			t.Error("JobQuarantine of a job that reads succeeded")
		}
		return ops.RowsOf(tx).JobQuarantine("BAD")
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(fired) != "[A C]" {
		t.Errorf("fired %v, want [A C]", fired)
	}
	mustView(t, s, func(tx store.Tx) error {
		if err := ops.RowsOf(tx).JobsDue(t0, 10, func(*store.Job) error { return nil }); err != nil {
			t.Errorf("JobsDue after the quarantine = %v", err)
		}
		if n, _ := tx.JobCount(store.JobDisabled); n != 1 {
			t.Errorf("disabled jobs = %d, want the quarantined one", n)
		}
		return nil
	})
	var body string
	if err := mustConnect(t, dsn).QueryRow(t.Context(), `SELECT convert_from(body, 'UTF8') FROM schedbot_jobs WHERE job_id = 'BAD'`).Scan(&body); err != nil || body != "not json" {
		t.Errorf("quarantined record = %q, %v; want its bytes kept", body, err)
	}
	other := storetest.NewJob("D", t0)
	other.Name = "name-BAD"
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.JobPut(other) }); !errors.Is(err, store.ErrExists) {
		t.Errorf("another job named as the quarantined one: %v, want ErrExists", err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := ops.RowsOf(tx).JobGetByName("name-BAD"); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("JobGetByName(name-BAD) = %v, want the quarantined record named corrupt", err)
		}
		return nil
	})
}

// TestAnUnreadableJobDoesNotEndTheBurst: a batch whose rows include a job
// that does not decode is full all the same (the scheduler quarantines
// that one), so the due jobs after it fire in the same pass.
func TestAnUnreadableJobDoesNotEndTheBurst(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C", "D"} {
			if err := tx.JobPut(storetest.NewJob(id, t0)); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := mustConnect(t, dsn).Exec(t.Context(), `UPDATE schedbot_job_status SET status = 'not json' WHERE job_id = 'BAD'`); err != nil {
		t.Fatal(err)
	}
	n, err := scheduler.New(s, &scheduler.Options{OrchestratorID: "ops", Batch: 2}).FireDue(t.Context(), t0)
	if err != nil || n != 3 {
		t.Fatalf("FireDue = %d, %v; want the 3 readable jobs fired in one pass", n, err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if k, _ := tx.JobCount(store.JobDisabled); k != 1 {
			t.Errorf("disabled jobs = %d, want the unreadable one", k)
		}
		return nil
	})
}

// TestQuarantiningAJobWhileAnotherProcessTouchesIt: while a dispatch
// holds a due job whose record does not decode, another process's write
// transaction reads that job (a change a user asks for), or writes it
// without reading it first (store copy). The dispatch quarantines it and
// commits; the reader waits for it and is told the record is corrupt, the
// writer waits and then writes. Neither deadlocks with the dispatch: each
// waits for the status row the dispatch holds without holding the
// definition row the quarantine writes.
func TestQuarantiningAJobWhileAnotherProcessTouchesIt(t *testing.T) {
	for _, c := range []struct {
		name  string
		touch func(store.Tx) error
		want  error
	}{
		{"reads it", func(tx store.Tx) error { _, err := tx.JobGet("BAD"); return err }, store.ErrCorrupt},
		{"writes it unread", func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("BAD", t0)) }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := pgtest.DSN(t)
			a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
			now := time.Now().UTC()
			mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("BAD", now.Add(-time.Minute))) })
			conn := mustConnect(t, dsn)
			if _, err := conn.Exec(t.Context(), `UPDATE schedbot_job_status SET status = 'not json' WHERE job_id = 'BAD'`); err != nil {
				t.Fatal(err)
			}
			errB := make(chan error, 1)
			errA := a.Update(t.Context(), func(tx store.Tx) error {
				err := ops.RowsOf(tx).JobsDue(now, 10, func(*store.Job) error { return nil })
				var ue *store.UnreadableJobsError
				if !errors.As(err, &ue) {
					return fmt.Errorf("JobsDue = %v, want BAD named unreadable", err)
				}
				go func() { errB <- b.Update(context.Background(), c.touch) }()
				// Until b waits for a lock this transaction holds.
				deadline := time.Now().Add(10 * time.Second)
				for {
					var n int
					err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
					if err != nil {
						return err
					}
					if n > 0 {
						break
					}
					if time.Now().After(deadline) {
						return errors.New("the other process never waited for the dispatch")
					}
					time.Sleep(time.Millisecond) // polls pg_stat_activity: nothing to be told by
				}
				return ops.RowsOf(tx).JobQuarantine("BAD")
			})
			if err := <-errB; !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("the other process's transaction = %v, want %v", err, c.want)
			}
			if errA != nil {
				t.Errorf("the dispatch = %v, want it quarantined and committed", errA)
			}
		})
	}
}
