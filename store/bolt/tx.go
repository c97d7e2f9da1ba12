package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/schedbot/schedbot/store"
)

type tx struct {
	b *bolt.Tx
	s *Store

	// The audit chain's head, read once and written once at commit: a
	// burst appends thousands of events in one transaction.
	headRead  bool
	headDirty bool
	headSeq   uint64
	headHash  []byte

	// seen holds the indexed fields of every job this transaction read or
	// wrote, so that rewriting one (the scheduler's burst) does not decode
	// its stored JSON a second time.
	seen map[string]jobMeta

	// Records put but not yet encoded (see pending.go).
	pend []*pendingPut
	slab []pendingPut                      // where pend's records live
	over map[string]map[string]*pendingPut // bucket -> key -> latest
	// A background encoder of pending records, for big transactions.
	enc     chan []*pendingPut
	sent    int // pend[:sent] went to the encoder
	encWG   sync.WaitGroup
	encStop atomic.Bool
}

func (t *tx) bucket(name []byte) *bolt.Bucket {
	b := t.b.Bucket(name)
	if b != nil {
		b.FillPercent = fillPercent(name)
	}
	return b
}

// fillPercent is how full bbolt packs a bucket's pages when it splits them.
// Its default (half) leaves room for inserts in the middle; where keys only
// grow at the end (audit seq, queue ULIDs) or values keep their size (job
// status, rewritten in place), full pages halve what a burst writes.
func fillPercent(name []byte) float64 {
	if bytes.Equal(name, bucketAudit) || bytes.Equal(name, bucketJobStatus) || bytes.HasPrefix(name, []byte("queue_")) {
		return 0.95
	}
	return bolt.DefaultFillPercent
}

func timeKey(at time.Time) []byte {
	k := make([]byte, 8)
	// Offset so instants before 1970 still sort; they never occur, but a
	// corrupt value must not reorder the index.
	binary.BigEndian.PutUint64(k, uint64(at.UnixNano())^(1<<63))
	return k
}

func keyTime(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k)^(1<<63))).UTC()
}

// notFoundError is store.ErrNotFound for one record. The scheduler asks
// for thousands of runs that do not exist yet; formatting waits until the
// message is read.
type notFoundError struct{ what, id string }

func notFound(what, id string) error { return &notFoundError{what, id} }

func (e *notFoundError) Error() string { return e.what + " " + e.id + ": " + store.ErrNotFound.Error() }
func (e *notFoundError) Unwrap() error { return store.ErrNotFound }

// ---- jobs ----

func (t *tx) JobGet(id string) (*store.Job, error) {
	j, err := t.loadJob([]byte(id))
	if err == nil && j == nil {
		err = notFound("job", id)
	}
	return j, err
}

func (t *tx) JobGetByName(name string) (*store.Job, error) {
	id := t.bucket(bucketJobNames).Get([]byte(name))
	if id == nil {
		return nil, fmt.Errorf("job named %q: %w", name, store.ErrNotFound)
	}
	return t.JobGet(string(id))
}

// writable refuses writes in a View: pending writes reach bbolt only at
// flush, which a View never does.
func (t *tx) writable() error {
	if !t.b.Writable() {
		return berrors.ErrTxNotWritable
	}
	return nil
}

func (t *tx) JobPut(j *store.Job) error {
	if err := t.writable(); err != nil {
		return err
	}
	if j.JobID == "" {
		return errors.New("put job: empty jobId")
	}
	if !j.State.Valid() {
		return fmt.Errorf("put job %s: unknown state %q", j.JobID, j.State)
	}
	if j.State == store.JobEnabled && j.NextRunAt.IsZero() {
		return fmt.Errorf("put job %s: an enabled job needs a nextRunAt", j.JobID)
	}
	id := []byte(j.JobID)
	if j.Name != "" && j.State != store.JobDeleted {
		if holder := t.bucket(bucketJobNames).Get([]byte(j.Name)); holder != nil && string(holder) != j.JobID {
			return fmt.Errorf("job name %q: %w (job %s)", j.Name, store.ErrExists, holder)
		}
	}
	old, err := t.storedMeta(id)
	if err != nil {
		return err
	}
	next := t.writeJob(j, old)
	if err := t.reindex(j.JobID, old, next); err != nil {
		return err
	}
	t.remember(j.JobID, *next)
	return nil
}

func (m *jobMeta) nextKey(id string) []byte {
	return append(timeKey(m.next), id...)
}

// reindex moves a job's index entries from old (nil for a new job) to cur,
// touching only the ones that change.
func (t *tx) reindex(id string, old, cur *jobMeta) error {
	if old == nil {
		old = &jobMeta{state: ""}
	}
	nextIdx := t.bucket(bucketJobsNext)
	oldIn, curIn := old.state == store.JobEnabled, cur.state == store.JobEnabled
	if oldIn && (!curIn || !old.next.Equal(cur.next)) {
		if err := nextIdx.Delete(old.nextKey(id)); err != nil {
			return err
		}
	}
	if curIn && (!oldIn || !old.next.Equal(cur.next)) {
		if err := nextIdx.Put(cur.nextKey(id), nil); err != nil {
			return err
		}
	}
	if old.state != cur.state {
		states := t.bucket(bucketJobsState)
		if old.state != "" {
			if err := states.Delete(stateKey(old.state, id)); err != nil {
				return err
			}
		}
		if err := states.Put(stateKey(cur.state, id), nil); err != nil {
			return err
		}
	}
	names := t.bucket(bucketJobNames)
	oldName, curName := old.name, cur.name
	if old.state == store.JobDeleted {
		oldName = ""
	}
	if cur.state == store.JobDeleted {
		curName = ""
	}
	if oldName != curName {
		if oldName != "" && string(names.Get([]byte(oldName))) == id {
			if err := names.Delete([]byte(oldName)); err != nil {
				return err
			}
		}
		if curName != "" {
			if err := names.Put([]byte(curName), []byte(id)); err != nil {
				return err
			}
		}
	}
	return nil
}

func stateKey(state store.JobState, id string) []byte {
	return append(append([]byte(state), 0), id...)
}

func nextKey(j *store.Job) []byte { return append(timeKey(j.NextRunAt), j.JobID...) }

// A cursor names the listing segment ("n" for the next-run index, else a
// state) and the last key returned in it.
func encodeCursor(seg string, key []byte) string { return seg + "." + hex.EncodeToString(key) }

func decodeCursor(c string) (seg string, key []byte, err error) {
	i := bytes.IndexByte([]byte(c), '.')
	if i < 0 {
		return "", nil, errors.New("cursor: not a cursor from a previous page")
	}
	key, err = hex.DecodeString(c[i+1:])
	if err != nil {
		return "", nil, errors.New("cursor: not a cursor from a previous page")
	}
	return c[:i], key, nil
}

func (t *tx) JobList(p *store.JobListParams) (*store.JobPage, error) {
	if p == nil {
		p = &store.JobListParams{}
	}
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	limit = min(limit, store.MaxListLimit)
	states := p.States
	if len(states) == 0 {
		states = []store.JobState{store.JobEnabled, store.JobPaused, store.JobDisabled}
	}
	// Segments in listing order: the next-run index stands for enabled.
	var segs []string
	for _, st := range store.JobStates {
		if slices.Contains(states, st) {
			if st == store.JobEnabled {
				segs = append(segs, "n")
			} else {
				segs = append(segs, string(st))
			}
		}
	}
	var startSeg string
	var startKey []byte
	if p.Cursor != "" {
		var err error
		if startSeg, startKey, err = decodeCursor(p.Cursor); err != nil {
			return nil, err
		}
		i := slices.Index(segs, startSeg)
		if i < 0 {
			return nil, errors.New("cursor: does not fit these filters")
		}
		segs = segs[i:]
	}
	if err := t.flushPending(); err != nil {
		return nil, err
	}
	page := &store.JobPage{Jobs: []*store.Job{}}
	for _, seg := range segs {
		var c *bolt.Cursor
		var prefix []byte
		if seg == "n" {
			c = t.bucket(bucketJobsNext).Cursor()
		} else {
			c = t.bucket(bucketJobsState).Cursor()
			prefix = append([]byte(seg), 0)
		}
		var k []byte
		if seg == startSeg && startKey != nil {
			k, _ = c.Seek(startKey)
			if bytes.Equal(k, startKey) {
				k, _ = c.Next()
			}
		} else if prefix != nil {
			k, _ = c.Seek(prefix)
		} else {
			k, _ = c.First()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var id []byte
			if seg == "n" {
				id = k[8:]
			} else {
				id = k[len(prefix):]
			}
			j, err := t.loadJob(id)
			if err == nil && j == nil {
				err = fmt.Errorf("job %s: %w: indexed but not stored", id, store.ErrCorrupt)
			}
			if err != nil {
				return nil, err
			}
			if p.CreatedBy != "" && j.CreatedBy.SenderID != p.CreatedBy ||
				p.ChannelID != "" && (j.TargetRef == nil || j.TargetRef.ChannelID != p.ChannelID) {
				continue
			}
			if len(page.Jobs) == limit {
				last := page.Jobs[limit-1]
				if seg2, key2 := listKey(last); key2 != nil {
					page.NextCursor = encodeCursor(seg2, key2)
				}
				return page, nil
			}
			page.Jobs = append(page.Jobs, j)
		}
	}
	return page, nil
}

func listKey(j *store.Job) (string, []byte) {
	if j.State == store.JobEnabled {
		return "n", nextKey(j)
	}
	return string(j.State), stateKey(j.State, j.JobID)
}

func (t *tx) JobCount(states ...store.JobState) (int, error) {
	if len(states) == 0 {
		states = store.JobStates
	}
	n := 0
	c := t.bucket(bucketJobsState).Cursor()
	for _, st := range states {
		prefix := append([]byte(st), 0)
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			n++
		}
	}
	return n, nil
}

func (t *tx) JobsDue(at time.Time, limit int, fn func(*store.Job) error) error {
	if err := t.flushPending(); err != nil {
		return err
	}
	var due [][]byte
	c := t.bucket(bucketJobsNext).Cursor()
	for k, _ := c.First(); k != nil && len(due) < limit; k, _ = c.Next() {
		if keyTime(k[:8]).After(at) {
			break
		}
		due = append(due, k[8:])
	}
	return t.loadJobs(due, fn)
}

func (t *tx) JobNextRunAt() (time.Time, bool, error) {
	k, _ := t.bucket(bucketJobsNext).Cursor().First()
	if k == nil {
		return time.Time{}, false, nil
	}
	if len(k) < 8 {
		return time.Time{}, false, fmt.Errorf("next-run index: %w", store.ErrCorrupt)
	}
	return keyTime(k[:8]), true, nil
}

// ---- runs ----

func (t *tx) RunPut(r *store.Run) error {
	if err := t.writable(); err != nil {
		return err
	}
	if r.ExecutionID == "" || r.JobID == "" {
		return errors.New("put run: executionId and jobId are required")
	}
	if !strings.HasPrefix(r.ExecutionID, r.JobID+"@") {
		return fmt.Errorf("put run: executionId %q does not start with its jobId and @", r.ExecutionID)
	}
	t.put(bucketRuns, r.ExecutionID, copyRun(r))
	return nil
}

func (t *tx) RunGet(id string) (*store.Run, error) {
	if p := t.pending(bucketRuns, []byte(id)); p != nil {
		return copyRun(p.(*store.Run)), nil
	}
	v := t.bucket(bucketRuns).Get([]byte(id))
	if v == nil {
		return nil, notFound("run", id)
	}
	return decode[store.Run]("run", []byte(id), v)
}

// RunList reads a job's runs backwards from the end of its key range:
// executionIds are jobId@<UTC instant>, so key order is time order and no
// index is needed.
func (t *tx) RunList(jobID string, limit int) ([]*store.Run, error) {
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	if err := t.flushPending(); err != nil {
		return nil, err
	}
	prefix := []byte(jobID + "@")
	end := []byte(jobID + "A") // '@'+1: just past the job's range
	c := t.bucket(bucketRuns).Cursor()
	k, v := c.Seek(end)
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	var out []*store.Run
	for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, v = c.Prev() {
		r, err := decode[store.Run]("run", k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// ---- queue ----

func (t *tx) QueueAdd(item *store.QueueItem) error {
	if err := t.writable(); err != nil {
		return err
	}
	if item.Queue == "" {
		item.Queue = store.QueueIncoming
	}
	if !item.Queue.Valid() {
		return fmt.Errorf("add queue item: unknown queue %q", item.Queue)
	}
	now := time.Now().UTC()
	if item.CreatedAt.IsZero() {
		item.CreatedAt = now
	}
	if item.UpdatedAt.IsZero() {
		item.UpdatedAt = item.CreatedAt
	}
	if item.ItemID == "" {
		// A fresh ULID (monotonic in this process) cannot be in the queue
		// already, so only a caller's own id is looked up.
		item.ItemID = t.s.newID(now) // claim order is arrival order
	} else if _, ok := t.stageOf([]byte(item.ItemID)); ok {
		return fmt.Errorf("queue item %s: %w", item.ItemID, store.ErrExists)
	}
	return t.queueWrite(item)
}

// stageOf finds the queue an item is in. There is no id index: five
// lookups cost less than writing one more key for every item.
func (t *tx) stageOf(id []byte) (store.QueueName, bool) {
	for _, q := range store.QueueNames {
		if t.pending(queueBucket(q), id) != nil || t.bucket(queueBucket(q)).Get(id) != nil {
			return q, true
		}
	}
	return "", false
}

func (t *tx) queueWrite(item *store.QueueItem) error {
	t.put(queueBucket(item.Queue), item.ItemID, copyItem(item))
	return nil
}

func (t *tx) QueueGet(id string) (*store.QueueItem, error) {
	q, ok := t.stageOf([]byte(id))
	if !ok {
		return nil, notFound("queue item", id)
	}
	if p := t.pending(queueBucket(q), []byte(id)); p != nil {
		return copyItem(p.(*store.QueueItem)), nil
	}
	return decode[store.QueueItem]("queue item", []byte(id), t.bucket(queueBucket(q)).Get([]byte(id)))
}

func (t *tx) QueuePut(item *store.QueueItem) error {
	if err := t.writable(); err != nil {
		return err
	}
	if !item.Queue.Valid() {
		return fmt.Errorf("put queue item %s: unknown queue %q", item.ItemID, item.Queue)
	}
	q, ok := t.stageOf([]byte(item.ItemID))
	if !ok {
		return notFound("queue item", item.ItemID)
	}
	if q != item.Queue {
		if err := t.del(queueBucket(q), []byte(item.ItemID)); err != nil {
			return err
		}
	}
	return t.queueWrite(item)
}

func (t *tx) QueueClaim(now time.Time, limit int) ([]*store.QueueItem, error) {
	if err := t.flushPending(); err != nil {
		return nil, err
	}
	var claimed []*store.QueueItem
	c := t.bucket(queueBucket(store.QueueIncoming)).Cursor()
	for k, v := c.First(); k != nil && len(claimed) < limit; k, v = c.Next() {
		item, err := decode[store.QueueItem]("queue item", k, v)
		if err != nil {
			return nil, err
		}
		if item.NotBefore.After(now) {
			continue
		}
		claimed = append(claimed, item)
	}
	for _, item := range claimed {
		item.Queue = store.QueueProcessing
		item.UpdatedAt = now
		if err := t.QueuePut(item); err != nil {
			return nil, err
		}
	}
	return claimed, nil
}

func (t *tx) QueueList(p *store.QueueListParams) ([]*store.QueueItem, error) {
	if !p.Queue.Valid() {
		return nil, fmt.Errorf("list queue: unknown queue %q", p.Queue)
	}
	if err := t.flushPending(); err != nil {
		return nil, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	c := t.bucket(queueBucket(p.Queue)).Cursor()
	k, v := c.First()
	if p.After != "" {
		k, v = c.Seek([]byte(p.After))
		if string(k) == p.After {
			k, v = c.Next()
		}
	}
	out := []*store.QueueItem{}
	for ; k != nil && len(out) < limit; k, v = c.Next() {
		item, err := decode[store.QueueItem]("queue item", k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

func (t *tx) QueueCount(q store.QueueName) (int, error) {
	if !q.Valid() {
		return 0, fmt.Errorf("count queue: unknown queue %q", q)
	}
	if err := t.flushPending(); err != nil {
		return 0, err
	}
	if !t.b.Writable() {
		return t.bucket(queueBucket(q)).Stats().KeyN, nil
	}
	// A bucket's Stats read its pages, not this transaction's changes.
	n := 0
	c := t.bucket(queueBucket(q)).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n, nil
}

func (t *tx) QueueDelete(id string) error {
	q, ok := t.stageOf([]byte(id))
	if !ok {
		return notFound("queue item", id)
	}
	return t.del(queueBucket(q), []byte(id))
}

// ---- audit ----

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

// flush writes what the transaction kept in memory; run calls it before
// commit.
func (t *tx) flush() error {
	if err := t.flushPending(); err != nil {
		return err
	}
	if !t.headDirty {
		return nil
	}
	return t.bucket(bucketMeta).Put(keyAuditHead, append(seqKey(t.headSeq), t.headHash...))
}

// AuditAppend numbers ev at once; its body is encoded at flush with the
// other pending records, and chained there in order (PrevHash and Hash are
// set on ev then, before the transaction commits).
func (t *tx) AuditAppend(ev *store.AuditEvent) error {
	if err := t.writable(); err != nil {
		return err
	}
	seq, _ := t.auditHead()
	ev.Seq = seq + 1
	if ev.At.IsZero() {
		ev.At = time.Now().UTC()
	}
	c := *ev
	c.Hash, c.PrevHash = "", prevHashPlaceholder
	c.Before, c.After = slices.Clone(ev.Before), slices.Clone(ev.After)
	t.enqueue(t.newPending(pendingPut{bucket: bucketAudit, key: string(seqKey(ev.Seq)), val: &c, audit: ev}))
	t.headSeq, t.headDirty = ev.Seq, true
	return nil
}
