package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/schedbot/schedbot/store"
)

// quarantine audits a due job whose stored record cannot be read, which
// the store has set aside (disabled, its record kept as it is for
// repair), so that one bad record does not stop the others firing.
func (s *Scheduler) quarantine(tx store.Tx, now time.Time, re *store.RecordError) error {
	s.log.Error("disabling a job whose stored record cannot be read", slog.String("jobId", re.ID), slog.Any("error", re.Err))
	return tx.AuditAppend(&store.AuditEvent{At: now, OrchestratorID: s.opt.OrchestratorID, Actor: schedulerActor, Action: store.AuditJobDisabled,
		JobID: re.ID, Detail: "stored record cannot be read: " + re.Err.Error()})
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
		return nil // the job's own record no longer reads: its next Fire sets it aside
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
	if err := tx.JobPut(j); err != nil {
		return err
	}
	s.log.Error("disabling a job one of whose stored records cannot be read", slog.String("jobId", j.JobID), slog.Any("error", e.rec))
	return s.audit(tx, now, store.AuditJobDisabled, j, before, reason)
}
