package bolt

import (
	"context"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

var _ ops.Rows = (*tx)(nil)

// Fire fires the due jobs in transactions that start small and double
// (ops.FireChunks): one process writes the file, one transaction at a
// time, so the first windows are durable (and with the worker) while the
// rest commit.
func (s *Store) Fire(ctx context.Context, p store.FireParams, begin func() store.Firing) error {
	return ops.FireChunks(ctx, s, p, begin)
}

func (s *Store) Claim(ctx context.Context, now time.Time, limit int, then func(store.Tx, []*store.QueueItem) error) ([]*store.QueueItem, error) {
	return ops.Claim(ctx, s, now, limit, then)
}

func (s *Store) Complete(ctx context.Context, items []*store.QueueItem, fn func(store.Tx, *store.QueueItem) error) error {
	return ops.Complete(ctx, s, items, fn)
}

func (s *Store) Requeue(ctx context.Context, now, notBefore time.Time) (int, error) {
	return ops.Requeue(ctx, s, now, notBefore)
}

func (s *Store) ClaimDeliveries(ctx context.Context, c *store.LaneClaim) ([]*store.Lane, error) {
	return ops.ClaimDeliveries(ctx, s, c)
}

func (s *Store) RecordDeliveries(ctx context.Context, r *store.LaneRecord, fn func(store.Tx) error) error {
	return ops.RecordDeliveries(ctx, s, r, fn)
}

func (s *Store) NextRun(ctx context.Context) (time.Time, error) { return ops.NextRun(ctx, s) }

func (s *Store) NextItem(ctx context.Context, q store.QueueName, now time.Time) (time.Time, error) {
	return ops.NextItem(ctx, s, q, now)
}

func (s *Store) Prune(ctx context.Context, p *store.PruneParams) (int, error) {
	return ops.Prune(ctx, s, p)
}

func (s *Store) AuditVerify(ctx context.Context) (int, error) { return ops.AuditVerify(ctx, s) }

func (s *Store) Count(ctx context.Context) (*store.Counts, error) { return ops.Count(ctx, s) }
