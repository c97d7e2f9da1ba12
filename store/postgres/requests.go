package postgres

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

// Idempotent calls' results: few and small, so written at once.

func (t *tx) RequestGet(key string) (*store.Request, error) {
	var body []byte
	err := t.tx.QueryRow(t.ctx, `SELECT body FROM schedbot_requests WHERE orchestrator_id = $1 AND key = $2`, t.s.orch, bs(key)).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("request", key)
	} else if err != nil {
		return nil, fmt.Errorf("get request %s: %w", key, err)
	}
	return decode[store.Request]("request", key, body)
}

func (t *tx) RequestPut(r *store.Request) error {
	if err := t.writable("put request"); err != nil {
		return err
	}
	if r.Key == "" {
		return errors.New("put request: empty key")
	}
	body, err := encode(r)
	if err != nil {
		return fmt.Errorf("encode request %s: %w", r.Key, err)
	}
	tag, err := t.exec(`INSERT INTO schedbot_requests (orchestrator_id, key, created_ns, body) VALUES ($1, $2, $3, $4)
		ON CONFLICT (orchestrator_id, key) DO NOTHING`, t.s.orch, bs(r.Key), r.CreatedAt.UnixNano(), body)
	if err != nil {
		return fmt.Errorf("put request %s: %w", r.Key, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("request %s: %w", r.Key, store.ErrExists)
	}
	return nil
}

func (t *tx) RequestPrune(before time.Time, limit int) (int, error) {
	if err := t.writable("prune requests"); err != nil {
		return 0, err
	}
	if limit <= 0 {
		return 0, nil
	}
	tag, err := t.exec(`DELETE FROM schedbot_requests WHERE orchestrator_id = $1 AND key IN (
		SELECT key FROM schedbot_requests WHERE orchestrator_id = $1 AND created_ns < $2 ORDER BY created_ns, key LIMIT $3)`,
		t.s.orch, before.UnixNano(), limit)
	if err != nil {
		return 0, fmt.Errorf("prune requests: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
