package postgres

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/schedbot/schedbot/store"
)

// currentKey is this process's instance key, 0 before it joined.
func (s *Store) currentKey() int32 { return s.key.Load() }

// abandoned is the condition of a processing item (or lane) nobody live
// holds: its lease ran out at $now, or its claimer's key is no longer
// held. A row with no key waits for its lease.
func abandoned(now, orchKey int) string {
	return fmt.Sprintf(`(lease_until < $%d OR lease_key NOT IN %s)`, now, liveKeys(orchKey))
}

// fenced is the condition under which this process may rewrite a queue
// row. An item it claimed (claim, the expression of the claim's stamp,
// not NULL) must still be in processing under that very claim: not taken
// over since, whatever the new holder did with it. Any other row must not
// be a processing item another live process holds. $key is this
// process's key, $orchKey the orchestrator's; alias is the row's table
// alias with its dot, or "".
func fenced(alias, claim string, key, orchKey int) string {
	return fmt.Sprintf(`(CASE WHEN %[4]s::bigint IS NULL THEN
		%[1]squeue <> 'processing' OR %[1]slease_key IS NULL OR %[1]slease_key = $%[2]d OR %[1]slease_until < now() OR %[1]slease_key NOT IN %[3]s
		ELSE %[1]squeue = 'processing' AND %[1]slease_key = $%[2]d AND %[1]supdated_ns = %[4]s END)`,
		alias, key, liveKeys(orchKey), claim)
}

// claim notes this transaction's claim on item id, stamped stamp (its
// updated_ns).
func (t *tx) claim(id string, stamp int64) {
	if t.claimed == nil {
		t.claimed = map[string]int64{}
	}
	t.claimed[id] = stamp
}

// claimOf is the stamp of this process's claim on item id, nil when it
// holds none.
func (t *tx) claimOf(id string) *int64 {
	if v, ok := t.claimed[id]; ok {
		if v == 0 {
			return nil
		}
		return &v
	}
	t.s.claimMu.Lock()
	defer t.s.claimMu.Unlock()
	if v, ok := t.s.claims[id]; ok {
		return &v
	}
	return nil
}

// wroteItem notes that a claimed item was rewritten: still in processing
// under a new stamp, or out of it (the claim ends).
func (t *tx) wroteItem(id string, p *pendingItem) {
	if t.claimOf(id) == nil {
		return
	}
	if p.queue == string(store.QueueProcessing) {
		t.claim(id, p.updated)
	} else {
		t.claim(id, 0)
	}
}

// commitClaims makes the committed transaction's claims the store's.
func (t *tx) commitClaims() {
	if len(t.claimed) == 0 {
		return
	}
	t.s.claimMu.Lock()
	defer t.s.claimMu.Unlock()
	if t.s.claims == nil {
		t.s.claims = map[string]int64{}
	}
	for id, v := range t.claimed {
		if v == 0 {
			delete(t.s.claims, id)
		} else {
			t.s.claims[id] = v
		}
	}
}

// whyNotWritten explains the queue rows ids an update did not reach:
// claimed by another live process since (ErrLeaseLost), or gone
// (ErrNotFound).
func (t *tx) whyNotWritten(ids []string) error {
	for _, id := range ids {
		if t.claimOf(id) != nil {
			// A claimed item is not deleted while in processing: it was
			// taken over.
			return fmt.Errorf("queue item %s: %w", id, store.ErrLeaseLost)
		}
	}
	var held []byte
	err := t.tx.QueryRow(t.ctx, `SELECT item_id FROM schedbot_queue WHERE orchestrator_id = $1 AND item_id = ANY($2)
		AND NOT `+fenced("", "NULL", 3, 4)+` LIMIT 1`, t.s.orch, bss(ids), t.s.currentKey(), int64(orchKey(t.s.orch))).Scan(&held)
	switch {
	case err == nil:
		return fmt.Errorf("queue item %s: %w", held, store.ErrLeaseLost)
	case err != pgx.ErrNoRows:
		return fmt.Errorf("put queue items: %w", err)
	case len(ids) == 1:
		return notFound("queue item", ids[0])
	}
	return fmt.Errorf("%w: some of %d queue items written in this transaction are gone", store.ErrNotFound, len(ids))
}

func (t *tx) QueueNextAt(q store.QueueName, now time.Time) (time.Time, bool, error) {
	if !q.Valid() {
		return time.Time{}, false, fmt.Errorf("next in queue: unknown queue %q", q)
	}
	if err := t.flush(); err != nil {
		return time.Time{}, false, err
	}
	var next *int64
	if err := t.tx.QueryRow(t.ctx, `SELECT min(not_before_ns) FROM schedbot_queue WHERE orchestrator_id = $1 AND queue = $2 AND not_before_ns > $3`,
		t.s.orch, string(q), now.UnixNano()).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("next in queue: %w", err)
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return fromNS(*next), true, nil
}

func (t *tx) QueueRecover(now, notBefore time.Time) (int, error) {
	if err := t.writable("recover queue items"); err != nil {
		return 0, err
	}
	if err := t.flush(); err != nil {
		return 0, err
	}
	rows, err := t.tx.Query(t.ctx, `SELECT `+itemCols+` FROM schedbot_queue WHERE orchestrator_id = $1 AND queue = 'processing'
		AND (lease_key = $2 OR `+abandoned(3, 4)+`) ORDER BY item_id FOR UPDATE SKIP LOCKED`,
		t.s.orch, t.s.currentKey(), now.UTC(), int64(orchKey(t.s.orch)))
	if err != nil {
		return 0, fmt.Errorf("recover queue items: %w", err)
	}
	items, err := t.collectItems(rows)
	if err != nil {
		return 0, fmt.Errorf("recover queue items: %w", err)
	}
	for _, it := range items {
		it.Queue, it.UpdatedAt = store.QueueIncoming, now
		if !notBefore.IsZero() {
			it.NotBefore = notBefore
		}
		// Locked just now as nobody's: a claim this process remembers
		// on it is over (lost to a process since gone, or its own from
		// before), and must not fence the rewrite out.
		t.claim(it.ItemID, 0)
		if err := t.QueuePut(it); err != nil {
			return 0, err
		}
	}
	return len(items), nil
}

func (t *tx) LaneTake(key string, now, until time.Time) (bool, time.Time, error) {
	if err := t.writable("take lane"); err != nil {
		return false, time.Time{}, err
	}
	if key == "" {
		return false, time.Time{}, fmt.Errorf("take lane: empty key")
	}
	me, err := t.s.instanceKey(t.ctx)
	if err != nil {
		return false, time.Time{}, err
	}
	// Neither statement waits for another transaction's lane row: one
	// locked now is being taken or released by another process, so it is
	// passed over like a held one (a wait could close a deadlock with the
	// transaction that records a lane's outcomes and lets it go).
	var last int64
	err = t.tx.QueryRow(t.ctx, `UPDATE schedbot_lanes l SET owner_key = $3, lease_until_ns = $4
		FROM (SELECT lane FROM schedbot_lanes WHERE orchestrator_id = $1 AND lane = $2
			AND (owner_key IS NULL OR owner_key = $3 OR lease_until_ns < $5 OR owner_key NOT IN `+liveKeys(6)+`)
			FOR UPDATE SKIP LOCKED) c
		WHERE l.orchestrator_id = $1 AND l.lane = c.lane
		RETURNING l.last_ns`, t.s.orch, bs(key), me, until.UnixNano(), now.UnixNano(), int64(orchKey(t.s.orch))).Scan(&last)
	if err == pgx.ErrNoRows {
		// Held, busy, or new. Only a lane with no row yet is inserted (an
		// insert would wait for a transaction that has the row locked).
		var exists bool
		if err = t.tx.QueryRow(t.ctx, `SELECT EXISTS (SELECT 1 FROM schedbot_lanes WHERE orchestrator_id = $1 AND lane = $2)`,
			t.s.orch, bs(key)).Scan(&exists); err == nil && exists {
			return false, time.Time{}, nil // another live process delivers on it
		}
		var tag pgconn.CommandTag
		if err == nil {
			tag, err = t.exec(`INSERT INTO schedbot_lanes (orchestrator_id, lane, owner_key, lease_until_ns) VALUES ($1, $2, $3, $4)
				ON CONFLICT DO NOTHING`, t.s.orch, bs(key), me, until.UnixNano())
		}
		if err == nil && tag.RowsAffected() == 0 {
			return false, time.Time{}, nil // made by another process just now
		}
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("take lane: %w", err)
	}
	if last == 0 {
		return true, time.Time{}, nil
	}
	return true, fromNS(last), nil
}

func (t *tx) LaneKeep(key string, until time.Time) (bool, error) {
	if err := t.writable("keep lane"); err != nil {
		return false, err
	}
	// Waits for a transaction that has the row locked (unlike LaneTake):
	// the answer must be the truth, not "busy".
	tag, err := t.exec(`UPDATE schedbot_lanes SET lease_until_ns = $4 WHERE orchestrator_id = $1 AND lane = $2 AND owner_key = $3`,
		t.s.orch, bs(key), t.s.currentKey(), until.UnixNano())
	if err != nil {
		return false, fmt.Errorf("keep lane: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t *tx) LaneRelease(key string, last time.Time) error {
	if err := t.writable("release lane"); err != nil {
		return err
	}
	var ns int64
	if !last.IsZero() {
		ns = last.UnixNano()
	}
	_, err := t.exec(`UPDATE schedbot_lanes SET owner_key = NULL, lease_until_ns = NULL, last_ns = greatest(last_ns, $4)
		WHERE orchestrator_id = $1 AND lane = $2 AND owner_key = $3`, t.s.orch, bs(key), t.s.currentKey(), ns)
	if err != nil {
		return fmt.Errorf("release lane: %w", err)
	}
	return nil
}
