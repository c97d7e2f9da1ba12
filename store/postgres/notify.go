package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is the LISTEN/NOTIFY channel every schedbot process on a
// database shares. A payload is "orchestrator owner kinds", kinds being
// "j" (jobs changed) and "q" (queue items ready); Postgres delivers it at
// commit, and only then.
const notifyChannel = "schedbot"

// notify tells the other processes what this transaction changed.
func (t *tx) notify() error {
	if !t.jobsChanged && !t.itemsAdded {
		return nil
	}
	kinds := ""
	if t.jobsChanged {
		kinds += "j"
	}
	if t.itemsAdded {
		kinds += "q"
	}
	if _, err := t.exec(`SELECT pg_notify($1, $2)`, notifyChannel, t.s.orch+" "+t.s.owner+" "+kinds); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// Wake says what another process changed.
type Wake struct {
	Jobs  bool // jobs changed: the scheduler should look again
	Queue bool // queue items are ready: the worker should look again
}

// Stats are this store's counters since Open (claims count in
// transactions that may later have rolled back).
type Stats struct {
	DueClaimed   int64 // due jobs this store locked for dispatch
	ItemsClaimed int64 // queue items this store claimed
	LeasesTaken  int64 // of those, processing items whose lease had run out
	Wakeups      int64 // notifications from other processes acted on
}

type counters struct{ due, items, expired, wakeups atomic.Int64 }

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{DueClaimed: s.count.due.Load(), ItemsClaimed: s.count.items.Load(), LeasesTaken: s.count.expired.Load(),
		Wakeups: s.count.wakeups.Load()}
}

// Listen calls fn for each change another process commits to this
// orchestrator, until ctx is done. It holds a connection of its own; when
// that breaks it reconnects (waiting up to 30 s between tries) and calls fn
// with both kinds, since what happened meanwhile is unknown. fn must not
// block.
func (s *Store) Listen(ctx context.Context, fn func(Wake)) error {
	wait := time.Second
	for {
		err := s.listen(ctx, fn)
		if ctx.Err() != nil {
			return nil
		}
		_ = err // the connection broke; try again, then assume we missed something
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
		fn(Wake{Jobs: true, Queue: true})
	}
}

func (s *Store) listen(ctx context.Context, fn func(Wake)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	if s.listening != nil {
		s.listening()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		f := strings.Fields(n.Payload)
		if len(f) != 3 || f[0] != s.orch || f[1] == s.owner {
			continue // another orchestrator's, or our own
		}
		s.count.wakeups.Add(1)
		fn(Wake{Jobs: strings.Contains(f[2], "j"), Queue: strings.Contains(f[2], "q")})
	}
}
