package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
)

// putOnceJobs stores n one-time jobs due at at, in one transaction.
func putOnceJobs(t *testing.T, st store.Store, n int, at time.Time) {
	t.Helper()
	err := st.Update(t.Context(), func(tx store.Tx) error {
		for i := range n {
			j := &store.Job{JobID: fmt.Sprintf("01K%023d", i), OrchestratorID: "default", ScheduleType: store.ScheduleOnce,
				Schedule: store.Schedule{RunAt: at, Timezone: "UTC"}, State: store.JobEnabled, NextRunAt: at,
				TargetAction:  store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post", FunctionArgs: json.RawMessage(`{"text":"x"}`)},
				MisfirePolicy: store.MisfireFireOnce, OverlapPolicy: store.OverlapSkip}
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// commitCounter counts the write transactions that commit.
type commitCounter struct {
	store.Store
	commits int
}

func (c *commitCounter) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := c.Store.Update(ctx, fn); err != nil {
		return err
	}
	c.commits++
	return nil
}

// TestFireDue_ABurstStartsSmallAndGrows: the first transaction of a burst
// fires FirstBatch windows and each is reported before the next
// transaction begins; each next transaction fires four times the last,
// up to Batch.
func TestFireDue_ABurstStartsSmallAndGrows(t *testing.T) {
	st := &commitCounter{Store: newTestStore(t)}
	at := time.Now().Add(time.Hour).Truncate(time.Minute)
	putOnceJobs(t, st.Store, 100, at)
	seen := map[int]int{} // commits so far -> windows reported by then
	s := scheduler.New(storetest.Through(st), &scheduler.Options{FirstBatch: 4, Batch: 32, DispatchedFunc: func(*store.Job, *store.Run, time.Duration) {
		seen[st.commits]++
	}})
	n, err := s.FireDue(t.Context(), at)
	if err != nil || n != 100 {
		t.Fatalf("FireDue = %d, %v", n, err)
	}
	// 4, 16, 32 (64 capped at Batch), then the 48 left in a batch of 32
	// and one of 16.
	want := map[int]int{1: 4, 2: 16, 3: 32, 4: 32, 5: 16}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("windows reported after each commit = %v, want %v", seen, want)
	}
}

// TestFireDue_AKillBetweenChunksNeitherLosesNorDoublesAWindow: a process
// firing a burst is SIGKILLed once its first transaction committed and
// before the next one began. The windows it committed stay fired, once;
// the others stay due, and the next FireDue (a restart) fires them, once.
// It runs on a real bbolt file, killed in a child process.
func TestFireDue_AKillBetweenChunksNeitherLosesNorDoublesAWindow(t *testing.T) {
	if path := os.Getenv("SCHEDBOT_TEST_KILL_BURST"); path != "" {
		killedMidBurst(path)
		return
	}
	const n = 200
	path := filepath.Join(t.TempDir(), "automation.db")
	at := time.Now().Add(time.Hour).Truncate(time.Minute)
	st, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	putOnceJobs(t, st, n, at)
	st.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestFireDue_AKillBetweenChunksNeitherLosesNorDoublesAWindow$")
	cmd.Env = append(os.Environ(), "SCHEDBOT_TEST_KILL_BURST="+path, "SCHEDBOT_TEST_KILL_AT="+at.Format(time.RFC3339Nano))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}

	st, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before := len(triggers(t, st))
	if before == 0 || before >= n {
		t.Fatalf("%d of %d windows were committed before the kill; want some, not all (the burst in chunks)", before, n)
	}
	// The restart: the windows the killed process did not commit are due
	// still, and fire now; those it did are not fired again.
	fired, err := scheduler.New(st, nil).FireDue(t.Context(), at.Add(time.Second))
	if err != nil || fired != n-before {
		t.Fatalf("FireDue after the kill = %d, %v; want %d", fired, err, n-before)
	}
	perJob := map[string]int{}
	for _, it := range triggers(t, st) {
		perJob[it.JobID]++
	}
	for i := range n {
		id := fmt.Sprintf("01K%023d", i)
		if perJob[id] != 1 {
			t.Errorf("job %s has %d triggers, want 1", id, perJob[id])
		}
		if rs := runs(t, st, id); len(rs) != 1 || rs[0].ExecutionID != store.ExecutionID(id, at) {
			t.Errorf("job %s has runs %v, want one for its window", id, rs)
		}
	}
}

// killedMidBurst is the child of the kill test: it fires the burst in
// chunks and SIGKILLs itself when the first chunk is reported, before the
// second transaction begins.
func killedMidBurst(path string) {
	at, err := time.Parse(time.RFC3339Nano, os.Getenv("SCHEDBOT_TEST_KILL_AT"))
	if err != nil {
		panic(err)
	}
	st, err := bolt.Open(path, nil)
	if err != nil {
		panic(err)
	}
	s := scheduler.New(st, &scheduler.Options{FirstBatch: 8, DispatchedFunc: func(*store.Job, *store.Run, time.Duration) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}})
	s.FireDue(context.Background(), at)
	os.Exit(3) // never reached: the whole burst was one transaction
}
