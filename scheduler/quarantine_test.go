package scheduler_test

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestFireDue_UnreadableJobIsDisabledAndTheRestFire: a due job whose stored
// record cannot be decoded is disabled and audited, and the other due jobs
// fire in the same pass, those of later batches too; the next pass has
// nothing left to do.
func TestFireDue_UnreadableJobIsDisabledAndTheRestFire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation.db")
	st, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC) // Friday 09:00 in New York
	err = st.Update(t.Context(), func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C", "D"} {
			if err := tx.JobPut(storetest.NewJob(id, due)); err != nil {
				return err
			}
		}
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("jobs")).Put([]byte("BAD"), []byte("{damaged")) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	s := scheduler.New(st, &scheduler.Options{Logger: testLogger(t), Batch: 2})
	fired, err := s.FireDue(t.Context(), due)
	if err != nil || fired != 3 {
		t.Fatalf("FireDue over one bad record = %d, %v; want the 3 good jobs fired", fired, err)
	}
	if fired, err := s.FireDue(t.Context(), due); err != nil || fired != 0 {
		t.Errorf("FireDue again = %d, %v; want nothing left", fired, err)
	}
	if n := testkit.QueueLen(t, st, store.QueueIncoming); n != 3 {
		t.Errorf("triggers queued = %d, want 3", n)
	}
	err = st.View(t.Context(), func(tx store.Tx) error {
		if n, _ := tx.JobCount(store.JobDisabled); n != 1 {
			t.Errorf("disabled jobs = %d, want the bad one", n)
		}
		evs, err := tx.AuditList(&store.AuditListParams{JobID: "BAD"})
		if err != nil {
			return err
		}
		if len(evs) != 1 || evs[0].Action != store.AuditJobDisabled || !strings.Contains(evs[0].Detail, "cannot be read") {
			t.Errorf("audit of the bad job = %+v, want one job.disabled saying its record cannot be read", evs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testLogger logs to t.Log.
func testLogger(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(tWriter{t}, nil)) }

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestScheduler_Run_OneJobsDamagedRecordsDoNotStopTheOthers: whatever one
// job's records hold — a run its lastResult names that does not read, a run
// at its window's executionId that does not read, a next-run index entry
// whose job records are gone — the loop goes on firing the other jobs at
// every window; the bad job is disabled (or its stale entry dropped) and
// audited once, and the damaged bytes are kept for repair.
func TestScheduler_Run_OneJobsDamagedRecordsDoNotStopTheOthers(t *testing.T) {
	first := time.Date(2000, 1, 1, 0, 1, 0, 0, time.UTC) // a synctest bubble starts at midnight
	every := func(id string) *store.Job {
		j := storetest.NewJob(id, first)
		j.Schedule = store.Schedule{Cron: "* * * * *", Timezone: "UTC"}
		return j
	}
	lastRun := store.ExecutionID("BAD", first.Add(-time.Minute))
	window := store.ExecutionID("BAD", first)
	for _, tc := range []struct {
		name   string
		setup  func(tx store.Tx) error // before the damage
		damage func(tx *bbolt.Tx) error
		kept   string // the runs key whose damaged bytes must be left
		gone   bool   // the bad job has no records left
	}{
		{
			name: "lastResult names a damaged run",
			setup: func(tx store.Tx) error {
				j := every("BAD")
				j.LastResult = &store.Result{ExecutionID: lastRun, Status: string(store.RunRunning)}
				if err := tx.JobPut(j); err != nil {
					return err
				}
				return tx.RunPut(&store.Run{ExecutionID: lastRun, JobID: "BAD", ScheduledAt: first.Add(-time.Minute), Status: store.RunRunning})
			},
			damage: func(tx *bbolt.Tx) error { return tx.Bucket([]byte("runs")).Put([]byte(lastRun), []byte("{damaged")) },
			kept:   lastRun,
		},
		{
			name: "the window's run record is damaged",
			setup: func(tx store.Tx) error {
				if err := tx.JobPut(every("BAD")); err != nil {
					return err
				}
				return tx.RunPut(&store.Run{ExecutionID: window, JobID: "BAD", ScheduledAt: first, Status: store.RunDispatched})
			},
			damage: func(tx *bbolt.Tx) error { return tx.Bucket([]byte("runs")).Put([]byte(window), []byte(`{"status":7`)) },
			kept:   window,
		},
		{
			name:  "the next-run index names a job whose records are gone",
			setup: func(tx store.Tx) error { return tx.JobPut(every("BAD")) },
			damage: func(tx *bbolt.Tx) error {
				if err := tx.Bucket([]byte("jobs")).Delete([]byte("BAD")); err != nil {
					return err
				}
				return tx.Bucket([]byte("job_status")).Delete([]byte("BAD"))
			},
			gone: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "automation.db")
				st, err := bolt.Open(path, nil)
				if err != nil {
					t.Fatal(err)
				}
				err = st.Update(t.Context(), func(tx store.Tx) error {
					good := every("GOOD")
					good.OverlapPolicy = store.OverlapAllow // no worker here finishes its runs
					if err := tx.JobPut(good); err != nil {
						return err
					}
					return tc.setup(tx)
				})
				st.Close()
				if err != nil {
					t.Fatal(err)
				}
				rawUpdate(t, path, tc.damage)
				st, err = bolt.Open(path, nil)
				if err != nil {
					t.Fatal(err)
				}
				stop := startLoop(t, scheduler.New(st, &scheduler.Options{Logger: testLogger(t)}))
				time.Sleep(time.Until(first.Add(2*time.Minute + time.Second)))
				synctest.Wait()
				stop()

				requireTriggers(t, st, "2000-01-01T00:01:00Z", "2000-01-01T00:02:00Z", "2000-01-01T00:03:00Z")
				var disabled []*store.AuditEvent
				err = st.View(t.Context(), func(tx store.Tx) error {
					evs, err := tx.AuditList(&store.AuditListParams{JobID: "BAD"})
					for _, ev := range evs {
						if ev.Action == store.AuditJobDisabled {
							disabled = append(disabled, ev)
						}
					}
					if err != nil || tc.gone {
						return err
					}
					j, err := tx.JobGet("BAD")
					if err != nil {
						return err
					}
					if j.State != store.JobDisabled || j.LastResult == nil || !strings.Contains(j.LastResult.Error, "cannot be read") {
						t.Errorf("the bad job = %s, %+v; want it disabled saying a record cannot be read", j.State, j.LastResult)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(disabled) != 1 || !strings.Contains(disabled[0].Detail, "cannot be read") {
					t.Errorf("job.disabled events of the bad job = %+v, want one saying a record cannot be read", disabled)
				}
				st.Close()
				if tc.kept != "" {
					rawUpdate(t, path, func(tx *bbolt.Tx) error {
						if v := tx.Bucket([]byte("runs")).Get([]byte(tc.kept)); v == nil {
							t.Errorf("the damaged run %s is gone; want its bytes kept for repair", tc.kept)
						}
						return nil
					})
				}
			})
		})
	}
}

// rawUpdate changes a closed store file's bytes through bbolt itself.
func rawUpdate(t *testing.T, path string, fn func(tx *bbolt.Tx) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
