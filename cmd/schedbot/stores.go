package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
)

// openTimeout bounds connecting to (and migrating) a database at start.
const openTimeout = 30 * time.Second

// isPostgres reports whether o's records live in PostgreSQL.
func isPostgres(o *config.Orchestrator) bool {
	return o.Store != nil && o.Store.Driver == config.DriverPostgres
}

// openStore opens o's store as its config says: its bolt file, or its
// scope of the database whose DSN the store's dsn_env variable holds.
func openStore(o *config.Orchestrator) (store.Store, error) {
	if !isPostgres(o) {
		return bolt.Open(storePath(o), &bolt.Options{LockTimeout: time.Second})
	}
	dsn, err := o.Store.DSN()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	st, err := postgres.Open(ctx, dsn, o.ID, nil)
	if err != nil {
		return nil, fmt.Errorf("open postgres store ($%s): %w", o.Store.DSNEnv, err)
	}
	return st, nil
}

// storeExists reports whether o's store may hold anything: a bolt file
// that was never created reads as empty rather than being created by a
// read; a database is always asked.
func storeExists(o *config.Orchestrator) bool {
	if isPostgres(o) {
		return true
	}
	_, err := os.Stat(storePath(o))
	return !errors.Is(err, os.ErrNotExist)
}

// lockLoops makes this process the one running st's scheduler and worker.
// A bolt store needs nothing: its file lock is held from Open. On a
// database another process may hold it: then standby waits for it to let
// go (logging that it waits), and otherwise it is an error.
func lockLoops(ctx context.Context, st store.Store, id string, standby bool, log *slog.Logger) error {
	pg, ok := st.(*postgres.Store)
	if !ok {
		return nil
	}
	if standby {
		return pg.WaitLock(ctx, func() {
			log.Warn("standby: another schedbot serves this orchestrator on the database; taking over when it stops",
				slog.String("orchestrator", id))
		})
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if err := pg.Lock(ctx); err != nil {
		return fmt.Errorf("%w: one schedbot serve (or chat) per orchestrator and database; start a second one with --standby to take over when the first stops", err)
	}
	return nil
}
