package storetest

import (
	"context"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// Through returns st with every transaction, its whole operations' too,
// run by st's own View and Update: for a test whose wrapper of a store
// fails, counts or slows its transactions. Fire runs as a bolt store runs
// it (ops.FireChunks). A wrapper of the store's Tx says what it wraps with
// an Unwrap() store.Tx method.
func Through(st store.Store) store.Store { return through{st} }

type through struct{ store.Store }

func (t through) Fire(ctx context.Context, p store.FireParams, begin func() store.Firing) error {
	return ops.FireChunks(ctx, t.Store, p, begin)
}

func (t through) Claim(ctx context.Context, now time.Time, limit int, then func(store.Tx, []*store.QueueItem) error) ([]*store.QueueItem, error) {
	return ops.Claim(ctx, t.Store, now, limit, then)
}

func (t through) Complete(ctx context.Context, items []*store.QueueItem, fn func(store.Tx, *store.QueueItem) error) error {
	return ops.Complete(ctx, t.Store, items, fn)
}

func (t through) Requeue(ctx context.Context, now, notBefore time.Time) (int, error) {
	return ops.Requeue(ctx, t.Store, now, notBefore)
}

func (t through) ClaimDeliveries(ctx context.Context, c *store.LaneClaim) ([]*store.Lane, error) {
	return ops.ClaimDeliveries(ctx, t.Store, c)
}

func (t through) RecordDeliveries(ctx context.Context, r *store.LaneRecord, fn func(store.Tx) error) error {
	return ops.RecordDeliveries(ctx, t.Store, r, fn)
}

func (t through) NextRun(ctx context.Context) (time.Time, error) { return ops.NextRun(ctx, t.Store) }

func (t through) NextItem(ctx context.Context, q store.QueueName, now time.Time) (time.Time, error) {
	return ops.NextItem(ctx, t.Store, q, now)
}

func (t through) Prune(ctx context.Context, p *store.PruneParams) (int, error) {
	return ops.Prune(ctx, t.Store, p)
}

func (t through) AuditVerify(ctx context.Context) (int, error) { return ops.AuditVerify(ctx, t.Store) }

func (t through) Count(ctx context.Context) (*store.Counts, error) { return ops.Count(ctx, t.Store) }
