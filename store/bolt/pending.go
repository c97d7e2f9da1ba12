package bolt

import (
	"fmt"
	"slices"

	"github.com/schedbot/schedbot/store"
)

// Records (jobs, job status, runs, queue items, audit events) are not
// encoded when they are put: a copy is kept, encoded on another goroutine
// while the transaction goes on (once it has enough of them, see enqueue)
// and written at flush. A scheduler burst writes tens of thousands of
// records in one transaction, and encoding them on the transaction's
// goroutine was most of its time. Reads in the same transaction see pending
// records (point reads through the overlay; cursors flush first). Audit
// events are chained in order as they are written.
type pendingPut struct {
	bucket []byte
	key    string
	val    any // a copy: *store.Job, *jobStatus, *store.Run, *store.QueueItem or *store.AuditEvent
	enc    []byte
	err    error
	dead   bool              // replaced or deleted later in the transaction
	audit  *store.AuditEvent // for an audit record: the caller's event
}

// put records a pending write of val (already a copy) under bucket/key.
func (t *tx) put(bucket []byte, key string, val any) {
	p := t.newPending(pendingPut{bucket: bucket, key: key, val: val})
	if t.over == nil {
		t.over = map[string]map[string]*pendingPut{}
	}
	m := t.over[string(bucket)]
	if m == nil {
		m = map[string]*pendingPut{}
		t.over[string(bucket)] = m
	}
	if old := m[key]; old != nil {
		old.dead = true
	}
	m[key] = p
	t.enqueue(p)
}

// newPending allocates pending records 256 at a time: a burst makes
// tens of thousands.
func (t *tx) newPending(p pendingPut) *pendingPut {
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]pendingPut, 0, 256)
	}
	t.slab = append(t.slab, p)
	return &t.slab[len(t.slab)-1]
}

// pending returns the record put under bucket/key in this transaction and
// not yet flushed, if any.
func (t *tx) pending(bucket, key []byte) any {
	if p := t.over[string(bucket)][string(key)]; p != nil {
		return p.val
	}
	return nil
}

// del deletes bucket/key, pending or stored.
func (t *tx) del(bucket, key []byte) error {
	if m := t.over[string(bucket)]; m != nil {
		if p := m[string(key)]; p != nil {
			p.dead = true
			delete(m, string(key))
		}
	}
	return t.bucket(bucket).Delete(key)
}

// parallelMin is how many pending records start a background encoder;
// encodeChunk is how many it is handed at a time (a hand-off wakes it).
const (
	parallelMin = 256
	encodeChunk = 64
)

// enqueue adds a pending record. Past parallelMin, a goroutine encodes
// records in chunks as they come, on the core the transaction's own
// goroutine (busy with bbolt) leaves idle, so that flush mostly writes.
func (t *tx) enqueue(p *pendingPut) {
	t.pend = append(t.pend, p)
	if t.enc == nil {
		if len(t.pend) < parallelMin {
			return
		}
		ch := make(chan []*pendingPut, 64)
		t.enc = ch
		t.encWG.Go(func() {
			for chunk := range ch {
				for _, p := range chunk {
					if t.encStop.Load() {
						break
					}
					p.encode()
				}
			}
		})
	}
	if len(t.pend)-t.sent >= encodeChunk {
		// The worker reads these elements only; appends after them (even
		// into a new array) do not touch them.
		t.enc <- t.pend[t.sent:len(t.pend):len(t.pend)]
		t.sent = len(t.pend)
	}
}

// stopEncoder ends a background encoder without waiting for it (the
// transaction is being rolled back).
func (t *tx) stopEncoder() {
	if t.enc != nil {
		t.encStop.Store(true)
		close(t.enc)
		t.enc = nil
	}
}

// flushPending encodes and writes every pending record, in put order.
func (t *tx) flushPending() error {
	pend, sent := t.pend, t.sent
	t.pend, t.over, t.sent = nil, nil, 0
	if ch := t.enc; ch != nil {
		t.enc = nil
		close(ch)
		for _, p := range pend[sent:] { // never handed over
			p.encode()
		}
		for chunk := range ch { // help with what is left
			for _, p := range chunk {
				p.encode()
			}
		}
		t.encWG.Wait()
	} else {
		for _, p := range pend {
			if !p.dead {
				p.encode()
			}
		}
	}
	// Bucket by bucket (in put order within each): consecutive puts then
	// descend through the same, cached, nodes, and audit events go in blocks.
	var order []string
	groups := map[string][]*pendingPut{}
	for _, p := range pend {
		g, ok := groups[string(p.bucket)]
		if !ok {
			order = append(order, string(p.bucket))
		}
		groups[string(p.bucket)] = append(g, p)
	}
	for _, b := range order {
		if b == string(bucketAudit) {
			if err := t.writeAudit(groups[b]); err != nil {
				return err
			}
			continue
		}
		for _, p := range groups[b] {
			if err := t.write(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// encode may run on the encoder goroutine: it reads only p.val, which no
// one changes once it is pending.
func (p *pendingPut) encode() {
	p.enc, p.err = encode(p.val)
}

func (t *tx) write(p *pendingPut) error {
	if p.dead {
		return nil
	}
	if p.err != nil {
		return fmt.Errorf("encode %s %q: %w", p.bucket, p.key, p.err)
	}
	return t.bucket(p.bucket).Put([]byte(p.key), p.enc)
}

// Copies, so that a caller changing a record after putting it (or a job
// after reading it) changes neither what is written nor the definition
// JobPut compares with.
func copyJob(j *store.Job) *store.Job {
	c := *j
	if j.TargetAction.Inputs != nil {
		c.TargetAction.Inputs = cloneJSON(j.TargetAction.Inputs).(map[string]any)
	}
	c.TargetAction.FunctionArgs = slices.Clone(j.TargetAction.FunctionArgs)
	if j.TargetRef != nil {
		r := *j.TargetRef
		c.TargetRef = &r
	}
	if j.LastResult != nil {
		r := *j.LastResult
		c.LastResult = &r
	}
	return &c
}

// cloneJSON deep-copies a value decoded from JSON (maps, slices, scalars).
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, x := range v {
			c[k] = cloneJSON(x)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = cloneJSON(x)
		}
		return c
	default:
		return v
	}
}

func copyRun(r *store.Run) *store.Run { c := *r; return &c }

func copyItem(it *store.QueueItem) *store.QueueItem {
	c := *it
	c.Payload = slices.Clone(it.Payload)
	return &c
}
