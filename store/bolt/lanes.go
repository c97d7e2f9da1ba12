package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/schedbot/schedbot/store"
)

// bucketLanes: lane key -> when it last delivered (Unix nanoseconds, 8
// bytes). One process holds a bolt file, so a lane is never held by
// another: only its pace is kept, across restarts.
var bucketLanes = []byte("lanes")

func (t *tx) QueueNextAt(q store.QueueName, now time.Time) (next time.Time, ok bool, err error) {
	defer guard(&err)
	if !q.Valid() {
		return time.Time{}, false, fmt.Errorf("next in queue: unknown queue %q", q)
	}
	// A scan: incoming and outgoing hold what is in flight, not history,
	// and a worker asks only when it has nothing to do. Outgoing's lane
	// index holds each item's notBefore: no item is decoded.
	if idx := t.b.Bucket(bucketOutgoingLanes); q == store.QueueOutgoing && idx != nil {
		c := idx.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if nb := binary.BigEndian.Uint64(v); nb != 0 {
				if at := time.Unix(0, int64(nb)).UTC(); at.After(now) && (!ok || at.Before(next)) {
					next, ok = at, true
				}
			}
		}
		return next, ok, nil
	}
	c := t.bucket(queueBucket(q)).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		it, err := decode[store.QueueItem]("queue item", k, v)
		if err != nil {
			return time.Time{}, false, err
		}
		if it.NotBefore.After(now) && (!ok || it.NotBefore.Before(next)) {
			next, ok = it.NotBefore, true
		}
	}
	return next, ok, nil
}

func (t *tx) QueueRecover(now, notBefore time.Time) (n int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	// One process holds the file and has nothing in hand: every item in
	// processing was left by a crash or a failed commit.
	for {
		items, err := t.QueueList(&store.QueueListParams{Queue: store.QueueProcessing, Limit: 1000})
		if err != nil || len(items) == 0 {
			return n, err
		}
		for _, it := range items {
			it.Queue, it.UpdatedAt = store.QueueIncoming, now
			if !notBefore.IsZero() {
				it.NotBefore = notBefore
			}
			if err := t.QueuePut(it); err != nil {
				return n, err
			}
			n++
		}
	}
}

func (t *tx) LaneTake(key string, now, until time.Time) (ok bool, last time.Time, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return false, time.Time{}, err
	}
	if key == "" {
		return false, time.Time{}, errors.New("take lane: empty key")
	}
	if b := t.b.Bucket(bucketLanes); b != nil {
		if v := b.Get([]byte(key)); len(v) == 8 {
			last = time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		}
	}
	return true, last, nil
}

func (t *tx) LaneKeep(key string, until time.Time) (_ bool, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return false, err
	}
	return true, nil // one process: its lanes are its own
}

func (t *tx) LaneRelease(key string, last time.Time) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	if last.IsZero() {
		return nil
	}
	b := t.b.Bucket(bucketLanes)
	if v := b.Get([]byte(key)); len(v) == 8 && int64(binary.BigEndian.Uint64(v)) >= last.UnixNano() {
		return nil
	}
	return b.Put([]byte(key), binary.BigEndian.AppendUint64(nil, uint64(last.UnixNano())))
}
