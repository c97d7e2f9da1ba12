package bolt

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/schedbot/schedbot/store"
)

// A burst hands 10,000 due jobs to JobsDue's caller, and decoding them was
// most of reading it: readAhead decodes them on other goroutines, in
// chunks, while the caller works on earlier ones. It decodes the bytes
// stored when JobsDue began (bbolt keeps them unchanged for the
// transaction's life: it copies on write); a job the transaction writes
// after that is read again at its turn (tx.written), so the caller always
// gets the job as the transaction has it.
type readAhead struct {
	jobs []aheadJob
	done []chan struct{} // one per chunk, closed once it is decoded
	stop atomic.Bool
	wg   sync.WaitGroup
}

type aheadJob struct {
	def, st []byte
	j       *store.Job
	err     error
}

const (
	aheadChunk = 128
	aheadMin   = 3 * aheadChunk // fewer jobs are decoded at their turn
)

// startReadAhead begins decoding the jobs of the due index keys, or returns
// nil when there are too few, or no spare core.
func (t *tx) startReadAhead(keys [][]byte) *readAhead {
	workers := runtime.GOMAXPROCS(0) - 1
	if len(keys) < aheadMin || workers < 1 {
		return nil
	}
	r := &readAhead{jobs: make([]aheadJob, len(keys)), done: make([]chan struct{}, (len(keys)+aheadChunk-1)/aheadChunk)}
	jobs, status := t.bucket(bucketJobs), t.bucket(bucketJobStatus)
	for i, k := range keys {
		r.jobs[i].def, r.jobs[i].st = jobs.Get(k[8:]), status.Get(k[8:])
	}
	for c := range r.done {
		r.done[c] = make(chan struct{})
	}
	var next atomic.Int64
	for range workers {
		r.wg.Go(func() {
			for c := int(next.Add(1) - 1); c < len(r.done) && !r.stop.Load(); c = int(next.Add(1) - 1) {
				for i := c * aheadChunk; i < min(len(keys), (c+1)*aheadChunk); i++ {
					a := &r.jobs[i]
					a.j, a.err = decodeJob(keys[i][8:], a.def, a.st)
				}
				close(r.done[c])
			}
		})
	}
	t.written = map[string]bool{}
	return r
}

// job returns the i-th job as decoded ahead, waiting for it.
func (r *readAhead) job(i int) (*store.Job, error) {
	<-r.done[i/aheadChunk]
	return r.jobs[i].j, r.jobs[i].err
}

// close stops the decoders and waits for them.
func (r *readAhead) close(t *tx) {
	r.stop.Store(true)
	r.wg.Wait()
	t.written = nil
}
