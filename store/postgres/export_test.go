package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrateTo brings a database to one version only, as an older schedbot left it.
func MigrateTo(ctx context.Context, dsn string, version int) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	return migrateTo(ctx, pool, version)
}

// OnListening makes s call fn each time its LISTEN is in place.
func OnListening(s *Store, fn func()) { s.listening = fn }

// SetWatchEvery makes Watch look every d until the returned func is called.
func SetWatchEvery(d time.Duration) func() {
	old := watchEvery
	watchEvery = d
	return func() { watchEvery = old }
}
