package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

var _ ops.Rows = (*tx)(nil)

// Fire splits the burst evenly between the dispatch slots, this process's
// transactions and others' (parallelWrites): each transaction costs a
// pass over the due jobs whatever its size, so they are of one size, and
// none is left alone with the last batch while the other slot idles. A
// transaction that finds both slots taken by others fires nothing: they
// are firing the due jobs.
func (s *Store) Fire(ctx context.Context, p store.FireParams, begin func() store.Firing) error {
	limit := p.Batch
	if limit <= 0 {
		limit = ops.DefaultBatch
	}
	all, mine := s.parallelWrites(ctx)
	if s.fireTxs > 0 {
		mine = s.fireTxs
	}
	due, err := s.dueCount(ctx, p.Now)
	if err != nil {
		return fmt.Errorf("count due jobs: %w", err)
	}
	batch := evenBatch(due, max(all, mine), limit)
	first := batch
	if p.First > 0 {
		first = min(p.First, batch)
	}
	if mine <= 1 {
		return s.fireLoop(ctx, p.Now, first, batch, begin)
	}
	var wg sync.WaitGroup
	errs := make([]error, mine)
	for i := range mine {
		wg.Go(func() { errs[i] = s.fireLoop(ctx, p.Now, first, batch, begin) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fireLoop is one of Fire's transactions at a time: the first of at most
// first jobs, each next twice the last up to limit, until one comes short.
func (s *Store) fireLoop(ctx context.Context, now time.Time, first, limit int, begin func() store.Firing) error {
	return ops.FireChunks(ctx, s, store.FireParams{Now: now, Batch: limit, First: first}, begin)
}

// evenBatch sizes the transactions that n dispatchers (of all processes)
// fire due jobs in: each dispatcher its share, in as few transactions of
// at most limit as it takes, all of about one size.
func evenBatch(due, n, limit int) int {
	if due <= 0 {
		return limit
	}
	// A store that names no dispatcher still has this one. Ceilings are
	// (a-1)/b+1: (a+b-1)/b wraps for a Batch of math.MaxInt and divided
	// by zero.
	n = max(n, 1)
	share := (due-1)/n + 1
	txs := (share-1)/limit + 1
	return (share-1)/txs + 1
}
