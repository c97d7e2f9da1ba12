package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
)

// Idempotent calls' results.
var (
	bucketRequests   = []byte("requests")    // key -> JSON Request
	bucketRequestsAt = []byte("requests_at") // createdAt(8) + key -> nil, for pruning
)

func (t *tx) RequestGet(key string) (_ *store.Request, err error) {
	defer guard(&err)
	b := t.b.Bucket(bucketRequests)
	var v []byte
	if b != nil { // a file opened read-only before its first write has none
		v = b.Get([]byte(key))
	}
	if v == nil {
		return nil, notFound("request", key)
	}
	return decode[store.Request]("request", []byte(key), v)
}

func (t *tx) RequestPut(r *store.Request) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	if r.Key == "" {
		return errors.New("put request: empty key")
	}
	b, at := t.b.Bucket(bucketRequests), t.b.Bucket(bucketRequestsAt)
	if b.Get([]byte(r.Key)) != nil {
		return fmt.Errorf("request %s: %w", r.Key, store.ErrExists)
	}
	v, err := encode(r)
	if err != nil {
		return fmt.Errorf("encode request %s: %w", r.Key, err)
	}
	if err := b.Put([]byte(r.Key), v); err != nil {
		return err
	}
	return at.Put(append(timeKey(r.CreatedAt), r.Key...), nil)
}

func (t *tx) RequestPrune(before time.Time, limit int) (_ int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	return pruneByTime(t.b.Bucket(bucketRequests), t.b.Bucket(bucketRequestsAt), before, limit)
}

// pruneByTime deletes up to limit records of b older than before, oldest
// first, through their time index at (time(8) + key -> nil).
func pruneByTime(b, at *bolt.Bucket, before time.Time, limit int) (int, error) {
	end := timeKey(before)
	var keys [][]byte
	c := at.Cursor()
	for k, _ := c.First(); k != nil && bytes.Compare(k[:8], end) < 0 && len(keys) < limit; k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := at.Delete(k); err != nil {
			return 0, err
		}
		if err := b.Delete(k[8:]); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
