package postgres

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

func (t *tx) RunPrune(p *store.PruneParams, jobID string) (int, error) {
	if err := t.writable("prune runs"); err != nil {
		return 0, err
	}
	if err := t.flush(); err != nil {
		return 0, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	rows, err := t.tx.Query(t.ctx, `SELECT execution_id, body FROM schedbot_runs WHERE orchestrator_id = $1
		AND execution_id > $2 AND execution_id < $3 AND job_id = $4
		ORDER BY execution_id DESC`, t.s.orch, bs(jobID+"@"), bs(jobID+"A"), bs(jobID))
	if err != nil {
		return 0, fmt.Errorf("prune runs of %s: %w", jobID, err)
	}
	var doomed [][]byte
	i := 0
	var id, body []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		r, err := decode[store.Run]("run", string(id), body)
		if err == nil && p.Prunable(r, i) && len(doomed) < limit {
			doomed = append(doomed, append([]byte(nil), id...))
		}
		i++
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune runs of %s: %w", jobID, err)
	}
	if len(doomed) == 0 {
		return 0, nil
	}
	tag, err := t.exec(`DELETE FROM schedbot_runs WHERE orchestrator_id = $1 AND execution_id = ANY($2)`, t.s.orch, doomed)
	if err != nil {
		return 0, fmt.Errorf("prune runs of %s: %w", jobID, err)
	}
	for _, id := range doomed {
		delete(t.w.runsAhead, string(id))
	}
	return int(tag.RowsAffected()), nil
}

func (t *tx) JobPrune(before time.Time, limit int) (int, error) {
	if err := t.writable("prune jobs"); err != nil {
		return 0, err
	}
	if err := t.flush(); err != nil {
		return 0, err
	}
	rows, err := t.tx.Query(t.ctx, `SELECT job_id, status FROM schedbot_job_status WHERE orchestrator_id = $1 AND state = $2 ORDER BY job_id`,
		t.s.orch, string(store.JobDeleted))
	if err != nil {
		return 0, fmt.Errorf("prune deleted jobs: %w", err)
	}
	var doomed [][]byte
	var id, status []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &status}, func() error {
		st, err := decode[store.JobStatus]("job status", string(id), status)
		if err == nil && st.UpdatedAt.Before(before) && len(doomed) < limit {
			doomed = append(doomed, append([]byte(nil), id...))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune deleted jobs: %w", err)
	}
	if len(doomed) == 0 {
		return 0, nil
	}
	for _, table := range []string{"schedbot_runs", "schedbot_job_status", "schedbot_jobs"} {
		if _, err := t.exec(`DELETE FROM `+table+` WHERE orchestrator_id = $1 AND job_id = ANY($2)`, t.s.orch, doomed); err != nil {
			return 0, fmt.Errorf("prune deleted jobs: %w", err)
		}
	}
	for _, id := range doomed {
		delete(t.w.read, string(id))
	}
	t.jobsChanged = true
	return len(doomed), nil
}
