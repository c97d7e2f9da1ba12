package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// TestMetricsServer_Timeouts: a client that leaves its connection idle,
// or stops sending a request's body, is cut off by the metrics server
// rather than holding a connection for ever.
func TestMetricsServer_Timeouts(t *testing.T) {
	saved := metricsTimeouts
	defer func() { metricsTimeouts = saved }()
	metricsTimeouts.readHeader, metricsTimeouts.read, metricsTimeouts.write, metricsTimeouts.idle =
		200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	srv := newMetricsServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("ok\n"))
	}))
	if srv.WriteTimeout == 0 || srv.IdleTimeout == 0 || srv.ReadTimeout == 0 || srv.ReadHeaderTimeout == 0 {
		t.Errorf("timeouts: read header %v, read %v, write %v, idle %v; want all set",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	// closedWithin reads c until the server closes it.
	closedWithin := func(c net.Conn, limit time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(limit))
		_, err := io.Copy(io.Discard, c)
		return err == nil // EOF: the server closed it; a timeout is an error
	}

	t.Run("idle", func(t *testing.T) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !closedWithin(c, 5*time.Second) {
			t.Error("an idle keep-alive connection stayed open")
		}
	})
	t.Run("slow body", func(t *testing.T) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"))
		if !closedWithin(c, 5*time.Second) {
			t.Error("a request whose body never came kept its connection")
		}
	})
}

// fullDisk is a real bolt store whose writes fail with ENOSPC while full
// is set, as on a full disk; reads go on working.
type fullDisk struct {
	store.Store
	full atomic.Bool
}

func (f *fullDisk) Update(ctx context.Context, fn func(store.Tx) error) error {
	if f.full.Load() {
		return fmt.Errorf("write at 8192: %w", syscall.ENOSPC)
	}
	return f.Store.Update(ctx, fn)
}

// TestHealthz_NotReadyWhenAStoreCannotBeWritten: /healthz answers 503,
// naming the orchestrator, while its store refuses writes, and ok again
// once they work; the probe leaves nothing in the store.
func TestHealthz_NotReadyWhenAStoreCannotBeWritten(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	disk := &fullDisk{Store: st}
	d := &Daemon{orchs: map[string]*app.Orch{"ops": {Store: disk}}, metrics: newMetrics()}
	d.alive.Store(2)
	srv := httptest.NewServer(d.MetricsHandler())
	defer srv.Close()
	if code, body := testkit.HTTPGet(t, srv.URL+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz with writes working = %d %q", code, body)
	}
	if err := st.View(t.Context(), func(tx store.Tx) error {
		_, err := tx.ConversationGet(probeKey)
		return err
	}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the probe's record is left in the store: %v", err)
	}
	disk.full.Store(true)
	d.probe.at = time.Time{} // the next check probes again
	if code, body := testkit.HTTPGet(t, srv.URL+"/healthz"); code != 503 || !strings.Contains(body, "store not writable (orchestrator ops)") || !strings.Contains(body, "no space left") {
		t.Errorf("/healthz with a full disk = %d %q, want 503 naming the orchestrator and the cause", code, body)
	}
	disk.full.Store(false)
	d.probe.at = time.Time{}
	if code, _ := testkit.HTTPGet(t, srv.URL+"/healthz"); code != 200 {
		t.Errorf("/healthz once writes work again = %d, want 200", code)
	}
}

// TestHealthz_SaysWhenTheDatabaseDoesNotAnswer: /healthz is 503, naming
// the orchestrator, while its database cannot be reached.
func TestHealthz_SaysWhenTheDatabaseDoesNotAnswer(t *testing.T) {
	dsn := pgtest.DSN(t)
	st, err := postgres.Open(t.Context(), dsn, "ops", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := &Daemon{orchs: map[string]*app.Orch{"ops": {Store: st}}, metrics: newMetrics()}
	d.alive.Store(2)
	srv := httptest.NewServer(d.MetricsHandler())
	defer srv.Close()
	if code, body := testkit.HTTPGet(t, srv.URL+"/healthz"); code != 200 || body != "ok\ndatabase: reachable\n" {
		t.Errorf("/healthz with the database up = %d %q", code, body)
	}
	// The database goes away under the running store, connections and all.
	cc, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := cc.Database
	cc.Database = "postgres"
	conn, err := pgx.ConnectConfig(t.Context(), cc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if code, body := testkit.HTTPGet(t, srv.URL+"/healthz"); code != 503 || !strings.Contains(body, "database unreachable (orchestrator ops)") {
		t.Errorf("/healthz with the database gone = %d %q", code, body)
	}
}
