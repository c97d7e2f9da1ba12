package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/schedbot/schedbot/store"
)

// An audit event is stored under its seq (8 bytes, big-endian) as its hash
// (32 bytes) and then its body, the JSON the hash covers.

func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

func (t *tx) auditHead() (uint64, []byte) {
	if !t.headRead {
		t.headRead = true
		if h := t.bucket(bucketMeta).Get(keyAuditHead); len(h) == 8+32 {
			t.headSeq, t.headHash = binary.BigEndian.Uint64(h[:8]), slices.Clone(h[8:])
		}
	}
	return t.headSeq, t.headHash
}

// flush writes the audit head; run calls it before commit.
func (t *tx) flush() error {
	if !t.headDirty {
		return nil
	}
	return t.bucket(bucketMeta).Put(keyAuditHead, append(seqKey(t.headSeq), t.headHash...))
}

// AuditAppend numbers, chains and writes ev at once.
func (t *tx) AuditAppend(ev *store.AuditEvent) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	seq, prev := t.auditHead()
	c := *ev
	c.Seq, c.PrevHash, c.Hash = seq+1, hex.EncodeToString(prev), ""
	if c.At.IsZero() {
		c.At = time.Now().UTC()
	}
	body, err := encode(&c)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	hash := store.AuditHash(prev, body)
	if err := t.bucket(bucketAudit).Put(seqKey(c.Seq), append(hash, body...)); err != nil {
		return err
	}
	ev.Seq, ev.At, ev.PrevHash, ev.Hash = c.Seq, c.At, c.PrevHash, hex.EncodeToString(hash)
	t.headSeq, t.headHash, t.headDirty = c.Seq, hash, true
	return nil
}

// auditEntry splits a stored event into its seq, hash and body. A malformed
// one is a *store.ChainError.
func auditEntry(k, v []byte) (seq uint64, hash, body []byte, err error) {
	if len(k) != 8 {
		return 0, nil, nil, &store.ChainError{Reason: "malformed key " + hex.EncodeToString(k)}
	}
	seq = binary.BigEndian.Uint64(k)
	if len(v) <= 32 {
		return seq, nil, nil, &store.ChainError{Seq: seq, Reason: "record is truncated"}
	}
	return seq, v[:32], v[32:], nil
}

func decodeAudit(k, v []byte) (*store.AuditEvent, error) {
	seq, hash, body, err := auditEntry(k, v)
	if ce, ok := err.(*store.ChainError); ok {
		return nil, fmt.Errorf("audit record %d: %w: %s", ce.Seq, store.ErrCorrupt, ce.Reason)
	}
	ev, err := decode[store.AuditEvent]("audit record", []byte(fmt.Sprint(seq)), body)
	if err != nil {
		return nil, err
	}
	ev.Hash = hex.EncodeToString(hash)
	return ev, nil
}

func (t *tx) AuditList(p *store.AuditListParams) (out []*store.AuditEvent, err error) {
	defer guard(&err)
	if p == nil {
		p = &store.AuditListParams{}
	}
	match := func(ev *store.AuditEvent) bool {
		return (p.JobID == "" || ev.JobID == p.JobID) &&
			(p.Actor == "" || ev.Actor.SenderID == p.Actor || ev.Actor.Sender == p.Actor) &&
			(p.Since.IsZero() || !ev.At.Before(p.Since))
	}
	c := t.bucket(bucketAudit).Cursor()
	out = []*store.AuditEvent{}
	if !p.Since.IsZero() && p.AfterSeq == 0 {
		// Recent events are at the end: walk back until well before Since
		// (an hour's slack for clock steps) instead of reading the whole log.
		stop := p.Since.Add(-time.Hour)
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			ev, err := decodeAudit(k, v)
			if err != nil {
				return nil, err
			}
			if ev.At.Before(stop) {
				break
			}
			if match(ev) {
				out = append(out, ev)
			}
		}
		slices.Reverse(out)
		if p.Limit > 0 && len(out) > p.Limit {
			out = out[:p.Limit]
		}
		return out, nil
	}
	for k, v := c.Seek(seqKey(p.AfterSeq + 1)); k != nil; k, v = c.Next() {
		ev, err := decodeAudit(k, v)
		if err != nil {
			return nil, err
		}
		if match(ev) {
			out = append(out, ev)
			if p.Limit > 0 && len(out) == p.Limit {
				break
			}
		}
	}
	return out, nil
}

func (t *tx) AuditVerify() (n int, err error) {
	defer guard(&err)
	var prev []byte
	var want uint64 = 1
	c := t.bucket(bucketAudit).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		seq, hash, body, err := auditEntry(k, v)
		if ce, ok := err.(*store.ChainError); ok && ce.Seq == 0 {
			ce.Seq = want
		}
		if err != nil {
			return n, err
		}
		if seq != want {
			return n, &store.ChainError{Seq: want, Reason: fmt.Sprintf("missing (the next record is %d)", seq)}
		}
		if s, ok := bodySeq(body); ok && s != seq {
			return n, &store.ChainError{Seq: seq, Reason: fmt.Sprintf("names seq %d (edited)", s)}
		}
		if !bytes.Equal(store.AuditHash(prev, body), hash) {
			return n, &store.ChainError{Seq: seq, Reason: "hash does not match its contents and the previous record (edited)"}
		}
		prev = hash
		want++
		n++
	}
	headSeq, headHash := t.auditHead()
	if headSeq != want-1 {
		return n, &store.ChainError{Seq: want, Reason: fmt.Sprintf("missing: the log ends at %d but %d were written", want-1, headSeq)}
	}
	if !bytes.Equal(headHash, prev) {
		return n, &store.ChainError{Seq: headSeq, Reason: "does not match the recorded head of the chain"}
	}
	return n, nil
}

// bodySeq reads the seq an encoded event names (its first member).
func bodySeq(body []byte) (uint64, bool) {
	const prefix = `{"seq":`
	if !bytes.HasPrefix(body, []byte(prefix)) {
		return 0, false
	}
	var n uint64
	digits := 0
	for _, c := range body[len(prefix):] {
		if c < '0' || c > '9' || digits == 19 {
			break
		}
		n, digits = n*10+uint64(c-'0'), digits+1
	}
	return n, digits > 0
}
