package functions

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_run_now.json
var scheduleRunNowSchema []byte

// RunNowResult is what schedule.run_now returns.
type RunNowResult struct {
	Job    *store.Job `json:"job"`
	Run    *store.Run `json:"run"`
	ItemID string     `json:"itemId"`
	change *jobChange // made inside a caller's transaction: for Committed
}

func scheduleRunNow() Spec[jobIDArgs] {
	return Spec[jobIDArgs]{ID: "schedule.run_now", Schema: scheduleRunNowSchema, Check: checkJobIDArgs, Handle: runNow}
}

// runNow records a manual run and queues its trigger in one transaction;
// the job's schedule and nextRunAt are left as they are.
func runNow(ctx context.Context, c *Call, a *jobIDArgs) (any, error) {
	var res RunNowResult
	err := c.update(ctx, func(tx store.Tx) error {
		j, err := c.jobToChange(tx, a.JobID, store.AuditJobTriggered)
		if err != nil {
			return err
		}
		before := j.Clone()
		itemID := c.r.newID(c.Now)
		run := &store.Run{
			ExecutionID: store.ManualExecutionID(j.JobID, c.Now, itemID), JobID: j.JobID,
			ScheduledAt: c.Now, DispatchedAt: c.Now, Status: store.RunDispatched, Manual: true,
		}
		if err := tx.RunPut(run); err != nil {
			return err
		}
		payload, _ := json.Marshal(store.TriggerPayload{Manual: true})
		item := &store.QueueItem{
			ItemID: itemID, Kind: store.KindTrigger, OrchestratorID: j.OrchestratorID,
			ChannelProfileID: c.Actor.ChannelProfileID, JobID: j.JobID, ExecutionID: run.ExecutionID,
			ScheduledAt: c.Now, TriggerAt: c.Now, Payload: payload, CreatedAt: c.Now, UpdatedAt: c.Now,
		}
		if err := tx.QueueAdd(item); err != nil {
			return fmt.Errorf("queue trigger: %w", err)
		}
		j.LastRunAt, j.RunCount, j.UpdatedAt = c.Now, j.RunCount+1, c.Now
		j.LastResult = &store.Result{ExecutionID: run.ExecutionID, Status: string(store.RunDispatched)}
		if err := tx.JobPut(j); err != nil {
			return err
		}
		ev := &store.AuditEvent{OrchestratorID: j.OrchestratorID, Actor: c.Actor,
			Action: store.AuditJobTriggered, JobID: j.JobID, ExecutionID: run.ExecutionID,
			Detail: "run now", Before: mustJSON(before), After: mustJSON(j)}
		if err := tx.AuditAppend(ev); err != nil {
			return err
		}
		res = RunNowResult{Job: j, Run: run, ItemID: item.ItemID}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.change = c.logChange(store.AuditJobTriggered, res.Job)
	c.changed()
	return &res, nil
}
