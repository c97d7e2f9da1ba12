package bolt

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/schedbot/schedbot/store"
)

// While JobsDue's fn runs, the runs, job statuses, incoming triggers and
// audit events it writes are encoded (the events chained) on another
// goroutine and put in their buckets when JobsDue returns: encoding them
// was a seventh of a burst's time on the transaction's goroutine, the
// only one that may write, and the other core had time to spare. Reads
// cannot tell: a get of a record still behind, or any other use of its
// bucket (t.bucket), puts what is behind first, in the order written. A
// record is copied when written, so a caller may change it after, as it
// may after a put. Two things differ from writing at once, both within
// the store's contract: an audit event gets its hashes at drain (by
// commit), and a record that cannot be encoded fails JobsDue and the
// commit rather than its write.

// behindBuckets are the buckets a burst writes a record a job to, in the
// order drain puts them.
var behindBuckets = [][]byte{bucketRuns, bucketJobStatus, queueBucket(store.QueueIncoming), bucketAudit}

const auditBehind = 3 // bucketAudit's place in behindBuckets

// behindBatch is how many records go to the encoding goroutine at once:
// one at a time, waking it cost more than the encoding saved.
const behindBatch = 64

// writeBehind is the records written but not yet put, and the goroutine
// encoding them.
type writeBehind struct {
	todo chan []*pendingPut // batches of behindBatch, the last shorter
	next []*pendingPut      // the batch being filled
	wg   sync.WaitGroup
	puts [4][]*pendingPut // by behindBuckets
	runs map[string]bool  // the executionIds among puts[0]

	// The audit chain behind: the encoder chains each event after prev
	// (prevHex in hex), which starts as the head when the first event
	// was written behind.
	chained bool
	prev    []byte
	prevHex string
	key     []byte   // the store's audit key
	slab    struct { // the copies, a block at a time (take)
		puts     []pendingPut
		runs     []store.Run
		statuses []store.JobStatus
		results  []store.Result
		items    []store.QueueItem
		events   []store.AuditEvent
		bytes    []byte
	}
}

// keep copies b (a raw JSON value of a record) into the slab's bytes,
// nil for nil: the caller may change its own after the write.
func (w *writeBehind) keep(b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(w.slab.bytes)+len(b) > cap(w.slab.bytes) {
		w.slab.bytes = make([]byte, 0, max(64<<10, len(b)))
	}
	at := len(w.slab.bytes)
	w.slab.bytes = append(w.slab.bytes, b...)
	return w.slab.bytes[at:len(w.slab.bytes):len(w.slab.bytes)]
}

// take returns the next element of *block, allocating a new block of 256
// when it is full: a burst copies 30,000 records, and one allocation
// each was as much as encoding them.
func take[T any](block *[]T) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, 256)
	}
	*block = (*block)[:len(*block)+1]
	return &(*block)[len(*block)-1]
}

type pendingPut struct {
	key string
	v   any // a copy of what was written
	b   []byte
	err error
	ev  *store.AuditEvent // an audit event's caller's, given its hashes at drain
}

// behindAt is name's place in behindBuckets, -1 if records written to it
// are put at once.
func behindAt(name []byte) int {
	for i, b := range behindBuckets {
		if bytes.Equal(name, b) {
			return i
		}
	}
	return -1
}

// putBehind writes v (a *store.Run, *store.JobStatus or *store.QueueItem)
// to bucket at while JobsDue's fn runs, reporting false when it cannot
// (no burst, another bucket) and the caller puts it at once.
func (t *tx) putBehind(bucket []byte, key string, v any) bool {
	if !t.firing {
		return false
	}
	at := behindAt(bucket)
	if at < 0 {
		return false
	}
	w := t.writeBehind()
	switch r := v.(type) {
	case *store.Run:
		c := take(&w.slab.runs)
		*c = *r
		if r.DoneBy != nil {
			a := *r.DoneBy
			c.DoneBy = &a
		}
		v = c
	case *store.JobStatus:
		c := take(&w.slab.statuses)
		*c = *r
		if r.LastResult != nil {
			c.LastResult = take(&w.slab.results)
			*c.LastResult = *r.LastResult
		}
		v = c
	case *store.QueueItem:
		c := take(&w.slab.items)
		*c = *r
		c.Payload = w.keep(r.Payload)
		v = c
	default:
		return false
	}
	w.add(at, key, v, nil)
	if at == 0 {
		w.runs[key] = true
	}
	return true
}

// writeBehind returns the transaction's writeBehind, starting it and its
// encoding goroutine if none runs.
func (t *tx) writeBehind() *writeBehind {
	if t.behind != nil {
		return t.behind
	}
	w := &writeBehind{todo: make(chan []*pendingPut, 64), runs: map[string]bool{}, key: t.s.auditKey}
	w.wg.Go(func() {
		for batch := range w.todo {
			for _, p := range batch {
				w.encode(p)
			}
		}
	})
	t.behind = w
	return w
}

// encode encodes p on the encoding goroutine, an audit event chained
// after the last; a panic in an encoder is p's error, as guard makes it
// when the transaction's goroutine encodes.
func (w *writeBehind) encode(p *pendingPut) {
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Errorf("%v", r)
		}
	}()
	c, ok := p.v.(*store.AuditEvent)
	if !ok {
		p.b, p.err = encode(p.v)
		return
	}
	p.b, w.prev, p.err = sealEvent(c, w.prev, w.prevHex, w.key)
	w.prevHex = c.Hash
}

// add queues v, a copy of a record (of the audit event ev), for bucket
// at's key.
func (w *writeBehind) add(at int, key string, v any, ev *store.AuditEvent) {
	p := take(&w.slab.puts)
	p.key, p.v, p.ev = key, v, ev
	w.puts[at] = append(w.puts[at], p)
	if w.next = append(w.next, p); len(w.next) == behindBatch {
		w.todo <- w.next
		w.next = make([]*pendingPut, 0, behindBatch)
	}
}

// auditBehind writes c, a copy of ev numbered and timed, behind while
// JobsDue's fn runs (see putBehind); ev gets its hashes at drain.
func (t *tx) auditBehind(ev, c *store.AuditEvent) bool {
	if !t.firing {
		return false
	}
	w := t.writeBehind()
	if !w.chained {
		// Nothing else writes the chain while events are behind (its
		// bucket drains them first), so the head is theirs to follow.
		w.chained, w.prev, w.prevHex = true, t.headHash, t.headHex
		if w.prevHex == "" && len(w.prev) > 0 {
			w.prevHex = hex.EncodeToString(w.prev)
		}
	}
	cp := take(&w.slab.events)
	*cp = *c
	cp.Before, cp.After = w.keep(c.Before), w.keep(c.After)
	w.add(auditBehind, string(seqKey(c.Seq)), cp, ev)
	ev.Seq, ev.At = c.Seq, c.At
	t.headSeq = c.Seq
	return true
}

// isBehind reports whether a get of key in bucket name must drain first:
// a run written behind, or any record of the status or incoming bucket
// while some are behind (a burst reads those again only for a job it
// fired twice).
func (t *tx) isBehind(name, key []byte) bool {
	w := t.behind
	if w == nil {
		return false
	}
	switch at := behindAt(name); at {
	case -1:
		return false
	case 0:
		return w.runs[string(key)]
	default:
		return len(w.puts[at]) > 0
	}
}

// drain puts the records behind, bucket by bucket, each in the order
// written: a record written twice ends as the second. A record that did
// not encode fails it (and so the transaction).
func (t *tx) drain() (err error) {
	w := t.behind
	if w == nil {
		return nil
	}
	t.behind = nil
	w.todo <- w.next
	close(w.todo)
	w.wg.Wait()
	defer guard(&err)
	for i, puts := range w.puts {
		if len(puts) == 0 {
			continue
		}
		b := t.bucket(behindBuckets[i])
		for _, p := range puts {
			if p.err != nil {
				return fmt.Errorf("encode %s %q: %w", behindBuckets[i], p.key, p.err)
			}
			if err := b.Put([]byte(p.key), p.b); err != nil {
				return err
			}
			if c, ok := p.v.(*store.AuditEvent); ok {
				p.ev.PrevHash, p.ev.Hash, p.ev.MAC = c.PrevHash, c.Hash, c.MAC
			}
		}
	}
	if w.chained {
		t.headHash, t.headHex, t.headDirty = w.prev, w.prevHex, true
	}
	return nil
}

// drainOrFail is drain, its failure kept to fail the transaction when
// the caller goes on (t.bucket cannot return it).
func (t *tx) drainOrFail() error {
	err := t.drain()
	if err != nil && t.behindErr == nil {
		t.behindErr = err
	}
	return err
}
