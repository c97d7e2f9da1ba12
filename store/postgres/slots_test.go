package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// slotsHeld counts the dispatch slots held on conn's database: the
// advisory locks under one bigint key (objsubid 1; the instance locks are
// pairs of int4, objsubid 2), the migration lock being released once the
// stores are open.
func slotsHeld(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// until polls cond, a look at the database, for up to ten seconds.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: not %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polls the database: nothing to be told by
	}
}

// dueJobs puts n jobs due at t0.
func dueJobs(t *testing.T, s store.Store, n int) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range n {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%d", i), t0)); err != nil {
				return err
			}
		}
		return nil
	})
}

// dispatch counts the due jobs a write transaction of s is handed.
func dispatch(t *testing.T, s store.Store) int {
	t.Helper()
	n := 0
	mustUpdate(t, s, func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0, 100, func(*store.Job) error { n++; return nil })
	})
	return n
}

// takeSlot is what a dispatch does first: JobsDue in a write transaction,
// here of a time before every job, so that no row is locked too.
func takeSlot(tx store.Tx) error {
	return ops.RowsOf(tx).JobsDue(time.Unix(0, 0), 1, func(*store.Job) error { return nil })
}

// TestJobsDueAgainKeepsItsOneSlot: a transaction that calls JobsDue twice
// holds one dispatch slot, the one it took first, even when the other has
// come free meanwhile: a third transaction takes that one and is handed
// the due jobs the second has not locked.
func TestJobsDueAgainKeepsItsOneSlot(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b, c := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	conn := mustConnect(t, dsn)
	dueJobs(t, a, 10)
	release := holding(t, a, takeSlot) // slot 0
	took, again, done := make(chan error, 2), make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		err := b.Update(context.Background(), func(tx store.Tx) error {
			err := ops.RowsOf(tx).JobsDue(t0, 1, func(*store.Job) error { return nil }) // slot 1, J0
			took <- err
			if err != nil {
				return err
			}
			<-again
			err = ops.RowsOf(tx).JobsDue(t0, 1, func(*store.Job) error { return nil })
			took <- err
			<-done
			return err
		})
		if err != nil {
			t.Error(err)
		}
	})
	defer func() { close(done); wg.Wait() }()
	if err := <-took; err != nil {
		t.Fatal(err)
	}
	release()
	close(again)
	if err := <-took; err != nil {
		t.Fatal(err)
	}
	if n := slotsHeld(t, conn); n != 1 {
		t.Errorf("a transaction that called JobsDue twice holds %d dispatch slots, want 1", n)
	}
	if n := dispatch(t, c); n != 9 {
		t.Errorf("another dispatch was handed %d due jobs, want the 9 not locked", n)
	}
}

// TestADispatchSlotEndsWithItsTransaction: however a dispatching
// transaction ends (committed, failed, panicked, its context cancelled
// while a statement waits, its connection killed), its slot is free
// again: with the other slot taken, another process's dispatch is handed
// the due jobs. Session advisory locks would stay with the pooled
// connection and fail every case.
func TestADispatchSlotEndsWithItsTransaction(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(t *testing.T, s store.Store, admin *pgx.Conn) error
	}{
		{"commits", func(t *testing.T, s store.Store, _ *pgx.Conn) error {
			return s.Update(t.Context(), takeSlot)
		}},
		{"fails", func(t *testing.T, s store.Store, _ *pgx.Conn) error {
			boom := errors.New("boom")
			err := s.Update(t.Context(), func(tx store.Tx) error {
				if err := takeSlot(tx); err != nil {
					return err
				}
				return boom
			})
			if errors.Is(err, boom) {
				return nil
			}
			return fmt.Errorf("Update = %v, want boom", err)
		}},
		{"panics", func(t *testing.T, s store.Store, _ *pgx.Conn) (err error) {
			defer func() {
				if r := recover(); r != "boom" {
					err = fmt.Errorf("recovered %v, want boom", r)
				}
			}()
			return s.Update(t.Context(), func(tx store.Tx) error {
				if err := takeSlot(tx); err != nil {
					return err
				}
				panic("boom")
			})
		}},
		{"is cancelled waiting", func(t *testing.T, s store.Store, admin *pgx.Conn) error {
			// Another transaction holds J9's rows; this one waits for
			// them, slot in hand, until its context is cancelled.
			release := holding(t, s, func(tx store.Tx) error { _, err := tx.JobGet("J9"); return err })
			defer release()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() {
				defer cancel()
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
					var n int
					err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
					if err != nil || n > 0 {
						return
					}
					time.Sleep(5 * time.Millisecond) // polls pg_stat_activity: nothing to be told by
				}
			})
			err := s.Update(ctx, func(tx store.Tx) error {
				if err := takeSlot(tx); err != nil {
					return err
				}
				_, err := tx.JobGet("J9")
				return err
			})
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("Update waiting for a lock, cancelled, = %v, want it cancelled", err)
			}
			return nil
		}},
		{"loses its connection", func(t *testing.T, s store.Store, admin *pgx.Conn) error {
			err := s.Update(t.Context(), func(tx store.Tx) error {
				if err := takeSlot(tx); err != nil {
					return err
				}
				var ok bool
				err := admin.QueryRow(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
					AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&ok)
				if err != nil || !ok {
					return fmt.Errorf("terminate the dispatch's backend: %v, %v", ok, err)
				}
				_, err = tx.JobCount()
				return err
			})
			if err == nil {
				return errors.New("Update on a killed connection = nil, want an error")
			}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := pgtest.DSN(t)
			a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
			admin := mustConnect(t, dsn)
			dueJobs(t, a, 10)
			if err := c.end(t, a, admin); err != nil {
				t.Fatal(err)
			}
			until(t, "every slot free", func() bool { return slotsHeld(t, admin) == 0 })
			release := holding(t, a, takeSlot)
			defer release()
			if n := dispatch(t, b); n != 10 {
				t.Errorf("with one slot taken, after a transaction that took the other ended, a dispatch was handed %d due jobs, want 10", n)
			}
		})
	}
}

// TestASchedulerWithoutASlotLooksAgainSoonAndFiresOnceOneFrees: while
// other transactions hold both dispatch slots (another process firing a
// long burst), a scheduler's rounds fire nothing and look again in 50 ms,
// neither at once (a spin) nor at the minute's wake; once a slot is free
// (the other still held), its next round fires every due window, once,
// with nothing waking it.
func TestASchedulerWithoutASlotLooksAgainSoonAndFiresOnceOneFrees(t *testing.T) {
	const jobs = 30
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	admin := mustConnect(t, dsn)
	at := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	mustUpdate(t, a, func(tx store.Tx) error {
		for i := range jobs {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%02d", i), at)); err != nil {
				return err
			}
		}
		return nil
	})
	release0, release1 := holding(t, a, takeSlot), holding(t, a, takeSlot)
	defer release1()
	if n := slotsHeld(t, admin); n != 2 {
		t.Fatalf("%d dispatch slots held, want both", n)
	}
	armed := make(chan time.Duration, 100)
	var mu sync.Mutex
	fired := map[string]int{}
	all := make(chan struct{})
	s := scheduler.New(b, &scheduler.Options{OrchestratorID: "ops",
		ArmedFunc: func(at time.Time) {
			select {
			case armed <- time.Until(at):
			default:
			}
		},
		DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if fired[j.JobID]++; len(fired) == jobs && fired[j.JobID] == 1 {
				close(all)
			}
		}})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.Run(ctx); err != nil {
			t.Error(err)
		}
	})
	defer wg.Wait()
	defer cancel()
	for range 3 {
		select {
		case wait := <-armed:
			if wait <= 0 || wait > 50*time.Millisecond {
				t.Errorf("with both slots taken, a round waits %s, want 50ms at most and not at once", wait)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("with both slots taken, no round in 10s")
		}
	}
	mu.Lock()
	if len(fired) != 0 {
		t.Errorf("with both slots taken, %d jobs fired, want none", len(fired))
	}
	mu.Unlock()
	release0()
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		mu.Lock()
		n := len(fired)
		mu.Unlock()
		t.Fatalf("10s after a slot came free, %d of %d jobs fired", n, jobs)
	}
	cancel()
	wg.Wait()
	for id, k := range fired {
		if k != 1 {
			t.Errorf("job %s fired %d times", id, k)
		}
	}
	mustView(t, b, func(tx store.Tx) error {
		if k, err := ops.RowsOf(tx).QueueCount(store.QueueIncoming); err != nil || k != jobs {
			t.Errorf("%d triggers, %v; want %d", k, err, jobs)
		}
		return nil
	})
}
