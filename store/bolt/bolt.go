// Package bolt is the bbolt implementation of store.Store: one file per
// orchestrator, conventionally <runtimeRoot>/automation/automation.db.
package bolt

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// Path is where an orchestrator's store lives under its runtime root.
func Path(runtimeRoot string) string {
	return filepath.Join(runtimeRoot, "automation", "automation.db")
}

// Options tune Open. A nil *Options means the defaults.
type Options struct {
	// LockTimeout is how long Open waits for a file another process holds
	// before it returns a *store.LockedError. Default 1s.
	LockTimeout time.Duration
	// ReadOnly opens the file for reading only (a shared lock).
	ReadOnly bool
	// AuditKey, when set, seals every audit record appended with an
	// HMAC (store.AuditSeal) and makes AuditVerify check every record's.
	AuditKey []byte
}

// Store is a bbolt-backed store.Store.
type Store struct {
	ops.Ops // the whole operations (ops.go)

	db      *bolt.DB
	path    string
	pidPath string

	mu      sync.Mutex // guards entropy
	entropy *ulid.MonotonicEntropy

	auditKey []byte
}

// Version 3 stores every record as JSON (codec.go), a job as two (tx.go);
// files of versions 1 and 2 are upgraded when opened for writing
// (upgrade.go).
const schemaVersion = "3"

var (
	bucketMeta      = []byte("meta")
	bucketJobs      = []byte("jobs")       // jobId -> definition (tx.go)
	bucketJobStatus = []byte("job_status") // jobId -> status
	bucketJobsNext  = []byte("jobs_next")  // nextRunAt(8) + jobId -> nil, enabled jobs only
	bucketJobsState = []byte("jobs_state") // state 0x00 jobId -> nil
	bucketJobNames  = []byte("job_names")  // name -> jobId, jobs not deleted
	bucketRuns      = []byte("runs")       // executionId -> run
	bucketAudit     = []byte("audit")      // seq(8) -> hash(32) + body

	keyVersion   = []byte("version")
	keyAuditHead = []byte("audit_head") // seq(8) + hash(32)
)

func queueBucket(q store.QueueName) []byte { return []byte("queue_" + string(q)) }

func allBuckets() [][]byte {
	all := [][]byte{bucketMeta, bucketJobs, bucketJobStatus, bucketJobsNext, bucketJobsState, bucketJobNames, bucketRuns, bucketAudit}
	for _, q := range store.QueueNames {
		all = append(all, queueBucket(q))
	}
	return all
}

// Open opens the store file at path, creating it only when no file is
// there. A file held by another process is a *store.LockedError after
// opts.LockTimeout; a file that is not a store (an empty one included), or
// is damaged, is store.ErrCorrupt.
func Open(path string, opts *Options) (s *Store, err error) {
	if opts == nil {
		opts = &Options{}
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = time.Second
	}
	if !opts.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	// bbolt panics on some damaged files instead of returning an error.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("open %s: %w: %v", path, store.ErrCorrupt, r)
		}
	}()
	if err := checkFile(path); errors.Is(err, os.ErrNotExist) && !opts.ReadOnly {
		if err := create(path); err != nil {
			return nil, fmt.Errorf("create store %s: %w", path, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := walkPages(path, timeout); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	bo := DBOptions()
	bo.Timeout, bo.ReadOnly = timeout, opts.ReadOnly
	db, err := bolt.Open(path, 0o600, bo)
	pidPath := path + ".pid"
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		pid := 0
		if b, rerr := os.ReadFile(pidPath); rerr == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return nil, &store.LockedError{Path: path, PID: pid}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return nil, fmt.Errorf("open %s: %w: %v", path, store.ErrCorrupt, err)
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s = &Store{db: db, path: path, pidPath: pidPath, entropy: ulid.Monotonic(rand.Reader, 0), auditKey: opts.AuditKey}
	s.Ops = ops.Ops{R: s}
	if err := s.init(opts.ReadOnly); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if !opts.ReadOnly {
		// Only read when another Open times out, to name the holder.
		_ = os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	}
	return s, nil
}

// DBOptions are the bbolt options of a store's file; benchmarks open
// theirs with them to write as the store does.
//   - The free list is kept in a map (bbolt's array costs a sort per
//     commit once a file has churned).
//   - It is not written at each commit (NoFreelistSync, as etcd has it):
//     every commit of a burst would rewrite the whole list, about a tenth
//     of a 10k burst; Open rebuilds it instead, by walking the file's
//     pages (milliseconds for a store of tens of megabytes).
func DBOptions() *bolt.Options {
	return &bolt.Options{FreelistType: bolt.FreelistMapType, NoFreelistSync: true}
}

func createBuckets(tx *bolt.Tx) error {
	for _, b := range allBuckets() {
		if _, err := tx.CreateBucket(b); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketMeta).Put(keyVersion, []byte(schemaVersion))
}

// create makes a new, empty store at path, where no file is: it is built
// under another name and linked into place whole, so that a crash while
// creating leaves no empty file at path (Open refuses one), and a store
// another process created meanwhile is kept.
func create(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	bo := DBOptions()
	bo.Timeout = time.Second
	db, err := bolt.Open(tmp, 0o600, bo)
	if err != nil {
		return err
	}
	err = db.Update(createBuckets)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync() // the new name, durably
		d.Close()
	}
	return nil
}

// checkFile reads a bbolt file's two meta pages and refuses a file shorter
// than the pages its current meta names, and an empty one. bbolt maps the file and would read
// past its end: a SIGBUS, which no recover can catch. What is not a regular
// file (a directory, a FIFO, a device) is refused before it is opened:
// opening a FIFO blocks until another process opens it for writing.
// walkPages reads every page of the store at path once, read-only, and
// says whether one is damaged. A writer's bolt.Open rebuilds the free
// list (DBOptions' NoFreelistSync) by walking the pages on a goroutine of
// its own, where a damaged page panics past any recover: the whole
// process dies, schedbot doctor too. Here the same pages are read on
// this goroutine, where the panic is caught and told as ErrCorrupt. A
// file it cannot open (locked, or not a store) is left to bolt.Open.
func walkPages(path string, timeout time.Duration) (err error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return nil
	}
	defer db.Close()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: a page is damaged (%v); restore the file from a backup", store.ErrCorrupt, r)
		}
	}()
	var walk func(b *bolt.Bucket) error
	walk = func(b *bolt.Bucket) error {
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil {
				if nested := b.Bucket(k); nested != nil {
					if err := walk(nested); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return walk(b) })
	})
}

func checkFile(path string) error {
	if st, err := os.Stat(path); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: not a regular file (%s)", store.ErrCorrupt, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() { // replaced between the two looks
		return fmt.Errorf("%w: not a regular file (%s)", store.ErrCorrupt, st.Mode().Type())
	}
	if st.Size() == 0 {
		return fmt.Errorf("%w: the file is empty (0 bytes), so it holds no store; "+
			"a new store is made only where no file is: restore it from a backup, or move it away to start afresh", store.ErrCorrupt)
	}
	type meta struct{ pageSize, freelist, pgid, txid, root uint64 }
	read := func(off int64) (meta, bool) {
		buf := make([]byte, 16+64)
		if _, err := f.ReadAt(buf, off); err != nil {
			return meta{}, false
		}
		m := buf[16:]
		le := binary.LittleEndian
		if le.Uint32(m[0:]) != 0xED0CDAED || le.Uint32(m[4:]) != 2 {
			return meta{}, false
		}
		h := fnv.New64a()
		h.Write(m[:56])
		if h.Sum64() != le.Uint64(m[56:]) {
			return meta{}, false
		}
		return meta{pageSize: uint64(le.Uint32(m[8:])), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]),
			pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
	}
	m0, ok0 := read(0)
	if !ok0 {
		return fmt.Errorf("%w: not a bbolt file, or its first meta page is damaged", store.ErrCorrupt)
	}
	m1, ok1 := read(int64(m0.pageSize))
	m := m0
	if ok1 && m1.txid > m0.txid {
		m = m1 // bbolt uses the newer valid meta
	}
	const noFreelist = ^uint64(0)
	size := uint64(st.Size())
	switch {
	case m.pageSize < 512 || m.pageSize > 1<<20:
		return fmt.Errorf("%w: page size %d", store.ErrCorrupt, m.pageSize)
	case size < m.pgid*m.pageSize:
		return fmt.Errorf("%w: file is %d bytes, its pages need %d (truncated)", store.ErrCorrupt, size, m.pgid*m.pageSize)
	case m.root >= m.pgid || m.freelist != noFreelist && m.freelist >= m.pgid:
		return fmt.Errorf("%w: meta page points past the file's pages", store.ErrCorrupt)
	}
	return nil
}

func (s *Store) init(readOnly bool) error {
	check := func(tx *bolt.Tx) error {
		// A file shorter than its own meta page says is truncated; reading
		// it through the map would fault, so refuse it here.
		if st, err := os.Stat(s.path); err == nil && st.Size() < tx.Size() {
			return fmt.Errorf("%w: file is %d bytes, its pages need %d (truncated)", store.ErrCorrupt, st.Size(), tx.Size())
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return fmt.Errorf("%w: no meta bucket (not a schedbot store?)", store.ErrCorrupt)
		}
		if v := string(meta.Get(keyVersion)); v == "1" || v == "2" {
			return fmt.Errorf("written by an older schedbot (schema %s): open it once for writing, e.g. schedbot serve, to upgrade it", v)
		} else if v != schemaVersion {
			return fmt.Errorf("%w: schema version %q, want %q", store.ErrCorrupt, v, schemaVersion)
		}
		for _, b := range allBuckets() {
			if tx.Bucket(b) == nil {
				return fmt.Errorf("%w: bucket %s missing", store.ErrCorrupt, b)
			}
		}
		return nil
	}
	if readOnly {
		return s.db.View(check)
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta) == nil {
			// A bbolt file with no buckets at all holds nothing to lose
			// (an older schedbot could leave one); with others, it is
			// someone else's.
			if err := tx.ForEach(func([]byte, *bolt.Bucket) error { return errors.New("foreign") }); err != nil {
				return fmt.Errorf("%w: a bbolt file that is not a schedbot store", store.ErrCorrupt)
			}
			if err := createBuckets(tx); err != nil {
				return err
			}
		}
		if err := upgrade(tx); err != nil {
			return fmt.Errorf("upgrade schema: %w", err)
		}
		// Added after schema 2, in place: a store without them reads as
		// having recorded no request, no lane as having delivered, and no
		// conversation (and no HTTP API token).
		for _, b := range [][]byte{bucketRequests, bucketRequestsAt, bucketLanes, bucketConversations, bucketConversationsAt, bucketTokens} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return check(tx)
	})
}

// Close releases the file.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	if !s.db.IsReadOnly() {
		os.Remove(s.pidPath)
	}
	return s.db.Close()
}

// Path is the file this store uses.
func (s *Store) Path() string { return s.path }

// View runs fn in a read-only transaction.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, false, fn)
}

// Update runs fn in a read-write transaction committed with fsync.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, true, fn)
}

// run runs fn in a transaction. A panic in fn is the caller's: it goes on
// up, the transaction rolled back. A damaged page makes bbolt panic
// instead of returning an error; the Tx methods (guard) and the commit
// turn such a panic into store.ErrCorrupt.
func (s *Store) run(ctx context.Context, write bool, fn func(store.Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	btx, err := s.db.Begin(write)
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	} else if err != nil {
		return err
	}
	defer func() {
		if btx.DB() != nil { // not committed: fn failed or panicked
			btx.Rollback()
		}
	}()
	t := &tx{b: btx, s: s}
	if err := fn(t); err != nil || !write {
		return err
	}
	if t.behindErr != nil {
		return t.behindErr // JobsDue's caller went on after it failed
	}
	defer guard(&err)
	if err := t.flush(); err != nil {
		return err
	}
	return btx.Commit()
}

func (s *Store) newID(t time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ulid.MustNew(ulid.Timestamp(t), s.entropy).String()
}
