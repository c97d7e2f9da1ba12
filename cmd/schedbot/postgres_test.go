package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	termcli "github.com/schedbot/schedbot/adapters/cli"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
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
	if code, body := testkit.HTTPGet(t, "http://"+addr+"/healthz"); code != 200 || body != "ok\ndatabase: reachable\n" {
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
	if _, body := testkit.HTTPGet(t, "http://"+addr+"/metrics"); !strings.Contains(body, `schedbot_db_notify_wakeups_total{orchestrator="default"}`) ||
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

// createDueJobs creates n one-time jobs already due through reg, with the
// texts "post <prefix>-<i>", from a few goroutines at once (a burst);
// created is called with the count after each one. A create that the
// database aborted as a deadlock victim is tried again and counted in
// deadlocks (see the comment at its use).
func createDueJobs(ctx context.Context, reg *functions.Registry, prefix string, n int, deadlocks *atomic.Int64, created func(int)) ([]string, error) {
	const workers = 4
	ids := make([]string, n)
	errs := make([]error, workers)
	var count atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				// Due already, and read at each create: on a loaded machine a
				// burst outlasts the grace a past runAt is given.
				runAt := time.Now().UTC().Add(-30 * time.Second).Format(time.RFC3339)
				args := fmt.Sprintf(`{"scheduleType":"once","schedule":{"runAt":%q},
					"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"post %s-%d"}}}`, runAt, prefix, i)
				for {
					res, err := reg.Call(ctx, functions.Request{Function: "schedule.create", Actor: store.Actor{Via: store.ViaCLI}, Args: []byte(args)})
					var pgErr *pgconn.PgError
					if errors.As(err, &pgErr) && pgErr.Code == "40P01" {
						deadlocks.Add(1)
						continue
					}
					if err != nil {
						errs[w] = err
						return
					}
					ids[i] = res.(*functions.JobResult).Job.JobID
					break
				}
				created(int(count.Add(1)))
			}
		})
	}
	wg.Wait()
	return ids, errors.Join(errs...)
}

// TestServe_PostgresThreeInstancesKilledAtRandom: three serve processes on
// one database, all active, printing to one delivery log (one host). Each
// round a burst of due jobs arrives and an instance, picked at random, is
// SIGKILLed at a random moment — in half the rounds while the burst is
// still arriving, so that on any machine the kill lands with work in hand;
// in the others a few milliseconds after — and started again. The victim is
// one of two: the third lives through the test, so that a post retried
// after a kill can reach a process that has not read the log since it
// started (a restarted one reads it whole). Then every
// window was dispatched once (one completed run per job), every post was
// delivered once (the shared log, and no process printed one that another
// had printed), nothing is left in any queue, and `schedbot audit verify`
// passes.
func TestServe_PostgresThreeInstancesKilledAtRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon many times")
	}
	// 20 rounds of 500: 10,000 windows in about a minute on a shared
	// 2-core machine.
	const instances, rounds, perRound = 3, 20, 500
	dsn := pgtest.DSN(t)
	t.Setenv("SCHEDBOT_DATABASE_URL", dsn)
	c := newCLI(t) // no stray schedbot.yaml or zone from the environment
	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	var dirs, cfgs []string
	for range instances {
		dir := t.TempDir()
		dirs, cfgs = append(dirs, dir), append(cfgs, pgConfig(t, dir))
	}
	procs := make([]*daemonProc, instances)
	var every []*daemonProc // for their output, the killed ones' too
	start := func(i int) {
		procs[i] = startServeConfig(t, cfgs[i], "--delivery-log", logPath, "--metrics", "off")
		every = append(every, procs[i])
	}
	for i := range instances {
		start(i)
	}
	for i := range instances {
		procs[i].waitReady(t, dirs[i])
	}
	st, err := postgres.Open(t.Context(), dsn, "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 100000, Functions: []string{"schedule.*", "message.post"}}})
	busy := func() (n int) {
		if next, _ := st.NextRun(t.Context()); !next.IsZero() {
			n++
		}
		for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing} {
			n += testkit.QueueLen(t, st, q)
		}
		return n
	}
	// inRound counts the posts of round r in the log.
	inRound := func(r int) (n int) {
		entries, _ := termcli.ReadLog(logPath)
		for _, e := range entries {
			if strings.HasPrefix(e.Text, fmt.Sprintf("post %d-", r)) {
				n++
			}
		}
		return n
	}
	// A create that loses a deadlock (40P01) is retried, as a client would,
	// and counted: there must be none (the audit chain's head and the job
	// rows were once locked in opposite orders by a change and a dispatch).
	var deadlocks atomic.Int64
	r := rand.New(rand.NewPCG(12, 3))
	began := time.Now()
	var all []string
	midway := 0
	for round := 0; round < rounds || midway < 5 && round < 2*rounds; round++ {
		vi := 1 + r.IntN(instances-1)
		victim := procs[vi]
		during := r.IntN(2) == 1
		killAt := 1 + r.IntN(perRound-1)
		type burst struct {
			ids []string
			err error
		}
		reached, done := make(chan struct{}), make(chan burst, 1)
		go func() {
			ids, err := createDueJobs(t.Context(), reg, fmt.Sprint(round), perRound, &deadlocks, func(n int) {
				if n == killAt {
					close(reached)
				}
			})
			done <- burst{ids, err}
		}()
		var b burst
		got := false
		if during {
			select {
			case <-reached:
			case b = <-done: // it failed first
				got = true
			}
		} else {
			b, got = <-done, true
			time.Sleep(time.Duration(r.Int64N(int64(10 * time.Millisecond))))
		}
		victim.stop(t, syscall.SIGKILL)
		if inRound(round) < perRound {
			midway++
		}
		if !got {
			b = <-done
		}
		if b.err != nil {
			t.Fatal(b.err)
		}
		all = append(all, b.ids...)
		start(vi)
		procs[vi].waitReady(t, dirs[vi])
	}
	if midway < 5 {
		t.Fatalf("only %d kills landed with the burst in hand; the test proved little", midway)
	}
	// A post whose process died mid-delivery goes again at once: the
	// dead process's lane is free.
	drain := time.Now()
	waitFor(t, 120*time.Second, "every post delivered and the queue drained", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		return len(entries) >= len(all) && busy() == 0
	})
	t.Logf("%d windows in %d rounds, %d kills with the burst in hand; %v, of which %v draining",
		len(all), len(every)-instances, midway, time.Since(began).Round(time.Second), time.Since(drain).Round(time.Second))
	if n := deadlocks.Load(); n > 0 {
		t.Errorf("%d creates lost a deadlock with the serving processes", n)
	}
	for i, p := range procs {
		if err := p.stop(t, syscall.SIGTERM); err != nil {
			t.Errorf("final stop of instance %d: %v\n%s", i, err, p.stderr.String())
		}
	}

	entries, err := termcli.ReadLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	perExec := map[string]int{}
	for _, e := range entries {
		perExec[e.ExecutionID]++
	}
	printed := map[string]int{} // a post's text -> times printed, by every process
	for _, p := range every {
		for _, line := range strings.Split(p.stdout.String(), "\n") {
			if _, text, ok := strings.Cut(line, "]: "); ok {
				printed[text]++
			}
		}
	}
	for text, n := range printed {
		if n > 1 {
			t.Errorf("%q printed %d times", text, n)
		}
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
			if n := testkit.QueueLen(t, st, q); n != 0 {
				t.Errorf("%d items left in %s", n, q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(perExec) != len(all) {
		t.Errorf("%d executions delivered, want %d", len(perExec), len(all))
	}
	if out := c.mustRun("audit", "verify", "--config", cfgs[0]); !strings.Contains(out, "hash chain intact") {
		t.Errorf("audit verify: %s", out)
	}
}
