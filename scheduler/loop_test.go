package scheduler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/storetest"
)

var actor = store.Actor{Via: store.ViaCLI, Sender: "ada", SenderID: "1000"}

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

// heldStore fires none of the due jobs, as a database does whose due rows
// other transactions hold.
type heldStore struct{ store.Store }

func (heldStore) Fire(context.Context, store.FireParams, func() store.Firing) error { return nil }

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
		s := scheduler.New(storetest.Through(disk), &scheduler.Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
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
