package bolt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/schedbot/schedbot/store"
)

type tx struct {
	b *bolt.Tx
	s *Store

	// The audit chain's head, read once and written at commit: a burst
	// appends thousands of events in one transaction.
	headRead  bool
	headDirty bool
	headSeq   uint64
	headHash  []byte
	headHex   string // headHash in hex, once known

	// indexed holds the indexed fields of the jobs this transaction read
	// or wrote, so that a put after a read (a burst: 10,000 times) does not
	// decode the job again to move its index entries.
	indexed map[string]jobIndex

	// cursors are get's, by bucket name.
	cursors map[string]*bolt.Cursor

	// rewritten names the jobs this transaction wrote.
	rewritten map[string]bool

	// unreadable holds the next-run index keys of the due jobs JobsDue
	// could not read, for JobQuarantine.
	unreadable map[string][]byte

	// firing is set while JobsDue's fn runs; behind holds the records it
	// wrote that are not yet put (behind.go), and behindErr the first
	// failure to put them, which fails the transaction.
	firing    bool
	behind    *writeBehind
	behindErr error
}

// jobIndex is what a job's index entries are made of.
type jobIndex struct {
	State     store.JobState
	NextRunAt time.Time
	Name      string
}

// wrote notes that this transaction changed job id's records.
func (t *tx) wrote(id string) {
	if t.rewritten == nil {
		t.rewritten = map[string]bool{}
	}
	t.rewritten[id] = true
}

func (t *tx) remember(id string, x jobIndex) {
	if t.indexed == nil {
		t.indexed = map[string]jobIndex{}
	}
	t.indexed[id] = x
}

// storedIndex returns the indexed fields of job id as stored, nil for a
// new job.
func (t *tx) storedIndex(id string) (*jobIndex, error) {
	if _, ok := t.indexed[id]; !ok {
		if j, err := t.loadJob([]byte(id)); j == nil || err != nil {
			return nil, err // a new job, or one that does not read
		}
	}
	x := t.indexed[id]
	return &x, nil
}

// guard turns a panic in bbolt (a damaged page) into store.ErrCorrupt. Every
// Tx method defers it; code that calls back into the caller (JobsDue's fn)
// is outside it, so that the caller's own panics reach the caller.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", store.ErrCorrupt, r)
	}
}

func (t *tx) bucket(name []byte) *bolt.Bucket {
	if t.behind != nil && behindAt(name) >= 0 {
		t.drainOrFail()
	}
	b := t.b.Bucket(name)
	if b != nil {
		b.FillPercent = fillPercent(name)
	}
	return b
}

// fillPercent is how full bbolt packs a bucket's pages when it splits them.
// Its default (half) leaves room for inserts in the middle; where keys only
// grow at the end (audit seq, queue ULIDs), values keep their size (job
// status, rewritten in place) or a burst's keys arrive together (its jobs'
// next runs, all at one later instant), full pages halve what a burst
// writes there.
func fillPercent(name []byte) float64 {
	if bytes.Equal(name, bucketAudit) || bytes.Equal(name, bucketJobStatus) || bytes.Equal(name, bucketJobsNext) || bytes.HasPrefix(name, []byte("queue_")) {
		return 0.95
	}
	return bolt.DefaultFillPercent
}

// get is bucket name's Bucket.Get through one cursor per bucket for the
// transaction's life: a burst reads three records a job, and a fresh
// cursor allocates its path anew each time.
func (t *tx) get(name, key []byte) []byte {
	if t.isBehind(name, key) {
		t.drainOrFail()
	}
	c := t.cursors[string(name)]
	if c == nil {
		b := t.b.Bucket(name)
		if b == nil {
			return nil
		}
		if t.cursors == nil {
			t.cursors = map[string]*bolt.Cursor{}
		}
		c = b.Cursor()
		t.cursors[string(name)] = c
	}
	k, v := c.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v // nil for a nested bucket, as Get
}

func (t *tx) writable() error {
	if !t.b.Writable() {
		return berrors.ErrTxNotWritable
	}
	return nil
}

func (t *tx) put(bucket []byte, key string, v any) error {
	if t.putBehind(bucket, key, v) {
		return nil
	}
	b, err := encode(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", bucket, key, err)
	}
	return t.bucket(bucket).Put([]byte(key), b)
}

func timeKey(at time.Time) []byte { return appendTime(make([]byte, 0, 8), at) }

// appendTime appends at's 8-byte key. Offset so instants before 1970
// still sort; they never occur, but a corrupt value must not reorder the
// index.
func appendTime(b []byte, at time.Time) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(at.UnixNano())^(1<<63))
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

// A job is stored as two records: its definition in "jobs" and its
// status, the fields its runs change, in "job_status", both JSON. A burst
// then rewrites 10,000 statuses of 200 bytes rather than whole jobs: the
// scheduler fires with JobStatusPut, which writes the status alone, and
// JobPut writes a definition only when its bytes differ from the stored
// ones. A field added to Job is part of the definition and needs nothing
// here; a status field is added to store.JobStatus.

// loadJob returns the job with id, nil when there is none.
func (t *tx) loadJob(id []byte) (*store.Job, error) {
	j, err := t.readJob(id)
	if err == nil && j != nil {
		t.remember(j.JobID, jobIndex{j.State, j.NextRunAt, j.Name})
	}
	return j, err
}

// decodeJob decodes a job's two records.
func decodeJob(id, def, st []byte) (*store.Job, error) {
	if def == nil || st == nil {
		return nil, &store.RecordError{Kind: "job", ID: string(id), Err: errors.New("one of its two records is missing")}
	}
	j, err := decode[store.Job]("job", id, def)
	if err != nil {
		return nil, err
	}
	if err := decodeInto(st, j); err != nil {
		return nil, &store.RecordError{Kind: "job status", ID: string(id), Err: err}
	}
	return j, nil
}

func (t *tx) JobGet(id string) (j *store.Job, err error) {
	defer guard(&err)
	j, err = t.loadJob([]byte(id))
	if err == nil && j == nil {
		err = notFound("job", id)
	}
	return j, err
}

func (t *tx) JobGetByName(name string) (j *store.Job, err error) {
	defer guard(&err)
	id := t.bucket(bucketJobNames).Get([]byte(name))
	if id == nil {
		return nil, fmt.Errorf("job named %q: %w", name, store.ErrNotFound)
	}
	return t.JobGet(string(id))
}

func (t *tx) JobPut(j *store.Job) (err error) {
	defer guard(&err)
	if err := t.checkJob(j); err != nil {
		return err
	}
	old, err := t.storedIndex(j.JobID)
	if err != nil {
		return err
	}
	if err := t.checkName(j.JobID, j.Name, j.State); err != nil {
		return err
	}
	def, st := j.Definition(), j.Status()
	d, err := encode(def)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", j.JobID, err)
	}
	if !bytes.Equal(d, t.bucket(bucketJobs).Get([]byte(j.JobID))) {
		if err := t.bucket(bucketJobs).Put([]byte(j.JobID), d); err != nil {
			return err
		}
	}
	return t.putStatus(j.JobID, st, old, j.Name)
}

func (t *tx) JobStatusPut(j *store.Job) (err error) {
	defer guard(&err)
	if err := t.checkJob(j); err != nil {
		return err
	}
	old, err := t.storedIndex(j.JobID)
	if err != nil {
		return err
	}
	if old == nil {
		return notFound("job", j.JobID)
	}
	if err := t.checkName(j.JobID, old.Name, j.State); err != nil {
		return err
	}
	return t.putStatus(j.JobID, j.Status(), old, old.Name)
}

// checkJob refuses a job no store may hold.
func (t *tx) checkJob(j *store.Job) error {
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
	return nil
}

// checkName refuses a name another job holds (deleted jobs hold none).
func (t *tx) checkName(id, name string, state store.JobState) error {
	if name != "" && state != store.JobDeleted {
		if holder := t.get(bucketJobNames, []byte(name)); holder != nil && string(holder) != id {
			return fmt.Errorf("job name %q: %w (job %s)", name, store.ErrExists, holder)
		}
	}
	return nil
}

// putStatus writes a job's status record and moves its index entries from
// old (nil for a new job).
func (t *tx) putStatus(id string, st *store.JobStatus, old *jobIndex, name string) error {
	if err := t.put(bucketJobStatus, id, st); err != nil {
		return err
	}
	t.wrote(id)
	cur := jobIndex{st.State, st.NextRunAt, name}
	if err := t.reindex(id, old, &cur); err != nil {
		return err
	}
	t.remember(id, cur)
	return nil
}

// reindex moves a job's index entries from old (nil for a new job) to cur,
// touching only the ones that change.
func (t *tx) reindex(id string, old, cur *jobIndex) error {
	if old == nil {
		old = &jobIndex{}
	}
	nextIdx := t.bucket(bucketJobsNext)
	oldIn, curIn := old.State == store.JobEnabled, cur.State == store.JobEnabled
	if oldIn && (!curIn || !old.NextRunAt.Equal(cur.NextRunAt)) {
		if err := nextIdx.Delete(nextKey(old.NextRunAt, id)); err != nil {
			return err
		}
	}
	if curIn && (!oldIn || !old.NextRunAt.Equal(cur.NextRunAt)) {
		if err := nextIdx.Put(nextKey(cur.NextRunAt, id), nil); err != nil {
			return err
		}
	}
	if old.State != cur.State {
		states := t.bucket(bucketJobsState)
		if old.State != "" {
			if err := states.Delete(stateKey(old.State, id)); err != nil {
				return err
			}
		}
		if err := states.Put(stateKey(cur.State, id), nil); err != nil {
			return err
		}
	}
	names := t.bucket(bucketJobNames)
	oldName, curName := old.Name, cur.Name
	if old.State == store.JobDeleted {
		oldName = ""
	}
	if cur.State == store.JobDeleted {
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

func nextKey(at time.Time, id string) []byte {
	return append(appendTime(make([]byte, 0, 8+len(id)), at), id...)
}

// A cursor names the listing segment ("n" for the next-run index, else a
// state) and the last key returned in it.
func encodeCursor(seg string, key []byte) string { return seg + "." + hex.EncodeToString(key) }

func decodeCursor(c string) (seg string, key []byte, err error) {
	i := strings.IndexByte(c, '.')
	if i < 0 {
		return "", nil, errors.New("cursor: not a cursor from a previous page")
	}
	key, err = hex.DecodeString(c[i+1:])
	if err != nil {
		return "", nil, errors.New("cursor: not a cursor from a previous page")
	}
	return c[:i], key, nil
}

func (t *tx) JobList(p *store.JobListParams) (page *store.JobPage, err error) {
	defer guard(&err)
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
		if startSeg, startKey, err = decodeCursor(p.Cursor); err != nil {
			return nil, err
		}
		i := slices.Index(segs, startSeg)
		if i < 0 {
			return nil, errors.New("cursor: does not fit these filters")
		}
		segs = segs[i:]
	}
	page = &store.JobPage{Jobs: []*store.Job{}}
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
				page.NextCursor = encodeCursor(listKey(page.Jobs[limit-1]))
				return page, nil
			}
			page.Jobs = append(page.Jobs, j)
		}
	}
	return page, nil
}

func listKey(j *store.Job) (string, []byte) {
	if j.State == store.JobEnabled {
		return "n", nextKey(j.NextRunAt, j.JobID)
	}
	return string(j.State), stateKey(j.State, j.JobID)
}

func (t *tx) JobCount(states ...store.JobState) (n int, err error) {
	defer guard(&err)
	if len(states) == 0 {
		states = store.JobStates
	}
	c := t.bucket(bucketJobsState).Cursor()
	for _, st := range states {
		prefix := append([]byte(st), 0)
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			n++
		}
	}
	return n, nil
}

// JobsDue reads the due ids from the index first (fn may change the index);
// another goroutine reads and decodes their jobs ahead (decodeAhead)
// while fn fires the ones before: reading them was a fifth of a burst's
// CPU, and the transaction's goroutine is the only one that may write. A
// job this transaction wrote is read again when its turn comes.
func (t *tx) JobsDue(at time.Time, limit int, fn func(*store.Job) error) (err error) {
	keys, err := t.dueKeys(at, limit)
	if err != nil {
		return err
	}
	t.firing = true
	defer func() {
		t.firing = false
		if derr := t.drainOrFail(); err == nil {
			err = cmp.Or(t.behindErr, derr) // a drain in fn's reads failed: fn's first error
		}
	}()
	// Each due job is remembered and, once fired, noted as written: sized
	// once, the two maps do not grow ten times in a burst.
	if t.indexed == nil {
		t.indexed = make(map[string]jobIndex, len(keys))
	}
	if t.rewritten == nil {
		t.rewritten = make(map[string]bool, len(keys))
	}
	ahead, stop := t.decodeAhead(keys)
	defer stop()
	var bad []*store.RecordError
	n := 0
	for _, k := range keys {
		if n == limit {
			break
		}
		d := <-ahead
		if t.rewritten[string(k[8:])] {
			d.j, d.err = t.loadJob(k[8:])
		} else if d.err == nil && d.j != nil {
			t.remember(d.j.JobID, jobIndex{d.j.State, d.j.NextRunAt, d.j.Name})
		}
		j, err := dueOnly(k, at, d.j, d.err)
		var re *store.RecordError
		if errors.As(err, &re) {
			bad = append(bad, re)
			if t.unreadable == nil {
				t.unreadable = map[string][]byte{}
			}
			t.unreadable[string(k[8:])] = k
			continue
		} else if err != nil {
			return err
		} else if j == nil {
			continue
		}
		n++
		if err := fn(j); err != nil {
			return err
		}
	}
	if bad != nil {
		return &store.UnreadableJobsError{Jobs: bad}
	}
	return nil
}

// decoded is a job decodeAhead read.
type decoded struct {
	j   *store.Job
	err error
}

// decodeAhead reads the records of the jobs of keys and decodes them on
// another goroutine, in order, into ahead; stop ends it and waits for it.
// The goroutine reads in a read transaction of its own: it sees what the
// last commit left, which is what this transaction started from, but
// for the jobs written since (t.rewritten), which JobsDue reads again.
func (t *tx) decodeAhead(keys [][]byte) (ahead chan decoded, stop func()) {
	ahead = make(chan decoded, len(keys)) // never full: the goroutine never waits
	rtx, err := t.s.db.Begin(false)
	if err != nil {
		for range keys {
			ahead <- decoded{err: err}
		}
		return ahead, func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer rtx.Rollback()
		r := &tx{b: rtx, s: t.s}
		for _, k := range keys {
			select {
			case <-done:
				return
			default:
			}
			var d decoded
			d.j, d.err = r.readJob(k[8:])
			ahead <- d
		}
	})
	return ahead, func() {
		close(done)
		wg.Wait()
	}
}

// readJob returns the job with id, nil when there is none; bbolt's panics
// (a damaged page) are errors. loadJob also remembers what it read.
func (t *tx) readJob(id []byte) (j *store.Job, err error) {
	defer guard(&err)
	def, st := t.get(bucketJobs, id), t.get(bucketJobStatus, id)
	if def == nil && st == nil {
		return nil, nil
	}
	return decodeJob(id, def, st)
}

// dueOnly is j, read for index key k, when it is still due at at; a key
// whose job is gone is an error.
func dueOnly(k []byte, at time.Time, j *store.Job, err error) (*store.Job, error) {
	if err == nil && j == nil {
		// An index entry whose job is gone: one job's problem, set aside
		// like a record that does not read, not the whole store's.
		err = &store.RecordError{Kind: "job", ID: string(k[8:]), Err: errors.New("due in the next-run index, but neither of its records is stored")}
	}
	if err != nil || j.State != store.JobEnabled || j.NextRunAt.After(at) {
		return nil, err
	}
	return j, nil
}

// dueKeys returns the next-run index keys due at or before at, a few past
// limit (jobs that do not read or are no longer due are passed over).
func (t *tx) dueKeys(at time.Time, limit int) (keys [][]byte, err error) {
	defer guard(&err)
	c := t.bucket(bucketJobsNext).Cursor()
	for k, _ := c.First(); k != nil && len(keys) < limit+limit/8+16; k, _ = c.Next() {
		if len(k) < 8 {
			return nil, fmt.Errorf("next-run index: %w: key %x", store.ErrCorrupt, k)
		}
		if keyTime(k[:8]).After(at) {
			break
		}
		keys = append(keys, slices.Clone(k))
	}
	return keys, nil
}

func (t *tx) JobQuarantine(id string) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	j, err := t.loadJob([]byte(id))
	if err == nil && j != nil {
		return fmt.Errorf("quarantine job %s: its record reads; disable it with JobPut", id)
	}
	gone := err == nil // neither record stored: only index entries are left
	found := false
	next := t.bucket(bucketJobsNext)
	if k := t.unreadable[id]; k != nil {
		if err := next.Delete(k); err != nil {
			return err
		}
		found = true
	} else {
		// Not met by JobsDue: its entry, if any, is found by its id.
		c := next.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) >= 8 && string(k[8:]) == id {
				if err := c.Delete(); err != nil {
					return err
				}
				found = true
				break
			}
		}
	}
	states := t.bucket(bucketJobsState)
	if gone {
		// No job to count as disabled: its index entries go.
		for _, st := range store.JobStates {
			if states.Get(stateKey(st, id)) != nil {
				found = true
			}
			if err := states.Delete(stateKey(st, id)); err != nil {
				return err
			}
		}
		if !found {
			return notFound("job", id)
		}
		return nil
	}
	for _, st := range store.JobStates {
		if err := states.Delete(stateKey(st, id)); err != nil {
			return err
		}
	}
	return states.Put(stateKey(store.JobDisabled, id), nil)
}

func (t *tx) JobNextRunAt() (at time.Time, ok bool, err error) {
	defer guard(&err)
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

func (t *tx) RunPut(r *store.Run) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	if r.ExecutionID == "" || r.JobID == "" {
		return errors.New("put run: executionId and jobId are required")
	}
	if id := r.ExecutionID; len(id) <= len(r.JobID) || id[len(r.JobID)] != '@' || !strings.HasPrefix(id, r.JobID) {
		return fmt.Errorf("put run: executionId %q does not start with its jobId and @", r.ExecutionID)
	}
	return t.put(bucketRuns, r.ExecutionID, r)
}

func (t *tx) RunGet(id string) (r *store.Run, err error) {
	defer guard(&err)
	v := t.get(bucketRuns, []byte(id))
	if v == nil {
		return nil, notFound("run", id)
	}
	return decode[store.Run]("run", []byte(id), v)
}

// RunList reads a job's runs backwards from the end of its key range:
// executionIds are jobId@<UTC instant>, so key order is time order and no
// index is needed.
func (t *tx) RunList(jobID string, limit int) (out []*store.Run, err error) {
	defer guard(&err)
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	prefix := []byte(jobID + "@")
	end := []byte(jobID + "A") // '@'+1: just past the job's range
	c := t.bucket(bucketRuns).Cursor()
	k, _ := c.Seek(end)
	var v []byte
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
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

func (t *tx) QueueAdd(item *store.QueueItem) (err error) {
	defer guard(&err)
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
	if item.Queue == store.QueueOutgoing {
		if err := t.laneIndexPut(item); err != nil {
			return err
		}
	}
	return t.put(queueBucket(item.Queue), item.ItemID, item)
}

// stageOf finds the queue an item is in. There is no id index: five
// lookups cost less than writing one more key for every item.
func (t *tx) stageOf(id []byte) (store.QueueName, bool) {
	for _, q := range store.QueueNames {
		if t.get(queueBucket(q), id) != nil {
			return q, true
		}
	}
	return "", false
}

func (t *tx) QueueGet(id string) (item *store.QueueItem, err error) {
	defer guard(&err)
	q, ok := t.stageOf([]byte(id))
	if !ok {
		return nil, notFound("queue item", id)
	}
	return decode[store.QueueItem]("queue item", []byte(id), t.bucket(queueBucket(q)).Get([]byte(id)))
}

func (t *tx) QueuePut(item *store.QueueItem) (err error) {
	defer guard(&err)
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
	if q == store.QueueOutgoing {
		if err := t.laneIndexDelete([]byte(item.ItemID)); err != nil {
			return err
		}
	}
	if item.Queue == store.QueueOutgoing {
		if err := t.laneIndexPut(item); err != nil {
			return err
		}
	}
	if q != item.Queue {
		if err := t.bucket(queueBucket(q)).Delete([]byte(item.ItemID)); err != nil {
			return err
		}
	}
	return t.put(queueBucket(item.Queue), item.ItemID, item)
}

func (t *tx) QueueClaim(now time.Time, limit int) (claimed []*store.QueueItem, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return nil, err
	}
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
	incoming, processing := t.bucket(queueBucket(store.QueueIncoming)), queueBucket(store.QueueProcessing)
	for _, item := range claimed {
		item.Queue, item.UpdatedAt = store.QueueProcessing, now
		if err := incoming.Delete([]byte(item.ItemID)); err != nil {
			return nil, err
		}
		if err := t.put(processing, item.ItemID, item); err != nil {
			return nil, err
		}
	}
	return claimed, nil
}

func (t *tx) QueueList(p *store.QueueListParams) (out []*store.QueueItem, err error) {
	defer guard(&err)
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
	out = []*store.QueueItem{}
	for ; k != nil && len(out) < limit; k, v = c.Next() {
		item, err := decode[store.QueueItem]("queue item", k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

func (t *tx) QueueCount(q store.QueueName) (n int, err error) {
	defer guard(&err)
	if !q.Valid() {
		return 0, fmt.Errorf("count queue: unknown queue %q", q)
	}
	if !t.b.Writable() {
		return t.bucket(queueBucket(q)).Stats().KeyN, nil
	}
	// A bucket's Stats read its pages, not this transaction's changes.
	c := t.bucket(queueBucket(q)).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n, nil
}

func (t *tx) QueueDelete(id string) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	q, ok := t.stageOf([]byte(id))
	if !ok {
		return notFound("queue item", id)
	}
	if q == store.QueueOutgoing {
		if err := t.laneIndexDelete([]byte(id)); err != nil {
			return err
		}
	}
	return t.bucket(queueBucket(q)).Delete([]byte(id))
}

// QueuePrune walks the whole done queue: ids need not sort by time (a
// caller may choose them), so no prefix of it is the oldest items.
func (t *tx) QueuePrune(before time.Time, limit int) (n int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	var old [][]byte
	c := t.bucket(queueBucket(store.QueueDone)).Cursor()
	for k, v := c.First(); k != nil && len(old) < limit; k, v = c.Next() {
		item, err := decode[struct {
			UpdatedAt time.Time `json:"updatedAt"`
		}]("queue item", k, v)
		if err != nil {
			return 0, err
		}
		if item.UpdatedAt.Before(before) {
			old = append(old, slices.Clone(k))
		}
	}
	done := t.bucket(queueBucket(store.QueueDone))
	for _, k := range old {
		if err := done.Delete(k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
