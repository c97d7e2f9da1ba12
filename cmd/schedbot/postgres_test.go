package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	termcli "github.com/schedbot/schedbot/adapters/cli"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// pgConfig writes a config whose one orchestrator keeps its records in
// the database $SCHEDBOT_DATABASE_URL names, with its socket in dir.
func pgConfig(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "schedbot.yaml")
	src := `store: {driver: postgres}
orchestrators:
  default: {timezone: UTC}
channel_profiles:
  terminal: {channel: terminal, orchestrator_id: default}
server: {socket: ./schedbot.sock}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func startServeConfig(t *testing.T, cfg string, extra ...string) *daemonProc {
	t.Helper()
	p := &daemonProc{stdout: &syncBuf{}, stderr: &syncBuf{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binary, append([]string{"serve", "--config", cfg}, extra...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

// addDueJobsPG creates n one-time jobs already due, straight in the database.
func addDueJobsPG(t *testing.T, dsn string, n int) []string {
	t.Helper()
	st, err := postgres.Open(t.Context(), dsn, "default", nil)
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

// TestServe_Postgres: with store.driver postgres the CLI works on the
// database directly, serve fires due jobs from it and delivers each post
// once, /healthz says the database answers, a second serve of the same
// orchestrator is refused, and the audit chain verifies.
func TestServe_Postgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	t.Setenv("SCHEDBOT_DATABASE_URL", dsn)
	c := newCLI(t)
	dir := t.TempDir()
	cfg := pgConfig(t, dir)

	out := c.mustRun("call", "schedule.create", "--config", cfg, "--args", createArgs)
	id := jobIDRe.FindString(out)
	if id == "" {
		t.Fatalf("no job id in %q", out)
	}
	if out := c.mustRun("call", "schedule.list", "--config", cfg); !strings.Contains(out, id) {
		t.Errorf("schedule.list does not show %s:\n%s", id, out)
	}
	due := addDueJobsPG(t, dsn, 20)

	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	d := startServeConfig(t, cfg, "--delivery-log", logPath, "--metrics", "127.0.0.1:0")
	d.waitReady(t, dir)
	waitFor(t, 30*time.Second, "every due post", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		return len(entries) >= len(due)
	})
	addr := metricsAddr(t, d.stderr.String())
	if code, body := httpGet(t, "http://"+addr+"/healthz"); code != 200 || body != "ok\ndatabase: reachable\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}

	// A job written by another process (as a CLI on another host would)
	// fires now: its NOTIFY wakes the scheduler, which would otherwise
	// sleep until its one-minute safety wake.
	due = append(due, addDueJobsPG(t, dsn, 1)...)
	waitFor(t, 20*time.Second, "the job another process wrote", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		return len(entries) >= len(due)
	})
	if _, body := httpGet(t, "http://"+addr+"/metrics"); !strings.Contains(body, `schedbot_db_notify_wakeups_total{orchestrator="default"}`) ||
		!strings.Contains(body, `schedbot_db_due_claimed_total{orchestrator="default"} 21`) {
		t.Errorf("/metrics lacks the database counters:\n%s", grepLines(body, "schedbot_db_"))
	}

	// A second serve of the same orchestrator on the same database is
	// active too; when the first dies, a job written after that fires
	// through the second.
	dir2 := t.TempDir()
	secondLog := filepath.Join(t.TempDir(), "second.log")
	second := startServeConfig(t, pgConfig(t, dir2), "--delivery-log", secondLog, "--metrics", "off")
	second.waitReady(t, dir2)
	d.stop(t, syscall.SIGKILL)
	late := addDueJobsPG(t, dsn, 1)
	waitFor(t, 20*time.Second, "the job written after the first instance died", func() bool {
		entries, _ := termcli.ReadLog(secondLog)
		return len(entries) >= 1
	})
	if err := second.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("second stop: %v\n%s", err, second.stderr.String())
	}
	more, err := termcli.ReadLog(secondLog)
	if err != nil || len(more) != 1 || !strings.HasPrefix(more[0].ExecutionID, late[0]) {
		t.Errorf("the second instance delivered %+v, %v; want the one job written after the first died", more, err)
	}

	entries, err := termcli.ReadLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range entries {
		seen[e.ExecutionID]++
	}
	for exec, n := range seen {
		if n != 1 {
			t.Errorf("execution %s delivered %d times", exec, n)
		}
	}
	if len(seen) != len(due) {
		t.Errorf("%d executions delivered, want %d", len(seen), len(due))
	}
	if out := c.mustRun("audit", "verify", "--config", cfg); !strings.Contains(out, "hash chain intact") {
		t.Errorf("audit verify: %s", out)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestServe_PostgresKillTheActiveInstance: over 20 rounds of due jobs the
// serve process on a database is SIGKILLed at a random moment and another
// takes its work over.
// Every window is dispatched once and delivered once, nothing is left in
// the queue, and the audit chain verifies.
func TestServe_PostgresKillTheActiveInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon many times")
	}
	dsn := pgtest.DSN(t)
	t.Setenv("SCHEDBOT_DATABASE_URL", dsn)
	newCLI(t) // no stray schedbot.yaml or zone from the environment
	// One host: both instances print to one delivery log.
	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	dirs := []string{t.TempDir(), t.TempDir()}
	cfgs := []string{pgConfig(t, dirs[0]), pgConfig(t, dirs[1])}
	start := func(slot int) *daemonProc {
		return startServeConfig(t, cfgs[slot], "--delivery-log", logPath, "--metrics", "off")
	}
	st, err := postgres.Open(t.Context(), dsn, "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	busy := func() (n int) {
		st.View(t.Context(), func(tx store.Tx) error {
			if _, ok, _ := tx.JobNextRunAt(); ok {
				n++
			}
			for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing} {
				c, _ := tx.QueueCount(q)
				n += c
			}
			return nil
		})
		return n
	}
	r := rand.New(rand.NewPCG(12, 1))
	active, next := 0, 1
	procs := []*daemonProc{start(active), nil}
	procs[active].waitReady(t, dirs[active])
	var all []string
	midway := 0
	// At least 20 rounds, and more (up to 40) until 5 kills have landed with
	// work in hand, however fast this machine drains a round.
	for round := 0; round < 20 || midway < 5 && round < 40; round++ {
		all = append(all, addDueJobsPG(t, dsn, 100)...)
		// Half the rounds kill at once (the windows due, nothing fired
		// yet), the others a few milliseconds into the work: a fast idle
		// machine drains a round of 100 jobs in tens of milliseconds.
		if r.IntN(2) == 1 {
			time.Sleep(time.Duration(r.Int64N(int64(10 * time.Millisecond))))
		}
		procs[active].stop(t, syscall.SIGKILL)
		if busy() > 0 {
			midway++
		}
		procs[next] = start(next)
		procs[next].waitReady(t, dirs[next])
		active, next = next, active
	}
	if midway < 5 {
		t.Fatalf("only %d of 40 kills landed with work in hand; the test proved little", midway)
	}
	t.Logf("%d jobs, %d of the kills landed with work in hand", len(all), midway)
	// A delivery cut short by a kill is retried when its lease (the
	// delivery timeout and a margin) runs out: wait for the queue to drain.
	waitFor(t, 90*time.Second, "every post delivered and the queue drained", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		return len(entries) >= len(all) && busy() == 0
	})
	if err := procs[active].stop(t, syscall.SIGTERM); err != nil {
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
	err = st.View(t.Context(), func(tx store.Tx) error {
		for _, id := range all {
			runs, err := tx.RunList(id, 10)
			if err != nil {
				return err
			}
			if len(runs) != 1 || runs[0].Status != store.RunCompleted {
				t.Errorf("job %s: %d runs (%v), want one completed", id, len(runs), runs)
				continue
			}
			if n := perExec[runs[0].ExecutionID]; n != 1 {
				t.Errorf("execution %s delivered %d times, want 1", runs[0].ExecutionID, n)
			}
		}
		for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing, store.QueueDead} {
			if n, _ := tx.QueueCount(q); n != 0 {
				t.Errorf("%d items left in %s", n, q)
			}
		}
		if n, err := tx.AuditVerify(); err != nil || n == 0 {
			t.Errorf("audit verify: %d records, %v", n, err)
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

// TestHealthz_SaysWhenTheDatabaseDoesNotAnswer: /healthz is 503, naming
// the orchestrator, while its database cannot be reached.
func TestHealthz_SaysWhenTheDatabaseDoesNotAnswer(t *testing.T) {
	dsn := pgtest.DSN(t)
	st, err := postgres.Open(t.Context(), dsn, "ops", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := &daemon{orchs: map[string]*orch{"ops": {store: st}}, metrics: newMetrics()}
	d.alive.Store(2)
	srv := httptest.NewServer(d.metricsHandler())
	defer srv.Close()
	if code, body := httpGet(t, srv.URL+"/healthz"); code != 200 || body != "ok\ndatabase: reachable\n" {
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
	if code, body := httpGet(t, srv.URL+"/healthz"); code != 503 || !strings.Contains(body, "database unreachable (orchestrator ops)") {
		t.Errorf("/healthz with the database gone = %d %q", code, body)
	}
}
