package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

// HTTP API tokens: one small row each, by the token's hash.

func (t *tx) TokenGet(hash string) (*store.Token, error) {
	var body []byte
	err := t.tx.QueryRow(t.ctx, `SELECT body FROM schedbot_tokens WHERE orchestrator_id = $1 AND hash = $2`, t.s.orch, bs(hash)).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("token", hash)
	} else if err != nil {
		return nil, fmt.Errorf("get token: %w", err)
	}
	return decode[store.Token]("token", hash, body)
}

func (t *tx) TokenPut(tok *store.Token) error {
	if err := t.writable("put token"); err != nil {
		return err
	}
	if tok.Hash == "" {
		return errors.New("put token: empty hash")
	}
	body, err := encode(tok)
	if err != nil {
		return fmt.Errorf("encode token %s: %w", tok.ID, err)
	}
	_, err = t.exec(`INSERT INTO schedbot_tokens (orchestrator_id, hash, id, body) VALUES ($1, $2, $3, $4)
		ON CONFLICT (orchestrator_id, hash) DO UPDATE SET id = EXCLUDED.id, body = EXCLUDED.body`,
		t.s.orch, bs(tok.Hash), tok.ID, body)
	if err != nil {
		return fmt.Errorf("put token %s: %w", tok.ID, err)
	}
	return nil
}

func (t *tx) TokenList() ([]*store.Token, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT hash, body FROM schedbot_tokens WHERE orchestrator_id = $1 ORDER BY id`, t.s.orch)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var out []*store.Token
	for rows.Next() {
		var hash, body []byte
		if err := rows.Scan(&hash, &body); err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		tok, err := decode[store.Token]("token", string(hash), body)
		if err != nil {
			return nil, err
		}
		out = append(out, tok)
	}
	return out, rows.Err()
}
