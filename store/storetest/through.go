package storetest

import (
	"context"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// Through returns st with every transaction, its whole operations' too,
// run by st's own View and Update: for a test whose wrapper of a store
// fails, counts or slows its transactions. Fire runs as a bolt store runs
// it (ops.FireChunks); a wrapper's own Fire is passed over. A wrapper of
// the store's Tx says what it wraps with an Unwrap() store.Tx method.
func Through(st store.Store) store.Store { return through{Ops: ops.Ops{R: st}, st: st} }

type through struct {
	ops.Ops
	st store.Store
}

func (t through) View(ctx context.Context, fn func(store.Tx) error) error { return t.st.View(ctx, fn) }
func (t through) Update(ctx context.Context, fn func(store.Tx) error) error {
	return t.st.Update(ctx, fn)
}
func (t through) Close() error { return t.st.Close() }
