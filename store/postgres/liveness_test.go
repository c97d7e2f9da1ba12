package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestWatchSaysWhenAProcessIsGoneAndWhenItsOwnConnectionIs: Watch calls
// gone when a process of the orchestrator ends (its claims are free), and
// fails when the connection that marks its own process live is cut.
func TestWatchSaysWhenAProcessIsGoneAndWhenItsOwnConnectionIs(t *testing.T) {
	defer postgres.SetWatchEvery(20 * time.Millisecond)()
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	for _, s := range []*postgres.Store{a, b} {
		if err := s.Join(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	gone := make(chan struct{}, 10)
	looked := make(chan struct{}, 1)
	postgres.OnWatchLook(b, func() {
		select {
		case looked <- struct{}{}:
		default: // the test reads the first few only
		}
	})
	done := make(chan error, 1)
	go func() { done <- b.Watch(context.Background(), func() { gone <- struct{}{} }) }()
	for range 3 { // a few looks with both alive
		select {
		case <-looked:
		case <-time.After(10 * time.Second):
			t.Fatal("Watch does not look")
		}
	}
	select {
	case <-gone:
		t.Fatal("gone called while every process lives")
	default:
	}
	a.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("gone not called after a process ended")
	}
	// Cut b's own session: Watch must fail, as b is no longer live.
	conn := mustConnect(t, dsn)
	if _, err := conn.Exec(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted`); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "lost the connection") {
			t.Errorf("Watch after its connection was cut = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch went on after its connection was cut")
	}
}

// TestListenWakesOnOtherProcessesChanges: a store listening hears the jobs
// and queue items another process commits for its orchestrator, and not
// its own changes, another orchestrator's, or a rolled-back transaction's.
func TestListenWakesOnOtherProcessesChanges(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b, other := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "sales")
	wakes := make(chan postgres.Wake, 10)
	ready := make(chan struct{}, 1)
	postgres.OnListening(a, func() { ready <- struct{}{} })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- a.Listen(ctx, func(w postgres.Wake) { wakes <- w }) }()
	defer func() { cancel(); <-done }()
	next := func(what string) postgres.Wake {
		t.Helper()
		select {
		case w := <-wakes:
			return w
		case <-time.After(10 * time.Second):
			t.Fatalf("no wake-up for %s", what)
			return postgres.Wake{}
		}
	}
	<-ready
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("MINE", t0)) })
	mustUpdate(t, other, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("THEIRS", t0)) })
	_ = b.Update(t.Context(), func(tx store.Tx) error {
		tx.JobPut(storetest.NewJob("ROLLEDBACK", t0))
		return errors.New("no")
	})
	mustUpdate(t, b, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops"})
	})
	if w := next("b's queue item"); w != (postgres.Wake{Queue: true}) {
		t.Errorf("first wake-up after the others = %+v, want b's queue item alone", w)
	}
	mustUpdate(t, b, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("B", t0)) })
	if w := next("b's job"); w != (postgres.Wake{Jobs: true}) {
		t.Errorf("wake-up = %+v, want jobs", w)
	}
	if a.Stats().Wakeups < 2 {
		t.Errorf("Stats().Wakeups = %d", a.Stats().Wakeups)
	}
}
