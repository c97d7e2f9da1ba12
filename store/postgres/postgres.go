package postgres

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Options tune Open. A nil *Options means the defaults.
type Options struct {
	// Owner names this process in the leases of the queue items it claims.
	// Default: host name, pid and a random suffix.
	Owner string
	// Lease is how long a claimed queue item stays this process's before
	// another may take it back. Default 5 minutes.
	Lease time.Duration
	// AuditKey, when set, seals every audit record appended with an
	// HMAC (store.AuditSeal) and makes AuditVerify check every record's.
	AuditKey []byte
	// FireTransactions is how many transactions of this process fire a
	// burst at once. Default: both dispatch slots while no other process
	// serves the orchestrator, else one.
	FireTransactions int
}

// Store is one orchestrator's view of a PostgreSQL database that several
// orchestrators and several schedbot processes may share. Every query it
// makes names its orchestrator id.
type Store struct {
	ops.Ops // the whole operations but Fire (ops.go)

	pool  *pgxpool.Pool
	orch  string
	owner string
	lease time.Duration

	auditKey []byte
	fireTxs  int // Options.FireTransactions

	closed atomic.Bool
	count  counters

	listening func() // called once LISTEN is in place (tests)
	watched   func() // called after each of Watch's looks (tests)

	claimMu sync.Mutex
	claims  map[string]int64 // item id -> the stamp (updated_ns) of this process's committed claim on it

	instMu sync.Mutex
	inst   *pgx.Conn    // holds this process's instance lock (Join) while set
	key    atomic.Int32 // the instance lock's second key, 0 before Join

	mu      sync.Mutex // guards entropy
	entropy *ulid.MonotonicEntropy
}

// Open connects to the database dsn names, brings its schema up to date
// (each migration in one transaction, one process at a time) and returns
// orchestratorID's store.
func Open(ctx context.Context, dsn, orchestratorID string, opts *Options) (*Store, error) {
	if orchestratorID == "" || !utf8.ValidString(orchestratorID) || strings.ContainsRune(orchestratorID, 0) {
		return nil, fmt.Errorf("open postgres store: orchestrator id %q: must be non-empty UTF-8 text", orchestratorID)
	}
	if opts == nil {
		opts = &Options{}
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The DSN may hold a password: name the rule, not the text.
		return nil, fmt.Errorf("open postgres store: the DSN does not parse (%s)", redact(err))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	if err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, orch: orchestratorID, owner: opts.Owner, lease: opts.Lease,
		entropy: ulid.Monotonic(rand.Reader, 0), auditKey: opts.AuditKey, fireTxs: opts.FireTransactions}
	s.Ops = ops.Ops{R: s}
	if s.owner == "" {
		host, _ := os.Hostname()
		s.owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), ulid.Make().String()[20:])
	}
	if s.lease <= 0 {
		s.lease = 5 * time.Minute
	}
	return s, nil
}

// redact keeps a DSN parse error from echoing the DSN.
func redact(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "cannot parse `"); i >= 0 {
		if j := strings.Index(msg[i+14:], "`"); j >= 0 {
			msg = msg[:i+14] + "xxxxx" + msg[i+14+j:]
		}
	}
	return msg
}

// dispatchSlots is how many transactions fire an orchestrator's due jobs
// at once, in all its processes together: each takes a slot (JobsDue in
// a write transaction). Two keep a burst's encoding here overlapping its
// writes in the database; a third gains nothing (BenchmarkBurst10k). A
// process that finds both taken leaves the burst to them, as River and
// Oban leave scheduled jobs to a leader, rather than contending for the
// same rows, so three processes fire a burst as fast as one.
const dispatchSlots = 2

// slotKey is the advisory lock key of dispatch slot i of orch (a bigint
// key: apart from the instance keys, which are pairs of int4).
func slotKey(orch string, i int) int64 {
	return int64(orchKey(orch))<<8 | int64(i)
}

// parallelWrites: a burst is split between the dispatch slots (all),
// and this process fires it with both while it is the only one serving
// the orchestrator, with one while others serve it too (mine): their
// transactions take the other.
func (s *Store) parallelWrites(ctx context.Context) (all, mine int) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if others, err := s.Served(ctx); err != nil || others > 0 {
		return dispatchSlots, 1
	}
	return dispatchSlots, dispatchSlots
}

// dueCount counts the orchestrator's status rows due at or before t, on
// the due index.
func (s *Store) dueCount(ctx context.Context, t time.Time) (int, error) {
	if s.closed.Load() {
		return 0, store.ErrClosed
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM schedbot_job_status WHERE orchestrator_id = $1 AND next_run_ns <= $2`, s.orch, t.UnixNano()).Scan(&n)
	return n, err
}

// OrchestratorID is the orchestrator this store reads and writes.
func (s *Store) OrchestratorID() string { return s.orch }

// Owner is the name this store's claims carry.
func (s *Store) Owner() string { return s.owner }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return s.pool.Ping(ctx)
}

// A live process working an orchestrator's queue holds a session
// advisory lock (the orchestrator's key, a random key of its own). Leases
// name the second key: Postgres drops a session's locks when it ends, so
// the items and lanes of a process that died (SIGKILL, a lost host, a
// broken connection) are anyone's at once, not when their leases run out;
// the leases bound a live process that stalls.

// orchKey is the first key of the orchestrator's instance locks.
func orchKey(orch string) int32 {
	h := fnv.New32a()
	h.Write([]byte(orch))
	return int32(h.Sum32()&0x7ffffffe) | 1 // positive, and never 0
}

// liveKeys is the subquery of the instance keys of the orchestrator whose
// orchKey is parameter n, held now on this database.
func liveKeys(n int) string {
	return fmt.Sprintf(`(SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
		AND classid = $%d::bigint::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`, n)
}

// Join marks this store's process as live in the database, once: a
// session advisory lock on a connection of its own, under a key no other
// live process holds. Claims and lanes join on first use; serve joins
// first and then Watches the connection.
func (s *Store) Join(ctx context.Context) error {
	s.instMu.Lock()
	defer s.instMu.Unlock()
	if s.inst != nil {
		return nil
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("join orchestrator %s: %w", s.orch, err)
	}
	for range 100 {
		var b [4]byte
		rand.Read(b[:])
		key := int32(binary.BigEndian.Uint32(b[:]) & 0x7fffffff)
		if key == 0 {
			continue
		}
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, orchKey(s.orch), key).Scan(&ok); err != nil {
			conn.Close(context.WithoutCancel(ctx))
			return fmt.Errorf("join orchestrator %s: %w", s.orch, err)
		}
		if ok {
			s.inst = conn
			s.key.Store(key)
			return nil
		}
	}
	conn.Close(context.WithoutCancel(ctx))
	return fmt.Errorf("join orchestrator %s: no free instance key", s.orch)
}

// instanceKey joins if need be and returns this process's key.
func (s *Store) instanceKey(ctx context.Context) (int32, error) {
	if k := s.key.Load(); k != 0 {
		return k, nil
	}
	if err := s.Join(ctx); err != nil {
		return 0, err
	}
	return s.key.Load(), nil
}

// Watch checks every few seconds, until ctx is done, that the connection
// that marks this process live is alive, and counts the live processes of
// the orchestrator: when there are fewer than at the last look, gone is
// called (their claimed items and lanes are free now, and nothing else
// says so). It returns an error when the connection is lost: the other
// processes take this one's work over, so it must stop working.
func (s *Store) Watch(ctx context.Context, gone func()) error {
	s.instMu.Lock()
	conn := s.inst
	s.instMu.Unlock()
	if conn == nil {
		return errors.New("watch: this process has not joined the orchestrator")
	}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	live := -1
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		s.instMu.Lock()
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var n int
		err := conn.QueryRow(qctx, `SELECT count(*) FROM `+liveKeys(1)+` k`, int64(orchKey(s.orch))).Scan(&n)
		cancel()
		s.instMu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("lost the connection that marks this process live for orchestrator %s: %w", s.orch, err)
		}
		if n < live && gone != nil {
			gone()
		}
		live = n
		if s.watched != nil {
			s.watched()
		}
	}
}

// watchEvery is how often Watch looks.
var watchEvery = 5 * time.Second

// Served reports how many other processes work this orchestrator's
// queue on the database now.
func (s *Store) Served(ctx context.Context) (int, error) {
	s.instMu.Lock()
	mine := s.inst != nil
	s.instMu.Unlock()
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+liveKeys(1)+` k`, int64(orchKey(s.orch))).Scan(&n); err != nil {
		return 0, err
	}
	if mine {
		n--
	}
	return n, nil
}

// Close closes the store's connections: this process is no longer live.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.instMu.Lock()
	if s.inst != nil {
		// Closing the session drops its lock: this process is gone.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = s.inst.Close(ctx)
		cancel()
		s.inst = nil
	}
	s.instMu.Unlock()
	s.pool.Close()
	return nil
}

func (s *Store) newID(now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ulid.MustNew(ulid.Timestamp(now), s.entropy).String()
}

// View runs fn in a read-only transaction on one snapshot.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, false, fn)
}

// Update runs fn in a read-write transaction, committed when fn returns nil.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, true, fn)
}

func (s *Store) run(ctx context.Context, write bool, fn func(store.Tx) error) (err error) {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Read committed for writers: a lock taken on a row (the audit head, a
	// due job) sees the latest committed version, so writers queue up
	// instead of failing with serialization errors.
	opts := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
	if !write {
		opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	}
	ptx, err := s.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	t := &tx{s: s, ctx: ctx, tx: ptx, write: write}
	committed := false
	defer func() {
		// Also when fn panics: the connection goes back to the pool clean.
		if !committed {
			_ = ptx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if write {
		if err := t.flush(); err != nil {
			return err
		}
		if err := t.flushAudit(); err != nil {
			return err
		}
		if err := t.notify(); err != nil {
			return err
		}
	}
	committed = true // a failed commit has rolled back
	if err := ptx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	t.done()
	return nil
}

// migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != len(out)+1 {
			return nil, fmt.Errorf("migration %s: not numbered %04d_", e.Name(), len(out)+1)
		}
		b, err := migrationFS.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	return out, nil
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		panic(err) // the embedded files are checked by the tests
	}
	return len(ms)
}

// migrateLock is the advisory lock key that makes one process at a time
// migrate a database ("schedbot" in ASCII).
const migrateLock = 0x7363686564626f74

// Migrate brings the database's schema up to this build's version, each
// migration in its own transaction. A database already at a newer version
// is an error: this build would not know its tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrateTo(ctx, pool, SchemaVersion())
}

func migrateTo(ctx context.Context, pool *pgxpool.Pool, target int) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrateLock)); err != nil {
		return fmt.Errorf("lock schema for migration: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrateLock))
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schedbot_schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schedbot_schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this schedbot's (%d): upgrade schedbot", current, len(ms))
	}
	for _, m := range ms[current:min(target, len(ms))] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schedbot_schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}
