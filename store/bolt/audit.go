package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/store"
)

// The audit log is stored in blocks: the events a transaction appends go
// into values of up to blockMax events each, keyed by the seq of their
// first event. An entry is its hash (32 bytes), its body's length (4 bytes,
// big-endian) and its body. A burst appends 10,000 events; as one record
// each they were a tenth of its bbolt puts and a quarter of the pages it
// wrote, one write call each. A value whose byte after the hash is '{' is
// a single event written before blocks (hash, then body).
const blockMax = 1024

// An audit body is encoded with a placeholder for the previous hash (its
// last field) so that bodies can be encoded in parallel; chain writes the
// real one over it.
var (
	prevHashPlaceholder = strings.Repeat("0", 64)
	placeholderSuffix   = []byte(`"prevHash":"` + prevHashPlaceholder + `"}`)
)

// chain completes a pending audit event: the previous hash goes into its
// body; it returns the event's hash and body.
func (t *tx) chain(p *pendingPut) (hash, body []byte, err error) {
	c := p.val.(*store.AuditEvent)
	prev := t.headHash
	c.PrevHash = hex.EncodeToString(prev)
	body = p.enc
	if len(c.PrevHash) == len(prevHashPlaceholder) && bytes.HasSuffix(body, placeholderSuffix) {
		copy(body[len(body)-2-len(prevHashPlaceholder):], c.PrevHash)
	} else {
		// The first event of a log has an empty previous hash.
		if body, err = encode(c); err != nil {
			return nil, nil, fmt.Errorf("encode audit event: %w", err)
		}
	}
	hash = store.AuditHash(prev, body)
	p.audit.PrevHash, p.audit.Hash = c.PrevHash, hex.EncodeToString(hash)
	t.headHash = hash
	return hash, body, nil
}

// writeAudit chains pending audit events, in order, and writes them in
// blocks.
func (t *tx) writeAudit(events []*pendingPut) error {
	b := t.bucket(bucketAudit)
	for len(events) > 0 {
		n := min(len(events), blockMax)
		size := 0
		for _, p := range events[:n] {
			size += 32 + 4 + len(p.enc)
		}
		block := make([]byte, 0, size)
		for _, p := range events[:n] {
			if p.err != nil {
				return fmt.Errorf("encode audit event %d: %w", p.audit.Seq, p.err)
			}
			hash, body, err := t.chain(p)
			if err != nil {
				return err
			}
			block = append(block, hash...)
			block = binary.BigEndian.AppendUint32(block, uint32(len(body)))
			block = append(block, body...)
		}
		if err := b.Put(seqKey(events[0].audit.Seq), block); err != nil {
			return err
		}
		events = events[n:]
	}
	return nil
}

// auditEntries calls fn with each event stored under k: its seq (the
// key's plus its place in the block), hash and body. A malformed value is
// a *store.ChainError for the first seq it cannot read.
func auditEntries(k, v []byte, fn func(seq uint64, hash, body []byte) error) error {
	if len(k) != 8 {
		return &store.ChainError{Reason: "malformed key " + hex.EncodeToString(k)}
	}
	seq := binary.BigEndian.Uint64(k)
	if len(v) > 32 && v[32] == '{' {
		return fn(seq, v[:32], v[32:])
	}
	for len(v) > 0 {
		if len(v) < 36 {
			return &store.ChainError{Seq: seq, Reason: "record is truncated"}
		}
		n := binary.BigEndian.Uint32(v[32:36])
		if uint64(len(v)-36) < uint64(n) {
			return &store.ChainError{Seq: seq, Reason: "record is truncated"}
		}
		if err := fn(seq, v[:32], v[36:36+n]); err != nil {
			return err
		}
		v = v[36+n:]
		seq++
	}
	return nil
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

func decodeAudit(seq uint64, hash, body []byte) (*store.AuditEvent, error) {
	ev, err := decode[store.AuditEvent]("audit record", seqKey(seq), body)
	if err != nil {
		return nil, err
	}
	ev.Hash = hex.EncodeToString(hash)
	return ev, nil
}

// corrupt turns a malformed-record ChainError met while listing into
// store.ErrCorrupt.
func corrupt(err error) error {
	if ce, ok := err.(*store.ChainError); ok {
		return fmt.Errorf("audit record %d: %w: %s", ce.Seq, store.ErrCorrupt, ce.Reason)
	}
	return err
}

func (t *tx) AuditList(p *store.AuditListParams) ([]*store.AuditEvent, error) {
	if p == nil {
		p = &store.AuditListParams{}
	}
	match := func(ev *store.AuditEvent) bool {
		return (p.JobID == "" || ev.JobID == p.JobID) &&
			(p.Actor == "" || ev.Actor.SenderID == p.Actor || ev.Actor.Sender == p.Actor) &&
			(p.Since.IsZero() || !ev.At.Before(p.Since))
	}
	if err := t.flushPending(); err != nil {
		return nil, err
	}
	c := t.bucket(bucketAudit).Cursor()
	out := []*store.AuditEvent{}
	if !p.Since.IsZero() && p.AfterSeq == 0 {
		// Recent events are at the end: walk back until well before Since
		// (an hour's slack for clock steps) instead of reading the whole log.
		stop := p.Since.Add(-time.Hour)
		var block []*store.AuditEvent
	blocks:
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			block = block[:0]
			err := auditEntries(k, v, func(seq uint64, hash, body []byte) error {
				ev, err := decodeAudit(seq, hash, body)
				block = append(block, ev)
				return err
			})
			if err != nil {
				return nil, corrupt(err)
			}
			for _, ev := range slices.Backward(block) {
				if ev.At.Before(stop) {
					break blocks
				}
				if match(ev) {
					out = append(out, ev)
				}
			}
		}
		slices.Reverse(out)
		if p.Limit > 0 && len(out) > p.Limit {
			out = out[:p.Limit]
		}
		return out, nil
	}
	// The block holding AfterSeq+1 starts at or before it.
	from := seqKey(p.AfterSeq + 1)
	k, v := c.Seek(from)
	if k == nil || bytes.Compare(k, from) > 0 {
		if pk, pv := c.Prev(); pk != nil {
			k, v = pk, pv
		} else {
			k, v = c.Seek(from) // no earlier block
		}
	}
	errFull := fmt.Errorf("full")
	for ; k != nil; k, v = c.Next() {
		err := auditEntries(k, v, func(seq uint64, hash, body []byte) error {
			if seq <= p.AfterSeq {
				return nil
			}
			ev, err := decodeAudit(seq, hash, body)
			if err != nil {
				return err
			}
			if match(ev) {
				out = append(out, ev)
				if p.Limit > 0 && len(out) == p.Limit {
					return errFull
				}
			}
			return nil
		})
		if err == errFull {
			break
		} else if err != nil {
			return nil, corrupt(err)
		}
	}
	return out, nil
}

func (t *tx) AuditVerify() (int, error) {
	if err := t.flushPending(); err != nil {
		return 0, err
	}
	var prev []byte
	var want uint64 = 1
	n := 0
	c := t.bucket(bucketAudit).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) == 8 {
			if seq := binary.BigEndian.Uint64(k); seq != want {
				return n, &store.ChainError{Seq: want, Reason: fmt.Sprintf("missing (the next record is %d)", seq)}
			}
		}
		err := auditEntries(k, v, func(seq uint64, hash, body []byte) error {
			if s, ok := bodySeq(body); ok && s != seq {
				if s > seq {
					return &store.ChainError{Seq: seq, Reason: fmt.Sprintf("missing (the next record is %d)", s)}
				}
				return &store.ChainError{Seq: seq, Reason: fmt.Sprintf("names seq %d (edited)", s)}
			}
			if !bytes.Equal(store.AuditHash(prev, body), hash) {
				return &store.ChainError{Seq: seq, Reason: "hash does not match its contents and the previous record (edited)"}
			}
			prev = hash
			want++
			n++
			return nil
		})
		if ce, ok := err.(*store.ChainError); ok && ce.Seq == 0 {
			ce.Seq = want
		}
		if err != nil {
			return n, err
		}
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
