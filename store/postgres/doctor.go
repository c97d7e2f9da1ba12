package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

// Check lists this orchestrator's records that do not decode (jobs, runs,
// queue items) and, with repair, fixes or removes them in one
// transaction, as the bolt store does: a job whose definition reads gets
// its status rebuilt, disabled; one whose definition does not read goes,
// both rows; a run or queue item that does not read goes. The indexes are
// columns of the rows, so no entry outlives its record here.
func (s *Store) Check(ctx context.Context, repair bool) (out []store.Problem, err error) {
	fn := s.View
	if repair {
		fn = s.Update
	}
	err = fn(ctx, func(stx store.Tx) error {
		t := stx.(*tx)
		out = nil
		rows, err := t.tx.Query(t.ctx, `SELECT s.job_id, j.body, s.status FROM schedbot_job_status s
			LEFT JOIN schedbot_jobs j ON j.orchestrator_id = s.orchestrator_id AND j.job_id = s.job_id
			WHERE s.orchestrator_id = $1 ORDER BY s.job_id`, t.s.orch)
		if err != nil {
			return fmt.Errorf("check jobs: %w", err)
		}
		type fix struct {
			p   store.Problem
			def *store.Job // the definition, when it reads
		}
		var fixes []fix
		var id, def, status []byte
		_, err = pgx.ForEachRow(rows, []any{&id, &def, &status}, func() error {
			if def == nil {
				fixes = append(fixes, fix{p: store.Problem{Kind: "job", ID: string(id), Error: "its status is stored, its definition is not", Bytes: slices.Clone(status)}})
				return nil
			}
			if _, err := decodeJob(string(id), def, status); err != nil {
				f := fix{p: store.Problem{Kind: "job", ID: string(id), Error: errText(err), Bytes: slices.Concat(def, []byte("\n"), status)}}
				if d, derr := decode[store.Job]("job", string(id), def); derr == nil {
					f.def, f.p.Bytes = d, slices.Clone(status)
				}
				fixes = append(fixes, f)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("check jobs: %w", err)
		}
		for _, f := range fixes {
			if repair {
				if f.def != nil {
					d := f.def
					d.State, d.NextRunAt, d.NextRunAtLocal = store.JobDisabled, time.Time{}, ""
					d.LastResult = &store.Result{Status: string(store.RunFailed), Error: "status record did not read; rebuilt by schedbot doctor"}
					st := d.Status()
					body, err := encode(st)
					if err != nil {
						return err
					}
					if _, err := t.exec(`UPDATE schedbot_job_status SET state = $3, state_rank = $4, next_run_ns = NULL, status = $5 WHERE orchestrator_id = $1 AND job_id = $2`,
						t.s.orch, []byte(f.p.ID), string(store.JobDisabled), stateRank(store.JobDisabled), body); err != nil {
						return fmt.Errorf("rebuild status of job %s: %w", f.p.ID, err)
					}
					f.p.Repair = "rebuilt its status: the job is disabled (resume it to fire again)"
				} else {
					for _, table := range []string{"schedbot_job_status", "schedbot_jobs"} {
						if _, err := t.exec(`DELETE FROM `+table+` WHERE orchestrator_id = $1 AND job_id = $2`, t.s.orch, []byte(f.p.ID)); err != nil {
							return fmt.Errorf("remove job %s: %w", f.p.ID, err)
						}
					}
					f.p.Repair = "removed the job's records"
				}
				t.jobsChanged = true
			}
			out = append(out, f.p)
		}
		for _, c := range []struct{ kind, table, key string }{
			{"run", "schedbot_runs", "execution_id"},
			{"queue item", "schedbot_queue", "item_id"},
		} {
			rows, err := t.tx.Query(t.ctx, `SELECT `+c.key+`, body FROM `+c.table+` WHERE orchestrator_id = $1 ORDER BY `+c.key, t.s.orch)
			if err != nil {
				return fmt.Errorf("check %ss: %w", c.kind, err)
			}
			var bad []store.Problem
			var key, body []byte
			_, err = pgx.ForEachRow(rows, []any{&key, &body}, func() error {
				var err error
				if c.kind == "run" {
					_, err = decode[store.Run]("run", string(key), body)
				} else {
					_, err = decode[store.QueueItem]("queue item", string(key), body)
				}
				if err != nil {
					bad = append(bad, store.Problem{Kind: c.kind, ID: string(key), Error: errText(err), Bytes: slices.Clone(body)})
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("check %ss: %w", c.kind, err)
			}
			for _, p := range bad {
				if repair {
					if _, err := t.exec(`DELETE FROM `+c.table+` WHERE orchestrator_id = $1 AND `+c.key+` = $2`, t.s.orch, []byte(p.ID)); err != nil {
						return fmt.Errorf("remove %s %s: %w", c.kind, p.ID, err)
					}
					p.Repair = "removed the record"
				}
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// errText is why a record does not read, without the store's prefix.
func errText(err error) string {
	var re *store.RecordError
	if errors.As(err, &re) {
		return re.Err.Error()
	}
	return err.Error()
}
