package functions

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_create.json
var scheduleCreateSchema []byte

type scheduleCreateArgs struct {
	OrchestratorID string             `json:"orchestratorId"`
	Name           string             `json:"name"`
	ScheduleType   string             `json:"scheduleType"`
	Schedule       store.Schedule     `json:"schedule"`
	StartAt        time.Time          `json:"startAt"`
	EndAt          time.Time          `json:"endAt"`
	TargetAction   store.TargetAction `json:"targetAction"`
	TargetRef      *store.TargetRef   `json:"targetRef"`
	MisfirePolicy  string             `json:"misfirePolicy"`
	OverlapPolicy  string             `json:"overlapPolicy"`
	Count          int64              `json:"count"`
}

func scheduleCreate() Spec[scheduleCreateArgs] {
	return Spec[scheduleCreateArgs]{
		ID: "schedule.create", Schema: scheduleCreateSchema,
		Handle: func(ctx context.Context, c *Call, a *scheduleCreateArgs) (any, error) { return c.createJob(ctx, a) },
		Check: func(c *Call, a *scheduleCreateArgs) error {
			_, err := c.newJob(a)
			return err
		},
	}
}

// newJob builds and validates the job a create call asks for.
func (c *Call) newJob(a *scheduleCreateArgs) (*store.Job, error) {
	if a.OrchestratorID != "" && a.OrchestratorID != c.orch().ID {
		return nil, fieldErr("orchestratorId", "%q is not the orchestrator of this request (%q); it comes from the channel profile", a.OrchestratorID, c.orch().ID)
	}
	if err := checkName(a.Name); err != nil {
		return nil, err
	}
	j := &store.Job{
		JobID:          c.r.newID(c.Now),
		OrchestratorID: c.orch().ID,
		Name:           a.Name,
		CreatedBy:      c.Actor,
		ScheduleType:   a.ScheduleType,
		Schedule:       a.Schedule,
		StartAt:        a.StartAt,
		EndAt:          a.EndAt,
		TargetAction:   a.TargetAction,
		TargetRef:      a.TargetRef,
		State:          store.JobEnabled,
		MisfirePolicy:  a.MisfirePolicy,
		OverlapPolicy:  a.OverlapPolicy,
		CreatedAt:      c.Now,
		UpdatedAt:      c.Now,
	}
	if j.MisfirePolicy == "" {
		j.MisfirePolicy = store.MisfireFireOnce
	}
	if j.OverlapPolicy == "" {
		j.OverlapPolicy = store.OverlapSkip
	}
	switch {
	case a.Count < 0 || a.Count > MaxCount:
		return nil, fieldErr("count", "must be between 1 and %d, got %d", MaxCount, a.Count)
	case a.Count > 1 && j.ScheduleType == store.ScheduleOnce:
		return nil, fieldErr("count", "a once job runs once; give a recurring schedule for %d runs", a.Count)
	case j.ScheduleType != store.ScheduleOnce:
		j.Remaining = a.Count
	}
	sp, err := c.checkSchedule(j)
	if err != nil {
		return nil, err
	}
	if err := c.checkAction(&j.TargetAction); err != nil {
		return nil, err
	}
	if err := c.checkRef(j.TargetRef); err != nil {
		return nil, err
	}
	if err := c.arm(j, sp); err != nil {
		return nil, err
	}
	return j, nil
}

func (c *Call) createJob(ctx context.Context, a *scheduleCreateArgs) (*JobResult, error) {
	j, err := c.newJob(a)
	if err != nil {
		return nil, err
	}
	err = c.update(ctx, func(tx store.Tx) error {
		n, err := tx.JobCount(store.JobEnabled, store.JobPaused, store.JobDisabled)
		if err != nil {
			return err
		}
		if max := c.orch().MaxJobs; max > 0 && n >= max {
			return fmt.Errorf("%w: orchestrator %q has %d jobs, its max_jobs; delete some first", ErrQuota, c.orch().ID, n)
		}
		if err := tx.JobPut(j); err != nil {
			if errors.Is(err, store.ErrExists) {
				return fieldErr("name", "%q is already the name of another job", j.Name)
			}
			return err
		}
		return c.audit(tx, store.AuditJobCreated, j, nil, j.Description)
	})
	if err != nil {
		return nil, err
	}
	res := c.result(j)
	res.change = c.logChange(store.AuditJobCreated, j)
	c.changed()
	return res, nil
}
