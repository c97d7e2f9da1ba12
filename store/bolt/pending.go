package bolt

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/schedbot/schedbot/store"
)

// Jobs, runs and queue items are not encoded when they are put: a copy is
// kept and every pending record is encoded at flush, on all cores, while
// this goroutine writes the ones already encoded. A scheduler burst writes
// tens of thousands of records in one transaction and encoding them was
// most of its time. Reads in the same transaction see pending records
// (point reads through the overlay; cursors flush first). Audit events are
// not deferred: each one's hash chains the one before.
type pendingPut struct {
	bucket []byte
	key    string
	val    any // a copy: *store.Job, *jobStatus, *store.Run or *store.QueueItem
	enc    []byte
	err    error
	dead   bool // replaced or deleted later in the transaction
}

// put records a pending write of val (already a copy) under bucket/key.
func (t *tx) put(bucket []byte, key string, val any) {
	p := &pendingPut{bucket: bucket, key: key, val: val}
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
	t.pend = append(t.pend, p)
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

// parallelMin is the smallest batch worth encoding on other goroutines.
const parallelMin = 256

// flushPending encodes and writes every pending record, in put order.
func (t *tx) flushPending() error {
	pend := t.pend
	t.pend, t.over = nil, nil
	if len(pend) == 0 {
		return nil
	}
	if len(pend) < parallelMin {
		for _, p := range pend {
			p.encode()
			if err := t.write(p); err != nil {
				return err
			}
		}
		return nil
	}
	// Workers take chunks in order; this goroutine writes each chunk once
	// it is encoded, so writing overlaps encoding.
	const chunk = 128
	n := (len(pend) + chunk - 1) / chunk
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	for range min(runtime.GOMAXPROCS(0), n) {
		go func() {
			for !stop.Load() {
				c := int(next.Add(1) - 1)
				if c >= n {
					return
				}
				for _, p := range pend[c*chunk : min(len(pend), (c+1)*chunk)] {
					p.encode()
				}
				close(done[c])
			}
		}()
	}
	defer stop.Store(true) // on an error, the workers stop at their next chunk
	for c := range n {
		<-done[c]
		for _, p := range pend[c*chunk : min(len(pend), (c+1)*chunk)] {
			if err := t.write(p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *pendingPut) encode() {
	if !p.dead {
		p.enc, p.err = encode(p.val)
	}
}

func (t *tx) write(p *pendingPut) error {
	if p.dead {
		return nil
	}
	if p.err != nil {
		return fmt.Errorf("encode %s %s: %w", p.bucket, p.key, p.err)
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
