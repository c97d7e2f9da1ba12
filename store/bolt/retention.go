package bolt

import (
	"bytes"
	"slices"
	"time"

	"github.com/schedbot/schedbot/store"
)

func (t *tx) RunPrune(p *store.PruneParams, jobID string) (n int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	prefix := []byte(jobID + "@")
	b := t.bucket(bucketRuns)
	c := b.Cursor()
	k, _ := c.Seek([]byte(jobID + "A")) // just past the job's range
	var v []byte
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	var doomed [][]byte
	for i := 0; k != nil && bytes.HasPrefix(k, prefix) && len(doomed) < limit; k, v = c.Prev() {
		r, err := decode[store.Run]("run", k, v)
		if err == nil && p.Prunable(r, i) {
			doomed = append(doomed, slices.Clone(k))
		}
		i++
	}
	for _, k := range doomed {
		if err := b.Delete(k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func (t *tx) JobPrune(before time.Time, limit int) (n int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	prefix := stateKey(store.JobDeleted, "")
	var ids []string
	c := t.bucket(bucketJobsState).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(ids) < limit; k, _ = c.Next() {
		id := string(k[len(prefix):])
		j, err := t.loadJob([]byte(id))
		if err != nil || j == nil || j.State != store.JobDeleted || !j.UpdatedAt.Before(before) {
			continue // one that does not read is schedbot doctor's
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		for _, del := range []struct{ b, k []byte }{{bucketJobs, []byte(id)}, {bucketJobStatus, []byte(id)}, {bucketJobsState, stateKey(store.JobDeleted, id)}} {
			if err := t.bucket(del.b).Delete(del.k); err != nil {
				return n, err
			}
		}
		delete(t.indexed, id)
		t.wrote(id)
		runs := t.bucket(bucketRuns)
		var keys [][]byte
		rc := runs.Cursor()
		for k, _ := rc.Seek([]byte(id + "@")); k != nil && bytes.HasPrefix(k, []byte(id+"@")); k, _ = rc.Next() {
			keys = append(keys, slices.Clone(k))
		}
		for _, k := range keys {
			if err := runs.Delete(k); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}
