package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/schedbot/schedbot/store"
)

// Check lists the records that do not decode (jobs, runs, queue items)
// and the index entries whose job is gone, and with repair removes them
// in one transaction:
//   - a job whose definition or status does not read: both records and
//     its index entries (its runs are left: they name it, and read);
//   - a run or queue item that does not read: that record;
//   - an index entry whose job is not stored, or not in that state or
//     due then: that entry.
//
// What is removed is in the Problem's Bytes, for the report.
func (s *Store) Check(ctx context.Context, repair bool) (out []store.Problem, err error) {
	fn := s.db.View
	if repair {
		fn = s.db.Update
	}
	err = fn(func(btx *bolt.Tx) (err error) {
		defer guard(&err)
		t := &tx{b: btx, s: s}
		out = nil
		type del struct {
			bucket []byte
			key    []byte
		}
		var dels []del
		add := func(p store.Problem, bucket []byte, keys ...[]byte) {
			if repair {
				for _, k := range keys {
					dels = append(dels, del{bucket, slices.Clone(k)})
				}
			}
			out = append(out, p)
		}
		// Jobs: every id with either record.
		jobs := map[string]*store.Job{}
		ids := map[string]bool{}
		for _, b := range [][]byte{bucketJobs, bucketJobStatus} {
			btx.Bucket(b).ForEach(func(k, _ []byte) error { ids[string(k)] = true; return nil })
		}
		removed := map[string]bool{} // unreadable jobs repair removes
		rebuilt := map[string]bool{} // jobs whose status repair rebuilds
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			def, st := btx.Bucket(bucketJobs).Get([]byte(id)), btx.Bucket(bucketJobStatus).Get([]byte(id))
			j, err := decodeJob([]byte(id), def, st)
			if err == nil {
				jobs[id] = j
				continue
			}
			p := store.Problem{Kind: "job", ID: id, Error: errText(err), Bytes: slices.Concat(def, []byte("\n"), st)}
			if d, derr := decode[store.Job]("job", []byte(id), def); def != nil && derr == nil {
				// The definition reads: the status alone is rebuilt, the
				// job disabled until someone resumes it.
				p.Bytes = slices.Clone(st)
				if repair {
					d.State, d.NextRunAt, d.NextRunAtLocal = store.JobDisabled, time.Time{}, ""
					d.LastResult = &store.Result{Status: string(store.RunFailed), Error: "status record did not read; rebuilt by schedbot doctor"}
					if err := t.put(bucketJobStatus, id, d.Status()); err != nil {
						return err
					}
					if err := t.bucket(bucketJobsState).Put(stateKey(store.JobDisabled, id), nil); err != nil {
						return err
					}
					p.Repair = "rebuilt its status: the job is disabled (resume it to fire again)"
					jobs[id], rebuilt[id] = d, true
				}
				out = append(out, p)
				continue
			}
			if repair {
				p.Repair = "removed the job's records and index entries"
				removed[id] = true
				dels = append(dels, del{bucketJobs, []byte(id)}, del{bucketJobStatus, []byte(id)})
			}
			out = append(out, p)
		}
		stored := func(id string) bool { return ids[id] && !removed[id] }
		// follows reports whether an index entry goes with a job repair
		// removes or rebuilds: it is removed too, not listed again.
		follows := func(id string, bucket, k []byte) bool {
			if removed[id] || rebuilt[id] {
				dels = append(dels, del{bucket, slices.Clone(k)})
				return true
			}
			return false
		}
		// Index entries whose job is gone or says otherwise.
		btx.Bucket(bucketJobsNext).ForEach(func(k, _ []byte) error {
			id := ""
			if len(k) >= 8 {
				id = string(k[8:])
			}
			j := jobs[id]
			if j != nil && j.State == store.JobEnabled && len(k) >= 8 && keyTime(k[:8]).Equal(j.NextRunAt.UTC()) {
				return nil
			}
			if follows(id, bucketJobsNext, k) {
				return nil
			}
			p := store.Problem{Kind: "next-run index", ID: id, Error: "names a job that is not stored"}
			switch {
			case stored(id) && j == nil:
				return nil // an unreadable job the scheduler quarantines; listed above
			case stored(id):
				p.Error = "names a job not enabled or not due then"
			}
			if repair {
				p.Repair = "removed the entry"
			}
			add(p, bucketJobsNext, k)
			return nil
		})
		btx.Bucket(bucketJobsState).ForEach(func(k, _ []byte) error {
			i := bytes.IndexByte(k, 0)
			if i < 0 {
				return nil
			}
			st, id := store.JobState(k[:i]), string(k[i+1:])
			if j := jobs[id]; j != nil && j.State == st || j == nil && stored(id) {
				return nil // an unreadable job is listed above (quarantined, it counts as disabled)
			}
			if follows(id, bucketJobsState, k) {
				return nil
			}
			p := store.Problem{Kind: "state index", ID: id, Error: fmt.Sprintf("counts it %s, which it is not", st)}
			if repair {
				p.Repair = "removed the entry"
			}
			add(p, bucketJobsState, k)
			return nil
		})
		btx.Bucket(bucketJobNames).ForEach(func(k, v []byte) error {
			if stored(string(v)) || follows(string(v), bucketJobNames, k) {
				return nil
			}
			p := store.Problem{Kind: "name index", ID: string(k), Error: fmt.Sprintf("names job %s, which is not stored", v)}
			if repair {
				p.Repair = "removed the entry: the name is free"
			}
			add(p, bucketJobNames, k)
			return nil
		})
		// Runs and queue items, one by one.
		check := func(kind string, bucket []byte, decodeFn func(k, v []byte) error) {
			btx.Bucket(bucket).ForEach(func(k, v []byte) error {
				if err := decodeFn(k, v); err != nil {
					p := store.Problem{Kind: kind, ID: string(k), Error: errText(err), Bytes: slices.Clone(v)}
					if repair {
						p.Repair = "removed the record"
					}
					add(p, bucket, k)
				}
				return nil
			})
		}
		check("run", bucketRuns, func(k, v []byte) error { _, err := decode[store.Run]("run", k, v); return err })
		for _, q := range store.QueueNames {
			check("queue item", queueBucket(q), func(k, v []byte) error { _, err := decode[store.QueueItem]("queue item", k, v); return err })
		}
		for _, d := range dels {
			if err := t.bucket(d.bucket).Delete(d.key); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return nil, store.ErrClosed
	}
	return out, err
}

// errText is why a record does not read, without the store's prefix.
func errText(err error) string {
	var re *store.RecordError
	if errors.As(err, &re) {
		return re.Err.Error()
	}
	return err.Error()
}
