package bolt

import (
	"bytes"
	"encoding/binary"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
)

// bucketOutgoingLanes indexes the outgoing queue by delivery lane:
// lane 0x00 itemId -> notBefore (Unix nanoseconds, 8 bytes; 0: none). It is
// made by the first write transaction that reads it, from the outgoing
// queue, and kept by every write to that queue from then on, so a file
// without it (an older schedbot's) needs no upgrade.
var bucketOutgoingLanes = []byte("queue_outgoing_lanes")

func laneIndexKey(lane, id string) []byte {
	return append(append([]byte(lane), 0), id...)
}

func notBeforeBytes(t time.Time) []byte {
	var b [8]byte
	if !t.IsZero() {
		binary.BigEndian.PutUint64(b[:], uint64(t.UnixNano()))
	}
	return b[:]
}

// laneIndexPut and laneIndexDelete keep the index, once it exists, in step
// with the outgoing queue.
func (t *tx) laneIndexPut(it *store.QueueItem) error {
	if idx := t.b.Bucket(bucketOutgoingLanes); idx != nil {
		return idx.Put(laneIndexKey(store.LaneOf(it), it.ItemID), notBeforeBytes(it.NotBefore))
	}
	return nil
}

func (t *tx) laneIndexDelete(id []byte) error {
	idx := t.b.Bucket(bucketOutgoingLanes)
	if idx == nil {
		return nil
	}
	v := t.bucket(queueBucket(store.QueueOutgoing)).Get(id)
	if v == nil {
		return nil
	}
	it, err := decode[store.QueueItem]("queue item", id, v)
	if err != nil {
		// A damaged item's lane cannot be read: its entry stays, and is
		// passed over once the item is gone.
		return nil
	}
	return idx.Delete(laneIndexKey(store.LaneOf(it), it.ItemID))
}

// buildLaneIndex makes the index from the outgoing queue.
func (t *tx) buildLaneIndex() (*bolt.Bucket, error) {
	idx, err := t.b.CreateBucket(bucketOutgoingLanes)
	if err != nil {
		return nil, err
	}
	c := t.bucket(queueBucket(store.QueueOutgoing)).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		it, err := decode[store.QueueItem]("queue item", k, v)
		if err != nil {
			return nil, err
		}
		if err := idx.Put(laneIndexKey(store.LaneOf(it), it.ItemID), notBeforeBytes(it.NotBefore)); err != nil {
			return nil, err
		}
	}
	return idx, nil
}

func (t *tx) QueueDueLanes(now time.Time, limit int, busy map[string]bool) (out []*store.QueueItem, indexed bool, err error) {
	defer guard(&err)
	idx := t.b.Bucket(bucketOutgoingLanes)
	if idx == nil {
		if !t.b.Writable() {
			return nil, false, nil
		}
		if idx, err = t.buildLaneIndex(); err != nil {
			return nil, false, err
		}
	}
	outgoing := t.bucket(queueBucket(store.QueueOutgoing))
	out = []*store.QueueItem{}
	c := idx.Cursor()
	for k, v := c.First(); k != nil && len(out) < limit; {
		sep := bytes.IndexByte(k, 0)
		if sep < 0 {
			k, v = c.Next()
			continue
		}
		lane := string(k[:sep])
		if busy[lane] {
			// Over the whole lane in one seek, however long its backlog.
			k, v = c.Seek(append([]byte(lane), 1))
			continue
		}
		if nb := binary.BigEndian.Uint64(v); nb == 0 || !time.Unix(0, int64(nb)).After(now) {
			id := k[sep+1:]
			if body := outgoing.Get(id); body != nil {
				it, err := decode[store.QueueItem]("queue item", id, body)
				if err != nil {
					return nil, true, err
				}
				out = append(out, it)
			}
		}
		k, v = c.Next()
	}
	return out, true, nil
}
