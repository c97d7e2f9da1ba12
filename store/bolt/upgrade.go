package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
)

// upgrade brings a file of an older schema up to this one, in the
// transaction that opens it for writing. Schema 1 stored a job as one
// record; schema 2 stored its status in binary (or JSON, as now), and the
// audit events a transaction appended in blocks. Both are rewritten here
// as schema 3 stores them.
func upgrade(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	v := string(meta.Get(keyVersion))
	if v != "1" && v != "2" {
		return nil
	}
	status, err := tx.CreateBucketIfNotExists(bucketJobStatus)
	if err != nil {
		return err
	}
	if err := rewriteJobsV2(tx.Bucket(bucketJobs), status, v == "1"); err != nil {
		return err
	}
	if err := splitAuditBlocksV2(tx.Bucket(bucketAudit)); err != nil {
		return err
	}
	return meta.Put(keyVersion, []byte(schemaVersion))
}

// rewriteJobsV2 splits each schema 1 job into its definition and status, or
// rewrites a schema 2 status that is binary as JSON.
func rewriteJobsV2(jobs, status *bolt.Bucket, whole bool) error {
	type kv struct{ k, def, st []byte }
	var all []kv
	err := jobs.ForEach(func(k, v []byte) error {
		var j *store.Job
		var err error
		if whole {
			j, err = decode[store.Job]("job", k, v)
		} else if st := status.Get(k); len(st) > 0 && st[0] == '{' {
			return nil // JSON already
		} else {
			j, err = mergeV2(k, v, st)
		}
		if err != nil {
			return err
		}
		def, st := j.Definition(), j.Status()
		x := kv{k: slices.Clone(k)}
		if x.def, err = encode(def); err != nil {
			return err
		}
		if x.st, err = encode(st); err != nil {
			return err
		}
		all = append(all, x)
		return nil
	})
	if err != nil {
		return err
	}
	// bbolt forbids writing a bucket while iterating it.
	for _, x := range all {
		if err := jobs.Put(x.k, x.def); err != nil {
			return err
		}
		if err := status.Put(x.k, x.st); err != nil {
			return err
		}
	}
	return nil
}

// mergeV2 joins a schema 2 definition and binary status.
func mergeV2(id, def, stRaw []byte) (*store.Job, error) {
	j, err := decode[store.Job]("job", id, def)
	if err != nil {
		return nil, err
	}
	st, err := decodeStatusV2(id, stRaw)
	if err != nil {
		return nil, err
	}
	j.State, j.NextRunAt, j.NextRunAtLocal, j.LastRunAt = st.State, st.NextRunAt, st.NextRunAtLocal, st.LastRunAt
	j.LastResult, j.RunCount, j.UpdatedAt = st.LastResult, st.RunCount, st.UpdatedAt
	return j, nil
}

// splitAuditBlocksV2 stores each event of a schema 2 block (the events of
// one transaction under the seq of the first: per event its hash, its
// body's length in 4 bytes, its body) under its own seq. A value whose
// byte after the hash is '{' is one event already.
func splitAuditBlocksV2(audit *bolt.Bucket) error {
	type kv struct{ k, v []byte }
	var blocks []kv
	err := audit.ForEach(func(k, v []byte) error {
		if len(v) > 32 && v[32] != '{' {
			blocks = append(blocks, kv{slices.Clone(k), slices.Clone(v)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range blocks {
		if len(b.k) != 8 {
			return fmt.Errorf("audit block %x: %w: malformed key", b.k, store.ErrCorrupt)
		}
		if err := audit.Delete(b.k); err != nil {
			return err
		}
		seq, v := binary.BigEndian.Uint64(b.k), b.v
		for len(v) > 0 {
			if len(v) < 36 {
				return fmt.Errorf("audit record %d: %w: record is truncated", seq, store.ErrCorrupt)
			}
			n := binary.BigEndian.Uint32(v[32:36])
			if uint64(len(v)-36) < uint64(n) {
				return fmt.Errorf("audit record %d: %w: record is truncated", seq, store.ErrCorrupt)
			}
			entry := append(slices.Clone(v[:32]), v[36:36+n]...)
			if err := audit.Put(seqKey(seq), entry); err != nil {
				return err
			}
			v = v[36+n:]
			seq++
		}
	}
	return nil
}

// decodeStatusV2 reads a schema 2 binary status (first byte 1):
// state, nextRunAt, nextRunAtLocal, lastRunAt, a flag byte (1 when
// lastResult is set) then its executionId, status and error, runCount,
// updatedAt. Strings are a uvarint length and bytes; instants are a length
// byte (0: the zero time), varint seconds and uvarint nanoseconds since
// 1970.
func decodeStatusV2(id, v []byte) (*store.JobStatus, error) {
	if len(v) == 0 || v[0] != 1 {
		return nil, &store.RecordError{Kind: "job status", ID: string(id), Err: errors.New("missing, or of an unknown format")}
	}
	r := statusReader{b: v[1:]}
	s := &store.JobStatus{State: store.JobState(r.string()), NextRunAt: r.time(), NextRunAtLocal: r.string(), LastRunAt: r.time()}
	if r.byte() == 1 {
		s.LastResult = &store.Result{ExecutionID: r.string(), Status: r.string(), Error: r.string()}
	}
	s.RunCount, s.UpdatedAt = r.varint(), r.time()
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return nil, &store.RecordError{Kind: "job status", ID: string(id), Err: r.err}
	}
	return s, nil
}

var errShortStatus = errors.New("truncated")

// statusReader reads a binary schema 2 status; the first error sticks.
type statusReader struct {
	b   []byte
	err error
}

func (r *statusReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShortStatus
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *statusReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShortStatus
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *statusReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShortStatus
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *statusReader) string() string {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b)) < n {
		r.err = errShortStatus
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *statusReader) time() time.Time {
	n := int(r.byte())
	if r.err != nil || n == 0 {
		return time.Time{}
	}
	if len(r.b) < n {
		r.err = errShortStatus
		return time.Time{}
	}
	sub := statusReader{b: r.b[:n]}
	sec, nsec := sub.varint(), sub.uvarint()
	if sub.err != nil || len(sub.b) != 0 || nsec >= 1e9 {
		r.err = errors.New("bad instant")
		return time.Time{}
	}
	r.b = r.b[n:]
	return time.Unix(sec, int64(nsec)).UTC()
}
