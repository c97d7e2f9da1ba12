package scheduler_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestScheduler_Run_FullDiskAtStartWaitsForSpace: a full disk when the
// scheduler starts (its start cannot be audited) does not stop it: it
// backs off like any failing round and fires once there is space.
func TestScheduler_Run_FullDiskAtStartWaitsForSpace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(t)
		j := mustCreateJob(t, st, "15 * * * *", "UTC") // the bubble starts at 00:00
		var logs logLines
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		disk := &fullDisk{Store: st, stop: cancel}
		disk.full.Store(true)
		s := scheduler.New(storetest.Through(disk), &scheduler.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v with the disk full at start, want it to wait for space", err)
		default:
		}
		if errs := strings.Join(logs.take(slog.LevelError), "\n"); !strings.Contains(errs, "record scheduler start") {
			t.Errorf("error lines = %s, want the failed start record", errs)
		}

		disk.full.Store(false) // space returns
		time.Sleep(time.Until(j.NextRunAt) + time.Minute)
		synctest.Wait()
		requireTriggers(t, st, j.NextRunAt.Format(time.RFC3339))
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}
