package bolt

import (
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

// AuditAppend numbers, chains and writes ev. In JobsDue's callback the
// chaining is behind (behind.go): ev has its seq and time at once, its
// hashes when JobsDue returns.
func (t *tx) AuditAppend(ev *store.AuditEvent) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	seq, prev := t.auditHead()
	c := *ev
	c.Seq = seq + 1
	if c.At.IsZero() {
		c.At = time.Now().UTC()
	}
	if t.auditBehind(ev, &c) {
		return nil
	}
	if t.headHex == "" && len(prev) > 0 {
		t.headHex = hex.EncodeToString(prev)
	}
	v, hash, err := sealEvent(&c, prev, t.headHex, t.s.auditKey)
	if err != nil {
		return err
	}
	if err := t.bucket(bucketAudit).Put(seqKey(c.Seq), v); err != nil {
		return err
	}
	ev.Seq, ev.At, ev.PrevHash, ev.Hash, ev.MAC = c.Seq, c.At, c.PrevHash, c.Hash, c.MAC
	t.headSeq, t.headHash, t.headHex, t.headDirty = c.Seq, hash, c.Hash, true
	return nil
}

// sealEvent chains c (its seq and time set) after the event whose hash
// is prev (prevHex in hex; both empty for the first): it sets c's
// prevHash, hash and MAC (with key), and returns the stored value (the
// hash, then the body, in one allocation) and the hash, v[:32].
func sealEvent(c *store.AuditEvent, prev []byte, prevHex string, key []byte) (v, hash []byte, err error) {
	c.PrevHash, c.Hash, c.MAC = prevHex, "", ""
	body, err := encode(c)
	if err != nil {
		return nil, nil, fmt.Errorf("encode audit event: %w", err)
	}
	if key != nil {
		body, c.MAC = store.AuditSeal(key, prev, body)
	}
	v = make([]byte, 32+len(body))
	copy(v[32:], body)
	hash = store.AppendAuditHash(v[:0], prev, body)
	var hx [64]byte
	c.Hash = string(hex.AppendEncode(hx[:0], hash))
	return v, hash, nil
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
	v := store.ChainVerifier{Key: t.s.auditKey}
	var want uint64 = 1
	c := t.bucket(bucketAudit).Cursor()
	for k, val := c.First(); k != nil; k, val = c.Next() {
		seq, hash, body, err := auditEntry(k, val)
		if ce, ok := err.(*store.ChainError); ok && ce.Seq == 0 {
			ce.Seq = want
		}
		if err == nil {
			err = v.Next(seq, hash, body)
		}
		if err != nil {
			return v.Checked(), err
		}
		want = seq + 1
	}
	headSeq, headHash := t.auditHead()
	return v.End(headSeq, headHash)
}

// AuditPrune deletes the records up to through, at most the head: the
// caller appends the checkpoint (store.AuditPruned) after them.
func (t *tx) AuditPrune(through uint64) (n int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	if head, _ := t.auditHead(); through > head {
		return 0, fmt.Errorf("prune audit log through %d: the log ends at %d", through, head)
	}
	b := t.bucket(bucketAudit)
	var keys [][]byte // a cursor that deletes as it goes skips keys
	c := b.Cursor()
	for k, _ := c.First(); len(k) == 8 && binary.BigEndian.Uint64(k) <= through; k, _ = c.Next() {
		keys = append(keys, slices.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func (t *tx) AuditHead() (seq uint64, hash string, err error) {
	defer guard(&err)
	if t.behind != nil && t.behind.chained {
		if err := t.drainOrFail(); err != nil { // the head's hash is behind
			return 0, "", err
		}
	}
	seq, h := t.auditHead()
	return seq, hex.EncodeToString(h), nil
}
