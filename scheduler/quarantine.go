package scheduler

import (
	"errors"
	"fmt"
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

// badJobError is a due job one of whose other records (a run it names)
// does not read; the job reads, so it is disabled rather than
// quarantined, and the record that does not read is kept for repair.
type badJobError struct {
	job *store.Job
	rec *store.RecordError
}

func (e *badJobError) Error() string { return fmt.Sprintf("fire job %s: %v", e.job.JobID, e.rec) }
func (e *badJobError) Unwrap() error { return e.rec }

// quarantineJob disables the job of e in its own transaction and audits
// why, leaving the record that does not read as it is (`schedbot doctor`
// lists it). The job is read again: another process may have changed it.
func (s *Scheduler) quarantineJob(tx store.Tx, now time.Time, e *badJobError) error {
	j, err := tx.JobGet(e.job.JobID)
	var re *store.RecordError
	switch {
	case errors.As(err, &re):
		return s.quarantine(tx, now, &store.UnreadableJobsError{Jobs: []*store.RecordError{re}})
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted meanwhile
	case err != nil:
		return err
	case j.State != store.JobEnabled:
		return nil // paused, disabled or deleted meanwhile
	}
	before := j.Clone()
	reason := "stored record cannot be read: " + e.rec.Error()
	j.State, j.NextRunAt, j.NextRunAtLocal = store.JobDisabled, time.Time{}, ""
	j.LastResult = &store.Result{Status: string(store.RunFailed), Error: reason}
	j.UpdatedAt = now
	if err := tx.JobStatusPut(j); err != nil {
		return err
	}
	s.log.Error("disabling a job one of whose stored records cannot be read", slog.String("jobId", j.JobID), slog.Any("error", e.rec))
	return s.audit(tx, now, store.AuditJobDisabled, j, before, reason)
}
