package scheduler_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

func TestFireDue_MisfireFireOnceOnRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		j := mustCreate(t, registry(st, nil), cronJob("0 * * * *", "UTC", ""))
		// Down for five and a half hours: windows at +1h … +5h passed.
		now := j.NextRunAt.Add(4*time.Hour + 30*time.Minute)
		s := scheduler.New(st, nil)
		n, err := s.FireDue(t.Context(), now)
		if err != nil || n != 1 {
			t.Fatalf("FireDue = %d, %v; want one fire", n, err)
		}
		requireTriggers(t, st, j.NextRunAt.Add(4*time.Hour).Format(time.RFC3339))
		got := getJob(t, st, j.JobID)
		if want := j.NextRunAt.Add(5 * time.Hour); !got.NextRunAt.Equal(want) {
			t.Errorf("next = %s, want %s (back on the grid)", got.NextRunAt, want)
		}
		acts := auditActions(t, st, j.JobID)
		if !strings.Contains(strings.Join(acts, " "), "misfire.recovered trigger.dispatched") {
			t.Errorf("audit = %v", acts)
		}
	})
}

func TestFireDue_MisfireSkipMissedRecordsOneMissedRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		j := mustCreate(t, registry(st, nil), cronJob("0 * * * *", "UTC", `"misfirePolicy":"skip_missed",`))
		now := j.NextRunAt.Add(4*time.Hour + 30*time.Minute)
		if n, err := scheduler.New(st, nil).FireDue(t.Context(), now); err != nil || n != 0 {
			t.Fatalf("FireDue = %d, %v; want nothing fired", n, err)
		}
		requireTriggers(t, st)
		rs := runs(t, st, j.JobID)
		if len(rs) != 1 || rs[0].Status != store.RunMissed || rs[0].Missed != 5 || !strings.Contains(rs[0].Reason, "5 window(s)") {
			t.Errorf("runs = %+v", rs)
		}
		// On time again after the gap: the next window fires normally.
		next := getJob(t, st, j.JobID).NextRunAt
		if n, _ := scheduler.New(st, nil).FireDue(t.Context(), next); n != 1 {
			t.Errorf("the next window fired %d times", n)
		}
	})
}

func TestFireDue_OverlapSkipsWhilePreviousRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		reg := registry(st, nil)
		skip := mustCreate(t, reg, cronJob("* * * * *", "UTC", ""))
		allow := mustCreate(t, reg, cronJob("* * * * *", "UTC", `"overlapPolicy":"allow",`))
		s := scheduler.New(st, nil)
		first := skip.NextRunAt
		if n, _ := s.FireDue(t.Context(), first); n != 2 {
			t.Fatalf("first window fired %d", n)
		}
		// Nothing has run the first triggers; the next window comes.
		if n, _ := s.FireDue(t.Context(), first.Add(time.Minute)); n != 1 {
			t.Fatalf("second window fired %d, want only the allow job", n)
		}
		rs := runs(t, st, skip.JobID)
		if len(rs) != 2 || rs[0].Status != store.RunSkipped || rs[0].Reason != "previous_still_running" {
			t.Errorf("skip job runs = %+v", rs)
		}
		if rs := runs(t, st, allow.JobID); len(rs) != 2 || rs[0].Status != store.RunDispatched {
			t.Errorf("allow job runs = %+v", rs)
		}
		if acts := auditActions(t, st, skip.JobID); acts[len(acts)-1] != store.AuditTriggerSkipped {
			t.Errorf("audit = %v", acts)
		}
	})
}

// TestFireDue_OverlapStuckRunStopsBlockingAfterRunTimeout: a run left
// dispatched (its worker crashed) or running (its worker hung) makes skip
// overlap skip the job's windows only for RunTimeout (default 1 hour) after
// the run last made progress; then it is marked failed and the job fires.
func TestFireDue_OverlapStuckRunStopsBlockingAfterRunTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		reg := registry(st, nil)
		stuck := mustCreate(t, reg, cronJob("* * * * *", "UTC", ""))
		slow := mustCreate(t, reg, cronJob("* * * * *", "UTC", ""))
		s := scheduler.New(st, nil)
		first := stuck.NextRunAt
		if n, _ := s.FireDue(t.Context(), first); n != 2 {
			t.Fatalf("first window fired %d", n)
		}
		// slow's worker picked its trigger up late and is still running it.
		startSlow := first.Add(50 * time.Minute)
		err := st.Update(t.Context(), func(tx store.Tx) error {
			r, err := tx.RunGet(store.ExecutionID(slow.JobID, first))
			if err != nil {
				return err
			}
			r.Status, r.StartedAt = store.RunRunning, startSlow
			j, err := tx.JobGet(slow.JobID)
			if err != nil {
				return err
			}
			j.LastResult.Status = string(store.RunRunning)
			if err := tx.RunPut(r); err != nil {
				return err
			}
			return tx.JobPut(j)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []time.Duration{time.Minute, 59 * time.Minute} {
			if n, _ := s.FireDue(t.Context(), first.Add(at)); n != 0 {
				t.Errorf("%s after a stuck run: fired %d, want both skipped", at, n)
			}
		}
		fired := func(at time.Time) []string {
			var ids []string
			sc := scheduler.New(st, &scheduler.Options{DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) { ids = append(ids, j.JobID) }})
			if _, err := sc.FireDue(t.Context(), at); err != nil {
				t.Fatal(err)
			}
			return ids
		}
		if got := fired(first.Add(61 * time.Minute)); len(got) != 1 || got[0] != stuck.JobID {
			t.Errorf("61 minutes after the stuck dispatch fired %v, want only the stuck job %s", got, stuck.JobID)
		}
		rs := runs(t, st, stuck.JobID)
		old := rs[len(rs)-1]
		if old.Status != store.RunFailed || !strings.Contains(old.Error, "run timeout 1h0m0s") {
			t.Errorf("the stuck run = %s %q, want failed by the run timeout", old.Status, old.Error)
		}
		if rs[0].Status != store.RunDispatched {
			t.Errorf("the new window = %s, want dispatched", rs[0].Status)
		}
		if acts := strings.Join(auditActions(t, st, stuck.JobID), " "); !strings.Contains(acts, "trigger.failed misfire.recovered trigger.dispatched") &&
			!strings.Contains(acts, "misfire.recovered trigger.failed trigger.dispatched") {
			t.Errorf("audit = %s", acts)
		}
		// The running one blocks for an hour after it started, then fires.
		if got := fired(first.Add(109 * time.Minute)); len(got) != 0 {
			t.Errorf("59 minutes into the slow run fired %v", got)
		}
		if got := fired(first.Add(111 * time.Minute)); len(got) != 1 || got[0] != slow.JobID {
			t.Errorf("61 minutes into the slow run fired %v, want the slow job %s", got, slow.JobID)
		}
	})
}

func TestFireDue_OnceAndEndAtDisable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		reg := registry(st, nil)
		once := mustCreate(t, reg, `{"scheduleType":"once","schedule":{"runAt":"2026-11-22T13:00:00Z"},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
		ending := mustCreate(t, reg, cronJob("0 13 * * *", "UTC", `"endAt":"2026-11-23T12:00:00Z",`))
		paused := mustCreate(t, reg, cronJob("0 13 * * *", "UTC", ""))
		reg.Call(t.Context(), functions.Request{Function: "schedule.pause", Args: json.RawMessage(`{"jobId":"` + paused.JobID + `"}`), Actor: actor})
		deleted := mustCreate(t, reg, cronJob("0 13 * * *", "UTC", ""))
		reg.Call(t.Context(), functions.Request{Function: "schedule.delete", Args: json.RawMessage(`{"jobId":"` + deleted.JobID + `"}`), Actor: actor})

		stop := startLoop(t, scheduler.New(st, nil))
		time.Sleep(3 * 24 * time.Hour)
		synctest.Wait()
		stop()
		requireTriggers(t, st, "2026-11-22T13:00:00Z", "2026-11-22T13:00:00Z")
		for _, id := range []string{once.JobID, ending.JobID} {
			if j := getJob(t, st, id); j.State != store.JobDisabled || !j.NextRunAt.IsZero() {
				t.Errorf("job %s after its last run = %s next %s", id, j.State, j.NextRunAt)
			}
		}
		if len(runs(t, st, paused.JobID))+len(runs(t, st, deleted.JobID)) != 0 {
			t.Error("a paused or deleted job fired")
		}
	})
}

// TestFireDue_ClockStepsBackDoNotDoubleFire steps the clock back after a
// window fired and resumes the job then, so that its nextRunAt points at
// the window already dispatched: only the executionId dedupe stops a
// second fire.
func TestFireDue_ClockStepsBackDoNotDoubleFire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		now := time.Now()
		clock := func() time.Time { return now }
		reg := functions.NewRegistry(functions.Deps{Store: st, Now: clock, Orchestrator: functions.Orchestrator{
			ID: "default", Timezone: "UTC", MaxJobs: 100, Functions: []string{"schedule.*", "message.post"}}})
		j := mustCreate(t, reg, cronJob("*/5 * * * *", "UTC", `"overlapPolicy":"allow",`))
		s := scheduler.New(st, nil)
		at := j.NextRunAt
		if n, err := s.FireDue(t.Context(), at); n != 1 || err != nil {
			t.Fatalf("first fire = %d, %v", n, err)
		}
		for _, back := range []time.Duration{time.Second, 5 * time.Minute, time.Hour} {
			// The clock steps back; someone pauses and resumes the job, which
			// puts its next run back on the window that already fired.
			now = at.Add(-back)
			for _, fn := range []string{"schedule.pause", "schedule.resume"} {
				if _, err := reg.Call(t.Context(), functions.Request{Function: fn, Args: json.RawMessage(`{"jobId":"` + j.JobID + `"}`), Actor: actor}); err != nil {
					t.Fatal(err)
				}
			}
			if next := getJob(t, st, j.JobID).NextRunAt; next.After(at) {
				t.Fatalf("clock %s back: next run %s, want it at or before the fired window %s", back, next, at)
			}
			for _, fireAt := range []time.Time{now, at} {
				if n, _ := s.FireDue(t.Context(), fireAt); n != 0 {
					t.Errorf("clock %s back, firing at %s: fired %d", back, fireAt.Format(time.TimeOnly), n)
				}
			}
		}
		if got := len(triggers(t, st)); got != 1 {
			t.Errorf("%d triggers, want 1", got)
		}
		// And a step forward applies the misfire policy: one fire.
		if n, _ := s.FireDue(t.Context(), at.Add(time.Hour)); n != 1 {
			t.Errorf("clock an hour forward fired %d, want 1", n)
		}
	})
}
