package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	termcli "github.com/schedbot/schedbot/adapters/cli"
	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"go.uber.org/goleak"

	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// binary is schedbot built once for the tests that run it as a child process.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "schedbot-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "schedbot")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build schedbot: %v\n%s", err, out)
		os.Exit(1)
	}
	// Hermetic: a test that gives no --data writes under a home of its
	// own, never the user's data directory (child processes inherit it).
	// Go's caches stay where they were, found before HOME moves.
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if out, err := exec.Command("go", "env", v).Output(); err == nil {
			os.Setenv(v, strings.TrimSpace(string(out)))
		}
	}
	for _, v := range []string{"HOME", "XDG_DATA_HOME"} {
		os.Setenv(v, filepath.Join(dir, strings.ToLower(v)))
	}
	code := pgtest.Run(m) // m.Run, then the postgres tests' cluster is stopped
	os.RemoveAll(dir)
	if code == 0 { // the daemons started in process waited for every goroutine they started
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines outlived the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

type daemonProc struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuf
	done           chan error
}

// startServe runs `schedbot serve` on data and waits for its socket.
func startServe(t *testing.T, data string, extra ...string) *daemonProc {
	t.Helper()
	p := &daemonProc{stdout: &syncBuf{}, stderr: &syncBuf{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binary, append([]string{"serve", "--data", data}, extra...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	p.cmd.Env = append(os.Environ(), "SCHEDBOT_CONFIG=")
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

func (p *daemonProc) waitReady(t *testing.T, data string) {
	t.Helper()
	sock := filepath.Join(data, "schedbot.sock")
	waitFor(t, 20*time.Second, "the daemon's socket", func() bool {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("daemon exited: %v\n%s", err, p.stderr.String())
		default:
		}
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// waitFor polls cond until it holds or the deadline passes. It is for
// child processes, whose progress no fake clock can drive.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *daemonProc) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	p.cmd.Process.Signal(sig)
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("daemon did not stop on %v", sig)
		return nil
	}
}

func metricsAddr(t *testing.T, stderr string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var line struct{ Msg, Addr string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "metrics listening" {
			return line.Addr
		}
	}
	t.Fatalf("no metrics address in:\n%s", stderr)
	return ""
}

func TestServe_EndToEndThroughTheLocalAPI(t *testing.T) {
	c := newCLI(t)
	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	d := startServe(t, c.data, "--metrics", "127.0.0.1:0", "--delivery-log", logPath)
	d.waitReady(t, c.data)

	// The daemon holds the store, so this only works through its API.
	runAt := time.Now().UTC().Add(-10 * time.Second).Format(time.RFC3339)
	out := c.mustRun("call", "schedule.create", "--args", `{"scheduleType":"once","schedule":{"runAt":"`+runAt+`"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello from the daemon"}}}`)
	id := jobIDRe.FindString(out)
	if id == "" {
		t.Fatalf("create via API:\n%s", out)
	}
	if _, errs, code := c.run("call", "schedule.create", "--args", `{"scheduleType":"cron","schedule":{"cron":"@every 5m","timezone":"UTC"},"targetAction":{"type":"workflow_start","workflowId":"x"}}`); code != 1 || !strings.Contains(errs, "schedule.cron") {
		t.Errorf("invalid call via API: exit %d %s", code, errs)
	}
	waitFor(t, 20*time.Second, "the delivery", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		return len(entries) == 1
	})
	waitFor(t, 10*time.Second, "the post on serve's stdout", func() bool {
		return strings.Contains(d.stdout.String(), "hello from the daemon")
	})
	// Read commands go through the API too, and show what happened.
	var shown functions.JobResult
	json.Unmarshal([]byte(c.mustRun("call", "schedule.show", "--json", "--args", `{"jobId":"`+id+`"}`)), &shown)
	if shown.Job == nil || shown.Job.State != store.JobDisabled || len(shown.Runs) != 1 || shown.Runs[0].Status != store.RunCompleted {
		t.Errorf("show after the run: %+v", shown)
	}
	// The post is printed before its item is moved to done: wait for it.
	var reports []app.QueueReport
	waitFor(t, 10*time.Second, "both items done", func() bool {
		reports = nil
		json.Unmarshal([]byte(c.mustRun("queue", "--json", "--queue", "done")), &reports)
		return len(reports) == 1 && reports[0].Counts[store.QueueDone] == 2
	})
	if len(reports) != 1 || reports[0].Counts[store.QueueDone] != 2 || reports[0].Counts[store.QueueIncoming] != 0 {
		t.Errorf("queue = %+v", reports)
	}
	audit := c.mustRun("audit", "--json")
	if !strings.Contains(audit, `"action":"job.created"`) || !strings.Contains(audit, `"via":"cli"`) || !strings.Contains(audit, `"trigger.dispatched"`) {
		t.Errorf("audit via API:\n%s", audit)
	}
	if out := c.mustRun("audit", "verify"); !strings.Contains(out, "hash chain intact") {
		t.Errorf("verify via API: %s", out)
	}
	addr := metricsAddr(t, d.stderr.String())
	if code, body := testkit.HTTPGet(t, "http://"+addr+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	_, metrics := testkit.HTTPGet(t, "http://"+addr+"/metrics")
	for _, want := range []string{`schedbot_jobs{orchestrator="default",state="disabled"} 1`, `schedbot_runs_total{orchestrator="default",status="completed"} 1`,
		`schedbot_queue_depth{orchestrator="default",queue="done"} 2`, `schedbot_fire_lateness_seconds_count{orchestrator="default"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// A second daemon on the same data refuses to start.
	second := startServe(t, c.data)
	if err := <-second.done; err == nil || !strings.Contains(second.stderr.String(), "held by a running schedbot (pid") {
		t.Errorf("second serve: %v\n%s", err, second.stderr.String())
	}
	second.done <- nil
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM exit: %v\n%s", err, d.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(c.data, "schedbot.sock")); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	if audit := c.mustRun("audit", "--json"); !strings.Contains(audit, `"scheduler.stopped"`) {
		t.Error("no scheduler.stopped event after SIGTERM")
	}
}

// addDueJobs creates n once-jobs that are due now, through the registry on
// the store directly (no daemon is running).
func addDueJobs(t *testing.T, data string, n int) []string {
	t.Helper()
	st, err := bolt.Open(filepath.Join(data, "default", "automation", "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 100000, Functions: []string{"schedule.*", "message.post"}}})
	runAt := time.Now().UTC().Add(-30 * time.Second).Format(time.RFC3339)
	var ids []string
	for i := range n {
		res, err := reg.Call(t.Context(), functions.Request{Function: "schedule.create", Actor: store.Actor{Via: store.ViaCLI},
			Args: []byte(fmt.Sprintf(`{"scheduleType":"once","schedule":{"runAt":%q},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"post %d"}}}`, runAt, i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*functions.JobResult).Job.JobID)
	}
	return ids
}

// pending reports whether work was left mid-way: jobs not yet fired or
// items not yet through the queue.
func pending(t *testing.T, data string) bool {
	t.Helper()
	st, err := bolt.Open(filepath.Join(data, "default", "automation", "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	next, _ := st.NextRun(t.Context())
	busy := !next.IsZero()
	for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing} {
		if testkit.QueueLen(t, st, q) > 0 {
			busy = true
		}
	}
	return busy
}

// TestServe_SIGKILLMidBurstLosesAndDoublesNothing kills the real daemon
// in the middle of bursts of due jobs, several times at different moments,
// and checks that every window ran exactly once and every post was
// delivered exactly once.
func TestServe_SIGKILLMidBurstLosesAndDoublesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon many times")
	}
	c := newCLI(t)
	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	os.MkdirAll(c.data, 0o700)
	r := rand.New(rand.NewPCG(7, 11))
	var all []string
	interrupted := 0
	delay := 60 * time.Millisecond
	for round := 0; round < 12 && interrupted < 4; round++ {
		all = append(all, addDueJobs(t, c.data, 400)...)
		d := startServe(t, c.data, "--delivery-log", logPath, "--metrics", "off")
		d.waitReady(t, c.data)
		time.Sleep(time.Duration(r.Int64N(int64(delay))))
		d.stop(t, syscall.SIGKILL)
		if pending(t, c.data) {
			interrupted++
		} else {
			delay /= 2 // it finished first: kill sooner next time
		}
	}
	if interrupted < 2 {
		t.Fatalf("only %d kills landed mid-burst; the test proved little", interrupted)
	}
	t.Logf("%d jobs, %d of the kills landed mid-burst", len(all), interrupted)

	d := startServe(t, c.data, "--delivery-log", logPath, "--metrics", "off")
	d.waitReady(t, c.data)
	waitFor(t, 60*time.Second, "every post to be delivered", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		return len(entries) >= len(all)
	})
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("final stop: %v", err)
	}

	entries, err := termcli.ReadLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	perExec := map[string]int{}
	for _, e := range entries {
		perExec[e.ExecutionID]++
	}
	st, err := bolt.Open(filepath.Join(c.data, "default", "automation", "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.View(t.Context(), func(tx store.Tx) error {
		for _, id := range all {
			runs, err := tx.RunList(id, 10)
			if err != nil {
				return err
			}
			if len(runs) != 1 {
				t.Errorf("job %s has %d run records, want 1", id, len(runs))
				continue
			}
			if runs[0].Status != store.RunCompleted {
				t.Errorf("job %s run is %s", id, runs[0].Status)
			}
			if n := perExec[runs[0].ExecutionID]; n != 1 {
				t.Errorf("execution %s delivered %d times, want 1", runs[0].ExecutionID, n)
			}
		}
		for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing, store.QueueDead} {
			if n := testkit.QueueLen(t, st, q); n != 0 {
				t.Errorf("%d items left in %s", n, q)
			}
		}
		n, err := st.AuditVerify(t.Context())
		if err != nil {
			t.Errorf("audit verify after the kills: %v", err)
		}
		if n == 0 {
			t.Error("empty audit log")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(perExec) != len(all) {
		t.Errorf("%d executions delivered, want %d", len(perExec), len(all))
	}
}
