package functions

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// The life of a reminder after it is made: skip one occurrence, restore
// it, run it again later (snooze), mark a run done.

var (
	//go:embed schedule_skip.json
	scheduleSkipSchema []byte
	//go:embed schedule_unskip.json
	scheduleUnskipSchema []byte
	//go:embed schedule_snooze.json
	scheduleSnoozeSchema []byte
	//go:embed schedule_complete.json
	scheduleCompleteSchema []byte
)

type skipArgs struct {
	JobID string `json:"jobId"`
	At    string `json:"at"`
	Count int    `json:"count"` // schedule.skip only: runs from At on; absent is 1 (the schema's bounds)
}

type snoozeArgs struct {
	JobID string `json:"jobId"`
	Until string `json:"until"`
}

type completeArgs struct {
	JobID       string `json:"jobId"`
	ExecutionID string `json:"executionId"`
}

// instant reads an RFC 3339 argument; empty is the zero time when
// optional.
func instant(field, v string, required bool) (time.Time, error) {
	if v == "" {
		if required {
			return time.Time{}, fieldErr(field, "is required (an RFC 3339 instant such as 2026-12-24T09:00:00Z)")
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fieldErr(field, "%q is not an RFC 3339 instant (such as 2026-12-24T09:00:00Z)", v)
	}
	return t.UTC(), nil
}

func checkSkipArgs(_ *Call, a *skipArgs) error {
	if err := checkJobID(a.JobID); err != nil {
		return err
	}
	_, err := instant("at", a.At, false)
	return err
}

func checkUnskipArgs(_ *Call, a *skipArgs) error {
	if err := checkJobID(a.JobID); err != nil {
		return err
	}
	_, err := instant("at", a.At, true)
	return err
}

func scheduleSkip() Spec[skipArgs] {
	return Spec[skipArgs]{ID: "schedule.skip", Schema: scheduleSkipSchema, Check: checkSkipArgs, Handle: skipJob}
}

func scheduleUnskip() Spec[skipArgs] {
	return Spec[skipArgs]{ID: "schedule.unskip", Schema: scheduleUnskipSchema, Check: checkUnskipArgs, Handle: unskipJob}
}

func scheduleSnooze() Spec[snoozeArgs] {
	return Spec[snoozeArgs]{ID: "schedule.snooze", Schema: scheduleSnoozeSchema, Handle: snoozeJob,
		Check: func(_ *Call, a *snoozeArgs) error {
			if err := checkJobID(a.JobID); err != nil {
				return err
			}
			_, err := instant("until", a.Until, true)
			return err
		}}
}

func scheduleComplete() Spec[completeArgs] {
	return Spec[completeArgs]{ID: "schedule.complete", Schema: scheduleCompleteSchema, Handle: completeRun,
		Check: func(_ *Call, a *completeArgs) error { return checkJobID(a.JobID) }}
}

// pruneSkips drops the occurrences left out that have passed.
func pruneSkips(j *store.Job, now time.Time) {
	j.Skip = slices.DeleteFunc(j.Skip, func(t time.Time) bool { return !t.After(now) })
	if len(j.Skip) == 0 {
		j.Skip = nil
	}
}

// isOccurrence says whether t is a run of sp, skipped or not.
func isOccurrence(sp *scheduler.Spec, t time.Time) bool {
	raw := *sp
	raw.Skip, raw.Limit = nil, 0
	got, ok := raw.Next(t.Add(-time.Nanosecond))
	return ok && got.Equal(t)
}

// rearm sets a changed job's description and, when it fires, nextRunAt:
// its next run or its snooze, whichever is first.
func (c *Call) rearm(j *store.Job) error {
	sp, err := jobSpec(j)
	if err != nil {
		return invalid(err)
	}
	if j.State != store.JobEnabled {
		j.Description = sp.DescribeWithZone()
		return nil
	}
	return c.arm(j, sp)
}

func skipJob(ctx context.Context, c *Call, a *skipArgs) (any, error) {
	at, err := instant("at", a.At, false)
	if err != nil {
		return nil, err
	}
	return c.change(ctx, a.JobID, store.AuditJobSkipped, func(j *store.Job) (bool, error) {
		if j.State == store.JobDisabled {
			return false, fmt.Errorf("%w: job %s is disabled (it has no future run to skip)", ErrConflict, j.JobID)
		}
		pruneSkips(j, c.Now)
		sp, err := jobSpec(j)
		if err != nil {
			return false, invalid(err)
		}
		if at.IsZero() {
			next, ok := sp.Next(c.Now)
			if !ok {
				return false, fmt.Errorf("%w: job %s has no run after now to skip", ErrConflict, j.JobID)
			}
			at = next
		}
		switch {
		case !at.After(c.Now):
			return false, fieldErr("at", "%s has passed (now is %s)", at.Format(time.RFC3339), c.Now.Format(time.RFC3339))
		case !isOccurrence(sp, at):
			return false, fieldErr("at", "%s is not a run of job %s (its next runs: %s)", at.Format(time.RFC3339), j.JobID, instants(sp.NextN(c.Now, NextRunsShown)))
		case sp.Skipped(at) && a.Count <= 1:
			return false, nil
		}
		// at, and the runs after it not skipped yet, up to count
		adds := []time.Time{}
		for t, ok := at, true; len(adds) < max(a.Count, 1); t, ok = sp.Next(t) {
			if !ok {
				return false, fmt.Errorf("%w: job %s has %d run(s) left from %s, not %d to skip; delete the job rather than skip them all",
					ErrConflict, j.JobID, len(adds), at.Format(time.RFC3339), a.Count)
			}
			if !sp.Skipped(t) {
				adds = append(adds, t)
			}
		}
		if len(j.Skip)+len(adds) > store.MaxSkips {
			return false, fieldErr("at", "job %s already leaves out %d runs; %d more would pass %d, the most it may", j.JobID, len(j.Skip), len(adds), store.MaxSkips)
		}
		at = adds[len(adds)-1]
		j.Skip = append(j.Skip, adds...)
		slices.SortFunc(j.Skip, time.Time.Compare)
		if sp.Skip = j.Skip; j.SnoozeAt.IsZero() {
			if _, ok := sp.Next(c.Now); !ok {
				return false, fmt.Errorf("%w: %s is job %s's last run; delete the job rather than skip it", ErrConflict, at.Format(time.RFC3339), j.JobID)
			}
		}
		return true, c.rearm(j)
	})
}

func unskipJob(ctx context.Context, c *Call, a *skipArgs) (any, error) {
	at, err := instant("at", a.At, true)
	if err != nil {
		return nil, err
	}
	return c.change(ctx, a.JobID, store.AuditJobUnskipped, func(j *store.Job) (bool, error) {
		if !at.After(c.Now) {
			return false, fieldErr("at", "%s has passed (now is %s)", at.Format(time.RFC3339), c.Now.Format(time.RFC3339))
		}
		pruneSkips(j, c.Now)
		i := slices.IndexFunc(j.Skip, at.Equal)
		if i < 0 {
			return false, fieldErr("at", "%s is not a run job %s skips (it skips: %s)", at.Format(time.RFC3339), j.JobID, instants(j.Skip))
		}
		j.Skip = slices.Delete(j.Skip, i, i+1)
		if len(j.Skip) == 0 {
			j.Skip = nil
		}
		return true, c.rearm(j)
	})
}

func snoozeJob(ctx context.Context, c *Call, a *snoozeArgs) (any, error) {
	until, err := instant("until", a.Until, true)
	if err != nil {
		return nil, err
	}
	switch {
	case !until.After(c.Now):
		return nil, fieldErr("until", "%s is not in the future (now is %s)", until.Format(time.RFC3339), c.Now.Format(time.RFC3339))
	case until.After(c.Now.Add(MaxAhead)):
		return nil, fieldErr("until", "more than 10 years ahead")
	}
	until = until.Truncate(time.Second)
	return c.change(ctx, a.JobID, store.AuditJobSnoozed, func(j *store.Job) (bool, error) {
		if j.State == store.JobPaused {
			return false, fmt.Errorf("%w: job %s is paused; resume it first", ErrConflict, j.JobID)
		}
		if j.SnoozeAt.Equal(until) {
			return false, nil
		}
		pruneSkips(j, c.Now)
		sp, err := jobSpec(j)
		if err != nil {
			return false, invalid(err)
		}
		// A fired reminder (a once job done, a count spent) comes back for
		// the snooze alone: the scheduler fires it, finds no run after it,
		// and disables the job again.
		j.SnoozeAt, j.State = until, store.JobEnabled
		j.Description = sp.DescribeWithZone()
		next, ok := sp.Next(c.Now)
		if !ok || until.Before(next) {
			next = until
		}
		j.NextRunAt, j.NextRunAtLocal = next, sp.Local(next)
		return true, nil
	})
}

// completeRun marks one run done: who and when, on the run itself.
func completeRun(ctx context.Context, c *Call, a *completeArgs) (any, error) {
	var res *JobResult
	done := false
	err := c.update(ctx, func(tx store.Tx) error {
		j, err := c.jobToChange(tx, a.JobID, store.AuditRunCompleted)
		if err != nil {
			return err
		}
		id := a.ExecutionID
		if id == "" {
			rs, err := tx.RunList(j.JobID, 1)
			if err != nil {
				return err
			}
			if len(rs) == 0 {
				return fmt.Errorf("%w: job %s has not run yet", ErrConflict, j.JobID)
			}
			id = rs[0].ExecutionID
		} else if !strings.HasPrefix(id, j.JobID+"@") {
			return fieldErr("executionId", "%q is not a run of job %s (its runs' ids start %s@)", id, j.JobID, j.JobID)
		}
		r, err := tx.RunGet(id)
		if errors.Is(err, store.ErrNotFound) {
			return fieldErr("executionId", "job %s has no run %q", j.JobID, id)
		} else if err != nil {
			return err
		}
		res = c.result(j)
		res.Runs = []*store.Run{r}
		switch {
		case r.DoneBy != nil:
			return nil // done before: nothing changes
		case r.Status == store.RunSkipped || r.Status == store.RunMissed:
			return fmt.Errorf("%w: run %s was %s; nothing ran to be done", ErrConflict, id, r.Status)
		}
		actor := c.Actor
		r.DoneBy, r.DoneAt = &actor, c.Now
		if err := tx.RunPut(r); err != nil {
			return err
		}
		ev := &store.AuditEvent{OrchestratorID: c.orch().ID, Actor: c.Actor, Action: store.AuditRunCompleted,
			JobID: j.JobID, ExecutionID: id, Detail: "marked done"}
		if err := tx.AuditAppend(ev); err != nil {
			return fmt.Errorf("append audit event: %w", err)
		}
		done = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if done {
		res.change = c.logChange(store.AuditRunCompleted, res.Job)
	}
	return res, nil
}

func instants(ts []time.Time) string {
	if len(ts) == 0 {
		return "none"
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.UTC().Format(time.RFC3339)
	}
	return strings.Join(s, ", ")
}
