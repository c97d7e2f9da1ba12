package postgres

import (
	"context"
	"time"
)

// OnListening makes s call fn each time its LISTEN is in place.
func OnListening(s *Store, fn func()) { s.listening = fn }

// OnWatchLook makes s's Watch call fn after each look.
func OnWatchLook(s *Store, fn func()) { s.watched = fn }

// SetWatchEvery makes Watch look every d until the returned func is called.
func SetWatchEvery(d time.Duration) func() {
	old := watchEvery
	watchEvery = d
	return func() { watchEvery = old }
}

// ParallelWrites and DueCount are what Fire splits a burst by.
func (s *Store) ParallelWrites(ctx context.Context) (all, mine int) { return s.parallelWrites(ctx) }

func (s *Store) DueCount(ctx context.Context, t time.Time) (int, error) { return s.dueCount(ctx, t) }
