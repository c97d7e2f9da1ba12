package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

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
}

// loadJob decodes a stored job and remembers its indexed fields.
func (t *tx) loadJob(id, v []byte) (*store.Job, error) {
	j, err := decode[store.Job]("job", id, v)
	if err != nil {
		return nil, err
	}
	t.remember(j.JobID, jobMeta{state: j.State, next: j.NextRunAt, name: j.Name})
	return j, nil
}

func (t *tx) remember(id string, m jobMeta) {
	if t.seen == nil {
		t.seen = map[string]jobMeta{}
	}
	t.seen[id] = m
}

func (t *tx) bucket(name []byte) *bolt.Bucket { return t.b.Bucket(name) }

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

func decode[T any](what string, key, v []byte) (*T, error) {
	var x T
	if err := json.Unmarshal(v, &x); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w: %v", what, key, store.ErrCorrupt, err)
	}
	return &x, nil
}

// ---- jobs ----

func (t *tx) JobGet(id string) (*store.Job, error) {
	v := t.bucket(bucketJobs).Get([]byte(id))
	if v == nil {
		return nil, fmt.Errorf("job %s: %w", id, store.ErrNotFound)
	}
	return t.loadJob([]byte(id), v)
}

func (t *tx) JobGetByName(name string) (*store.Job, error) {
	id := t.bucket(bucketJobNames).Get([]byte(name))
	if id == nil {
		return nil, fmt.Errorf("job named %q: %w", name, store.ErrNotFound)
	}
	return t.JobGet(string(id))
}

func (t *tx) JobPut(j *store.Job) error {
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
	var old *jobMeta
	if m, ok := t.seen[j.JobID]; ok {
		old = &m
	} else if v := t.bucket(bucketJobs).Get(id); v != nil {
		// Only the indexed fields of the old record are needed to unindex it.
		ix, err := decode[indexed]("job", id, v)
		if err != nil {
			return err
		}
		old = &jobMeta{state: ix.State, next: ix.NextRunAt, name: ix.Name}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", j.JobID, err)
	}
	if err := t.bucket(bucketJobs).Put(id, b); err != nil {
		return err
	}
	next := jobMeta{state: j.State, next: j.NextRunAt, name: j.Name}
	if err := t.reindex(j.JobID, old, &next); err != nil {
		return err
	}
	t.remember(j.JobID, next)
	return nil
}

// jobMeta is what a job's indexes are built from.
type jobMeta struct {
	state store.JobState
	next  time.Time
	name  string
}

// indexed is the part of a stored job its indexes are built from.
type indexed struct {
	Name      string         `json:"name"`
	State     store.JobState `json:"state"`
	NextRunAt time.Time      `json:"nextRunAt"`
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
	page := &store.JobPage{Jobs: []*store.Job{}}
	jobs := t.bucket(bucketJobs)
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
			j, err := t.loadJob(id, jobs.Get(id))
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

func (t *tx) JobsDue(at time.Time, limit int) ([]*store.Job, error) {
	type raw struct{ id, v []byte }
	var due []raw
	jobs := t.bucket(bucketJobs)
	c := t.bucket(bucketJobsNext).Cursor()
	for k, _ := c.First(); k != nil && len(due) < limit; k, _ = c.Next() {
		if keyTime(k[:8]).After(at) {
			break
		}
		due = append(due, raw{k[8:], jobs.Get(k[8:])})
	}
	// Decoding a burst is most of reading it: share it among the cores.
	// The values stay valid (and unchanged) for the transaction's life.
	out := make([]*store.Job, len(due))
	errs := make([]error, len(due))
	workers := min(runtime.GOMAXPROCS(0), 1+len(due)/512)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(due); i += workers {
				out[i], errs[i] = decode[store.Job]("job", due[i].id, due[i].v)
			}
		})
	}
	wg.Wait()
	for i, j := range out {
		if errs[i] != nil {
			return nil, errs[i]
		}
		t.remember(j.JobID, jobMeta{state: j.State, next: j.NextRunAt, name: j.Name})
	}
	return out, nil
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
	if r.ExecutionID == "" || r.JobID == "" {
		return errors.New("put run: executionId and jobId are required")
	}
	if !strings.HasPrefix(r.ExecutionID, r.JobID+"@") {
		return fmt.Errorf("put run: executionId %q does not start with its jobId and @", r.ExecutionID)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", r.ExecutionID, err)
	}
	return t.bucket(bucketRuns).Put([]byte(r.ExecutionID), b)
}

func (t *tx) RunGet(id string) (*store.Run, error) {
	v := t.bucket(bucketRuns).Get([]byte(id))
	if v == nil {
		return nil, fmt.Errorf("run %s: %w", id, store.ErrNotFound)
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
		item.ItemID = t.s.newID(now) // claim order is arrival order
	}
	if _, ok := t.stageOf([]byte(item.ItemID)); ok {
		return fmt.Errorf("queue item %s: %w", item.ItemID, store.ErrExists)
	}
	return t.queueWrite(item)
}

// stageOf finds the queue an item is in. There is no id index: five
// lookups cost less than writing one more key for every item.
func (t *tx) stageOf(id []byte) (store.QueueName, bool) {
	for _, q := range store.QueueNames {
		if t.bucket(queueBucket(q)).Get(id) != nil {
			return q, true
		}
	}
	return "", false
}

func (t *tx) queueWrite(item *store.QueueItem) error {
	b, err := json.Marshal(item)
	if err != nil {
		return fmt.Errorf("encode queue item %s: %w", item.ItemID, err)
	}
	return t.bucket(queueBucket(item.Queue)).Put([]byte(item.ItemID), b)
}

func (t *tx) QueueGet(id string) (*store.QueueItem, error) {
	q, ok := t.stageOf([]byte(id))
	if !ok {
		return nil, fmt.Errorf("queue item %s: %w", id, store.ErrNotFound)
	}
	return decode[store.QueueItem]("queue item", []byte(id), t.bucket(queueBucket(q)).Get([]byte(id)))
}

func (t *tx) QueuePut(item *store.QueueItem) error {
	if !item.Queue.Valid() {
		return fmt.Errorf("put queue item %s: unknown queue %q", item.ItemID, item.Queue)
	}
	q, ok := t.stageOf([]byte(item.ItemID))
	if !ok {
		return fmt.Errorf("queue item %s: %w", item.ItemID, store.ErrNotFound)
	}
	if q != item.Queue {
		if err := t.bucket(queueBucket(q)).Delete([]byte(item.ItemID)); err != nil {
			return err
		}
	}
	return t.queueWrite(item)
}

func (t *tx) QueueClaim(now time.Time, limit int) ([]*store.QueueItem, error) {
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
	return t.bucket(queueBucket(q)).Stats().KeyN, nil
}

func (t *tx) QueueDelete(id string) error {
	q, ok := t.stageOf([]byte(id))
	if !ok {
		return fmt.Errorf("queue item %s: %w", id, store.ErrNotFound)
	}
	return t.bucket(queueBucket(q)).Delete([]byte(id))
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
	if !t.headDirty {
		return nil
	}
	return t.bucket(bucketMeta).Put(keyAuditHead, append(seqKey(t.headSeq), t.headHash...))
}

func (t *tx) AuditAppend(ev *store.AuditEvent) error {
	seq, prev := t.auditHead()
	ev.Seq = seq + 1
	ev.PrevHash = hex.EncodeToString(prev)
	if ev.At.IsZero() {
		ev.At = time.Now().UTC()
	}
	body, err := store.AuditBody(ev)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	hash := store.AuditHash(prev, body)
	ev.Hash = hex.EncodeToString(hash)
	if err := t.bucket(bucketAudit).Put(seqKey(ev.Seq), append(slices.Clip(hash), body...)); err != nil {
		return err
	}
	t.headSeq, t.headHash, t.headDirty = ev.Seq, hash, true
	return nil
}

func decodeAudit(k, v []byte) (*store.AuditEvent, error) {
	if len(v) < 32 {
		return nil, fmt.Errorf("audit record %d: %w: short value", binary.BigEndian.Uint64(k), store.ErrCorrupt)
	}
	ev, err := decode[store.AuditEvent]("audit record", k, v[32:])
	if err != nil {
		return nil, err
	}
	ev.Hash = hex.EncodeToString(v[:32])
	return ev, nil
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
	c := t.bucket(bucketAudit).Cursor()
	out := []*store.AuditEvent{}
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

func (t *tx) AuditVerify() (int, error) {
	var prev []byte
	var want uint64 = 1
	n := 0
	c := t.bucket(bucketAudit).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return n, &store.ChainError{Seq: want, Reason: "malformed key"}
		}
		seq := binary.BigEndian.Uint64(k)
		if seq != want {
			return n, &store.ChainError{Seq: want, Reason: fmt.Sprintf("missing (the next record is %d)", seq)}
		}
		if len(v) < 32 {
			return n, &store.ChainError{Seq: seq, Reason: "record is truncated"}
		}
		if !bytes.Equal(store.AuditHash(prev, v[32:]), v[:32]) {
			return n, &store.ChainError{Seq: seq, Reason: "hash does not match its contents and the previous record (edited)"}
		}
		prev = v[:32]
		want++
		n++
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
