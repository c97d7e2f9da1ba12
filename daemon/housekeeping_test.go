package daemon

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
)

// syncBuffer is a bytes.Buffer a logger and a test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(substr string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.b.String(), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// TestHousekeeper_PublishesTheAuditHead: serve logs each chain's head at
// start and every audit.publish_every, so that a copy kept outside the
// store can be checked with `audit verify --head`.
func TestHousekeeper_PublishesTheAuditHead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cfg, err := config.Parse([]byte("orchestrators: {default: {}}\naudit: {publish_every: 1h}\n"), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		h := &housekeeper{id: "default", st: st, cfg: cfg, log: slog.New(slog.NewTextHandler(&logs, nil))}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- h.Run(ctx) }()
		synctest.Wait()
		ev := &store.AuditEvent{Action: store.AuditJobCreated}
		st.Update(t.Context(), func(tx store.Tx) error { return tx.AuditAppend(ev) })
		time.Sleep(2*time.Hour + time.Second)
		synctest.Wait()
		cancel()
		<-done
		got := logs.lines("audit head")
		if len(got) != 3 || !strings.Contains(got[0], "seq=0") || !strings.Contains(got[2], "seq=1 hash="+ev.Hash) {
			t.Errorf("audit head lines = %q, want 3 (at start, 1h, 2h), the later ones naming record 1 and its hash", got)
		}
	})
}

// TestHousekeeper_PrunesRunsAndDeletedJobs: serve keeps a job's newest
// runs.keep_per_job runs and none finished longer ago than runs.max_age,
// and forgets a job deleted longer ago than retention.deleted_jobs, with
// its runs; a run still going and a job deleted recently are kept.
func TestHousekeeper_PrunesRunsAndDeletedJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cfg, err := config.Parse([]byte("orchestrators: {default: {}}\nruns: {keep_per_job: 3, max_age: 4h}\nretention: {deleted_jobs: 2h}\n"), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now().UTC()
		addRun := func(tx store.Tx, id string, at time.Time, status store.RunStatus) error {
			return tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(id, at), JobID: id, ScheduledAt: at, CompletedAt: at, Status: status})
		}
		err = st.Update(t.Context(), func(tx store.Tx) error {
			j := storetest.NewJob("LIVE", start.Add(time.Hour))
			if err := tx.JobPut(j); err != nil {
				return err
			}
			d := storetest.NewJob("GONE", time.Time{})
			d.State, d.UpdatedAt = store.JobDeleted, start
			if err := tx.JobPut(d); err != nil {
				return err
			}
			if err := addRun(tx, "GONE", start.Add(-time.Minute), store.RunCompleted); err != nil {
				return err
			}
			for i := range 5 { // finished 1 to 5 minutes ago
				if err := addRun(tx, "LIVE", start.Add(-time.Duration(5-i)*time.Minute), store.RunCompleted); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		h := &housekeeper{id: "default", st: st, cfg: cfg, log: slog.New(slog.DiscardHandler)}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- h.Run(ctx) }()
		count := func(id string) int {
			var rs []*store.Run
			st.View(t.Context(), func(tx store.Tx) (err error) { rs, err = tx.RunList(id, 100); return err })
			return len(rs)
		}
		synctest.Wait()
		if got := count("LIVE"); got != 3 {
			t.Errorf("LIVE's runs at start = %d, want the newest 3", got)
		}
		// A run that never finishes is kept past any age.
		st.Update(t.Context(), func(tx store.Tx) error { return addRun(tx, "LIVE", start.Add(time.Minute), store.RunRunning) })
		time.Sleep(5*time.Hour + time.Second)
		synctest.Wait()
		cancel()
		<-done
		if got := count("LIVE"); got != 1 {
			t.Errorf("LIVE's runs after 5h = %d, want only the one still running", got)
		}
		st.View(t.Context(), func(tx store.Tx) error {
			if _, err := tx.JobGet("GONE"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("the job deleted 5h ago: %v, want it pruned", err)
			}
			return nil
		})
		if got := count("GONE"); got != 0 {
			t.Errorf("the pruned job's runs = %d, want none", got)
		}
	})
}
