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
	if err := c.checkFloor(sp); err != nil {
		return nil, err
	}
	if err := c.arm(j, sp); err != nil {
		return nil, err
	}
	return j, nil
}

// checkQuotas refuses a new job past the orchestrator's max_jobs or the
// caller's max_jobs_per_sender (the CLI is held to the first alone). On a
// store whose write transactions run at once it first takes the
// orchestrator's "jobs" lock, so that the counts hold until the insert
// commits: creates then queue up, and a quota holds under any concurrency.
func (c *Call) checkQuotas(tx store.Tx) error {
	if l, ok := tx.(store.Locker); ok {
		if err := l.Lock("jobs"); err != nil {
			return err
		}
	}
	n, err := tx.JobCount(store.JobEnabled, store.JobPaused, store.JobDisabled)
	if err != nil {
		return err
	}
	if max := c.orch().MaxJobs; max > 0 && n >= max {
		return fmt.Errorf("%w: orchestrator %q has %d jobs, its max_jobs; delete some first", ErrQuota, c.orch().ID, n)
	}
	max, sender := c.orch().MaxJobsPerSender, c.Actor.SenderID
	if max <= 0 || c.Actor.Via == store.ViaCLI || sender == "" {
		return nil
	}
	p := &store.JobListParams{CreatedBy: sender, Limit: min(max, store.MaxListLimit)}
	for n = 0; n < max; {
		page, err := tx.JobList(p)
		if err != nil {
			return err
		}
		n += len(page.Jobs)
		if p.Cursor = page.NextCursor; p.Cursor == "" {
			break
		}
	}
	if n >= max {
		return fmt.Errorf("%w: you have %d jobs, this orchestrator's max_jobs_per_sender; delete some first", ErrQuota, n)
	}
	return nil
}

func (c *Call) createJob(ctx context.Context, a *scheduleCreateArgs) (*JobResult, error) {
	j, err := c.newJob(a)
	if err != nil {
		return nil, err
	}
	err = c.update(ctx, func(tx store.Tx) error {
		if err := c.checkQuotas(tx); err != nil {
			return err
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
