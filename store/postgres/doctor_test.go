package postgres_test

import (
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestDamagedRunsStopOnlyTheirJobAndDoctorRemovesThem: on PostgreSQL as on
// bolt, a due job whose lastResult names a run that does not read, or
// whose window's run does not read, is disabled and audited while the
// others fire; Check lists both runs with their bytes, and Check with
// repair removes them.
func TestDamagedRunsStopOnlyTheirJobAndDoctorRemovesThem(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	last := store.ExecutionID("LAST", t0.Add(-time.Hour))
	window := store.ExecutionID("WIN", t0)
	mustUpdate(t, s, func(tx store.Tx) error {
		good := storetest.NewJob("GOOD", t0)
		lastJob := storetest.NewJob("LAST", t0)
		lastJob.LastResult = &store.Result{ExecutionID: last, Status: string(store.RunRunning)}
		for _, j := range []*store.Job{good, lastJob, storetest.NewJob("WIN", t0)} {
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		if err := tx.RunPut(&store.Run{ExecutionID: last, JobID: "LAST", Status: store.RunRunning, StartedAt: t0.Add(-time.Minute)}); err != nil {
			return err
		}
		return tx.RunPut(&store.Run{ExecutionID: window, JobID: "WIN", Status: store.RunDispatched})
	})
	if _, err := mustConnect(t, dsn).Exec(t.Context(), `UPDATE schedbot_runs SET body = 'not json' WHERE job_id IN ('LAST', 'WIN')`); err != nil {
		t.Fatal(err)
	}
	var fired []string
	sc := scheduler.New(s, &scheduler.Options{OrchestratorID: "ops",
		DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) { fired = append(fired, j.JobID) }})
	if n, err := sc.FireDue(t.Context(), t0); n != 1 || err != nil || len(fired) != 1 || fired[0] != "GOOD" {
		t.Fatalf("FireDue = %d, %v (fired %v); want GOOD alone fired", n, err, fired)
	}
	mustView(t, s, func(tx store.Tx) error {
		for _, id := range []string{"LAST", "WIN"} {
			j, err := tx.JobGet(id)
			if err != nil {
				return err
			}
			if j.State != store.JobDisabled || !strings.Contains(j.LastResult.Error, "cannot be read") {
				t.Errorf("job %s = %s %+v, want it disabled saying a record cannot be read", id, j.State, j.LastResult)
			}
			evs, err := tx.AuditList(&store.AuditListParams{JobID: id})
			if err != nil || len(evs) != 1 || evs[0].Action != store.AuditJobDisabled {
				t.Errorf("audit of %s = %+v, %v; want one job.disabled", id, evs, err)
			}
		}
		return nil
	})
	problems, err := s.Check(t.Context(), false)
	if err != nil || len(problems) != 2 || problems[0].ID != last || problems[1].ID != window || string(problems[0].Bytes) != "not json" {
		t.Fatalf("Check = %+v, %v; want the two runs, with their bytes", problems, err)
	}
	if problems, err = s.Check(t.Context(), true); err != nil || len(problems) != 2 || problems[0].Repair == "" {
		t.Fatalf("Check(repair) = %+v, %v", problems, err)
	}
	if problems, err = s.Check(t.Context(), false); err != nil || len(problems) != 0 {
		t.Errorf("Check after the repair = %+v, %v; want nothing", problems, err)
	}
}
