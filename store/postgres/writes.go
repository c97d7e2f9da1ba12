package postgres

import (
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
)

// A transaction keeps its job and run puts, and the queue items it adds
// with fresh ids or rewrites, and sends them together,
// before anything reads a range of rows and before commit: changes as one
// statement per table over arrays (unnest), all in one round trip, and
// new rows (items, runs known absent) by COPY. A burst of
// 10,000 windows is then a few statements instead of 40,000. Point reads
// (JobGet, RunGet, QueueGet) answer from what is kept first; a write that
// must answer at once (a caller's item id, a delete) is sent at once. A
// rewrite of an item that is gone or another process's tells so at the
// flush, and the transaction fails there.

// flushAt bounds what a transaction keeps before sending it anyway.
const flushAt = 10000

type pendingJob struct {
	exists bool // its rows were read in this transaction: UPDATEs
	// The definition row, when written (JobPut); else the status alone is.
	def       bool
	name      *string
	createdBy string
	channel   string
	body      []byte // the definition as JSON
	// The status row.
	state  store.JobState
	rank   int16
	next   *int64 // Unix nanoseconds
	status []byte // the status as JSON
}

type pendingRun struct {
	fresh bool // known absent from the table: COPYed, not upserted
	jobID string
	body  []byte
}

type pendingItem struct {
	insert    bool // a new item; else a rewrite of a row read in this transaction
	queue     string
	notBefore *int64 // Unix nanoseconds
	updated   int64
	body      []byte
	lane      []byte // an outgoing item's lane (store.LaneOf); nil otherwise
}

type writes struct {
	jobs     map[string]*pendingJob
	jobOrder []string
	runs     map[string]*pendingRun
	runOrder []string
	items    map[string]*pendingItem
	itemOrd  []string
	n        int

	written   map[string]bool           // jobs put in this transaction
	names     map[string]string         // name -> job id, of kept jobs
	known     map[string]string         // job id -> the name its row held when read
	states    map[string]store.JobState // job id -> the state its row holds (or will)
	read      map[string]readJob        // jobs read (and locked) in a write transaction, as read
	runsAhead map[string][]byte         // runs read ahead; nil: known absent
}

// readJob is a job's two rows as a write transaction read and locked
// them: JobGet answers from it, and JobPut of the definition as read
// writes the status alone.
type readJob struct {
	def, status []byte
	state       store.JobState
}

func (w *writes) saw(id string, r readJob) {
	if w.read == nil {
		w.read = map[string]readJob{}
	}
	w.read[id] = r
}

func (w *writes) putJob(id string, p *pendingJob) {
	if w.names == nil {
		w.names = map[string]string{}
	}
	if old := w.jobs[id]; old != nil && old.name != nil && w.names[*old.name] == id {
		delete(w.names, *old.name)
	}
	if p.name != nil {
		w.names[*p.name] = id
	}
	if w.known == nil {
		w.known = map[string]string{}
	}
	if old := w.jobs[id]; old != nil {
		p.exists = old.exists
	} else {
		_, p.exists = w.known[id]
	}
	w.known[id] = "" // its row will hold this name (names answers until then)
	if p.name != nil {
		w.known[id] = *p.name
	}
	w.keep(id, p)
}

// putStatus keeps a job's status, and a definition kept before it.
func (w *writes) putStatus(id string, p *pendingJob) {
	if old := w.jobs[id]; old != nil {
		q := *old
		q.state, q.rank, q.next, q.status = p.state, p.rank, p.next, p.status
		p = &q
	} else {
		p.exists = true // JobStatusPut read it
	}
	w.keep(id, p)
}

func (w *writes) keep(id string, p *pendingJob) {
	if w.jobs == nil {
		w.jobs = map[string]*pendingJob{}
	}
	w.jobs[id] = p
	if w.written == nil {
		w.written = map[string]bool{}
	}
	w.written[id] = true
	if w.states == nil {
		w.states = map[string]store.JobState{}
	}
	w.states[id] = p.state
	w.jobOrder = append(w.jobOrder, id)
	w.n++
}

func (w *writes) putRun(id string, p *pendingRun) {
	if w.runs == nil {
		w.runs = map[string]*pendingRun{}
	}
	if old := w.runs[id]; old != nil {
		p.fresh = old.fresh
	} else if body, ok := w.runsAhead[id]; ok && body == nil {
		p.fresh = true // read ahead and absent; its job's row lock keeps it so
	}
	w.runs[id] = p
	delete(w.runsAhead, id)
	w.runOrder = append(w.runOrder, id)
	w.n++
}

func (w *writes) putItem(id string, p *pendingItem) {
	if w.items == nil {
		w.items = map[string]*pendingItem{}
	}
	if old := w.items[id]; old != nil && old.insert {
		p.insert = true // still new to the table
	}
	w.items[id] = p
	w.itemOrd = append(w.itemOrd, id)
	w.n++
}

// sawName notes the name a job's row held when this transaction read it.
func (w *writes) sawName(id string, j *store.Job) {
	if w.known == nil {
		w.known = map[string]string{}
	}
	if j.State == store.JobDeleted {
		w.known[id] = ""
	} else {
		w.known[id] = j.Name
	}
	if w.states == nil {
		w.states = map[string]store.JobState{}
	}
	w.states[id] = j.State
}

// last returns the ids of order in the order of their last put, once each.
func last(order []string) []string {
	at := make(map[string]int, len(order))
	for i, id := range order {
		at[id] = i
	}
	out := make([]string, 0, len(at))
	for i, id := range order {
		if at[id] == i {
			out = append(out, id)
		}
	}
	return out
}

func (t *tx) flushIfBig() error {
	if t.w.n >= flushAt {
		return t.flush()
	}
	return nil
}

// flush sends what the transaction kept.
func (t *tx) flush() error {
	w := &t.w
	if w.n == 0 {
		return nil
	}
	b := &pgx.Batch{}
	// Updates must reach every row they name: statement index -> rows.
	expect := map[int]int64{}
	itemUpdate, itemIDs := -1, []string(nil)
	var wrote []wroteItem
	if len(w.jobs) > 0 {
		var defIns, defUpd, stIns, stUpd []string
		for _, id := range last(w.jobOrder) {
			p := w.jobs[id]
			if p.def && p.exists {
				defUpd = append(defUpd, id)
			} else if p.def {
				defIns = append(defIns, id)
			}
			if p.exists {
				stUpd = append(stUpd, id)
			} else {
				stIns = append(stIns, id)
			}
		}
		defCols := func(ids []string) []any {
			names, by, chans, bodies := make([][]byte, len(ids)), make([][]byte, len(ids)), make([][]byte, len(ids)), make([][]byte, len(ids))
			for i, id := range ids {
				p := w.jobs[id]
				if p.name != nil { // else NULL
					names[i] = bs(*p.name)
				}
				by[i], chans[i], bodies[i] = bs(p.createdBy), bs(p.channel), p.body
			}
			return []any{t.s.orch, bss(ids), names, by, chans, bodies}
		}
		stCols := func(ids []string) []any {
			states, ranks, nexts, bodies := make([]string, len(ids)), make([]int16, len(ids)), make([]*int64, len(ids)), make([][]byte, len(ids))
			for i, id := range ids {
				p := w.jobs[id]
				states[i], ranks[i], nexts[i], bodies[i] = string(p.state), p.rank, p.next, p.status
			}
			return []any{t.s.orch, bss(ids), states, ranks, nexts, bodies}
		}
		// Jobs this transaction read are updated (cheaper than an upsert, which
		// tries the insert first); the others are upserted. Status rows first:
		// every transaction locks a job's status row before its definition.
		if len(stUpd) > 0 {
			expect[b.Len()] = int64(len(stUpd))
			b.Queue(`UPDATE schedbot_job_status s SET state = u.state, state_rank = u.state_rank, next_run_ns = u.next_run_ns, status = u.status
				FROM unnest($2::bytea[], $3::text[], $4::int2[], $5::bigint[], $6::bytea[]) AS u(job_id, state, state_rank, next_run_ns, status)
				WHERE s.orchestrator_id = $1 AND s.job_id = u.job_id`, stCols(stUpd)...)
		}
		if len(stIns) > 0 {
			b.Queue(`INSERT INTO schedbot_job_status (orchestrator_id, job_id, state, state_rank, next_run_ns, status)
				SELECT $1, u.* FROM unnest($2::bytea[], $3::text[], $4::int2[], $5::bigint[], $6::bytea[]) AS u
				ON CONFLICT (orchestrator_id, job_id) DO UPDATE SET state = excluded.state, state_rank = excluded.state_rank,
					next_run_ns = excluded.next_run_ns, status = excluded.status`, stCols(stIns)...)
		}
		// A name may move between a job this transaction read (updated) and
		// one it did not (upserted): two statements, and the unique name
		// checked at the end of each would refuse the move whichever came
		// first. Then the check waits for both (SET CONSTRAINTS IMMEDIATE
		// runs it, so a name truly taken still fails the flush).
		both := len(defUpd) > 0 && len(defIns) > 0
		if both {
			b.Queue(`SET CONSTRAINTS schedbot_jobs_name DEFERRED`)
		}
		if len(defUpd) > 0 {
			expect[b.Len()] = int64(len(defUpd))
			b.Queue(`UPDATE schedbot_jobs j SET name = u.name, created_by = u.created_by, channel_id = u.channel_id, body = u.body
				FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bytea[]) AS u(job_id, name, created_by, channel_id, body)
				WHERE j.orchestrator_id = $1 AND j.job_id = u.job_id`, defCols(defUpd)...)
		}
		if len(defIns) > 0 {
			b.Queue(`INSERT INTO schedbot_jobs (orchestrator_id, job_id, name, created_by, channel_id, body)
				SELECT $1, u.* FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bytea[]) AS u
				ON CONFLICT (orchestrator_id, job_id) DO UPDATE SET name = excluded.name, created_by = excluded.created_by,
					channel_id = excluded.channel_id, body = excluded.body`, defCols(defIns)...)
		}
		if both {
			b.Queue(`SET CONSTRAINTS schedbot_jobs_name IMMEDIATE`)
		}
	}
	var freshRuns []string
	if len(w.runs) > 0 {
		var ids []string
		for _, id := range last(w.runOrder) {
			if w.runs[id].fresh {
				freshRuns = append(freshRuns, id)
			} else {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			jobs, bodies := make([][]byte, len(ids)), make([][]byte, len(ids))
			for i, id := range ids {
				jobs[i], bodies[i] = bs(w.runs[id].jobID), w.runs[id].body
			}
			b.Queue(`INSERT INTO schedbot_runs (orchestrator_id, execution_id, job_id, body)
				SELECT $1, u.* FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]) AS u
				ON CONFLICT (orchestrator_id, execution_id) DO UPDATE SET job_id = excluded.job_id, body = excluded.body`,
				t.s.orch, bss(ids), jobs, bodies)
		}
	}
	var newItems []string
	if len(w.itemOrd) > 0 {
		var upd []string
		for _, id := range last(w.itemOrd) {
			if w.items[id] == nil {
				continue // added, then deleted
			} else if w.items[id].insert {
				newItems = append(newItems, id)
			} else {
				upd = append(upd, id)
			}
		}
		cols := func(ids []string) ([]string, []*int64, []int64, [][]byte) {
			qs, nbs, ups, bodies := make([]string, len(ids)), make([]*int64, len(ids)), make([]int64, len(ids)), make([][]byte, len(ids))
			for i, id := range ids {
				p := w.items[id]
				qs[i], nbs[i], ups[i], bodies[i] = p.queue, p.notBefore, p.updated, p.body
			}
			return qs, nbs, ups, bodies
		}
		if len(upd) > 0 {
			qs, nbs, ups, bodies := cols(upd)
			claims := make([]*int64, len(upd))
			for i, id := range upd {
				claims[i] = t.claimOf(id)
				wrote = append(wrote, wroteItem{id, w.items[id]})
			}
			itemUpdate, itemIDs = b.Len(), upd
			// An item put anywhere but processing is nobody's any more; one
			// another live process holds is not written (fenced).
			b.Queue(`UPDATE schedbot_queue q SET queue = u.queue, not_before_ns = u.not_before_ns, updated_ns = u.updated_ns, body = u.body,
				lease_owner = CASE WHEN u.queue = 'processing' THEN q.lease_owner END,
				lease_until = CASE WHEN u.queue = 'processing' THEN q.lease_until END,
				lease_key = CASE WHEN u.queue = 'processing' THEN q.lease_key END
				FROM unnest($2::bytea[], $3::text[], $4::bigint[], $5::bigint[], $6::bytea[], $9::bigint[]) AS u(item_id, queue, not_before_ns, updated_ns, body, claim_ns)
				WHERE q.orchestrator_id = $1 AND q.item_id = u.item_id AND `+fenced("q.", "u.claim_ns", 7, 8)+`
				RETURNING q.item_id`,
				t.s.orch, bss(upd), qs, nbs, ups, bodies, t.s.currentKey(), int64(orchKey(t.s.orch)), claims)
		}
	}
	// What was kept is in the transaction now, or the transaction failed.
	runs, items := w.runs, w.items
	t.w.jobs, t.w.jobOrder, t.w.runs, t.w.runOrder, t.w.items, t.w.itemOrd, t.w.n, t.w.names = nil, nil, nil, nil, nil, nil, 0, nil
	if err := t.sendBatch(b, expect, itemUpdate, itemIDs, wrote); err != nil {
		return err
	}
	// New rows go by COPY: cheaper for the server than INSERT over arrays,
	// and pgx streams them in 64 KiB chunks instead of building one message
	// of every row (a burst of 10,000 windows: 13% faster, its Go
	// allocations halved). Should another process have written the same
	// window, the unique execution id fails the transaction: the last guard.
	if len(freshRuns) > 0 {
		_, err := t.tx.CopyFrom(t.ctx, pgx.Identifier{"schedbot_runs"}, []string{"orchestrator_id", "execution_id", "job_id", "body"},
			pgx.CopyFromSlice(len(freshRuns), func(i int) ([]any, error) {
				p := runs[freshRuns[i]]
				return []any{t.s.orch, bs(freshRuns[i]), bs(p.jobID), p.body}, nil
			}))
		if err != nil {
			return fmt.Errorf("write runs: %w", err)
		}
	}
	if len(newItems) > 0 {
		_, err := t.tx.CopyFrom(t.ctx, pgx.Identifier{"schedbot_queue"}, []string{"orchestrator_id", "item_id", "queue", "not_before_ns", "updated_ns", "body", "lane"},
			pgx.CopyFromSlice(len(newItems), func(i int) ([]any, error) {
				p := items[newItems[i]]
				return []any{t.s.orch, bs(newItems[i]), p.queue, p.notBefore, p.updated, p.body, p.lane}, nil
			}))
		if err != nil {
			return fmt.Errorf("write queue items: %w", err)
		}
	}
	return nil
}

type wroteItem struct {
	id string
	p  *pendingItem
}

// sendBatch sends b and checks that each update named in expect reached
// all its rows.
// notReturned reads the ids an UPDATE … RETURNING item_id wrote and
// returns those of ids it did not.
func notReturned(res pgx.BatchResults, ids []string) ([]string, error) {
	rows, err := res.Query()
	if err != nil {
		return nil, err
	}
	wrote := make(map[string]bool, len(ids))
	var id []byte
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { wrote[string(id)] = true; return nil }); err != nil {
		return nil, err
	}
	var missed []string
	for _, id := range ids {
		if !wrote[id] {
			missed = append(missed, id)
		}
	}
	return missed, nil
}

func (t *tx) sendBatch(b *pgx.Batch, expect map[int]int64, itemUpdate int, itemIDs []string, wrote []wroteItem) error {
	if b.Len() == 0 {
		return nil
	}
	res := t.tx.SendBatch(t.ctx, b)
	var errs []error
	var missed []string
	for i := range b.Len() {
		if i == itemUpdate {
			// The rows it wrote come back: the others tell why not.
			var err error
			if missed, err = notReturned(res, itemIDs); err != nil {
				errs = append(errs, err)
				break
			}
			continue
		}
		tag, err := res.Exec()
		if err != nil {
			errs = append(errs, err)
			break
		}
		if want, ok := expect[i]; ok && tag.RowsAffected() != want {
			errs = append(errs, fmt.Errorf("%w: %d of %d rows written in this transaction are gone", store.ErrNotFound, want-tag.RowsAffected(), want))
		}
	}
	if err := res.Close(); err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	if len(errs) == 0 && len(missed) > 0 {
		errs = append(errs, t.whyNotWritten(missed))
	}
	if len(errs) == 0 {
		for _, w := range wrote {
			t.wroteItem(w.id, w.p)
		}
	}
	if err := errors.Join(errs...); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("write: a job name is taken: %w", store.ErrExists)
		}
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// ReadAhead reads the jobs (locked, in a write transaction) and runs a
// caller is about to read one by one, in two queries: the worker's batch
// of triggers reads each one's job and run.
func (t *tx) ReadAhead(jobIDs, executionIDs []string) error {
	var runs []string
	for _, id := range executionIDs {
		if _, ok := t.w.runsAhead[id]; !ok && t.w.runs[id] == nil {
			runs = append(runs, id)
		}
	}
	if err := t.readAhead(runs); err != nil {
		return err
	}
	var jobs []string
	for _, id := range jobIDs {
		if _, ok := t.w.read[id]; !ok && !t.w.written[id] {
			jobs = append(jobs, id)
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	if err := t.flush(); err != nil {
		return err
	}
	// In id order, so that two transactions lock their jobs in one order.
	rows, err := t.tx.Query(t.ctx, `SELECT j.job_id, j.body, s.status, s.state FROM `+jobFrom+`
		WHERE j.orchestrator_id = $1 AND j.job_id = ANY($2) ORDER BY j.job_id`+t.forUpdate(), t.s.orch, bss(jobs))
	if err != nil {
		return fmt.Errorf("read jobs ahead: %w", err)
	}
	var id, body, status []byte
	var state string
	_, err = pgx.ForEachRow(rows, []any{&id, &body, &status, &state}, func() error {
		if t.write {
			t.w.saw(string(id), readJob{slices.Clone(body), slices.Clone(status), store.JobState(state)})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read jobs ahead: %w", err)
	}
	return nil
}

// readAheadRuns reads, in one query, the runs of the windows the due
// jobs are at (their nextRunAt), which a scheduler asks for one by one
// before dispatching them. The jobs' rows are locked, so no other process
// dispatches those windows meanwhile.
func (t *tx) readAheadRuns(jobs []*store.Job) error {
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		ids = append(ids, store.ExecutionID(j.JobID, j.NextRunAt))
	}
	return t.readAhead(ids)
}

func (t *tx) readAhead(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if t.w.runsAhead == nil {
		t.w.runsAhead = make(map[string][]byte, len(ids))
	}
	for _, id := range ids {
		t.w.runsAhead[id] = nil
	}
	rows, err := t.tx.Query(t.ctx, `SELECT execution_id, body FROM schedbot_runs WHERE orchestrator_id = $1 AND execution_id = ANY($2)`, t.s.orch, bss(ids))
	if err != nil {
		return fmt.Errorf("read runs ahead: %w", err)
	}
	var id, body []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		t.w.runsAhead[string(id)] = append([]byte(nil), body...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read runs ahead: %w", err)
	}
	return nil
}
