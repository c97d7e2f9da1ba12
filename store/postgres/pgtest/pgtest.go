// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb in
// a temporary directory (as the postgres user when the tests run as root,
// since initdb refuses root), a server on a unix socket in that directory
// and a free port, and a fresh database per test. The cluster is removed
// when the test binary ends.
//
// A package that uses it calls Main (or Run) from its TestMain. Without the
// PostgreSQL binaries the tests that ask for a database are skipped, saying
// so, unless CI=true, where they fail.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBinDir names a directory holding initdb and postgres, overriding the search.
const EnvBinDir = "SCHEDBOT_PG_BINDIR"

var (
	mainRan bool
	once    sync.Once
	shared  *Cluster
	errUp   error
	dbSeq   atomic.Int64
)

// Main runs the package's tests, stops the cluster (if one was started)
// and exits. Call it from TestMain.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain with more to do after the tests: it returns
// m.Run's code.
func Run(m *testing.M) int {
	mainRan = true
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	return code
}

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{}
}

// BinDir finds the directory that holds initdb and postgres: $SCHEDBOT_PG_BINDIR,
// else the newest /usr/lib/postgresql/*/bin (Debian's layout), else PATH.
func BinDir() (string, error) {
	if d := os.Getenv(EnvBinDir); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("no initdb in $%s (%s)", EnvBinDir, d)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL binaries (initdb, postgres) under /usr/lib/postgresql/*/bin or on PATH; apt-get install postgresql to run them")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// DSN returns the DSN of a fresh, empty database on the package's cluster,
// starting the cluster on first use; the database is dropped when t ends.
// Without the binaries it skips t (fails it when CI=true).
func DSN(t testing.TB) string {
	t.Helper()
	c := Shared(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return c.DSN(name)
}

// Shared returns the package's cluster, starting it on first use.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	if !mainRan {
		t.Fatal("pgtest: call pgtest.Main(m) or pgtest.Run(m) from the package's TestMain, so the cluster is stopped")
	}
	dir, err := BinDir()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("postgres tests cannot run in CI: %v", err)
		}
		t.Skipf("postgres tests skipped: %v", err)
	}
	once.Do(func() { shared, errUp = Start(dir) })
	if errUp != nil {
		t.Fatalf("pgtest: %v", errUp)
	}
	return shared
}

// DSN is the DSN of database name on c.
func (c *Cluster) DSN(name string) string {
	return fmt.Sprintf("host=%s port=%d user=schedbot dbname=%s sslmode=disable", c.dir, c.port, name)
}

// Start runs initdb and postgres from binDir in a new temporary directory.
func Start(binDir string) (c *Cluster, err error) {
	dir, err := os.MkdirTemp("", "schedbot-pg-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	cred, err := credential(dir)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(binDir, "initdb"), "-D", data, "-U", "schedbot", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	// Durability is not what these tests measure: fsync off keeps the
	// suite quick on a shared machine.
	cmd := exec.Command(filepath.Join(binDir, "postgres"), "-D", data, "-k", dir, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "unix_socket_permissions=0777")
	cmd.Stdout, cmd.Stderr = logf, logf
	// The server dies with the test binary, even one that is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c = &Cluster{dir: dir, port: port, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(c.done) }()
	if err := c.waitReady(30 * time.Second); err != nil {
		c.Stop()
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return c, nil
}

// credential makes dir the postgres user's when running as root, and
// returns the credential to run the server with (nil: as ourselves).
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("initdb refuses to run as root and there is no postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls until the server accepts a connection: it is another
// process, so there is nothing to wait on but its socket.
func (c *Cluster) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-c.done:
			return errors.New("postgres exited while starting")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %s: %v", limit, err)
		}
	}
}

// Stop shuts the server down at once and removes its directory.
func (c *Cluster) Stop() {
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	os.RemoveAll(c.dir)
}

// Dir is the cluster's directory (its socket lives there).
func (c *Cluster) Dir() string { return c.dir }

// String names the cluster for logs.
func (c *Cluster) String() string { return strings.TrimSpace(c.DSN("postgres")) }
