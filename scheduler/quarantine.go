package scheduler

import (
	"log/slog"
	"time"

	"github.com/schedbot/schedbot/store"
)

// quarantine disables the due jobs whose stored records cannot be read, and
// audits each, so that one bad record does not stop the others firing.
// Their records are kept as they are, for repair.
func (s *Scheduler) quarantine(tx store.Tx, now time.Time, bad *store.UnreadableJobsError) error {
	for _, re := range bad.Jobs {
		if err := tx.JobQuarantine(re.ID); err != nil {
			return err
		}
		s.log.Error("disabling a job whose stored record cannot be read", slog.String("jobId", re.ID), slog.Any("error", re.Err))
		ev := &store.AuditEvent{At: now, OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor, Action: store.AuditJobDisabled,
			JobID: re.ID, Detail: "stored record cannot be read: " + re.Err.Error()}
		if err := tx.AuditAppend(ev); err != nil {
			return err
		}
	}
	return nil
}
