package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// housekeeper does one orchestrator's periodic chores in serve: it
// publishes the audit chain's head to the log (for an external copy to be
// compared with `audit verify --head`), prunes runs and deleted jobs as
// the runs and retention sections say, and forgets idempotency keys after
// store.RequestRetention.
type housekeeper struct {
	id  string
	st  store.Store
	cfg *config.Config
	log *slog.Logger
}

// retentionEvery is how often the housekeeper prunes.
const retentionEvery = time.Hour

// Run publishes the head and prunes at once, then the one every
// audit.publish_every and the other every retentionEvery, until ctx is
// done. A failure is logged and tried again next time.
func (h *housekeeper) Run(ctx context.Context) error {
	publish := time.NewTicker(time.Duration(h.cfg.Audit.PublishEvery))
	defer publish.Stop()
	prune := time.NewTicker(retentionEvery)
	defer prune.Stop()
	h.publishHead(ctx)
	h.prune(ctx, time.Now())
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-publish.C:
			h.publishHead(ctx)
		case now := <-prune.C:
			h.prune(ctx, now)
		}
	}
}

// pruneBatch is how many jobs' runs one transaction prunes, and how many
// deleted jobs.
const pruneBatch = 200

// prune deletes the runs past runs.keep_per_job or older than
// runs.max_age, and the jobs deleted longer ago than
// retention.deleted_jobs, with their runs.
func (h *housekeeper) prune(ctx context.Context, now time.Time) {
	runs, jobs, err := h.pruneOnce(ctx, now)
	switch {
	case err != nil && ctx.Err() == nil:
		h.log.Error("prune runs and deleted jobs", slog.Any("error", err), slog.Int("runs", runs), slog.Int("jobs", jobs))
	case runs+jobs > 0:
		h.log.Info("pruned", slog.Int("runs", runs), slog.Int("deletedJobs", jobs))
	}
}

func (h *housekeeper) pruneOnce(ctx context.Context, now time.Time) (runs, jobs int, err error) {
	before := now.Add(-time.Duration(h.cfg.Runs.MaxAge))
	p := &store.JobListParams{States: store.JobStates, Limit: pruneBatch}
	for {
		var page *store.JobPage
		err := h.st.View(ctx, func(tx store.Tx) (err error) {
			page, err = tx.JobList(p)
			return err
		})
		if err != nil {
			return runs, jobs, err
		}
		ids := make([]string, len(page.Jobs))
		for i, j := range page.Jobs {
			ids[i] = j.JobID
		}
		for {
			p := &store.PruneParams{What: store.PruneRuns, JobIDs: ids, Keep: h.cfg.Runs.KeepPerJob, Before: before, Limit: 10000}
			n, err := h.st.Prune(ctx, p)
			if runs += n; err != nil {
				return runs, jobs, err
			}
			if n < p.Limit {
				break
			}
		}
		if page.NextCursor == "" {
			break
		}
		p.Cursor = page.NextCursor
	}
	deletedBefore := now.Add(-time.Duration(h.cfg.Retention.DeletedJobs))
	for {
		n, err := h.st.Prune(ctx, &store.PruneParams{What: store.PruneJobs, Before: deletedBefore, Limit: pruneBatch})
		if jobs += n; err != nil {
			return runs, jobs, err
		}
		if n < pruneBatch {
			break
		}
	}
	// Idempotency keys are remembered for store.RequestRetention.
	for {
		n, err := h.st.Prune(ctx, &store.PruneParams{What: store.PruneRequests, Before: now.Add(-store.RequestRetention), Limit: 1000})
		if err != nil {
			return runs, jobs, err
		}
		if n < 1000 {
			return runs, jobs, nil
		}
	}
}

func (h *housekeeper) publishHead(ctx context.Context) {
	c, err := h.st.Count(ctx)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Error("read the audit head", slog.Any("error", err))
		}
		return
	}
	h.log.Info("audit head", slog.Uint64("seq", c.AuditSeq), slog.String("hash", c.AuditHash))
}
