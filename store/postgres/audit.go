package postgres

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

// pendingEvent is an appended event not yet written: the events of a
// transaction are chained and copied in at once, before a read of the log
// and before commit.
type pendingEvent struct {
	ev     store.AuditEvent  // the stored copy
	caller *store.AuditEvent // gets PrevHash and Hash when chained
}

// head reads the chain head once per transaction and locks its row until
// commit: concurrent writers of one orchestrator append one after another,
// so its chain stays one chain. Other orchestrators' heads are other rows.
// It is taken when the events are written (at commit, or before a read of
// the log), after the transaction's other rows: the head is the last lock
// a writer waits for, so it closes no deadlock, and is held briefly.
func (t *tx) head() error {
	if t.headRead {
		return nil
	}
	if _, err := t.exec(`INSERT INTO schedbot_audit_head (orchestrator_id, seq, hash) VALUES ($1, 0, '') ON CONFLICT DO NOTHING`, t.s.orch); err != nil {
		return fmt.Errorf("audit head: %w", err)
	}
	var seq int64
	if err := t.tx.QueryRow(t.ctx, `SELECT seq, hash FROM schedbot_audit_head WHERE orchestrator_id = $1 FOR UPDATE`, t.s.orch).Scan(&seq, &t.headHash); err != nil {
		return fmt.Errorf("audit head: %w", err)
	}
	t.headSeq, t.headRead = uint64(seq), true
	return nil
}

func (t *tx) AuditAppend(ev *store.AuditEvent) error {
	if err := t.writable("append audit event"); err != nil {
		return err
	}
	if ev.At.IsZero() {
		ev.At = time.Now().UTC()
	}
	c := *ev
	c.Before, c.After = slices.Clone(ev.Before), slices.Clone(ev.After)
	t.pending = append(t.pending, &pendingEvent{ev: c, caller: ev})
	return nil
}

// flushAudit chains the pending events onto the head, copies them in and
// moves the head.
func (t *tx) flushAudit() error {
	if len(t.pending) == 0 {
		return nil
	}
	if err := t.head(); err != nil {
		return err
	}
	rows := make([][]any, 0, len(t.pending))
	prev := t.headHash
	for _, p := range t.pending {
		t.headSeq++
		p.ev.Seq = t.headSeq
		p.ev.PrevHash, p.ev.Hash, p.ev.MAC = hex.EncodeToString(prev), "", ""
		body, err := encode(&p.ev)
		if err != nil {
			return fmt.Errorf("encode audit event %d: %w", p.ev.Seq, err)
		}
		if t.s.auditKey != nil {
			body, p.ev.MAC = store.AuditSeal(t.s.auditKey, prev, body)
		}
		hash := store.AuditHash(prev, body)
		p.ev.Hash = hex.EncodeToString(hash)
		rows = append(rows, []any{t.s.orch, int64(p.ev.Seq), p.ev.At.UnixNano(), bs(p.ev.JobID), bs(p.ev.Actor.SenderID), bs(p.ev.Actor.Sender), body, hash})
		prev = hash
	}
	_, err := t.tx.CopyFrom(t.ctx, pgx.Identifier{"schedbot_audit"},
		[]string{"orchestrator_id", "seq", "at_ns", "job_id", "sender_id", "sender", "body", "hash"}, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("write audit events: %w", err)
	}
	last := t.pending[len(t.pending)-1].ev.Seq
	if _, err := t.exec(`UPDATE schedbot_audit_head SET seq = $2, hash = $3 WHERE orchestrator_id = $1`, t.s.orch, int64(last), prev); err != nil {
		return fmt.Errorf("move audit head: %w", err)
	}
	t.headHash = prev
	t.chained = append(t.chained, t.pending...)
	t.pending = nil
	return nil
}

// done tells the callers' events their hashes once the transaction has
// committed.
func (t *tx) done() {
	for _, p := range t.chained {
		p.caller.Seq, p.caller.PrevHash, p.caller.Hash, p.caller.MAC = p.ev.Seq, p.ev.PrevHash, p.ev.Hash, p.ev.MAC
	}
	t.commitClaims()
}

func (t *tx) AuditList(p *store.AuditListParams) ([]*store.AuditEvent, error) {
	if p == nil {
		p = &store.AuditListParams{}
	}
	if t.write {
		if err := t.flushAudit(); err != nil {
			return nil, err
		}
	}
	limit := any(nil) // LIMIT NULL is no limit
	if p.Limit > 0 {
		limit = p.Limit
	}
	rows, err := t.tx.Query(t.ctx, `SELECT seq, hash, body FROM schedbot_audit WHERE orchestrator_id = $1
		AND (length($2::bytea) = 0 OR job_id = $2) AND (length($3::bytea) = 0 OR sender_id = $3 OR sender = $3)
		AND ($4::bigint IS NULL OR at_ns >= $4) AND seq > $5
		ORDER BY seq LIMIT $6`,
		t.s.orch, bs(p.JobID), bs(p.Actor), nullSince(p.Since), int64(p.AfterSeq), limit)
	if err != nil {
		return nil, fmt.Errorf("list audit events: %w", err)
	}
	out := []*store.AuditEvent{}
	var seq int64
	var hash, body []byte
	_, err = pgx.ForEachRow(rows, []any{&seq, &hash, &body}, func() error {
		ev, err := decode[store.AuditEvent]("audit record", fmt.Sprint(seq), body)
		if err != nil {
			return err
		}
		ev.Hash = hex.EncodeToString(hash)
		out = append(out, ev)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list audit events: %w", err)
	}
	return out, nil
}

// nullSince is the lower bound on at_ns: NULL (the zero time) matches everything.
func nullSince(t time.Time) *int64 { return nsOrNil(t) }

func (t *tx) AuditVerify() (int, error) {
	if t.write {
		if err := t.flushAudit(); err != nil {
			return 0, err
		}
	}
	rows, err := t.tx.Query(t.ctx, `SELECT seq, hash, body FROM schedbot_audit WHERE orchestrator_id = $1 ORDER BY seq`, t.s.orch)
	if err != nil {
		return 0, fmt.Errorf("verify audit log: %w", err)
	}
	v := store.ChainVerifier{Key: t.s.auditKey}
	var seq int64
	var hash, body []byte
	_, err = pgx.ForEachRow(rows, []any{&seq, &hash, &body}, func() error {
		return v.Next(uint64(seq), hash, body)
	})
	var ce *store.ChainError
	if errors.As(err, &ce) {
		return v.Checked(), ce
	} else if err != nil {
		return v.Checked(), fmt.Errorf("verify audit log: %w", err)
	}
	var headSeq int64
	var headHash []byte
	err = t.tx.QueryRow(t.ctx, `SELECT seq, hash FROM schedbot_audit_head WHERE orchestrator_id = $1`, t.s.orch).Scan(&headSeq, &headHash)
	if errors.Is(err, pgx.ErrNoRows) {
		headSeq, headHash = 0, nil
	} else if err != nil {
		return v.Checked(), fmt.Errorf("verify audit log: %w", err)
	}
	return v.End(uint64(headSeq), headHash)
}

// AuditPrune deletes the records up to through, at most the head: the
// caller appends the checkpoint (store.AuditPruned) after them.
func (t *tx) AuditPrune(through uint64) (int, error) {
	if err := t.writable("prune audit log"); err != nil {
		return 0, err
	}
	if err := t.flushAudit(); err != nil {
		return 0, err
	}
	if err := t.head(); err != nil {
		return 0, err
	}
	if through > t.headSeq {
		return 0, fmt.Errorf("prune audit log through %d: the log ends at %d", through, t.headSeq)
	}
	tag, err := t.exec(`DELETE FROM schedbot_audit WHERE orchestrator_id = $1 AND seq <= $2`, t.s.orch, int64(through))
	if err != nil {
		return 0, fmt.Errorf("prune audit log: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

func (t *tx) AuditHead() (uint64, string, error) {
	if t.write {
		if err := t.flushAudit(); err != nil {
			return 0, "", err
		}
		if err := t.head(); err != nil {
			return 0, "", err
		}
		return t.headSeq, hex.EncodeToString(t.headHash), nil
	}
	var seq int64
	var hash []byte
	err := t.tx.QueryRow(t.ctx, `SELECT seq, hash FROM schedbot_audit_head WHERE orchestrator_id = $1`, t.s.orch).Scan(&seq, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	} else if err != nil {
		return 0, "", fmt.Errorf("audit head: %w", err)
	}
	return uint64(seq), hex.EncodeToString(hash), nil
}
