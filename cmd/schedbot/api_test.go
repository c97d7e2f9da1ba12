package main

import (
	"bufio"
	"bytes"
	"context"
	bin "encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
)

// inotifyEvents returns the masks of the events queued on fd, by name.
func inotifyEvents(t *testing.T, fd int) map[string][]uint32 {
	t.Helper()
	out := map[string][]uint32{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EAGAIN) || n <= 0 {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			mask := bin.NativeEndian.Uint32(buf[off+4:])
			l := int(bin.NativeEndian.Uint32(buf[off+12:]))
			name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+l], "\x00"))
			out[name] = append(out[name], mask)
			off += syscall.SizeofInotifyEvent + l
		}
	}
}

// TestListenSocket_PrivateFromTheStart watches the socket's directory: the
// socket must appear at its path already 0600, never be created there with
// the umask's mode and chmodded after (a window in which anyone could
// connect).
func TestListenSocket_PrivateFromTheStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schedbot.sock")
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_ATTRIB|syscall.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	l, err := listenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	events := inotifyEvents(t, fd)
	masks := events[filepath.Base(path)]
	if len(masks) == 0 {
		t.Fatalf("no event for the socket: %v", events)
	}
	for _, m := range masks {
		if m&syscall.IN_ATTRIB != 0 {
			t.Errorf("the socket's mode changed after it appeared at %s (events %#x)", path, masks)
		}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket of mode 0600", fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the socket's directory: %v", ents)
	}
}

// startInProcess runs the daemon's parts in this process on c's data.
func startInProcess(t *testing.T, c *cli) *config.Config {
	t.Helper()
	cfg, err := loadConfig(commonFlags{data: c.data})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	_, wait, err := startDaemon(ctx, cfg, discardLogger(), io.Discard, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := wait(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	})
	return cfg
}

// rawPost posts body to the local API at sock with no client-side checks.
func rawPost(t *testing.T, sock, path, body string) (int, apiResponse) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	resp, err := hc.Post("http://schedbot"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r
}

func playUID(t *testing.T, uid int) {
	t.Cleanup(func() { localUID = os.Getuid })
	localUID = func() int { return uid }
}

// TestLocalAPI_PeerCredentials: the daemon takes the caller from the
// kernel (SO_PEERCRED), not from the request, and serves only its own
// user; the CLI talks only to a socket and a daemon of its own user.
func TestLocalAPI_PeerCredentials(t *testing.T) {
	c := newCLI(t)
	cfg := startInProcess(t, c)
	me := strconv.Itoa(os.Getuid())

	t.Run("the actor is the peer, whatever the request claims", func(t *testing.T) {
		code, r := rawPost(t, cfg.Server.Socket, "/v1/call", `{"function":"schedule.create",
			"actor":{"senderId":"4242","sender":"mallory","via":"slack"},"senderId":"4242",
			"args":{"scheduleType":"cron","schedule":{"cron":"0 9 * * *","timezone":"UTC"},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}}`)
		var res functions.JobResult
		if code != http.StatusOK || json.Unmarshal(r.Result, &res) != nil || res.Job == nil {
			t.Fatalf("create: %d %+v", code, r)
		}
		if by := res.Job.CreatedBy; by.SenderID != me || by.Via != "cli" {
			t.Errorf("createdBy = %+v, want uid %s via cli", by, me)
		}
	})
	t.Run("the daemon refuses another user", func(t *testing.T) {
		playUID(t, os.Getuid()+1) // the daemon now serves someone else
		code, r := rawPost(t, cfg.Server.Socket, "/v1/call", `{"function":"schedule.list"}`)
		if code != http.StatusForbidden || !strings.Contains(r.Error, "serves only uid") || !strings.Contains(r.Error, "caller runs as uid "+me) {
			t.Errorf("another user's call: %d %+v", code, r)
		}
	})
	t.Run("the CLI refuses a socket of another user", func(t *testing.T) {
		playUID(t, os.Getuid()+1)
		_, errs, code := c.run("call", "schedule.list")
		if code != exitFailed || !strings.Contains(errs, "belongs to uid "+me) {
			t.Errorf("exit %d: %s", code, errs)
		}
	})
	t.Run("the CLI refuses a daemon of another user", func(t *testing.T) {
		playUID(t, os.Getuid()+1)
		_, err := dialPeer(t.Context(), cfg.Server.Socket, 0)
		if !errors.Is(err, errForeignPeer) || !strings.Contains(err.Error(), "runs as uid "+me) {
			t.Errorf("dial a daemon of uid %s as uid %d: %v", me, localUID(), err)
		}
		if os.Getuid() != 0 {
			return // only root can give the socket to another user
		}
		// The socket looks like the other user's own; the kernel says who serves it.
		if err := os.Lchown(cfg.Server.Socket, localUID(), -1); err != nil {
			t.Fatal(err)
		}
		defer os.Lchown(cfg.Server.Socket, os.Getuid(), -1)
		if _, errs, code := c.run("call", "schedule.list"); code != exitFailed || !strings.Contains(errs, "served by another user") {
			t.Errorf("exit %d: %s", code, errs)
		}
	})
	// And the same user goes through.
	if out := c.mustRun("call", "schedule.list"); !strings.Contains(out, "JOB ID") {
		t.Errorf("list:\n%s", out)
	}
}

const onceArgs = `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 1","timezone":"UTC"},
"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"weekly"}}}`

func jobCount(t *testing.T, c *cli) int {
	t.Helper()
	var page struct{ Jobs []json.RawMessage }
	if err := json.Unmarshal([]byte(c.mustRun("call", "schedule.list", "--json")), &page); err != nil {
		t.Fatal(err)
	}
	return len(page.Jobs)
}

// TestCall_RequestIDMakesARetrySafe: a call retried with the same request
// id returns the first result and creates nothing more, through the daemon
// and, after the daemon is killed, directly on the store: the id and the
// result were committed with the job.
func TestCall_RequestIDMakesARetrySafe(t *testing.T) {
	c := newCLI(t)
	d := startServe(t, c.data, "--metrics", "off")
	d.waitReady(t, c.data)

	first := jobIDRe.FindString(c.mustRun("call", "schedule.create", "--request-id", "retry-1", "--args", onceArgs))
	if first == "" {
		t.Fatal("no job id")
	}
	if again := jobIDRe.FindString(c.mustRun("call", "schedule.create", "--request-id", "retry-1", "--args", onceArgs)); again != first {
		t.Errorf("retry through the daemon created %s, want the first result %s", again, first)
	}
	d.stop(t, syscall.SIGKILL)
	if again := jobIDRe.FindString(c.mustRun("call", "schedule.create", "--request-id", "retry-1", "--args", onceArgs)); again != first {
		t.Errorf("retry after the daemon was killed created %s, want the first result %s", again, first)
	}
	if n := jobCount(t, c); n != 1 {
		t.Errorf("%d jobs after three calls with one request id, want 1", n)
	}
	// The same id for another call is refused, and changes nothing.
	other := strings.Replace(onceArgs, "weekly", "other", 1)
	if _, errs, code := c.run("call", "schedule.create", "--request-id", "retry-1", "--args", other); code != exitUsage || !strings.Contains(errs, "--request-id retry-1 was used for another call") {
		t.Errorf("reused id: exit %d %s", code, errs)
	}
	if _, errs, code := c.run("call", "schedule.create", "--request-id", "a b", "--args", onceArgs); code != exitUsage || !strings.Contains(errs, `--request-id "a b"`) {
		t.Errorf("bad id: exit %d %s", code, errs)
	}
	// Without an id each invocation is its own call.
	c.mustRun("call", "schedule.create", "--args", onceArgs)
	if n := jobCount(t, c); n != 2 {
		t.Errorf("%d jobs, want 2", n)
	}
}

// TestCall_CutConnectionSaysRetryIsSafe: when the daemon dies before it
// answers, the error says that retrying with the call's request id is safe
// and prints the id.
func TestCall_CutConnectionSaysRetryIsSafe(t *testing.T) {
	c := newCLI(t)
	cfg, err := loadConfig(commonFlags{data: c.data})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := listenSocket(cfg.Server.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan callRequest, 2)
	done := make(chan struct{})
	go func() { // a daemon that reads the call and dies before answering
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			if req, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
				var cr callRequest
				json.NewDecoder(req.Body).Decode(&cr)
				got <- cr
			}
			conn.Close()
		}
	}()
	_, errs, code := c.run("call", "schedule.create", "--args", onceArgs)
	sent := <-got
	if code != exitFailed || sent.RequestID == "" || !strings.Contains(errs, "Retrying it with --request-id "+sent.RequestID+" is safe") {
		t.Errorf("exit %d, request id %q:\n%s", code, sent.RequestID, errs)
	}
	_, errs, _ = c.run("call", "schedule.create", "--request-id", "mine-1", "--args", onceArgs)
	if sent := <-got; sent.RequestID != "mine-1" || !strings.Contains(errs, "--request-id mine-1 is safe") {
		t.Errorf("given id: sent %q:\n%s", sent.RequestID, errs)
	}
	ln.Close()
	<-done
}

// socketDir is a directory under t.TempDir whose path is n bytes long.
func socketDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if len(dir)+2 > n {
		t.Skipf("the temporary directory %s is already longer than %d bytes", dir, n)
	}
	dir = filepath.Join(dir, strings.Repeat("d", n-len(dir)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestListenSocket_LongDataDirectory: a socket path that fits the 107
// bytes of a unix socket is served, however long the temporary name it is
// first bound under would be, and it answers there.
func TestListenSocket_LongDataDirectory(t *testing.T) {
	path := filepath.Join(socketDir(t, maxSocketPath-len("/schedbot.sock")), "schedbot.sock")
	if len(path) != maxSocketPath {
		t.Fatalf("test path is %d bytes, want %d", len(path), maxSocketPath)
	}
	l, err := listenSocket(path)
	if err != nil {
		t.Fatalf("listen on a %d-byte path: %v", len(path), err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, _ := io.ReadAll(c); string(b) != "hi" {
		t.Errorf("read %q from the socket, want hi", b)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket at %s: %v, %v; want mode 0600", path, fi, err)
	}
}

// TestListenSocket_PathTooLong: a path past the limit is refused naming
// the limit and server.socket, not with the kernel's "invalid argument".
func TestListenSocket_PathTooLong(t *testing.T) {
	path := filepath.Join(socketDir(t, maxSocketPath), "schedbot.sock")
	_, err := listenSocket(path)
	if err == nil || !strings.Contains(err.Error(), "server.socket") || !strings.Contains(err.Error(), "107") {
		t.Fatalf("listen on a %d-byte path: %v; want an error naming server.socket and the 107-byte limit", len(path), err)
	}
}
