package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestChangingAJobWhileAnotherProcessDispatchesIt: one process changes a
// due job (read, written, audited) while another dispatches due jobs. The
// dispatch neither waits for the change nor deadlocks with it, and neither
// write is lost: the job is passed over while it is being changed, then
// dispatched as changed.
func TestChangingAJobWhileAnotherProcessDispatchesIt(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J", now.Add(-time.Minute))) })
	read, release := make(chan struct{}), make(chan struct{})
	errA := make(chan error, 1)
	go func() {
		errA <- a.Update(t.Context(), func(tx store.Tx) error {
			j, err := tx.JobGet("J")
			if err != nil {
				return err
			}
			close(read)
			j.Description = "changed"
			if err := tx.JobPut(j); err != nil {
				return err
			}
			if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "ops", Action: store.AuditJobUpdated, JobID: "J"}); err != nil {
				return err
			}
			<-release
			return nil
		})
	}()
	<-read
	dispatch := func() (fired []string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		err := b.Update(ctx, func(tx store.Tx) error {
			fired = nil
			return ops.RowsOf(tx).JobsDue(now, 10, func(j *store.Job) error {
				fired = append(fired, j.Description)
				j.NextRunAt, j.RunCount = now.Add(time.Hour), j.RunCount+1
				if err := ops.RowsOf(tx).JobStatusPut(j); err != nil {
					return err
				}
				return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "ops", Action: store.AuditTriggerDispatched, JobID: j.JobID})
			})
		})
		if err != nil {
			t.Fatalf("dispatch: %v", err)
		}
		return fired
	}
	if got := dispatch(); len(got) != 0 {
		t.Errorf("dispatched %q while another process was changing it", got)
	}
	close(release)
	if err := <-errA; err != nil {
		t.Fatalf("the change: %v", err)
	}
	if got := dispatch(); len(got) != 1 || got[0] != "changed" {
		t.Errorf("dispatched %q after the change, want the job as changed", got)
	}
	mustView(t, a, func(tx store.Tx) error {
		j, err := tx.JobGet("J")
		if err != nil {
			return err
		}
		if j.Description != "changed" || j.RunCount != 1 || !j.NextRunAt.Equal(now.Add(time.Hour)) {
			t.Errorf("job = %q, %d runs, next %v; want the change and the dispatch both kept", j.Description, j.RunCount, j.NextRunAt)
		}
		return nil
	})
}

// TestAWindowWrittenMeanwhileFailsTheDispatch: a run read ahead as absent
// is written by COPY, with no upsert; should another process have written
// that window meanwhile (which the job's row lock rules out in schedbot,
// but not in a database someone else writes to), the unique execution id
// fails the dispatch instead of overwriting the other's run.
func TestAWindowWrittenMeanwhileFailsTheDispatch(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	window := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J1", window)) })
	execID := store.ExecutionID("J1", window)
	err := a.Update(t.Context(), func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(time.Now(), 10, func(j *store.Job) error {
			if _, err := tx.RunGet(execID); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the window's run before dispatch: %v, want none", err)
			}
			mustUpdate(t, b, func(tx store.Tx) error { // committed meanwhile
				return tx.RunPut(&store.Run{ExecutionID: execID, JobID: "J1", ScheduledAt: window, Status: store.RunSkipped, Reason: "theirs"})
			})
			return tx.RunPut(&store.Run{ExecutionID: execID, JobID: "J1", ScheduledAt: window, Status: store.RunDispatched})
		})
	})
	if err == nil {
		t.Fatal("the dispatch of a window another process wrote meanwhile committed")
	}
	mustView(t, a, func(tx store.Tx) error {
		r, err := tx.RunGet(execID)
		if err != nil || r.Reason != "theirs" {
			t.Errorf("the window's run after the failed dispatch = %+v, %v; want the other process's", r, err)
		}
		return nil
	})
}

// TestABurstIsFiredByTwoTransactionsWhileAlone: a process alone on its
// orchestrator fires a burst with two transactions, which take the due
// rows the other has not locked: each window once. With another process
// joined, one.
func TestABurstIsFiredByTwoTransactionsWhileAlone(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := mustOpen(t, dsn, "ops")
	if err := a.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	if all, mine := a.ParallelWrites(t.Context()); all != 2 || mine != 2 {
		t.Errorf("alone: %d of %d transactions, want 2 of 2", mine, all)
	}
	at := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	mustUpdate(t, a, func(tx store.Tx) error {
		for i := range 300 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%03d", i), at)); err != nil {
				return err
			}
		}
		return nil
	})
	// The callbacks take no lock: the scheduler calls them one at a time,
	// whichever transaction fired.
	fired := map[string]int{}
	recorded := 0
	s := scheduler.New(a, &scheduler.Options{OrchestratorID: "ops", Batch: 10,
		DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) { fired[j.JobID]++ },
		RecordedFunc:   func(*store.Run) { recorded++ }})
	n, err := s.FireDue(t.Context(), time.Now())
	if err != nil || n != 300 || len(fired) != 300 || recorded != 300 {
		t.Fatalf("FireDue = %d, %v; %d jobs fired, %d runs recorded; want 300", n, err, len(fired), recorded)
	}
	for id, k := range fired {
		if k != 1 {
			t.Errorf("job %s fired %d times", id, k)
		}
	}
	mustView(t, a, func(tx store.Tx) error {
		if k, err := ops.RowsOf(tx).QueueCount(store.QueueIncoming); err != nil || k != 300 {
			t.Errorf("%d triggers, %v; want 300", k, err)
		}
		return nil
	})

	b := mustOpen(t, dsn, "ops")
	if err := b.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, na := a.ParallelWrites(t.Context())
	if all, nb := b.ParallelWrites(t.Context()); na != 1 || nb != 1 || all != 2 {
		t.Errorf("two processes: %d and %d of %d transactions, want 1 each of 2", na, nb, all)
	}
}

// TestEveryDispatchSlotTakenHandsOutNoDueJob: two transactions firing
// hold the orchestrator's two dispatch slots; a third, of another
// process, is handed none of the due jobs, though only two are locked
// (it would contend with the two for the rest), while a read still sees
// them all. Once the two have ended, their slots are free again.
func TestEveryDispatchSlotTakenHandsOutNoDueJob(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	mustUpdate(t, a, func(tx store.Tx) error {
		for i := range 10 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%d", i), t0)); err != nil {
				return err
			}
		}
		return nil
	})
	due := func(s store.Store, write bool) int {
		t.Helper()
		n := 0
		do := s.View
		if write {
			do = s.Update
		}
		err := do(t.Context(), func(tx store.Tx) error {
			return ops.RowsOf(tx).JobsDue(t0, 10, func(*store.Job) error { n++; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	held, release := make(chan error), make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			err := a.Update(t.Context(), func(tx store.Tx) error {
				err := ops.RowsOf(tx).JobsDue(t0, 1, func(*store.Job) error { return nil })
				held <- err
				<-release
				return err
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	if err1, err2 := <-held, <-held; err1 != nil || err2 != nil {
		close(release)
		wg.Wait()
		t.Fatalf("the two holding dispatches: %v, %v", err1, err2)
	}
	if n := due(b, true); n != 0 {
		t.Errorf("with both slots taken, a dispatch was handed %d due jobs, want none", n)
	}
	if n := due(b, false); n != 10 {
		t.Errorf("a read saw %d due jobs, want all 10", n)
	}
	close(release)
	wg.Wait()
	if n := due(b, true); n != 10 {
		t.Errorf("with the slots free again, a dispatch was handed %d due jobs, want 10", n)
	}
}

// TestDispatchesAgainstConcurrentChanges: three processes dispatch 20 due
// jobs over and over (two at a time: one finding both dispatch slots
// taken is handed nothing and tries again) while others change them: definition and status
// together (each change writes one mark into both), the status alone (a
// worker's result, read ahead), names swapped between two jobs read, and
// between a job read and one put as an earlier read had it. Every job a
// dispatch hands out carries the definition that goes with its status,
// no window (job and run count) is dispatched twice, and no dispatch is
// lost (the run count is the number of dispatches committed); every name
// column matches its definition. Definitions read before the status rows
// are locked fail it (mismatches), and so do status rows read unlocked
// (mismatches, windows dispatched twice).
func TestDispatchesAgainstConcurrentChanges(t *testing.T) {
	dsn := pgtest.DSN(t)
	const jobs, blind, rounds = 20, 18, 150 // J18 and J19 are put blind: their run counts are not kept
	setup := mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	id := func(i int) string { return fmt.Sprintf("J%02d", i) }
	mustUpdate(t, setup, func(tx store.Tx) error {
		for i := range jobs {
			j := storetest.NewJob(id(i), now.Add(-time.Minute))
			j.Name, j.Description, j.NextRunAtLocal = "name-"+id(i), "v0", "v0"
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background() // not cancelled: a commit cut short would leave its outcome unknown
	var mu sync.Mutex
	dispatched := map[string]int{} // "J03@7": dispatches committed of J03 at run count 7
	var stop atomic.Bool
	var dispatchers, writers sync.WaitGroup
	for d := range 3 {
		s := mustOpen(t, dsn, "ops")
		dispatchers.Go(func() {
			for !stop.Load() {
				var got []string
				err := s.Update(ctx, func(tx store.Tx) error {
					got = got[:0]
					return ops.RowsOf(tx).JobsDue(now, 3+d, func(j *store.Job) error {
						if j.Description != j.NextRunAtLocal {
							t.Errorf("dispatch handed out %s's definition %q with the status %q", j.JobID, j.Description, j.NextRunAtLocal)
						}
						got = append(got, fmt.Sprintf("%s@%d", j.JobID, j.RunCount))
						j.RunCount++
						if d == 0 {
							return tx.JobPut(j) // as storetest fires: the definition written too
						}
						return ops.RowsOf(tx).JobStatusPut(j)
					})
				})
				if err != nil {
					t.Errorf("dispatch: %v", err)
					return
				}
				mu.Lock()
				for _, k := range got {
					dispatched[k]++
				}
				mu.Unlock()
			}
		})
	}
	for w := range 4 {
		s := mustOpen(t, dsn, "ops")
		writers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for k := range rounds {
				mark := fmt.Sprintf("w%d-%d", w, k)
				err := s.Update(ctx, func(tx store.Tx) error {
					a, b := r.IntN(blind), r.IntN(blind)
					switch w {
					case 0: // definition and status
						j, err := tx.JobGet(id(a))
						if err != nil {
							return err
						}
						j.Description, j.NextRunAtLocal = mark, mark
						return tx.JobPut(j)
					case 1: // status alone, as the worker records a result
						if err := tx.(ops.ReadAheader).ReadAhead([]string{id(min(a, b)), id(max(a, b))}, nil); err != nil {
							return err
						}
						for _, i := range []int{a, b} {
							j, err := tx.JobGet(id(i))
							if err != nil {
								return err
							}
							j.LastResult = &store.Result{ExecutionID: mark}
							if err := tx.JobPut(j); err != nil {
								return err
							}
						}
						return nil
					}
					var x, y *store.Job
					var err error
					if w == 2 { // two jobs read, in id order, swap names
						if a == b {
							return nil
						}
						if x, err = tx.JobGet(id(min(a, b))); err != nil {
							return err
						}
						y, err = tx.JobGet(id(max(a, b)))
					} else { // a job put as a read before had it swaps names with one read
						if err := s.View(ctx, func(v store.Tx) (err error) { x, err = v.JobGet(id(blind + a%2)); return }); err != nil {
							return err
						}
						y, err = tx.JobGet(id(a))
					}
					if err != nil {
						return err
					}
					xName, yName := x.Name, y.Name
					x.Name = mark
					if err := tx.JobPut(x); err != nil {
						return err
					}
					y.Name = xName
					if err := tx.JobPut(y); err != nil {
						return err
					}
					x.Name, x.Description, x.NextRunAtLocal = yName, mark, mark
					return tx.JobPut(x)
				})
				if err != nil && !(w == 3 && errors.Is(err, store.ErrExists)) { // a name read before may be gone
					t.Errorf("change %s: %v", mark, err)
				}
			}
		})
	}
	writers.Wait()
	stop.Store(true)
	dispatchers.Wait()
	mustView(t, setup, func(tx store.Tx) error {
		for i := range jobs {
			j, err := tx.JobGet(id(i))
			if err != nil {
				return err
			}
			if j.Description != j.NextRunAtLocal {
				t.Errorf("%s: definition %q, status %q", j.JobID, j.Description, j.NextRunAtLocal)
			}
			if i >= blind {
				continue
			}
			for n := range j.RunCount {
				if k := dispatched[fmt.Sprintf("%s@%d", j.JobID, n)]; k != 1 {
					t.Errorf("%s at run count %d: dispatched %d times, want once", j.JobID, n, k)
				}
			}
			if k := dispatched[fmt.Sprintf("%s@%d", j.JobID, j.RunCount)]; k != 0 {
				t.Errorf("%s: a dispatch at run count %d committed and is not counted", j.JobID, j.RunCount)
			}
		}
		return nil
	})
	var differ int
	err := mustConnect(t, dsn).QueryRow(t.Context(), `SELECT count(*) FROM schedbot_jobs
		WHERE name IS DISTINCT FROM convert_to(convert_from(body, 'UTF8')::jsonb->>'name', 'UTF8')`).Scan(&differ)
	if err != nil || differ != 0 {
		t.Errorf("%d name columns differ from their definitions, %v", differ, err)
	}
}
