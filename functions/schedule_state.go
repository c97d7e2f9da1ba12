package functions

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/schedbot/schedbot/store"
)

var (
	//go:embed schedule_pause.json
	schedulePauseSchema []byte
	//go:embed schedule_resume.json
	scheduleResumeSchema []byte
	//go:embed schedule_delete.json
	scheduleDeleteSchema []byte
)

type jobIDArgs struct {
	JobID string `json:"jobId"`
}

func checkJobIDArgs(_ *Call, a *jobIDArgs) error { return checkJobID(a.JobID) }

func schedulePause() Spec[jobIDArgs] {
	return Spec[jobIDArgs]{ID: "schedule.pause", Schema: schedulePauseSchema, Check: checkJobIDArgs,
		Handle: func(ctx context.Context, c *Call, a *jobIDArgs) (any, error) {
			return c.change(ctx, a.JobID, store.AuditJobPaused, func(j *store.Job) (bool, error) {
				switch j.State {
				case store.JobPaused:
					return false, nil
				case store.JobDisabled:
					return false, fmt.Errorf("%w: job %s is disabled (it has no future run); update its schedule instead", ErrConflict, j.JobID)
				}
				j.State, j.NextRunAt, j.NextRunAtLocal = store.JobPaused, timeZero, ""
				return true, nil
			})
		}}
}

func scheduleResume() Spec[jobIDArgs] {
	return Spec[jobIDArgs]{ID: "schedule.resume", Schema: scheduleResumeSchema, Check: checkJobIDArgs,
		Handle: func(ctx context.Context, c *Call, a *jobIDArgs) (any, error) {
			return c.change(ctx, a.JobID, store.AuditJobResumed, func(j *store.Job) (bool, error) {
				switch j.State {
				case store.JobEnabled:
					return false, nil
				case store.JobDisabled:
					return false, fmt.Errorf("%w: job %s is disabled (it has no future run); update its schedule instead", ErrConflict, j.JobID)
				}
				sp, err := jobSpec(j)
				if err != nil {
					return false, invalid(err)
				}
				// From now: the windows that passed while paused are not run.
				j.State = store.JobEnabled
				next, ok := sp.Next(c.Now)
				if !ok {
					return false, fmt.Errorf("%w: job %s has no run after now; update its schedule instead", ErrConflict, j.JobID)
				}
				next = withSnooze(j, sp, next, c.Now)
				j.NextRunAt, j.NextRunAtLocal = next, sp.Local(next)
				return true, nil
			})
		}}
}

func scheduleDelete() Spec[jobIDArgs] {
	return Spec[jobIDArgs]{ID: "schedule.delete", Schema: scheduleDeleteSchema, Check: checkJobIDArgs,
		Handle: func(ctx context.Context, c *Call, a *jobIDArgs) (any, error) {
			return c.change(ctx, a.JobID, store.AuditJobDeleted, func(j *store.Job) (bool, error) {
				j.State, j.NextRunAt, j.NextRunAtLocal = store.JobDeleted, timeZero, ""
				return true, nil
			})
		}}
}
