package bolt

import "github.com/schedbot/schedbot/store/internal/ops"

var _ ops.Rows = (*tx)(nil)

// A bbolt store's whole operations are ops.Ops over its transactions:
// Fire in transactions that start small and grow (ops.FireChunks), as
// one process writes the file one transaction at a time, so the first
// windows are durable (and with the worker) while the rest commit.
