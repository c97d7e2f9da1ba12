package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
)

// openTimeout bounds connecting to (and migrating) a database at start.
const openTimeout = 30 * time.Second

// IsPostgres reports whether o's records live in PostgreSQL.
func IsPostgres(o *config.Orchestrator) bool {
	return o.Store != nil && o.Store.Driver == config.DriverPostgres
}

// OpenStore opens o's store as its config says: its bolt file, or its
// scope of the database whose DSN the store's dsn_env variable holds.
// Audit records are sealed with the audit key when one is configured.
func OpenStore(o *config.Orchestrator) (store.Store, error) {
	key, err := o.Audit.AuditKey()
	if err != nil {
		return nil, err
	}
	if !IsPostgres(o) {
		return bolt.Open(StorePath(o), &bolt.Options{LockTimeout: time.Second, AuditKey: key})
	}
	dsn, err := o.Store.DSN()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	st, err := postgres.Open(ctx, dsn, o.ID, &postgres.Options{AuditKey: key})
	if err != nil {
		return nil, fmt.Errorf("open postgres store ($%s): %w", o.Store.DSNEnv, err)
	}
	return st, nil
}

// StoreExists reports whether o's store may hold anything: a bolt file
// that was never created reads as empty rather than being created by a
// read; a database is always asked.
func StoreExists(o *config.Orchestrator) bool {
	if IsPostgres(o) {
		return true
	}
	_, err := os.Stat(StorePath(o))
	return !errors.Is(err, os.ErrNotExist)
}

// JoinLoops marks this process as one that runs st's scheduler and
// worker. A bolt store needs nothing: its file lock, held from Open, makes
// it the only one. On a database every process serving an orchestrator is
// active, and each marks itself live (see postgres.Store.Join).
func JoinLoops(ctx context.Context, st store.Store) error {
	pg, ok := st.(*postgres.Store)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	return pg.Join(ctx)
}

// RefuseServed fails when a process serves st's orchestrator on a
// database (a bolt file is already held by its server).
func RefuseServed(ctx context.Context, st store.Store, id string) error {
	pg, ok := st.(*postgres.Store)
	if !ok {
		return nil
	}
	n, err := pg.Served(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%d schedbot process(es) serve orchestrator %s on the database", n, id)
	}
	return nil
}
