package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestStatusWritesLeaveTheDefinitionRow: firing a job (JobsDue, then
// JobStatusPut) and a worker's JobPut of the job it read with a new
// lastResult write the status row alone; the definition row is not
// rewritten (its xmin, the transaction that wrote it, stays). A changed
// definition is written.
func TestStatusWritesLeaveTheDefinitionRow(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	conn := mustConnect(t, dsn)
	xmins := func() (def, status string) {
		t.Helper()
		err := conn.QueryRow(t.Context(), `SELECT j.xmin::text, s.xmin::text FROM schedbot_jobs j JOIN schedbot_job_status s USING (orchestrator_id, job_id)
			WHERE j.orchestrator_id = 'ops' AND j.job_id = 'J1'`).Scan(&def, &status)
		if err != nil {
			t.Fatal(err)
		}
		return def, status
	}
	now := time.Now().UTC()
	j1 := storetest.NewJob("J1", now.Add(-time.Minute))
	j1.TargetAction.Inputs = map[string]any{} // a map: encoded in one order each time, or the definition looks changed
	for i := range 20 {
		j1.TargetAction.Inputs[fmt.Sprintf("k%02d", i)] = map[string]any{"a": i, "b": "x", "c": true}
	}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.JobPut(j1) })
	def0, st0 := xmins()

	mustUpdate(t, s, func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(now, 10, func(j *store.Job) error {
			j.NextRunAt, j.RunCount = now.Add(time.Hour), j.RunCount+1
			return ops.RowsOf(tx).JobStatusPut(j)
		})
	})
	def1, st1 := xmins()
	if def1 != def0 || st1 == st0 {
		t.Errorf("after a dispatch: definition xmin %s -> %s, status %s -> %s; want the status alone rewritten", def0, def1, st0, st1)
	}

	for _, ahead := range []bool{false, true} {
		mustUpdate(t, s, func(tx store.Tx) error {
			if ahead {
				if err := tx.(ops.ReadAheader).ReadAhead([]string{"J1"}, nil); err != nil {
					return err
				}
			}
			j, err := tx.JobGet("J1")
			if err != nil {
				return err
			}
			j.LastResult = &store.Result{ExecutionID: "J1@x", Status: "completed"}
			return tx.JobPut(j)
		})
		def2, st2 := xmins()
		if def2 != def0 || st2 == st1 {
			t.Errorf("after a worker's JobPut (read ahead %v): definition xmin %s -> %s, status %s -> %s; want the status alone rewritten",
				ahead, def0, def2, st1, st2)
		}
		st1 = st2
	}

	mustUpdate(t, s, func(tx store.Tx) error {
		j, err := tx.JobGet("J1")
		if err != nil {
			return err
		}
		j.Description = "changed"
		return tx.JobPut(j)
	})
	if def3, _ := xmins(); def3 == def0 {
		t.Errorf("after a definition change the definition row was not rewritten (xmin %s)", def3)
	}
	mustView(t, s, func(tx store.Tx) error {
		j, err := tx.JobGet("J1")
		if err != nil || j.Description != "changed" || j.RunCount != 1 || j.LastResult == nil || j.LastResult.Status != "completed" {
			t.Errorf("J1 = %+v, %v; want the description, the run count and the lastResult all kept", j, err)
		}
		return nil
	})
}

// gatedStore opens a store on dsn as a role whose first read of either of
// job J's rows (status or definition) waits while the returned conn holds
// advisory lock 7 (row-level security policies; the tests' own role, a
// superuser, bypasses them). It lets a test commit a change between the
// moment that store's statement takes its snapshot and the moment it
// locks J's rows.
func gatedStore(t *testing.T, dsn string) (s *postgres.Store, wait func(), open func()) {
	t.Helper()
	admin := mustConnect(t, dsn)
	for _, q := range []string{
		`CREATE ROLE gated LOGIN`,
		`GRANT ALL ON ALL TABLES IN SCHEMA public TO gated`,
		`GRANT ALL ON SCHEMA public TO gated`,
		`CREATE FUNCTION gate(id bytea) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
			BEGIN
				IF id = 'J' THEN
					PERFORM pg_advisory_lock_shared(7);
					PERFORM pg_advisory_unlock_shared(7);
				END IF;
				RETURN true;
			END $$`,
		`ALTER TABLE schedbot_jobs ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY gate ON schedbot_jobs USING (gate(job_id))`,
		`ALTER TABLE schedbot_job_status ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY gate ON schedbot_job_status USING (gate(job_id))`,
	} {
		if _, err := admin.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { // the role is the cluster's, not the test database's
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP OWNED BY gated; DROP ROLE gated`); err != nil {
			t.Error(err)
		}
	})
	s = mustOpen(t, strings.Replace(dsn, "user=schedbot", "user=gated", 1), "ops")
	lock := mustConnect(t, dsn)
	if _, err := lock.Exec(t.Context(), `SELECT pg_advisory_lock(7)`); err != nil {
		t.Fatal(err)
	}
	wait = func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			if err := admin.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7 AND objsubid = 1 AND NOT granted
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the gated store never read J's rows")
			}
			time.Sleep(time.Millisecond) // polls pg_locks: nothing to be told by
		}
	}
	open = func() {
		if _, err := lock.Exec(context.Background(), `SELECT pg_advisory_unlock(7)`); err != nil {
			t.Error(err)
		}
	}
	return s, wait, open
}

// TestADispatchHandsOutTheDefinitionCommittedBeforeItsLock: a job changed
// (definition and status, one transaction) and committed after a
// dispatcher's JobsDue took its snapshot, but before it locked the job's
// status row, is handed out as changed: the status row it locks is the
// changed one, and so must the definition be. Handed out as it was, the
// dispatch computes the next window from the old schedule and writes it
// over the new one.
func TestADispatchHandsOutTheDefinitionCommittedBeforeItsLock(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J", now.Add(-time.Minute))) })
	b, wait, open := gatedStore(t, dsn)

	got := make(chan []string, 1)
	errB := make(chan error, 1)
	go func() {
		var seen []string
		errB <- b.Update(context.Background(), func(tx store.Tx) error {
			seen = nil
			return ops.RowsOf(tx).JobsDue(now, 10, func(j *store.Job) error {
				seen = append(seen, j.Description)
				return nil
			})
		})
		got <- seen
	}()
	wait() // b's JobsDue has its snapshot and is reading J's rows
	mustUpdate(t, a, func(tx store.Tx) error {
		j, err := tx.JobGet("J")
		if err != nil {
			return err
		}
		j.Description = "changed"
		return tx.JobPut(j)
	})
	open()
	if err := <-errB; err != nil {
		t.Fatal(err)
	}
	if seen := <-got; len(seen) != 1 || seen[0] != "changed" {
		t.Errorf("dispatch handed out %q, want the job as changed before its status row was locked", seen)
	}
}

// TestANameTakenMeanwhileFailsTheFlush: a transaction that writes a job it
// read and one it did not (two statements, the name checked once both
// ran) still fails with ErrExists when another process took the new job's
// name after it was asked about.
func TestANameTakenMeanwhileFailsTheFlush(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("A", t0)) })
	err := a.Update(t.Context(), func(tx store.Tx) error {
		j, err := tx.JobGet("A")
		if err != nil {
			return err
		}
		j.Description = "changed"
		if err := tx.JobPut(j); err != nil {
			return err
		}
		n := storetest.NewJob("N", t0)
		n.Name = "dup"
		if err := tx.JobPut(n); err != nil {
			return err
		}
		other := storetest.NewJob("O", t0)
		other.Name = "dup"
		mustUpdate(t, b, func(tx store.Tx) error { return tx.JobPut(other) }) // committed meanwhile
		return nil
	})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("the flush after the name was taken = %v, want ErrExists", err)
	}
	mustView(t, a, func(tx store.Tx) error {
		if j, err := ops.RowsOf(tx).JobGetByName("dup"); err != nil || j.JobID != "O" {
			t.Errorf("dup -> %v, %v; want O", j, err)
		}
		return nil
	})
}
