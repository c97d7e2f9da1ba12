package functions

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_update.json
var scheduleUpdateSchema []byte

// Opt is a patch field: Set when the key was present, Null when it was null.
type Opt[T any] struct {
	Set, Null bool
	V         T
}

// UnmarshalJSON records presence; encoding/json calls it for null too.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.V)
}

type scheduleUpdateArgs struct {
	JobID         string                  `json:"jobId"`
	Name          Opt[string]             `json:"name"`
	ScheduleType  Opt[string]             `json:"scheduleType"`
	Schedule      Opt[store.Schedule]     `json:"schedule"`
	StartAt       Opt[time.Time]          `json:"startAt"`
	EndAt         Opt[time.Time]          `json:"endAt"`
	TargetAction  Opt[store.TargetAction] `json:"targetAction"`
	TargetRef     Opt[store.TargetRef]    `json:"targetRef"`
	MisfirePolicy Opt[string]             `json:"misfirePolicy"`
	OverlapPolicy Opt[string]             `json:"overlapPolicy"`
	Count         Opt[int64]              `json:"count"`
}

func scheduleUpdate() Spec[scheduleUpdateArgs] {
	return Spec[scheduleUpdateArgs]{
		ID: "schedule.update", Schema: scheduleUpdateSchema,
		Handle: func(ctx context.Context, c *Call, a *scheduleUpdateArgs) (any, error) {
			return c.change(ctx, a.JobID, store.AuditJobUpdated, func(j *store.Job) (bool, error) { return c.patch(j, a) })
		},
		Check: func(c *Call, a *scheduleUpdateArgs) error { return checkJobID(a.JobID) },
	}
}

// patch applies an update to j; the schedule, when touched, is validated
// again and the next run recomputed from now.
func (c *Call) patch(j *store.Job, a *scheduleUpdateArgs) (bool, error) {
	c.creator = &j.CreatedBy // the job's target is checked as its run will check it
	if a.Name.Set {
		if err := checkName(a.Name.V); err != nil {
			return false, err
		}
		j.Name = a.Name.V
	}
	rearm := false
	if a.ScheduleType.Set {
		if !a.Schedule.Set {
			return false, fieldErr("schedule", "is required when scheduleType changes")
		}
		j.ScheduleType = a.ScheduleType.V
		rearm = true
	}
	if a.Schedule.Set {
		j.Schedule = a.Schedule.V
		rearm = true
	}
	if a.StartAt.Set {
		if !a.Schedule.Set && anchoredAtStart(j) {
			j.Schedule.Dtstart = "" // the default anchor follows startAt: checkSchedule sets it again
		}
		j.StartAt = a.StartAt.V // zero when null: no start bound
		rearm = true
	}
	if a.EndAt.Set {
		j.EndAt = a.EndAt.V // zero when null: no end
		rearm = true
	}
	if a.Count.Set {
		if !a.Count.Null && (a.Count.V < 1 || a.Count.V > MaxCount) {
			return false, fieldErr("count", "must be between 1 and %d, got %d", MaxCount, a.Count.V)
		}
		j.Remaining = a.Count.V // zero when null: no count
		rearm = true
	}
	if a.TargetAction.Set {
		j.TargetAction = a.TargetAction.V
		if err := c.checkAction(&j.TargetAction); err != nil {
			return false, err
		}
	}
	if a.TargetRef.Set {
		j.TargetRef = nil
		if !a.TargetRef.Null {
			ref := a.TargetRef.V
			if err := c.checkRef(&ref); err != nil {
				return false, err
			}
			j.TargetRef = &ref
		}
	}
	if a.MisfirePolicy.Set {
		j.MisfirePolicy = a.MisfirePolicy.V
	}
	if a.OverlapPolicy.Set {
		j.OverlapPolicy = a.OverlapPolicy.V
	}
	if rearm {
		// A disabled job (a once job that ran, or one past its end) given a
		// new schedule runs again: that is what changing it asks for.
		if j.State == store.JobDisabled {
			j.State = store.JobEnabled
			if j.Remaining < 0 {
				j.Remaining = 0 // a spent count, not given again: none
			}
		}
		sp, err := c.checkSchedule(j)
		if err != nil {
			return false, err
		}
		// Skipped runs the new schedule does not have are gone.
		pruneSkips(j, c.Now)
		j.Skip = slices.DeleteFunc(j.Skip, func(t time.Time) bool { return !isOccurrence(sp, t) })
		if len(j.Skip) == 0 {
			j.Skip = nil
		}
		sp.Skip = j.Skip
		if a.Schedule.Set {
			if err := c.checkFloor(sp); err != nil {
				return false, err
			}
		}
		if err := c.arm(j, sp); err != nil {
			return false, err
		}
	}
	return true, nil
}

// anchoredAtStart reports whether j's rrule dtstart is the one its startAt
// gave it (its first occurrence at or after startAt), not one a person chose.
func anchoredAtStart(j *store.Job) bool {
	if j.ScheduleType != store.ScheduleRRule || j.StartAt.IsZero() || j.Schedule.Dtstart == "" {
		return false
	}
	loc, err := scheduler.LoadLocation(j.Schedule.Timezone)
	if err != nil {
		return false
	}
	dt, err := scheduler.AnchorRRule(j.Schedule.RRule, loc, j.StartAt.Add(-time.Nanosecond))
	return err == nil && dt == j.Schedule.Dtstart
}

// change runs fn on a job and stores the result with its audit event in
// one transaction. fn reports whether it changed anything; an unchanged
// job is returned as it is, with no event.
func (c *Call) change(ctx context.Context, id, action string, fn func(j *store.Job) (bool, error)) (*JobResult, error) {
	var out *store.Job
	changed := false
	err := c.update(ctx, func(tx store.Tx) error {
		j, err := c.jobToChange(tx, id, action)
		if err != nil {
			return err
		}
		before := j.Clone()
		if changed, err = fn(j); err != nil || !changed {
			out = j
			return err
		}
		j.UpdatedAt = c.Now
		if err := tx.JobPut(j); err != nil {
			if errors.Is(err, store.ErrExists) {
				return &FieldError{Field: "name", Rule: fmt.Sprintf("%q is already the name of another job", j.Name), Conflict: true}
			}
			return err
		}
		out = j
		return c.audit(tx, action, j, before, j.Description)
	})
	if err != nil {
		return nil, err
	}
	res := c.result(out)
	if changed {
		res.change = c.logChange(action, out)
		c.changed()
	}
	return res, nil
}
