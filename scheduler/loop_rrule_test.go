package scheduler_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

func rruleJob(rule, tz, extra string) string {
	return fmt.Sprintf(`{"scheduleType":"rrule","schedule":{"rrule":%q,"timezone":%q},%s
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`, rule, tz, extra)
}

// An rrule in a spring-forward gap fires once at the jump, as a fixed cron
// does; on Lord Howe the clocks jump 30 minutes (02:00 -> 02:30).
func TestScheduler_Run_RRuleInTheGapFiresAtTheJump(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 10, 3, 14, 0, 0, 0, time.UTC))) // 00:30 on Lord Howe, Oct 4
		st := newTestStore(t)
		mustCreate(t, registry(st, nil), rruleJob("FREQ=DAILY;BYHOUR=2;BYMINUTE=15", "Australia/Lord_Howe", `"overlapPolicy":"allow",`))
		stop := startLoop(t, scheduler.New(st, nil))
		time.Sleep(26 * time.Hour)
		synctest.Wait()
		stop()
		// 02:30 LHDT (+11) on Oct 4, then 02:15 LHDT on Oct 5.
		requireTriggers(t, st, "2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z")
	})
}

// "Every Monday at 9 starting December 7": nothing fires before startAt.
func TestFireDue_RRuleWaitsForStartAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		j := mustCreate(t, registry(st, nil), rruleJob("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0", "Europe/London",
			`"startAt":"2026-12-07T00:00:00Z","overlapPolicy":"allow",`))
		s := scheduler.New(st, nil)
		if n, _ := s.FireDue(t.Context(), time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)); n != 0 {
			t.Errorf("a Monday before startAt fired %d", n)
		}
		if n, _ := s.FireDue(t.Context(), time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)); n != 1 {
			t.Errorf("the first Monday from startAt fired %d", n)
		}
		requireTriggers(t, st, "2026-12-07T09:00:00Z")
		if got := getJob(t, st, j.JobID).NextRunAt; !got.Equal(time.Date(2026, 12, 14, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("next = %s", got)
		}
	})
}

// Misfire and overlap policies work on an rrule as on a cron: every 2 days,
// down for 7 days, fires once for the latest window and goes back on the
// grid; skip_missed records the windows as one missed run.
func TestFireDue_RRuleMisfireAndOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		reg := registry(st, nil)
		once := mustCreate(t, reg, rruleJob("FREQ=DAILY;INTERVAL=2;BYHOUR=9;BYMINUTE=0", "UTC", ""))
		skip := mustCreate(t, reg, rruleJob("FREQ=DAILY;INTERVAL=2;BYHOUR=9;BYMINUTE=0", "UTC", `"misfirePolicy":"skip_missed",`))
		if !once.NextRunAt.Equal(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) {
			t.Fatalf("first run %s", once.NextRunAt)
		}
		now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) // windows 23, 25, 27, 29 passed
		if n, err := scheduler.New(st, nil).FireDue(t.Context(), now); err != nil || n != 1 {
			t.Fatalf("FireDue = %d, %v; want one recovery fire", n, err)
		}
		requireTriggers(t, st, "2026-11-29T09:00:00Z")
		if got := getJob(t, st, once.JobID).NextRunAt; !got.Equal(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("fire_once job next = %s, want Dec 1 (on the grid)", got)
		}
		rs := runs(t, st, skip.JobID)
		if len(rs) != 1 || rs[0].Status != store.RunMissed || rs[0].Missed != 4 {
			t.Errorf("skip_missed runs = %+v", rs)
		}
		// Overlap: the Dec 1 window comes while the recovery fire is still
		// dispatched (nothing ran it, and the run timeout is longer): skipped.
		s := scheduler.New(st, &scheduler.Options{RunTimeout: 72 * time.Hour})
		if n, _ := s.FireDue(t.Context(), time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)); n != 1 {
			t.Fatalf("Dec 1 fired %d, want only the skip_missed job", n)
		}
		rs = runs(t, st, once.JobID)
		if len(rs) != 2 || rs[0].Status != store.RunSkipped || rs[0].Reason != "previous_still_running" {
			t.Errorf("overlap runs = %+v", rs)
		}
		acts := auditActions(t, st, once.JobID)
		if !strings.Contains(strings.Join(acts, " "), "misfire.recovered trigger.dispatched") {
			t.Errorf("audit = %v", acts)
		}
	})
}

// COUNT ends the job: after its last fire it is disabled.
func TestFireDue_RRuleCountDisablesAfterTheLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		j := mustCreate(t, registry(st, nil), rruleJob("FREQ=DAILY;COUNT=2;BYHOUR=13;BYMINUTE=0", "UTC", `"overlapPolicy":"allow",`))
		s := scheduler.New(st, nil)
		for _, at := range []time.Time{time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)} {
			if n, err := s.FireDue(t.Context(), at); err != nil || n != 1 {
				t.Fatalf("FireDue(%s) = %d, %v", at, n, err)
			}
		}
		if got := getJob(t, st, j.JobID); got.State != store.JobDisabled || !got.NextRunAt.IsZero() {
			t.Errorf("after COUNT: state %s next %s", got.State, got.NextRunAt)
		}
	})
}
