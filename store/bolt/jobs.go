package bolt

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
)

// A job is stored as two records: its definition in "jobs" (JSON) and its
// status (what changes each time it fires) in "job_status" (binary,
// status.go). A burst of due jobs then rewrites 100-byte statuses instead
// of whole jobs; JobPut writes a definition only when it differs from the
// one read in the same transaction.

// jobStatus is the part of a job that its runs change.
type jobStatus struct {
	State          store.JobState `json:"state"`
	NextRunAt      time.Time      `json:"nextRunAt,omitzero"`
	NextRunAtLocal string         `json:"nextRunAtLocal,omitempty"`
	LastRunAt      time.Time      `json:"lastRunAt,omitzero"`
	LastResult     *store.Result  `json:"lastResult,omitempty"`
	RunCount       int64          `json:"runCount"`
	UpdatedAt      time.Time      `json:"updatedAt"`
}

// splitJob returns copies of j's definition (status fields zero) and status.
func splitJob(j *store.Job) (*store.Job, *jobStatus) {
	def := copyJob(j)
	st := &jobStatus{State: def.State, NextRunAt: def.NextRunAt, NextRunAtLocal: def.NextRunAtLocal,
		LastRunAt: def.LastRunAt, LastResult: def.LastResult, RunCount: def.RunCount, UpdatedAt: def.UpdatedAt}
	def.State, def.NextRunAt, def.NextRunAtLocal, def.LastRunAt = "", time.Time{}, "", time.Time{}
	def.LastResult, def.RunCount, def.UpdatedAt = nil, 0, time.Time{}
	return def, st
}

// mergeJob returns a new job from a definition and a status; it shares
// nothing with either.
func mergeJob(def *store.Job, st *jobStatus) *store.Job {
	j := copyJob(def)
	j.State, j.NextRunAt, j.NextRunAtLocal, j.LastRunAt = st.State, st.NextRunAt, st.NextRunAtLocal, st.LastRunAt
	j.RunCount, j.UpdatedAt = st.RunCount, st.UpdatedAt
	if st.LastResult != nil {
		r := *st.LastResult
		j.LastResult = &r
	}
	return j
}

// jobMeta is what a job's indexes are built from, and the definition this
// transaction last read or wrote (never handed to a caller).
type jobMeta struct {
	state store.JobState
	next  time.Time
	name  string
	def   *store.Job
}

func (t *tx) remember(id string, m jobMeta) {
	if t.seen == nil {
		t.seen = map[string]jobMeta{}
	}
	t.seen[id] = m
}

// jobParts reads a job's two records, pending or stored, undecoded when
// stored. ok is false when the job does not exist.
func (t *tx) jobParts(id []byte) (def, st any, defRaw, stRaw []byte, ok bool) {
	if def = t.pending(bucketJobs, id); def == nil {
		defRaw = t.bucket(bucketJobs).Get(id)
	}
	if st = t.pending(bucketJobStatus, id); st == nil {
		stRaw = t.bucket(bucketJobStatus).Get(id)
	}
	return def, st, defRaw, stRaw, (def != nil || defRaw != nil) && (st != nil || stRaw != nil)
}

func decodeParts(id []byte, def, st any, defRaw, stRaw []byte) (*store.Job, *jobStatus, error) {
	var err error
	d, _ := def.(*store.Job)
	if d == nil {
		if d, err = decode[store.Job]("job", id, defRaw); err != nil {
			return nil, nil, err
		}
	}
	s, _ := st.(*jobStatus)
	if s == nil {
		if s, err = decodeStatus(id, stRaw); err != nil {
			return nil, nil, err
		}
	}
	return d, s, nil
}

// loadJob returns the job with id (nil when there is none) and remembers
// its indexed fields and definition.
func (t *tx) loadJob(id []byte) (*store.Job, error) {
	def, st, defRaw, stRaw, ok := t.jobParts(id)
	if !ok {
		if def != nil || defRaw != nil || st != nil || stRaw != nil {
			return nil, fmt.Errorf("job %s: %w: one of its two records is missing", id, store.ErrCorrupt)
		}
		return nil, nil
	}
	d, s, err := decodeParts(id, def, st, defRaw, stRaw)
	if err != nil {
		return nil, err
	}
	t.remember(string(id), jobMeta{state: s.State, next: s.NextRunAt, name: d.Name, def: d})
	return mergeJob(d, s), nil
}

// loadJobs is loadJob for many ids, calling fn with each in order. A big
// batch is decoded ahead on other goroutines while fn runs: decoding is
// most of reading a burst. The stored values read here stay valid and
// unchanged for the transaction's life (bbolt copies on write, and this
// transaction's writes to jobs wait in pending until flush).
func (t *tx) loadJobs(ids [][]byte, fn func(*store.Job) error) error {
	type parts struct {
		defRaw, stRaw []byte
		d             *store.Job
		s             *jobStatus
		j             *store.Job // the caller's copy, merged off this goroutine too
		err           error
	}
	ps := make([]parts, len(ids))
	if t.seen == nil {
		t.seen = make(map[string]jobMeta, len(ids))
	}
	defs, sts := cursorReader{c: t.bucket(bucketJobs).Cursor()}, cursorReader{c: t.bucket(bucketJobStatus).Cursor()}
	for i, id := range ids {
		ps[i].defRaw, ps[i].stRaw = defs.get(id), sts.get(id)
		if ps[i].defRaw == nil || ps[i].stRaw == nil {
			return fmt.Errorf("job %s: %w: indexed but not stored whole", id, store.ErrCorrupt)
		}
	}
	const chunk = 128
	n := (len(ids) + chunk - 1) / chunk
	done := make([]chan struct{}, n)
	decodeChunk := func(c int) {
		for i := c * chunk; i < min(len(ids), (c+1)*chunk); i++ {
			p := &ps[i]
			if p.d, p.s, p.err = decodeParts(ids[i], nil, nil, p.defRaw, p.stRaw); p.err == nil {
				p.j = mergeJob(p.d, p.s)
			}
		}
	}
	if n > 2 {
		for i := range done {
			done[i] = make(chan struct{})
		}
		var next atomic.Int64
		var stop atomic.Bool
		var wg sync.WaitGroup
		defer func() { stop.Store(true); wg.Wait() }()
		for range max(1, runtime.GOMAXPROCS(0)-1) {
			wg.Go(func() {
				for c := int(next.Add(1) - 1); c < n && !stop.Load(); c = int(next.Add(1) - 1) {
					decodeChunk(c)
					close(done[c])
				}
			})
		}
	}
	for c := range n {
		if done[c] != nil {
			<-done[c]
		} else {
			decodeChunk(c)
		}
		for i := c * chunk; i < min(len(ids), (c+1)*chunk); i++ {
			p := &ps[i]
			if p.err != nil {
				return p.err
			}
			t.remember(string(ids[i]), jobMeta{state: p.s.State, next: p.s.NextRunAt, name: p.d.Name, def: p.d})
			if err := fn(p.j); err != nil {
				return err
			}
		}
	}
	return nil
}

// cursorReader reads keys that mostly come in order (a burst's jobs are
// due at the same instant, so in id order): stepping a cursor forward is a
// fraction of a Get, which descends from the root every time.
type cursorReader struct {
	c   *bolt.Cursor
	k   []byte
	v   []byte
	pos bool
}

func (r *cursorReader) get(key []byte) []byte {
	if r.pos && bytes.Compare(r.k, key) <= 0 {
		for range 4 {
			switch bytes.Compare(r.k, key) {
			case 0:
				return r.v
			case 1:
				return nil // passed it: not there
			}
			if r.k, r.v = r.c.Next(); r.k == nil {
				r.pos = false
				return nil
			}
		}
	}
	r.k, r.v = r.c.Seek(key)
	r.pos = r.k != nil
	if r.pos && bytes.Equal(r.k, key) {
		return r.v
	}
	return nil
}

// storedMeta returns the indexed fields of job id as stored or pending, nil
// for a new job.
func (t *tx) storedMeta(id []byte) (*jobMeta, error) {
	if m, ok := t.seen[string(id)]; ok {
		return &m, nil // every pending job is in seen
	}
	defRaw, stRaw := t.bucket(bucketJobs).Get(id), t.bucket(bucketJobStatus).Get(id)
	if defRaw == nil && stRaw == nil {
		return nil, nil
	}
	if defRaw == nil || stRaw == nil {
		return nil, fmt.Errorf("job %s: %w: one of its two records is missing", id, store.ErrCorrupt)
	}
	name, err := decode[struct {
		Name string `json:"name"`
	}]("job", id, defRaw)
	if err != nil {
		return nil, err
	}
	st, err := decodeStatus(id, stRaw)
	if err != nil {
		return nil, err
	}
	return &jobMeta{state: st.State, next: st.NextRunAt, name: name.Name}, nil
}

// writeJob queues j's status, and its definition unless it is the one
// this transaction read or wrote (a job that only fired keeps its record).
func (t *tx) writeJob(j *store.Job, old *jobMeta) *jobMeta {
	def := (*store.Job)(nil)
	if old != nil && old.def != nil && sameDefinition(old.def, j) {
		def = old.def
	} else {
		def, _ = splitJob(j)
		t.put(bucketJobs, j.JobID, def)
	}
	st := &jobStatus{State: j.State, NextRunAt: j.NextRunAt, NextRunAtLocal: j.NextRunAtLocal,
		LastRunAt: j.LastRunAt, RunCount: j.RunCount, UpdatedAt: j.UpdatedAt}
	if j.LastResult != nil {
		r := *j.LastResult
		st.LastResult = &r
	}
	t.put(bucketJobStatus, j.JobID, st)
	return &jobMeta{state: j.State, next: j.NextRunAt, name: j.Name, def: def}
}

// sameDefinition reports whether j's definition (every field but the
// status ones) equals def, so that storing def again would change nothing.
// TestSameDefinitionCoversEveryField fails when a Job field is added and
// not compared here. Instants compare as instants, as they are stored.
func sameDefinition(def, j *store.Job) bool {
	return def.JobID == j.JobID && def.OrchestratorID == j.OrchestratorID && def.Name == j.Name &&
		def.CreatedBy == j.CreatedBy && def.ScheduleType == j.ScheduleType &&
		def.Schedule.Cron == j.Schedule.Cron && def.Schedule.Timezone == j.Schedule.Timezone &&
		def.Schedule.EverySeconds == j.Schedule.EverySeconds && def.Schedule.StartAt.Equal(j.Schedule.StartAt) &&
		def.Schedule.RunAt.Equal(j.Schedule.RunAt) && def.Schedule.RRule == j.Schedule.RRule &&
		def.Schedule.Dtstart == j.Schedule.Dtstart && def.StartAt.Equal(j.StartAt) && def.EndAt.Equal(j.EndAt) &&
		def.TargetAction.Type == j.TargetAction.Type && def.TargetAction.WorkflowID == j.TargetAction.WorkflowID &&
		def.TargetAction.FunctionID == j.TargetAction.FunctionID &&
		bytes.Equal(def.TargetAction.FunctionArgs, j.TargetAction.FunctionArgs) &&
		(len(def.TargetAction.Inputs) == 0 && len(j.TargetAction.Inputs) == 0 ||
			reflect.DeepEqual(def.TargetAction.Inputs, j.TargetAction.Inputs)) &&
		(def.TargetRef == nil) == (j.TargetRef == nil) && (def.TargetRef == nil || *def.TargetRef == *j.TargetRef) &&
		def.MisfirePolicy == j.MisfirePolicy && def.OverlapPolicy == j.OverlapPolicy &&
		def.Description == j.Description && def.CreatedAt.Equal(j.CreatedAt)
}

// migrateSplitJobs rewrites the jobs of a schema 1 file (one record each)
// as definition and status.
func migrateSplitJobs(jobs, status interface {
	ForEach(func(k, v []byte) error) error
	Put(k, v []byte) error
}) error {
	type kv struct{ k, v []byte }
	var all []kv
	err := jobs.ForEach(func(k, v []byte) error {
		j, err := decode[store.Job]("job", k, v)
		if err != nil {
			return err
		}
		def, st := splitJob(j)
		d, err := encode(def)
		if err != nil {
			return err
		}
		s, err := encode(st)
		if err != nil {
			return err
		}
		all = append(all, kv{k, d}, kv{k, s})
		return nil
	})
	if err != nil {
		return err
	}
	// bbolt forbids writing a bucket while iterating it.
	for i := 0; i < len(all); i += 2 {
		if err := jobs.Put(all[i].k, all[i].v); err != nil {
			return err
		}
		if err := status.Put(all[i+1].k, all[i+1].v); err != nil {
			return err
		}
	}
	return nil
}
