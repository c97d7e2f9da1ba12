package postgres

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

// What conversations remember between messages: one small row each,
// written at once.

func (t *tx) ConversationGet(key string) (*store.Conversation, error) {
	var body []byte
	err := t.tx.QueryRow(t.ctx, `SELECT body FROM schedbot_conversations WHERE orchestrator_id = $1 AND key = $2`, t.s.orch, bs(key)).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("conversation", key)
	} else if err != nil {
		return nil, fmt.Errorf("get conversation %s: %w", key, err)
	}
	return decode[store.Conversation]("conversation", key, body)
}

func (t *tx) ConversationPut(c *store.Conversation) error {
	if err := t.writable("put conversation"); err != nil {
		return err
	}
	if c.Key == "" {
		return errors.New("put conversation: empty key")
	}
	body, err := encode(c)
	if err != nil {
		return fmt.Errorf("encode conversation %s: %w", c.Key, err)
	}
	_, err = t.exec(`INSERT INTO schedbot_conversations (orchestrator_id, key, updated_ns, body) VALUES ($1, $2, $3, $4)
		ON CONFLICT (orchestrator_id, key) DO UPDATE SET updated_ns = EXCLUDED.updated_ns, body = EXCLUDED.body`,
		t.s.orch, bs(c.Key), c.UpdatedAt.UnixNano(), body)
	if err != nil {
		return fmt.Errorf("put conversation %s: %w", c.Key, err)
	}
	return nil
}

func (t *tx) ConversationDelete(key string) error {
	if err := t.writable("delete conversation"); err != nil {
		return err
	}
	// Under read committed, a delete racing another's waits for it to
	// commit, then finds the row gone.
	tag, err := t.exec(`DELETE FROM schedbot_conversations WHERE orchestrator_id = $1 AND key = $2`, t.s.orch, bs(key))
	if err != nil {
		return fmt.Errorf("delete conversation %s: %w", key, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("conversation", key)
	}
	return nil
}

func (t *tx) ConversationPrune(before time.Time, limit int) (int, error) {
	if err := t.writable("prune conversations"); err != nil {
		return 0, err
	}
	if limit <= 0 {
		return 0, nil
	}
	tag, err := t.exec(`DELETE FROM schedbot_conversations WHERE orchestrator_id = $1 AND key IN (
		SELECT key FROM schedbot_conversations WHERE orchestrator_id = $1 AND updated_ns < $2 ORDER BY updated_ns, key LIMIT $3)`,
		t.s.orch, before.UnixNano(), limit)
	if err != nil {
		return 0, fmt.Errorf("prune conversations: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
