package postgres

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/schedbot/schedbot/store"
)

// tx is one store.Tx on a pgx transaction. Every statement names
// t.s.orch: the scope is in the query, never left to the caller.
type tx struct {
	s     *Store
	ctx   context.Context
	tx    pgx.Tx
	write bool

	// The audit head, read (and locked) at the first append.
	headRead bool
	headSeq  uint64
	headHash []byte
	pending  []*pendingEvent // appended, not yet written
	chained  []*pendingEvent // written; their callers learn the hashes at commit

	w writes // puts kept to be sent together (writes.go)

	// Claims this transaction made or ended (0), for the store's at
	// commit (leases.go).
	claimed map[string]int64

	// What committing tells other processes (notify.go).
	jobsChanged, itemsAdded bool

	// slot: this transaction holds a dispatch slot (dispatchSlot).
	slot bool
}

var errReadOnly = errors.New("write in a read-only transaction")

func (t *tx) writable(what string) error {
	if !t.write {
		return fmt.Errorf("%s: %w", what, errReadOnly)
	}
	return nil
}

func (t *tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	return t.tx.Exec(t.ctx, sql, args...)
}

func notFound(what, id string) error { return fmt.Errorf("%s %s: %w", what, id, store.ErrNotFound) }

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Records are JSON, encoded and decoded with encoding/json/v2 (its mirror
// module until Go 1.27), which decodes them several times faster than
// encoding/json: a burst reads and writes tens of thousands of them.
// Invalid UTF-8 in a string becomes U+FFFD instead of failing the write.
// Maps are encoded in key order: a job put back unchanged then encodes to
// the bytes it was read as, and only its status row is written (JobPut).
var (
	encodeOpts = json.JoinOptions(jsontext.AllowInvalidUTF8(true), json.Deterministic(true))
	decodeOpts = jsontext.AllowInvalidUTF8(true)
)

func encode(v any) ([]byte, error) { return json.Marshal(v, encodeOpts) }

func decode[T any](what, id string, b []byte) (*T, error) {
	var v T
	if err := json.Unmarshal(b, &v, decodeOpts); err != nil {
		return nil, &store.RecordError{Kind: what, ID: id, Err: err}
	}
	return &v, nil
}

// nsOrNil is t in Unix nanoseconds, as the tables keep instants, or nil
// (NULL) for the zero time.
func nsOrNil(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ns := t.UnixNano()
	return &ns
}

func fromNS(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// A caller's string (an id, a name) goes into a bytea column as its bytes:
// any byte is allowed there, and they compare bytewise.
func bs(s string) []byte { return append([]byte{}, s...) } // never nil: "" is not NULL

func bss(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// ---- jobs ----

// A job is two rows: its definition in schedbot_jobs and its status, the
// fields its runs change, in schedbot_job_status, each JSON. Firing a job
// (JobStatusPut) then encodes and rewrites the status alone: a burst
// changes 10,000 statuses and no definition. A status field is added to
// store.JobStatus.

// decodeJob decodes a job's two records. A status is applied whole, so a
// definition row that still holds status fields (as version 3 wrote them)
// reads the same.
func decodeJob(id string, def, status []byte) (*store.Job, error) {
	j, err := decode[store.Job]("job", id, def)
	if err != nil {
		return nil, err
	}
	st, err := decode[store.JobStatus]("job status", id, status)
	if err != nil {
		return nil, err
	}
	j.ApplyStatus(st)
	return j, nil
}

// jobFrom joins a job's two rows in the queries below. A FOR UPDATE locks
// them in this order, the status row first, in every transaction: a
// dispatch holds the status rows of its batch and may lock a definition
// later (JobQuarantine), so a reader that took the definition first and
// waited for the status would close a deadlock with it.
const jobFrom = `schedbot_job_status s JOIN schedbot_jobs j ON j.orchestrator_id = s.orchestrator_id AND j.job_id = s.job_id`

func stateRank(s store.JobState) int {
	for i, k := range store.JobStates {
		if k == s {
			return i
		}
	}
	return len(store.JobStates)
}

// forUpdate locks a job read in a write transaction until commit: what
// is read there is read to be changed, and another process's change
// (a dispatch, which takes due rows SKIP LOCKED, passes it over) must
// wait for this one rather than be overwritten by it.
func (t *tx) forUpdate() string {
	if t.write {
		return ` FOR UPDATE`
	}
	return ""
}

func (t *tx) JobGet(id string) (*store.Job, error) {
	p := t.w.jobs[id]
	if p != nil && p.def {
		return decodeJob(id, p.body, p.status)
	}
	if r, ok := t.w.read[id]; ok && !t.w.written[id] { // read (and locked) before
		j, err := decodeJob(id, r.def, r.status)
		if err == nil {
			t.w.sawName(id, j)
		}
		return j, err
	}
	var body, status []byte
	err := t.tx.QueryRow(t.ctx, `SELECT j.body, s.status FROM `+jobFrom+` WHERE j.orchestrator_id = $1 AND j.job_id = $2`+t.forUpdate(),
		t.s.orch, bs(id)).Scan(&body, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("job", id)
	} else if err != nil {
		return nil, fmt.Errorf("get job %s: %w", id, err)
	}
	if p != nil {
		status = p.status // the status put in this transaction, not yet sent
	}
	j, err := decodeJob(id, body, status)
	if err == nil && p == nil {
		t.w.sawName(id, j)
		if t.write {
			t.w.saw(id, readJob{body, status, j.State})
		}
	}
	return j, err
}

func (t *tx) JobGetByName(name string) (*store.Job, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	var id, body, status []byte
	err := t.tx.QueryRow(t.ctx, `SELECT j.job_id, j.body, s.status FROM `+jobFrom+` WHERE j.orchestrator_id = $1 AND j.name = $2`+t.forUpdate(),
		t.s.orch, bs(name)).Scan(&id, &body, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("job named %q: %w", name, store.ErrNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("get job named %q: %w", name, err)
	}
	return decodeJob(string(id), body, status)
}

// checkJob refuses a job no store may hold.
func checkJob(what string, j *store.Job) error {
	if j.JobID == "" {
		return fmt.Errorf("%s: empty jobId", what)
	}
	if !j.State.Valid() {
		return fmt.Errorf("%s %s: unknown state %q", what, j.JobID, j.State)
	}
	if j.State == store.JobEnabled && j.NextRunAt.IsZero() {
		return fmt.Errorf("%s %s: an enabled job needs a nextRunAt", what, j.JobID)
	}
	return nil
}

// pendingStatus encodes j's status as the status row holds it.
func pendingStatus(j *store.Job) (*pendingJob, error) {
	status, err := encode(j.Status())
	if err != nil {
		return nil, fmt.Errorf("encode job %s: %w", j.JobID, err)
	}
	var next *int64
	if j.State == store.JobEnabled {
		next = nsOrNil(j.NextRunAt)
	}
	return &pendingJob{state: j.State, rank: int16(stateRank(j.State)), next: next, status: status}, nil
}

func (t *tx) JobPut(j *store.Job) error {
	if err := t.writable("put job"); err != nil {
		return err
	}
	if err := checkJob("put job", j); err != nil {
		return err
	}
	var name *string
	if j.Name != "" && j.State != store.JobDeleted {
		name = &j.Name
		if err := t.checkName(j); err != nil {
			return err
		}
	}
	p, err := pendingStatus(j)
	if err != nil {
		return err
	}
	if p.body, err = encode(j.Definition()); err != nil {
		return fmt.Errorf("encode job %s: %w", j.JobID, err)
	}
	if r, ok := t.w.read[j.JobID]; ok && !t.w.written[j.JobID] && bytes.Equal(r.def, p.body) &&
		(r.state == store.JobDeleted) == (j.State == store.JobDeleted) {
		// The definition as read, its name kept or given up as before: a
		// worker recording a run's result changes the status alone.
		t.jobsChanged = true
		t.w.putStatus(j.JobID, p)
		return t.flushIfBig()
	}
	p.def, p.name, p.createdBy = true, name, j.CreatedBy.SenderID
	if j.TargetRef != nil {
		p.channel = j.TargetRef.ChannelID
	}
	t.jobsChanged = true
	t.w.putJob(j.JobID, p)
	return t.flushIfBig()
}

// JobStatusPut writes j's status row alone. A job that leaves or comes
// back from deleted gives up or takes back its name, which lives with the
// definition: that one is a JobPut of the stored job with j's status.
func (t *tx) JobStatusPut(j *store.Job) error {
	if err := t.writable("put job status"); err != nil {
		return err
	}
	if err := checkJob("put job status", j); err != nil {
		return err
	}
	was, ok := t.w.states[j.JobID]
	if !ok {
		var state string
		err := t.tx.QueryRow(t.ctx, `SELECT state FROM schedbot_job_status WHERE orchestrator_id = $1 AND job_id = $2`+t.forUpdate(),
			t.s.orch, bs(j.JobID)).Scan(&state)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("job", j.JobID)
		} else if err != nil {
			return fmt.Errorf("put job status %s: %w", j.JobID, err)
		}
		was = store.JobState(state)
	}
	if (was == store.JobDeleted) != (j.State == store.JobDeleted) {
		stored, err := t.JobGet(j.JobID)
		if err != nil {
			return err
		}
		stored.SetStatus(j)
		return t.JobPut(stored)
	}
	p, err := pendingStatus(j)
	if err != nil {
		return err
	}
	t.jobsChanged = true
	t.w.putStatus(j.JobID, p)
	return t.flushIfBig()
}

// checkName returns ErrExists when another job holds j's name. Asked
// before the put so that the caller hears it at once and the transaction
// stays usable; the unique constraint, checked once the flush has written
// the definitions, is the guard. A name this transaction read from j's own
// row needs no question.
func (t *tx) checkName(j *store.Job) error {
	if holder, ok := t.w.names[j.Name]; ok {
		if holder != j.JobID {
			return fmt.Errorf("job name %q: %w (job %s)", j.Name, store.ErrExists, holder)
		}
		return nil
	}
	if t.w.known[j.JobID] == j.Name {
		return nil
	}
	var holderB []byte
	err := t.tx.QueryRow(t.ctx, `SELECT job_id FROM schedbot_jobs WHERE orchestrator_id = $1 AND name = $2 AND job_id <> $3`,
		t.s.orch, bs(j.Name), bs(j.JobID)).Scan(&holderB)
	holder := string(holderB)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	} else if err != nil {
		return fmt.Errorf("put job %s: %w", j.JobID, err)
	}
	if p := t.w.jobs[holder]; p != nil && p.def && (p.name == nil || *p.name != j.Name) {
		return nil // the holder gives the name up in this transaction
	}
	return fmt.Errorf("job name %q: %w (job %s)", j.Name, store.ErrExists, holder)
}

// A job list cursor is the last row's sort key: state rank, next run
// (Unix nanoseconds, noNext when none) and job id.
func encodeCursor(rank int, next int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(rank) + "." + strconv.FormatInt(next, 10) + "." + id))
}

// noNext stands in for the next run of a job that has none, so that row
// comparisons in a cursor need no NULL cases.
const noNext = math.MinInt64

var errCursor = errors.New("cursor: not a cursor from a previous page")

func decodeCursor(c string) (rank int, next int64, id string, err error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, 0, "", errCursor
	}
	parts := strings.SplitN(string(b), ".", 3)
	if len(parts) != 3 {
		return 0, 0, "", errCursor
	}
	rank, err1 := strconv.Atoi(parts[0])
	next, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, "", errCursor
	}
	return rank, next, parts[2], nil
}

func (t *tx) JobList(p *store.JobListParams) (*store.JobPage, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
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
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	afterRank, afterNext, afterID := -1, int64(noNext), ""
	if p.Cursor != "" {
		var err error
		if afterRank, afterNext, afterID, err = decodeCursor(p.Cursor); err != nil {
			return nil, err
		}
	}
	rows, err := t.tx.Query(t.ctx, `SELECT s.job_id, s.state_rank, coalesce(s.next_run_ns, $5), j.body, s.status FROM `+jobFrom+`
		WHERE s.orchestrator_id = $1 AND j.orchestrator_id = $1 AND s.state = ANY($2)
		AND (length($3::bytea) = 0 OR j.created_by = $3) AND (length($4::bytea) = 0 OR j.channel_id = $4)
		AND (s.state_rank, coalesce(s.next_run_ns, $5), s.job_id) > ($6, $7, $8)
		ORDER BY s.state_rank, coalesce(s.next_run_ns, $5), s.job_id
		LIMIT $9`,
		t.s.orch, names, bs(p.CreatedBy), bs(p.ChannelID), int64(noNext), afterRank, afterNext, bs(afterID), limit+1)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	page := &store.JobPage{Jobs: []*store.Job{}}
	type key struct {
		rank int
		next int64
		id   string
	}
	var keys []key
	var id, body, status []byte
	var rank int16
	var next int64
	_, err = pgx.ForEachRow(rows, []any{&id, &rank, &next, &body, &status}, func() error {
		j, err := decodeJob(string(id), body, status)
		if err != nil {
			return err
		}
		page.Jobs = append(page.Jobs, j)
		keys = append(keys, key{int(rank), next, string(id)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	if len(page.Jobs) > limit {
		page.Jobs = page.Jobs[:limit]
		k := keys[limit-1]
		page.NextCursor = encodeCursor(k.rank, k.next, k.id)
	}
	return page, nil
}

func (t *tx) JobCount(states ...store.JobState) (int, error) {
	if err := t.flush(); err != nil {
		return 0, err
	}
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	var n int
	err := t.tx.QueryRow(t.ctx, `SELECT count(*) FROM schedbot_job_status WHERE orchestrator_id = $1 AND (cardinality($2::text[]) = 0 OR state = ANY($2))`,
		t.s.orch, names).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count jobs: %w", err)
	}
	return n, nil
}

// dispatchSlot takes one of the orchestrator's dispatch slots until the
// transaction ends (a transaction's advisory lock: gone with it, however
// it ends), or says that other transactions hold them all.
func (t *tx) dispatchSlot() (bool, error) {
	if t.slot {
		// Its own again, not a second one: trying them in order would
		// also take slot 0 once it came free, and keep it from another.
		return true, nil
	}
	for i := range dispatchSlots {
		var ok bool
		if err := t.tx.QueryRow(t.ctx, `SELECT pg_try_advisory_xact_lock($1)`, slotKey(t.s.orch, i)).Scan(&ok); err != nil {
			return false, fmt.Errorf("dispatch slot: %w", err)
		}
		if ok {
			t.slot = true
			return true, nil
		}
	}
	return false, nil
}

// JobsDue reads the due jobs first and then calls fn, since fn may write
// on the same connection. In a writing transaction their status rows are
// locked FOR UPDATE SKIP LOCKED: a job another process is dispatching
// right now is left to it, and one it has moved on is no longer due here.
// A job this transaction has written since is handed out as written, or
// passed over when no longer due.
func (t *tx) JobsDue(at time.Time, limit int, fn func(*store.Job) error) error {
	if limit <= 0 {
		return nil
	}
	if err := t.flush(); err != nil {
		return err
	}
	// Two statements: the batch's status rows, locked, then their
	// definitions. A job's definition changes only with its status row
	// (every JobPut writes both, status row locked first), so once the
	// status rows are ours the second statement's snapshot, taken after
	// the locks, holds the definition that goes with each status; a status
	// row changed since the first statement's snapshot is read again, as
	// it is now, when locked. The definitions are not locked: joined and
	// locked in one statement, Postgres joined and sorted every due job
	// with its body for each batch, and wrote a lock on each definition.
	lock := ""
	if t.write {
		lock = ` FOR UPDATE SKIP LOCKED`
		// With every dispatch slot taken by other transactions, they
		// are firing the due jobs: none is handed out here, as if they
		// held them all.
		if ok, err := t.dispatchSlot(); err != nil || !ok {
			return err
		}
	}
	rows, err := t.tx.Query(t.ctx, `SELECT job_id, status FROM schedbot_job_status WHERE orchestrator_id = $1 AND next_run_ns <= $2
		ORDER BY next_run_ns, job_id LIMIT $3`+lock, t.s.orch, at.UnixNano(), limit)
	if err != nil {
		return fmt.Errorf("due jobs: %w", err)
	}
	var ids, statuses [][]byte
	var id, body []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		ids, statuses = append(ids, id), append(statuses, body)
		return nil
	})
	if err != nil {
		return fmt.Errorf("due jobs: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err = t.tx.Query(t.ctx, `SELECT job_id, body FROM schedbot_jobs WHERE orchestrator_id = $1 AND job_id = ANY($2)`, t.s.orch, ids)
	if err != nil {
		return fmt.Errorf("due jobs: %w", err)
	}
	defs := make(map[string][]byte, len(ids))
	_, err = pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		defs[string(id)] = body
		return nil
	})
	if err != nil {
		return fmt.Errorf("due jobs: %w", err)
	}
	var jobs []*store.Job
	var unreadable []*store.RecordError
	for i, id := range ids {
		def, ok := defs[string(id)]
		if !ok {
			continue // a status row without its definition is no job
		}
		j, err := decodeJob(string(id), def, statuses[i])
		if err != nil {
			// Passed over, and named at the end, so the others still fire.
			re := &store.RecordError{Kind: "job", ID: string(id), Err: err}
			if errors.As(err, &re) {
				re = &store.RecordError{Kind: "job", ID: string(id), Err: re.Err}
			}
			unreadable = append(unreadable, re)
			continue
		}
		t.w.sawName(string(id), j)
		jobs = append(jobs, j)
	}
	if t.write {
		t.s.count.due.Add(int64(len(jobs)))
		if err := t.readAheadRuns(jobs); err != nil {
			return err
		}
	}
	for _, j := range jobs {
		if t.w.written[j.JobID] {
			w, err := t.JobGet(j.JobID)
			if err != nil {
				return err
			}
			if w.State != store.JobEnabled || w.NextRunAt.After(at) {
				continue // changed by fn meanwhile: no longer due
			}
			j = w
		}
		if err := fn(j); err != nil {
			return err
		}
	}
	if len(unreadable) > 0 {
		return &store.UnreadableJobsError{Jobs: unreadable}
	}
	return nil
}

// JobQuarantine takes a job whose record does not decode out of the due
// index and counts it as disabled, keeping its records as they are.
func (t *tx) JobQuarantine(id string) error {
	if err := t.writable("quarantine job"); err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	var body, status, name []byte
	err := t.tx.QueryRow(t.ctx, `SELECT j.body, s.status, j.name FROM `+jobFrom+` WHERE j.orchestrator_id = $1 AND j.job_id = $2`+t.forUpdate(),
		t.s.orch, bs(id)).Scan(&body, &status, &name)
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound("job", id)
	} else if err != nil {
		return fmt.Errorf("quarantine job %s: %w", id, err)
	}
	if _, err := decodeJob(id, body, status); err == nil {
		return fmt.Errorf("quarantine job %s: its record reads; disable it with JobPut", id)
	}
	// The definition row stays as it is, name and all: the job keeps its
	// name while set aside, and is found by it once repaired.
	if _, err := t.tx.Exec(t.ctx, `UPDATE schedbot_job_status SET state = $3, state_rank = $4, next_run_ns = NULL WHERE orchestrator_id = $1 AND job_id = $2`,
		t.s.orch, bs(id), string(store.JobDisabled), stateRank(store.JobDisabled)); err != nil {
		return fmt.Errorf("quarantine job %s: %w", id, err)
	}
	t.w.sawName(id, &store.Job{State: store.JobDisabled, Name: string(name)})
	delete(t.w.read, id)
	t.jobsChanged = true
	return nil
}

func (t *tx) JobNextRunAt() (time.Time, bool, error) {
	if err := t.flush(); err != nil {
		return time.Time{}, false, err
	}
	var next *int64
	err := t.tx.QueryRow(t.ctx, `SELECT min(next_run_ns) FROM schedbot_job_status WHERE orchestrator_id = $1 AND next_run_ns IS NOT NULL`, t.s.orch).Scan(&next)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next run: %w", err)
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return fromNS(*next), true, nil
}

// ---- runs ----

func (t *tx) RunPut(r *store.Run) error {
	if err := t.writable("put run"); err != nil {
		return err
	}
	if r.ExecutionID == "" || r.JobID == "" {
		return errors.New("put run: executionId and jobId are required")
	}
	if !strings.HasPrefix(r.ExecutionID, r.JobID+"@") {
		return fmt.Errorf("put run: executionId %q does not start with its jobId and @", r.ExecutionID)
	}
	body, err := encode(r)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", r.ExecutionID, err)
	}
	t.w.putRun(r.ExecutionID, &pendingRun{jobID: r.JobID, body: body})
	return t.flushIfBig()
}

func (t *tx) RunGet(id string) (*store.Run, error) {
	if p := t.w.runs[id]; p != nil {
		return decode[store.Run]("run", id, p.body)
	}
	if body, ok := t.w.runsAhead[id]; ok {
		if body == nil {
			return nil, notFound("run", id)
		}
		return decode[store.Run]("run", id, body)
	}
	var body []byte
	err := t.tx.QueryRow(t.ctx, `SELECT body FROM schedbot_runs WHERE orchestrator_id = $1 AND execution_id = $2`, t.s.orch, bs(id)).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("run", id)
	} else if err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	return decode[store.Run]("run", id, body)
}

func (t *tx) RunList(jobID string, limit int) ([]*store.Run, error) {
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	if err := t.flush(); err != nil {
		return nil, err
	}
	// The job's range of the primary key: ids from jobID+"@" up to, not
	// including, jobID+"A" ('@'+1).
	rows, err := t.tx.Query(t.ctx, `SELECT execution_id, body FROM schedbot_runs WHERE orchestrator_id = $1
		AND execution_id > $2 AND execution_id < $3 AND job_id = $4
		ORDER BY execution_id DESC LIMIT $5`, t.s.orch, bs(jobID+"@"), bs(jobID+"A"), bs(jobID), limit)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", jobID, err)
	}
	var out []*store.Run
	var id, body []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		r, err := decode[store.Run]("run", string(id), body)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", jobID, err)
	}
	return out, nil
}

// ---- queue ----

// The queue and updated_ns columns are the truth for an item's stage and
// last change (a claim sets them without rewriting the body).
const itemCols = `item_id, queue, updated_ns, body`

func scanItem(id, queue string, updated int64, body []byte) (*store.QueueItem, error) {
	it, err := decode[store.QueueItem]("queue item", id, body)
	if err != nil {
		return nil, err
	}
	it.Queue = store.QueueName(queue)
	if !it.UpdatedAt.IsZero() || updated != 0 {
		it.UpdatedAt = fromNS(updated)
	}
	return it, nil
}

func (t *tx) collectItems(rows pgx.Rows) ([]*store.QueueItem, error) {
	out := []*store.QueueItem{}
	var id, body []byte
	var queue string
	var updated int64
	_, err := pgx.ForEachRow(rows, []any{&id, &queue, &updated, &body}, func() error {
		it, err := scanItem(string(id), queue, updated, body)
		out = append(out, it)
		return err
	})
	return out, err
}

func encodeItem(it *store.QueueItem, insert bool) (*pendingItem, error) {
	body, err := encode(it)
	if err != nil {
		return nil, fmt.Errorf("encode queue item %s: %w", it.ItemID, err)
	}
	p := &pendingItem{insert: insert, queue: string(it.Queue), notBefore: nsOrNil(it.NotBefore), body: body}
	if it.Queue == store.QueueOutgoing {
		p.lane = []byte(store.LaneOf(it))
	}
	if !it.UpdatedAt.IsZero() {
		p.updated = it.UpdatedAt.UnixNano()
	}
	return p, nil
}

func (t *tx) QueueAdd(item *store.QueueItem) error {
	if err := t.writable("add queue item"); err != nil {
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
	t.itemsAdded = true
	fresh := item.ItemID == ""
	if fresh {
		item.ItemID = t.s.newID(now) // claim order is arrival order
	}
	p, err := encodeItem(item, true)
	if err != nil {
		return err
	}
	if fresh {
		// A fresh ULID cannot be in the queue already: kept for the flush.
		t.w.putItem(item.ItemID, p)
		return t.flushIfBig()
	}
	// A caller's own id (a Slack event id, say) is answered at once.
	if t.w.items[item.ItemID] != nil {
		return fmt.Errorf("queue item %s: %w", item.ItemID, store.ErrExists)
	}
	tag, err := t.exec(`INSERT INTO schedbot_queue (orchestrator_id, item_id, queue, not_before_ns, updated_ns, body, lane)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (orchestrator_id, item_id) DO NOTHING`,
		t.s.orch, bs(item.ItemID), p.queue, p.notBefore, p.updated, p.body, p.lane)
	if err != nil {
		return fmt.Errorf("add queue item %s: %w", item.ItemID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("queue item %s: %w", item.ItemID, store.ErrExists)
	}
	return nil
}

// QueueGet in a write transaction locks the item until it commits, as
// JobGet locks a job: a claim passes it over meanwhile (SKIP LOCKED), so a
// rewrite of what was read cannot send an item this process's worker has
// just claimed back where it was (to be claimed twice).
func (t *tx) QueueGet(id string) (*store.QueueItem, error) {
	if p := t.w.items[id]; p != nil {
		return scanItem(id, p.queue, p.updated, p.body)
	}
	rows, err := t.tx.Query(t.ctx, `SELECT `+itemCols+` FROM schedbot_queue WHERE orchestrator_id = $1 AND item_id = $2`+t.forUpdate(), t.s.orch, bs(id))
	if err != nil {
		return nil, fmt.Errorf("get queue item %s: %w", id, err)
	}
	items, err := t.collectItems(rows)
	if err != nil {
		return nil, fmt.Errorf("get queue item %s: %w", id, err)
	}
	if len(items) == 0 {
		return nil, notFound("queue item", id)
	}
	return items[0], nil
}

func (t *tx) QueuePut(item *store.QueueItem) error {
	if err := t.writable("put queue item"); err != nil {
		return err
	}
	if !item.Queue.Valid() {
		return fmt.Errorf("put queue item %s: unknown queue %q", item.ItemID, item.Queue)
	}
	p, err := encodeItem(item, false)
	if err != nil {
		return err
	}
	if item.Queue == store.QueueIncoming || item.Queue == store.QueueOutgoing {
		t.itemsAdded = true
	}
	// The rewrite waits for the flush, which fences it (an item another
	// live process holds is not written) and tells ErrLeaseLost or
	// ErrNotFound there, failing the transaction: sent one by one, a worker
	// finishing a batch paid a round trip an item, and half the queue's
	// time went to them.
	t.w.putItem(item.ItemID, p)
	return t.flushIfBig()
}

// QueueClaim takes the oldest ready incoming items, and processing items
// whose lease has run out (their claimer died or stalled), FOR UPDATE SKIP
// LOCKED, so processes sharing the queue never claim one item twice, and
// leases them to this store's owner.
func (t *tx) QueueClaim(now time.Time, limit int) ([]*store.QueueItem, error) {
	if err := t.writable("claim queue items"); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return []*store.QueueItem{}, nil
	}
	if err := t.flush(); err != nil {
		return nil, err
	}
	key, err := t.s.instanceKey(t.ctx)
	if err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(t.ctx, `UPDATE schedbot_queue q SET queue = 'processing', updated_ns = $3, lease_owner = $4, lease_until = $5, lease_key = $7
		FROM (SELECT item_id, queue AS was FROM schedbot_queue WHERE orchestrator_id = $1 AND (
				(queue = 'incoming' AND (not_before_ns IS NULL OR not_before_ns <= $3)) OR
				(queue = 'processing' AND `+abandoned(6, 8)+`))
			ORDER BY item_id LIMIT $2 FOR UPDATE SKIP LOCKED) c
		WHERE q.orchestrator_id = $1 AND q.item_id = c.item_id
		RETURNING q.item_id, q.queue, q.updated_ns, q.body, c.was`,
		t.s.orch, limit, now.UnixNano(), t.s.owner, now.Add(t.s.lease).UTC(), now.UTC(), key, int64(orchKey(t.s.orch)))
	if err != nil {
		return nil, fmt.Errorf("claim queue items: %w", err)
	}
	items := []*store.QueueItem{}
	var id, body []byte
	var queue, was string
	var updated int64
	_, err = pgx.ForEachRow(rows, []any{&id, &queue, &updated, &body, &was}, func() error {
		it, err := scanItem(string(id), queue, updated, body)
		if err != nil {
			return err
		}
		if was == string(store.QueueProcessing) {
			t.s.count.expired.Add(1)
		}
		t.claim(string(id), updated)
		items = append(items, it)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim queue items: %w", err)
	}
	slices.SortFunc(items, func(a, b *store.QueueItem) int { return strings.Compare(a.ItemID, b.ItemID) }) // RETURNING keeps no order
	t.s.count.items.Add(int64(len(items)))
	// The runs of claimed triggers are read next, one by one: read them now.
	var execs []string
	for _, it := range items {
		if it.Kind == store.KindTrigger && it.ExecutionID != "" && t.w.runs[it.ExecutionID] == nil {
			execs = append(execs, it.ExecutionID)
		}
	}
	if err := t.readAhead(execs); err != nil {
		return nil, err
	}
	return items, nil
}

func (t *tx) QueueList(p *store.QueueListParams) ([]*store.QueueItem, error) {
	if !p.Queue.Valid() {
		return nil, fmt.Errorf("list queue: unknown queue %q", p.Queue)
	}
	if err := t.flush(); err != nil {
		return nil, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultListLimit
	}
	rows, err := t.tx.Query(t.ctx, `SELECT `+itemCols+` FROM schedbot_queue WHERE orchestrator_id = $1 AND queue = $2 AND item_id > $3
		ORDER BY item_id LIMIT $4`, t.s.orch, string(p.Queue), bs(p.After), limit)
	if err != nil {
		return nil, fmt.Errorf("list queue %s: %w", p.Queue, err)
	}
	items, err := t.collectItems(rows)
	if err != nil {
		return nil, fmt.Errorf("list queue %s: %w", p.Queue, err)
	}
	return items, nil
}

func (t *tx) QueueCount(q store.QueueName) (int, error) {
	if !q.Valid() {
		return 0, fmt.Errorf("count queue: unknown queue %q", q)
	}
	if err := t.flush(); err != nil {
		return 0, err
	}
	var n int
	err := t.tx.QueryRow(t.ctx, `SELECT count(*) FROM schedbot_queue WHERE orchestrator_id = $1 AND queue = $2`, t.s.orch, string(q)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count queue %s: %w", q, err)
	}
	return n, nil
}

// QueuePrune deletes done items last changed before before, oldest first.
func (t *tx) QueuePrune(before time.Time, limit int) (int, error) {
	if err := t.writable("prune queue"); err != nil {
		return 0, err
	}
	if limit <= 0 {
		return 0, nil
	}
	if err := t.flush(); err != nil {
		return 0, err
	}
	rows, err := t.tx.Query(t.ctx, `DELETE FROM schedbot_queue WHERE orchestrator_id = $1 AND item_id IN (
		SELECT item_id FROM schedbot_queue WHERE orchestrator_id = $1 AND queue = 'done' AND updated_ns < $2
		ORDER BY updated_ns, item_id LIMIT $3) RETURNING item_id`, t.s.orch, before.UnixNano(), limit)
	if err != nil {
		return 0, fmt.Errorf("prune queue: %w", err)
	}
	n := 0
	var id []byte
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
		n++
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune queue: %w", err)
	}
	return n, nil
}

func (t *tx) QueueDelete(id string) error {
	if err := t.writable("delete queue item"); err != nil {
		return err
	}
	if p := t.w.items[id]; p != nil && p.insert {
		// Never sent: forgetting it is deleting it.
		delete(t.w.items, id)
		return nil
	}
	if t.w.items[id] != nil {
		// A kept rewrite is sent first: its fence answers (an item
		// another live process took over fails it, as the rewrite alone
		// would), then the row goes.
		if err := t.flush(); err != nil {
			return err
		}
	}
	tag, err := t.exec(`DELETE FROM schedbot_queue WHERE orchestrator_id = $1 AND item_id = $2`, t.s.orch, bs(id))
	if err != nil {
		return fmt.Errorf("delete queue item %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("queue item", id)
	}
	return nil
}

// Lock takes the transaction's advisory lock on name, scoped to the
// orchestrator: a bigint key with its sign bit set, apart from the
// dispatch slots' and the migration's (positive) and the instance keys
// (pairs of int4).
func (t *tx) Lock(name string) error {
	if err := t.writable("lock " + name); err != nil {
		return err
	}
	if _, err := t.exec(`SELECT pg_advisory_xact_lock($1)`, lockKey(t.s.orch, name)); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	return nil
}

func lockKey(orch, name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(orch))
	h.Write([]byte{0})
	h.Write([]byte(name))
	return int64(h.Sum64() | 1<<63)
}
