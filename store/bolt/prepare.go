package bolt

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/schedbot/schedbot/store"
)

// bbolt writes one transaction at a time and holds its lock through the
// fsyncs of the commit. A burst's next chunk is therefore prepared in a
// read transaction, which runs beside the write transaction committing
// the chunk before it: its records are read, decided on and encoded
// there, and the write transaction only checks that what was read is
// unchanged and writes the bytes.

// errNotPrepared is what a Tx method a prepared transaction cannot keep
// returns there.
var errNotPrepared = errors.New("not available in a prepared transaction")

type readNote struct {
	bucket, key, value []byte
	found              bool
}

type writeNote struct {
	bucket, key, value []byte
	del                bool
}

// auditNote is an audit event encoded with no place in the chain yet:
// its body is `{"seq":` + the seq + mid + `,"prevHash":"` + the previous
// hash + `"}`, both known when it is applied.
type auditNote struct {
	ev  *store.AuditEvent
	at  time.Time
	mid []byte
}

// prepared is what a function run in Store.Prepare wrote and read.
type prepared struct {
	s      *Store
	reads  []readNote
	writes []writeNote
	wrote  map[string]int // bucket \x00 key -> index in writes of its last write
	audits []auditNote
	jobs   []string // the jobs it wrote: passed over by the next prepared transactions
	used   bool     // applied once
	done   bool     // discarded
}

func noteKey(bucket, key []byte) string { return string(bucket) + "\x00" + string(key) }

func (p *prepared) get(t *tx, bucket, key []byte) []byte {
	if i, ok := p.wrote[noteKey(bucket, key)]; ok {
		if p.writes[i].del {
			return nil
		}
		return p.writes[i].value
	}
	v := t.bucket(bucket).Get(key)
	// The read transaction ends before the notes are used: copy.
	p.reads = append(p.reads, readNote{bucket: bucket, key: slices.Clone(key), value: slices.Clone(v), found: v != nil})
	return v
}

func (p *prepared) set(bucket, key, v []byte, del bool) {
	if p.wrote == nil {
		p.wrote = map[string]int{}
	}
	p.wrote[noteKey(bucket, key)] = len(p.writes)
	p.writes = append(p.writes, writeNote{bucket: bucket, key: slices.Clone(key), value: v, del: del})
}

var (
	auditHead = []byte(`{"seq":0`)
	auditTail = []byte(`,"prevHash":""}`)
)

func (p *prepared) audit(ev *store.AuditEvent) error {
	c := *ev
	c.Seq, c.PrevHash, c.Hash, c.MAC = 0, "", "", ""
	if c.At.IsZero() {
		c.At = time.Now().UTC()
	}
	body, err := encode(&c)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	if !bytes.HasPrefix(body, auditHead) || !bytes.HasSuffix(body, auditTail) || len(body) < len(auditHead)+len(auditTail) {
		return fmt.Errorf("audit event encoded as %.40q…: %w", body, errNotPrepared)
	}
	p.audits = append(p.audits, auditNote{ev: ev, at: c.At, mid: body[len(auditHead) : len(body)-len(auditTail)]})
	return nil
}

// Prepare runs fn in a read transaction, which runs beside a write
// transaction, and keeps what fn writes instead of writing it. fn may
// write with JobPut, JobStatusPut, RunPut, QueueAdd (to incoming) and
// AuditAppend; the other writes fail. JobsDue there passes over the jobs
// that another prepared transaction, not yet applied or discarded, wrote.
// fn's error is Prepare's, with nothing kept.
func (s *Store) Prepare(ctx context.Context, fn func(store.Tx) error) (store.Prepared, error) {
	p := &prepared{s: s}
	err := s.run(ctx, false, func(stx store.Tx) error {
		t := stx.(*tx)
		t.rec = p
		return fn(t)
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.pending == nil {
		s.pending = map[string]int{}
	}
	for _, id := range p.jobs {
		s.pending[id]++
	}
	s.mu.Unlock()
	return p, nil
}

// isPending reports whether a prepared transaction not yet applied or
// discarded wrote job id.
func (s *Store) isPending(id []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[string(id)] > 0
}

// Discard lets the jobs p wrote be prepared again: after the write
// transaction that applied p ended, or instead of applying it.
func (p *prepared) Discard() {
	if p.done {
		return
	}
	p.done = true
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	for _, id := range p.jobs {
		if p.s.pending[id]--; p.s.pending[id] <= 0 {
			delete(p.s.pending, id)
		}
	}
}

// Apply writes what p kept in stx, a write transaction of p's store,
// unless a record p read has changed since: then it writes nothing and
// returns false. Audit events take their place in the chain here. Its
// jobs stay passed over until Discard: until the transaction commits,
// another read transaction sees them due still.
func (p *prepared) Apply(stx store.Tx) (ok bool, err error) {
	t, _ := stx.(*tx)
	if t == nil || t.s != p.s || t.rec != nil {
		return false, errors.New("apply a prepared transaction: not a write transaction of its store")
	}
	if p.used || p.done {
		return false, errors.New("apply a prepared transaction: already applied or discarded")
	}
	p.used = true
	if err := t.writable(); err != nil {
		return false, err
	}
	defer guard(&err)
	for _, r := range p.reads {
		v := t.bucket(r.bucket).Get(r.key)
		if (v != nil) != r.found || !bytes.Equal(v, r.value) {
			return false, nil
		}
	}
	for _, w := range p.writes {
		b := t.bucket(w.bucket)
		if w.del {
			err = b.Delete(w.key)
		} else {
			err = b.Put(w.key, w.value)
		}
		if err != nil {
			return false, err
		}
	}
	for _, a := range p.audits {
		seq, prev := t.auditHead()
		seq++
		prevHex := hex.EncodeToString(prev)
		body := make([]byte, 0, len(a.mid)+len(prevHex)+40)
		body = strconv.AppendUint(append(body, `{"seq":`...), seq, 10)
		body = append(append(append(append(body, a.mid...), `,"prevHash":"`...), prevHex...), `"}`...)
		mac := ""
		if t.s.auditKey != nil {
			body, mac = store.AuditSeal(t.s.auditKey, prev, body)
		}
		hash := store.AuditHash(prev, body)
		if err := t.bucket(bucketAudit).Put(seqKey(seq), append(hash, body...)); err != nil {
			return false, err
		}
		a.ev.Seq, a.ev.At, a.ev.PrevHash, a.ev.Hash, a.ev.MAC = seq, a.at, prevHex, hex.EncodeToString(hash), mac
		t.headSeq, t.headHash, t.headDirty = seq, hash, true
	}
	return true, nil
}
