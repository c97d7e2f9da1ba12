package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/daemon"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/localapi"
)

// startInProcess runs the daemon's parts in this process on c's data.
func startInProcess(t *testing.T, c *cli) *config.Config {
	t.Helper()
	cfg, err := loadConfig(commonFlags{data: c.data})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	d, err := daemon.Start(ctx, cfg, daemon.Options{Logger: discardLogger(), Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := d.Wait(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	})
	return cfg
}

// rawPost posts body to the local API at sock with no client-side checks.
func rawPost(t *testing.T, sock, path, body string) (int, localapi.Response) {
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
	var r localapi.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r
}

func playUID(t *testing.T, uid int) {
	t.Cleanup(func() { localapi.LocalUID = os.Getuid })
	localapi.LocalUID = func() int { return uid }
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
		// (localapi's TestDialPeer_RefusesADaemonOfAnotherUser checks the
		// kernel's word; here, the CLI's.)
		if os.Getuid() != 0 {
			return // only root can give the socket to another user
		}
		// The socket looks like the other user's own; the kernel says who serves it.
		if err := os.Lchown(cfg.Server.Socket, localapi.LocalUID(), -1); err != nil {
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
	// Args that are not JSON are told as such through the daemon too.
	if _, errs, code := c.run("call", "schedule.create", "--args", "{"); code == 0 || !strings.Contains(errs, "args: not valid JSON") || strings.Contains(errs, "MarshalJSON") {
		t.Errorf("bad args through the daemon: exit %d %s", code, errs)
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
	ln, err := localapi.Listen(cfg.Server.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan localapi.CallRequest, 2)
	done := make(chan struct{})
	go func() { // a daemon that reads the call and dies before answering
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			if req, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
				var cr localapi.CallRequest
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
