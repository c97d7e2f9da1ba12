package scheduler_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

func mustCallFn(t *testing.T, reg *functions.Registry, fn, args string) *functions.JobResult {
	t.Helper()
	res, err := reg.Call(t.Context(), functions.Request{Function: fn, Args: json.RawMessage(args), Actor: actor})
	if err != nil {
		t.Fatalf("%s %s: %v", fn, args, err)
	}
	return res.(*functions.JobResult)
}

func mustFire(t *testing.T, s *scheduler.Scheduler, at time.Time, want int) {
	t.Helper()
	if n, err := s.FireDue(t.Context(), at); err != nil || n != want {
		t.Fatalf("FireDue(%s) = %d, %v; want %d fired", at.Format(time.RFC3339), n, err, want)
	}
}

// A skipped occurrence fires nothing, for every kind of schedule,
// including the spring-forward day, whose 2:30 fires at the jump.
func TestFireDue_SkippedOccurrenceFiresNothing(t *testing.T) {
	hourly := `{"scheduleType":"interval","schedule":{"everySeconds":3600},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`
	cases := []struct {
		name, job string
		now       time.Time // when the job is made
		skip      string    // the occurrence skipped
		next      string    // the one after it, which fires
	}{
		{"cron on the spring-forward day", cronJob("30 2 * * *", "America/New_York", ""),
			time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC), "2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"},
		{"rrule", rruleJob("FREQ=WEEKLY;BYDAY=TH;BYHOUR=9;BYMINUTE=0", "Europe/Berlin", ""),
			time.Date(2026, 12, 20, 12, 0, 0, 0, time.UTC), "2026-12-24T08:00:00Z", "2026-12-31T08:00:00Z"},
		{"interval", hourly,
			time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), "2026-11-22T13:00:00Z", "2026-11-22T14:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				time.Sleep(time.Until(c.now))
				st := newTestStore(t)
				reg := registry(st, nil)
				j := mustCreate(t, reg, c.job)
				res := mustCallFn(t, reg, "schedule.skip", fmt.Sprintf(`{"jobId":%q,"at":%q}`, j.JobID, c.skip))
				if got := res.Job.NextRunAt.Format(time.RFC3339); got != c.next {
					t.Errorf("next run after the skip = %s, want %s", got, c.next)
				}
				skip, _ := time.Parse(time.RFC3339, c.skip)
				next, _ := time.Parse(time.RFC3339, c.next)
				s := scheduler.New(st, nil)
				mustFire(t, s, skip, 0)
				mustFire(t, s, skip.Add(30*time.Second), 0)
				mustFire(t, s, next, 1)
				requireTriggers(t, st, c.next)
			})
		})
	}
}

// Down across a skipped window, a job recovers the latest window it has,
// never the skipped one.
func TestFireDue_RecoveryPassesOverASkippedWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		reg := registry(st, nil)
		j := mustCreate(t, reg, `{"scheduleType":"interval","schedule":{"everySeconds":3600},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
		mustCallFn(t, reg, "schedule.skip", fmt.Sprintf(`{"jobId":%q,"at":"2026-11-22T15:00:00Z"}`, j.JobID))
		// Down from 12:00 to 15:10: 13:00 and 14:00 are due, 15:00 is
		// skipped; the latest due, 14:00, fires.
		mustFire(t, scheduler.New(st, nil), time.Date(2026, 11, 22, 15, 10, 0, 0, time.UTC), 1)
		requireTriggers(t, st, "2026-11-22T14:00:00Z")
		if got := getJob(t, st, j.JobID).NextRunAt; !got.Equal(time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)) {
			t.Errorf("next = %s", got)
		}
	})
}

// A snooze fires the job's action once more, by its own execution id,
// beside the schedule's windows.
func TestFireDue_SnoozeFiresOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		reg := registry(st, nil)
		// overlap allowed: no worker completes the first run here
		j := mustCreate(t, reg, cronJob("0 13 * * *", "UTC", `"overlapPolicy":"allow",`))
		s := scheduler.New(st, nil)
		at := time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)
		time.Sleep(time.Until(at))
		mustFire(t, s, at, 1)
		until := at.Add(10 * time.Minute)
		mustCallFn(t, reg, "schedule.snooze", fmt.Sprintf(`{"jobId":%q,"until":%q}`, j.JobID, until.Format(time.RFC3339)))
		if got := getJob(t, st, j.JobID); !got.NextRunAt.Equal(until) {
			t.Fatalf("next = %s, want the snooze %s", got.NextRunAt, until)
		}
		mustFire(t, s, until, 1)
		mustFire(t, s, until, 0) // a second round, or a second process: never twice
		got := getJob(t, st, j.JobID)
		if !got.SnoozeAt.IsZero() || !got.NextRunAt.Equal(at.AddDate(0, 0, 1)) || got.State != store.JobEnabled {
			t.Errorf("after the snooze: %s next %s snooze %s", got.State, got.NextRunAt, got.SnoozeAt)
		}
		items := triggers(t, st)
		if len(items) != 2 || items[1].ExecutionID != store.SnoozeExecutionID(j.JobID, until) || !items[1].ScheduledAt.Equal(until) {
			t.Errorf("triggers = %+v", items)
		}
		mustFire(t, s, at.AddDate(0, 0, 1), 1) // the schedule goes on
		// A snooze on a window of the schedule fires beside it.
		at = at.AddDate(0, 0, 2)
		mustCallFn(t, reg, "schedule.snooze", fmt.Sprintf(`{"jobId":%q,"until":%q}`, j.JobID, at.Format(time.RFC3339)))
		mustFire(t, s, at, 2)
	})
}

// A snoozed one-time reminder fires again once, then is done again.
func TestFireDue_SnoozedOnceJobEndsDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		reg := registry(st, nil)
		j := mustCreate(t, reg, `{"scheduleType":"once","schedule":{"runAt":"2026-11-22T12:30:00Z"},"overlapPolicy":"allow",
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"stretch"}}}`)
		s := scheduler.New(st, nil)
		time.Sleep(30 * time.Minute)
		mustFire(t, s, time.Now(), 1)
		until := time.Now().Add(10 * time.Minute)
		mustCallFn(t, reg, "schedule.snooze", fmt.Sprintf(`{"jobId":%q,"until":%q}`, j.JobID, until.Format(time.RFC3339)))
		mustFire(t, s, until.Add(-time.Second), 0)
		mustFire(t, s, until, 1)
		if got := getJob(t, st, j.JobID); got.State != store.JobDisabled || !got.SnoozeAt.IsZero() {
			t.Errorf("after the snooze: %s, snooze %s", got.State, got.SnoozeAt)
		}
		requireTriggers(t, st, "2026-11-22T12:30:00Z", until.Format(time.RFC3339))
	})
}

// "3 times" is a count of runs left, not an end date: changing the
// schedule after the first run leaves two.
func TestFireDue_CountSurvivesAnEdit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
		st := newTestStore(t)
		reg := registry(st, nil)
		j := mustCreate(t, reg, cronJob("0 13 * * *", "UTC", `"count":3,"overlapPolicy":"allow",`))
		s := scheduler.New(st, nil)
		day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
		time.Sleep(time.Until(day(22, 13)))
		mustFire(t, s, day(22, 13), 1)
		res := mustCallFn(t, reg, "schedule.update", fmt.Sprintf(`{"jobId":%q,"schedule":{"cron":"0 9 * * *","timezone":"UTC"}}`, j.JobID))
		if res.Job.Remaining != 2 || len(res.NextRuns) != 2 {
			t.Errorf("after the edit: remaining %d, next runs %v", res.Job.Remaining, res.NextRuns)
		}
		mustFire(t, s, day(23, 9), 1)
		mustFire(t, s, day(24, 9), 1)
		got := getJob(t, st, j.JobID)
		if got.State != store.JobDisabled || got.Remaining != -1 {
			t.Errorf("after three runs: %s, remaining %d", got.State, got.Remaining)
		}
		mustFire(t, s, day(25, 9), 0)
		// A spent job snoozed fires the snooze alone.
		mustCallFn(t, reg, "schedule.snooze", fmt.Sprintf(`{"jobId":%q,"until":"2026-11-24T10:00:00Z"}`, j.JobID))
		mustFire(t, s, day(24, 10), 1)
		if got := getJob(t, st, j.JobID); got.State != store.JobDisabled {
			t.Errorf("after the snooze: %s", got.State)
		}
	})
}

func TestDescribe_SkipsAndCount(t *testing.T) {
	sp, err := scheduler.NewSpec("cron", store.Schedule{Cron: "0 9 * * 4", Timezone: "Europe/Berlin"}, time.Date(2027, 4, 1, 0, 0, 0, 0, time.FixedZone("CEST", 2*3600)))
	if err != nil {
		t.Fatal(err)
	}
	sp.Skip = []time.Time{time.Date(2026, 12, 24, 8, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 8, 0, 0, 0, time.UTC)}
	sp.Limit = 3
	if got, want := sp.Describe(), "Every Thursday at 9:00 AM, until Wed 31 Mar 2027, 3 more times, except Thu 24 Dec and Thu 31 Dec"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	// Several runs a day: the time says which.
	sp, _ = scheduler.NewSpec("cron", store.Schedule{Cron: "0 9,17 * * *", Timezone: "UTC"}, time.Time{})
	sp.Skip = []time.Time{time.Date(2026, 12, 24, 17, 0, 0, 0, time.UTC)}
	if got, want := sp.Describe(), "Every day at 9:00 AM and 5:00 PM, except Thu 24 Dec 5:00 PM"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	// Many runs left out ("pause it until jan 4") are counted, not listed.
	sp.Skip = nil
	for d := 21; d <= 23; d++ {
		sp.Skip = append(sp.Skip, time.Date(2026, 12, d, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, d, 17, 0, 0, 0, time.UTC))
	}
	if got, want := sp.Describe(), "Every day at 9:00 AM and 5:00 PM, except 6 runs between Mon 21 Dec 9:00 AM and Wed 23 Dec 5:00 PM"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
