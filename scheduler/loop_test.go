package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

func newTestStore(t *testing.T) store.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var actor = store.Actor{Via: store.ViaCLI, Sender: "ada", SenderID: "1000"}

// registry creates jobs the way people do, with "now" from the clock
// (fake inside a synctest bubble).
func registry(st store.Store, wake func()) *functions.Registry {
	return functions.NewRegistry(functions.Deps{Store: st, ChangedFunc: wake, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 100000, Functions: []string{"schedule.*", "message.post"}}})
}

func mustCreate(t *testing.T, reg *functions.Registry, args string) *store.Job {
	t.Helper()
	res, err := reg.Call(t.Context(), functions.Request{Function: "schedule.create", Args: json.RawMessage(args), Actor: actor})
	if err != nil {
		t.Fatalf("create %s: %v", args, err)
	}
	return res.(*functions.JobResult).Job
}

func cronJob(expr, tz string, extra string) string {
	return fmt.Sprintf(`{"scheduleType":"cron","schedule":{"cron":%q,"timezone":%q},%s
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`, expr, tz, extra)
}

func mustCreateJob(t *testing.T, st store.Store, expr, tz string) *store.Job {
	t.Helper()
	return mustCreate(t, registry(st, nil), cronJob(expr, tz, ""))
}

func triggers(t *testing.T, st store.Store) []*store.QueueItem {
	t.Helper()
	var items []*store.QueueItem
	err := st.View(t.Context(), func(tx store.Tx) (err error) {
		items, err = tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming, Limit: 100000})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func requireTriggers(t *testing.T, st store.Store, want ...string) {
	t.Helper()
	got := []string{}
	for _, it := range triggers(t, st) {
		got = append(got, it.ScheduledAt.UTC().Format(time.RFC3339))
	}
	if want == nil {
		want = []string{}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trigger windows (-want +got):\n%s", d)
	}
}

func runs(t *testing.T, st store.Store, jobID string) []*store.Run {
	t.Helper()
	var rs []*store.Run
	if err := st.View(t.Context(), func(tx store.Tx) (err error) { rs, err = tx.RunList(jobID, 1000); return }); err != nil {
		t.Fatal(err)
	}
	return rs
}

func getJob(t *testing.T, st store.Store, id string) *store.Job {
	t.Helper()
	var j *store.Job
	if err := st.View(t.Context(), func(tx store.Tx) (err error) { j, err = tx.JobGet(id); return }); err != nil {
		t.Fatal(err)
	}
	return j
}

func auditActions(t *testing.T, st store.Store, jobID string) []string {
	t.Helper()
	var evs []*store.AuditEvent
	if err := st.View(t.Context(), func(tx store.Tx) (err error) {
		evs, err = tx.AuditList(&store.AuditListParams{JobID: jobID})
		return
	}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Action)
	}
	return out
}

func startLoop(t *testing.T, s *scheduler.Scheduler) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	}
}

func TestScheduler_Run_SpringForwardFiresOnceAtTheJump(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 3, 8, 6, 0, 0, 0, time.UTC))) // 01:00 EST
		st := newTestStore(t)
		mustCreateJob(t, st, "30 2 * * *", "America/New_York")
		stop := startLoop(t, scheduler.New(st, nil))
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		requireTriggers(t, st, "2026-03-08T07:00:00Z") // 03:00 EDT, once
		stop()
	})
}

func TestScheduler_Run_FallBackFiresOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC))) // 00:00 EDT
		st := newTestStore(t)
		mustCreateJob(t, st, "30 1 * * *", "America/New_York")
		// allow: no worker runs the triggers, so skip would stop at the first.
		every := mustCreate(t, registry(st, nil), cronJob("*/30 * * * *", "America/New_York", `"overlapPolicy":"allow",`))
		stop := startLoop(t, scheduler.New(st, nil))
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		stop()
		var fixed, wild []string
		for _, it := range triggers(t, st) {
			w := it.ScheduledAt.Format("15:04")
			if it.JobID == every.JobID {
				wild = append(wild, w)
			} else {
				fixed = append(fixed, w)
			}
		}
		if d := cmp.Diff([]string{"05:30"}, fixed); d != "" {
			t.Errorf("01:30 fixed (-want +got):\n%s", d)
		}
		// Every 30 real minutes, through both passes of 01:xx.
		if d := cmp.Diff([]string{"04:30", "05:00", "05:30", "06:00", "06:30", "07:00"}, wild); d != "" {
			t.Errorf("*/30 (-want +got):\n%s", d)
		}
	})
}

func TestScheduler_Run_WakeFiresANewJobOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		var s *scheduler.Scheduler
		var lateness []time.Duration
		s = scheduler.New(st, &scheduler.Options{DispatchedFunc: func(_ *store.Job, _ *store.Run, l time.Duration) {
			lateness = append(lateness, l)
		}})
		stop := startLoop(t, s)
		synctest.Wait() // armed for the one-minute safety wake: no jobs
		time.Sleep(5 * time.Second)
		runAt := time.Now().Add(20 * time.Second).UTC().Truncate(time.Second)
		mustCreate(t, registry(st, s.Wake), fmt.Sprintf(`{"scheduleType":"once","schedule":{"runAt":%q},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`, runAt.Format(time.RFC3339)))
		time.Sleep(21 * time.Second)
		synctest.Wait()
		stop()
		requireTriggers(t, st, runAt.Format(time.RFC3339))
		if len(lateness) != 1 || lateness[0] != 0 {
			t.Errorf("lateness = %v, want one fire exactly on time", lateness)
		}
	})
}

func TestScheduler_Run_SafetyWakeAtLeastEveryMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		var armed []time.Time
		s := scheduler.New(st, &scheduler.Options{ArmedFunc: func(at time.Time) { armed = append(armed, at) }})
		stop := startLoop(t, s)
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		stop()
		if len(armed) < 5 {
			t.Fatalf("armed %d times in 5 minutes", len(armed))
		}
		for i := 1; i < len(armed); i++ {
			if d := armed[i].Sub(armed[i-1]); d > time.Minute {
				t.Errorf("wake %d came %s after the previous", i, d)
			}
		}
	})
}

// heldStore passes over every due job, as a database does whose due rows
// another process holds.
type heldStore struct{ store.Store }

type heldTx struct{ store.Tx }

func (h heldStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return h.Store.Update(ctx, func(tx store.Tx) error { return fn(heldTx{tx}) })
}

func (heldTx) JobsDue(time.Time, int, func(*store.Job) error) error { return nil }

// A due job another process holds is looked at again soon, not in a spin.
func TestScheduler_Run_DueJobsHeldElsewhereAreNotSpunOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		mustCreateJob(t, st, "* * * * *", "UTC")
		time.Sleep(time.Minute) // due
		rounds := 0
		s := scheduler.New(heldStore{st}, &scheduler.Options{ArmedFunc: func(time.Time) {
			if rounds++; rounds > 100 {
				time.Sleep(time.Millisecond) // a spin: let the fake second end
			}
		}})
		stop := startLoop(t, s)
		time.Sleep(time.Second)
		synctest.Wait()
		stop()
		if rounds < 5 || rounds > 40 {
			t.Errorf("%d rounds in a second with the due job held elsewhere; want one every %s or so", rounds, 50*time.Millisecond)
		}
	})
}

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

// TestScheduler_Run_OnceJobsStuckRunTimesOutOnItsOwn: a once job's run
// that no worker finishes has no next window to time it out at; the loop
// fails it by itself once RunTimeout has passed (and not before), with the
// job's lastResult and the audit saying so.
func TestScheduler_Run_OnceJobsStuckRunTimesOutOnItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		once := mustCreate(t, registry(st, nil), `{"scheduleType":"once","schedule":{"runAt":"2026-11-22T13:00:00Z"},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
		var recorded []store.RunStatus
		stop := startLoop(t, scheduler.New(st, &scheduler.Options{RunTimeout: 20 * time.Minute,
			RecordedFunc: func(r *store.Run) { recorded = append(recorded, r.Status) }}))
		defer stop()
		exec := store.ExecutionID(once.JobID, time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC))
		time.Sleep(time.Until(time.Date(2026, 11, 22, 13, 19, 0, 0, time.UTC)))
		synctest.Wait()
		if rs := runs(t, st, once.JobID); len(rs) != 1 || rs[0].Status != store.RunDispatched {
			t.Fatalf("runs 19 minutes after the dispatch = %+v, want the one run still dispatched", rs)
		}
		time.Sleep(10 * time.Minute) // the sweep looks every 5 minutes of a 20-minute timeout
		synctest.Wait()
		rs := runs(t, st, once.JobID)
		if len(rs) != 1 || rs[0].ExecutionID != exec || rs[0].Status != store.RunFailed || !strings.Contains(rs[0].Error, "run timeout 20m0s") {
			t.Fatalf("runs 29 minutes after the dispatch = %+v, want the run failed by the run timeout", rs)
		}
		if j := getJob(t, st, once.JobID); j.LastResult == nil || j.LastResult.Status != string(store.RunFailed) || j.State != store.JobDisabled {
			t.Errorf("the job = %s, %+v; want it still disabled, its lastResult failed", j.State, j.LastResult)
		}
		if acts := strings.Join(auditActions(t, st, once.JobID), " "); !strings.HasSuffix(acts, "trigger.dispatched job.disabled trigger.failed") {
			t.Errorf("audit = %s, want trigger.failed last", acts)
		}
		if d := cmp.Diff([]store.RunStatus{store.RunDispatched, store.RunFailed}, recorded); d != "" {
			t.Errorf("recorded runs (-want +got):\n%s", d)
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

func TestFireDue_ManyJobsInBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		at := time.Now().Add(time.Hour).Truncate(time.Minute)
		err := st.Update(t.Context(), func(tx store.Tx) error {
			for i := range 2500 {
				j := &store.Job{JobID: fmt.Sprintf("01K%023d", i), OrchestratorID: "default", ScheduleType: "once",
					Schedule: store.Schedule{RunAt: at, Timezone: "UTC"}, State: store.JobEnabled, NextRunAt: at,
					TargetAction:  store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post", FunctionArgs: json.RawMessage(`{"text":"x"}`)},
					MisfirePolicy: store.MisfireFireOnce, OverlapPolicy: store.OverlapSkip}
				if err := tx.JobPut(j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n, err := scheduler.New(st, &scheduler.Options{Batch: 1000}).FireDue(t.Context(), at)
		if err != nil || n != 2500 {
			t.Fatalf("FireDue = %d, %v", n, err)
		}
		if got := len(triggers(t, st)); got != 2500 {
			t.Errorf("%d triggers", got)
		}
	})
}

// parallelStore is a store that asks for n dispatchers. The first n
// transactions wait for each other (a second, at most): they meet only if
// they run at once.
type parallelStore struct {
	store.Store
	n      int
	mu     sync.Mutex
	came   int
	all    chan struct{}
	missed bool
}

func (p *parallelStore) ParallelWrites(context.Context) (all, mine int) { return p.n, p.n }

func (p *parallelStore) DueCount(ctx context.Context, t time.Time) (n int, err error) {
	err = p.Store.View(ctx, func(tx store.Tx) error {
		return tx.JobsDue(t, math.MaxInt32, func(*store.Job) error { n++; return nil })
	})
	return n, err
}

func (p *parallelStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	p.mu.Lock()
	p.came++
	first := p.came <= p.n
	if p.came == p.n {
		close(p.all)
	}
	p.mu.Unlock()
	if first {
		select {
		case <-p.all:
		case <-time.After(time.Second):
			p.mu.Lock()
			p.missed = true
			p.mu.Unlock()
		}
	}
	return p.Store.Update(ctx, fn)
}

// createOnceJobs creates n one-time jobs that post at at.
func createOnceJobs(t *testing.T, reg *functions.Registry, n int, at time.Time) {
	t.Helper()
	for range n {
		mustCreate(t, reg, fmt.Sprintf(`{"scheduleType":"once","schedule":{"runAt":%q},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`, at.Format(time.RFC3339)))
	}
}

// TestFireDue_SeveralDispatchersFireEachWindowOnce: a burst is fired by as
// many transactions at once as the store asks for, every due window once,
// and the callbacks are called one at a time (they append without a lock:
// -race says if not).
func TestFireDue_SeveralDispatchersFireEachWindowOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		at := time.Now().Add(time.Hour).Truncate(time.Minute)
		reg := registry(st, nil)
		createOnceJobs(t, reg, 60, at)
		var fired []string
		var recorded int
		ps := &parallelStore{Store: st, n: 3, all: make(chan struct{})}
		s := scheduler.New(ps, &scheduler.Options{Batch: 7,
			DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) { fired = append(fired, j.JobID) },
			RecordedFunc:   func(*store.Run) { recorded++ }})
		n, err := s.FireDue(t.Context(), at)
		if err != nil || n != 60 {
			t.Fatalf("FireDue = %d, %v; want 60 fired", n, err)
		}
		if ps.missed {
			t.Error("the dispatchers' first transactions did not run at once")
		}
		slices.Sort(fired)
		distinct := len(slices.Compact(slices.Clone(fired)))
		if len(fired) != 60 || distinct != 60 || recorded != 60 || len(triggers(t, st)) != 60 {
			t.Errorf("%d windows fired (%d jobs), %d runs recorded, %d triggers; want 60 of each",
				len(fired), distinct, recorded, len(triggers(t, st)))
		}
	})
}

// sizedStore records how many due jobs each of its write transactions
// was handed.
type sizedStore struct {
	*parallelStore
	mu    sync.Mutex
	sizes []int
}

func (s *sizedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	n := 0
	err := s.parallelStore.Update(ctx, func(tx store.Tx) error { n = 0; return fn(&sizedTx{Tx: tx, n: &n}) })
	if err == nil && n > 0 {
		s.mu.Lock()
		s.sizes = append(s.sizes, n)
		s.mu.Unlock()
	}
	return err
}

type sizedTx struct {
	store.Tx
	n *int
}

func (t *sizedTx) JobsDue(at time.Time, limit int, fn func(*store.Job) error) error {
	return t.Tx.JobsDue(at, limit, func(j *store.Job) error { *t.n++; return fn(j) })
}

// TestFireDue_ABurstIsSplitEvenlyBetweenDispatchers: 12 due jobs, two
// dispatchers, at most 4 a transaction: four transactions of 3, not three
// of 4 with one dispatcher firing two of them while the other waits.
func TestFireDue_ABurstIsSplitEvenlyBetweenDispatchers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		at := time.Now().Add(time.Hour).Truncate(time.Minute)
		reg := registry(st, nil)
		createOnceJobs(t, reg, 12, at)
		ss := &sizedStore{parallelStore: &parallelStore{Store: st, n: 2, all: make(chan struct{})}}
		n, err := scheduler.New(ss, &scheduler.Options{Batch: 4}).FireDue(t.Context(), at)
		if err != nil || n != 12 {
			t.Fatalf("FireDue = %d, %v; want 12 fired", n, err)
		}
		if want := []int{3, 3, 3, 3}; !slices.Equal(ss.sizes, want) {
			t.Errorf("transactions fired %v jobs, want %v", ss.sizes, want)
		}
	})
}

// failingStore makes the nth QueueAdd of an Update fail, as a full disk would.
type failingStore struct {
	store.Store
	n int
}

type failingTx struct {
	store.Tx
	left *int
}

func (f *failingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	left := f.n
	return f.Store.Update(ctx, func(tx store.Tx) error { return fn(&failingTx{Tx: tx, left: &left}) })
}

var errDiskFull = errors.New("no space left on device")

func (t *failingTx) QueueAdd(it *store.QueueItem) error {
	if *t.left--; *t.left <= 0 {
		return errDiskFull
	}
	return t.Tx.QueueAdd(it)
}

func TestFireDue_FailureLeavesNoPartialState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		reg := registry(st, nil)
		var jobs []*store.Job
		for range 3 {
			jobs = append(jobs, mustCreate(t, reg, cronJob("* * * * *", "UTC", "")))
		}
		at := jobs[0].NextRunAt
		var before []*store.AuditEvent
		st.View(t.Context(), func(tx store.Tx) (err error) { before, err = tx.AuditList(nil); return })
		_, err := scheduler.New(&failingStore{Store: st, n: 3}, nil).FireDue(t.Context(), at)
		if !errors.Is(err, errDiskFull) {
			t.Fatalf("FireDue = %v, want the disk error", err)
		}
		requireTriggers(t, st)
		for _, j := range jobs {
			if len(runs(t, st, j.JobID)) != 0 || !getJob(t, st, j.JobID).NextRunAt.Equal(at) {
				t.Errorf("job %s changed by a failed transaction", j.JobID)
			}
		}
		var after []*store.AuditEvent
		st.View(t.Context(), func(tx store.Tx) (err error) { after, err = tx.AuditList(nil); return })
		if len(after) != len(before) {
			t.Errorf("%d audit events written by a failed transaction", len(after)-len(before))
		}
		// The loop carries on: once the disk has room, the window fires.
		var fired atomic.Int32
		s := scheduler.New(st, &scheduler.Options{DispatchedFunc: func(*store.Job, *store.Run, time.Duration) { fired.Add(1) }})
		if n, err := s.FireDue(t.Context(), at); err != nil || n != 3 || fired.Load() != 3 {
			t.Errorf("retry: %d, %v (callbacks %d)", n, err, fired.Load())
		}
	})
}

// fullDisk fails every Update with ENOSPC while full is set, and counts
// the attempts. Past 1000 attempts it stops the loop: a hot loop.
type fullDisk struct {
	store.Store
	full     atomic.Bool
	attempts atomic.Int32
	stop     func()
}

func (f *fullDisk) Update(ctx context.Context, fn func(store.Tx) error) error {
	if !f.full.Load() {
		return f.Store.Update(ctx, fn)
	}
	if f.attempts.Add(1) == 1000 {
		f.stop()
	}
	return fmt.Errorf("write at 8192: %w", syscall.ENOSPC)
}

// logLines is a slog handler's output, one JSON object per line.
type logLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns the lines at level and above, and empties the buffer.
func (l *logLines) take(level slog.Level) (lines []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.Lines(l.b.String()) {
		var rec struct{ Level slog.Level }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Level >= level {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	l.b.Reset()
	return lines
}

// TestScheduler_Run_FullDiskBacksOffAndRecovers: with the store's disk
// full the loop retries after a growing back-off (not at once), says so
// in one error line, and fires the due window by itself once there is
// space again.
func TestScheduler_Run_FullDiskBacksOffAndRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		j := mustCreateJob(t, st, "15 * * * *", "UTC") // the bubble starts at 00:00
		var logs logLines
		ctx, cancel := context.WithCancel(t.Context())
		disk := &fullDisk{Store: st, stop: cancel}
		s := scheduler.New(disk, &scheduler.Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		synctest.Wait()
		disk.full.Store(true)
		logs.take(slog.LevelDebug)

		time.Sleep(time.Until(j.NextRunAt) + 15*time.Minute) // the window passes with the disk full
		synctest.Wait()
		// 1+2+4+8+16+32 s, then once a minute: about 35 attempts in 30 minutes.
		if n := disk.attempts.Load(); n < 10 || n > 40 {
			t.Errorf("%d write attempts in 30 minutes of a full disk, want a back-off to one a minute", n)
		}
		errs := logs.take(slog.LevelError)
		if len(errs) != 1 || !strings.Contains(errs[0], "disk is full") || !strings.Contains(errs[0], "no space left on device") {
			t.Errorf("error lines while the disk is full = %q, want one saying the disk is full", errs)
		}
		requireTriggers(t, st)

		disk.full.Store(false) // space returns
		time.Sleep(time.Minute)
		synctest.Wait()
		requireTriggers(t, st, j.NextRunAt.Format(time.RFC3339))
		if infos := logs.take(slog.LevelInfo); !strings.Contains(strings.Join(infos, "\n"), "store writes recovered") {
			t.Errorf("no line says the store recovered:\n%s", strings.Join(infos, "\n"))
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}
