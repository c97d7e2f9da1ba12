// Package testkit is what tests across schedbot share: a TestMain that
// checks for leaked goroutines (and stops the throwaway PostgreSQL
// cluster), real stores on a temporary bbolt file or a fresh PostgreSQL
// database, and a clock that moves only when told.
package testkit

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// Main runs a package's tests, stops the PostgreSQL cluster if a test
// started one, and fails the run when goroutines outlive the tests: every
// goroutine a package starts is waited for (goleak retries for a while,
// so one that is ending is not reported). Call it from TestMain.
func Main(m *testing.M, ignore ...goleak.Option) {
	code := pgtest.Run(m)
	// Idle keep-alive connections of the default client are the tests'
	// HTTP clients', not a leak of the code under test.
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(ignore...); err != nil {
			fmt.Fprintf(os.Stderr, "testkit: goroutines outlived the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// Kinds are the store drivers a test may run on.
var Kinds = []string{"bolt", "postgres"}

// Store opens a store of kind ("bolt" or "postgres") for orchestrator
// "default", closed when t ends: a bbolt file in t's temp dir, or a fresh
// database of the package's PostgreSQL cluster (skipped without the
// binaries, unless CI=true).
func Store(t testing.TB, kind string) store.Store {
	t.Helper()
	var st store.Store
	var err error
	switch kind {
	case "bolt":
		st, err = bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	case "postgres":
		st, err = postgres.Open(t.Context(), pgtest.DSN(t), "default", nil)
	default:
		t.Fatalf("testkit: no store kind %q (%v)", kind, Kinds)
	}
	if err != nil {
		t.Fatalf("testkit: open %s store: %v", kind, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Clock is a time that moves only when a test moves it; Now is safe to
// call from any goroutine.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock showing at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to at.
func (c *Clock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// QueueLen is how many items st holds in queue q (store.Store.Count).
func QueueLen(t testing.TB, st store.Store, q store.QueueName) int {
	t.Helper()
	c, err := st.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return c.Queues[q]
}

// HTTPGet fetches url and returns its status and body; a request that
// fails fails the test.
func HTTPGet(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
