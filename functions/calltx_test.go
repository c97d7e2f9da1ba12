package functions_test

import (
	stdctx "context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// logged keeps a logger's messages with their jobId.
type logged struct {
	mu    sync.Mutex
	lines []string
}

func (l *logged) Enabled(stdctx.Context, slog.Level) bool { return true }
func (l *logged) WithAttrs([]slog.Attr) slog.Handler      { return l }
func (l *logged) WithGroup(string) slog.Handler           { return l }
func (l *logged) Handle(_ stdctx.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "action" || a.Key == "jobId" {
			line += " " + a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	return nil
}

func (l *logged) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := strings.Join(l.lines, "\n")
	l.lines = nil
	return out
}

// A change made inside a caller's transaction is logged only once that
// commits (Committed): a rolled-back call logs nothing.
func TestCallTx_AChangeIsLoggedOnlyOnceCommitted(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logs := &logged{}
	reg := functions.NewRegistry(functions.Deps{Store: st, Profiles: profiles, Logger: slog.New(logs),
		Orchestrator: functions.Orchestrator{ID: "default", Timezone: "UTC", MaxJobs: 10, Functions: []string{"schedule.*", "message.post"}}})
	create := functions.Request{Function: "schedule.create", Args: json.RawMessage(friday), Actor: cli}

	rollback := errors.New("the caller's later step failed")
	err = st.Update(context(), func(tx store.Tx) error {
		if _, err := reg.CallTx(context(), tx, create); err != nil {
			t.Fatal(err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("update = %v", err)
	}
	if got := logs.take(); got != "" {
		t.Errorf("a rolled-back call logged:\n%s", got)
	}

	var res any
	if err := st.Update(context(), func(tx store.Tx) (err error) { res, err = reg.CallTx(context(), tx, create); return }); err != nil {
		t.Fatal(err)
	}
	if got := logs.take(); got != "" {
		t.Errorf("logged before Committed:\n%s", got)
	}
	reg.Committed(res)
	id := res.(*functions.JobResult).Job.JobID
	if got, want := logs.take(), "job changed job.created "+id; got != want {
		t.Errorf("after Committed: %q, want %q", got, want)
	}
	// A call in its own transaction logs once it has committed.
	if _, err := reg.Call(context(), functions.Request{Function: "schedule.pause", Args: json.RawMessage(`{"jobId":"` + id + `"}`), Actor: cli}); err != nil {
		t.Fatal(err)
	}
	if got, want := logs.take(), "job changed job.paused "+id; got != want {
		t.Errorf("after Call: %q, want %q", got, want)
	}
}
