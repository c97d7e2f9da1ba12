package scheduler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

func newTestStore(t *testing.T) store.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// registry creates jobs the way people do, with "now" from the clock
// (fake inside a synctest bubble).
func registry(st store.Store, wake func()) *functions.Registry {
	return functions.NewRegistry(functions.Deps{Store: st, ChangedFunc: wake, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 100000, Functions: []string{"schedule.*", "message.post"}}})
}

func mustCreate(t *testing.T, reg *functions.Registry, args string) *store.Job {
	t.Helper()
	res, err := reg.Call(t.Context(), functions.Request{Function: "schedule.create", Args: json.RawMessage(args), Actor: actor})
	if err != nil {
		t.Fatalf("create %s: %v", args, err)
	}
	return res.(*functions.JobResult).Job
}

func cronJob(expr, tz string, extra string) string {
	return fmt.Sprintf(`{"scheduleType":"cron","schedule":{"cron":%q,"timezone":%q},%s
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`, expr, tz, extra)
}

func mustCreateJob(t *testing.T, st store.Store, expr, tz string) *store.Job {
	t.Helper()
	return mustCreate(t, registry(st, nil), cronJob(expr, tz, ""))
}

func triggers(t *testing.T, st store.Store) []*store.QueueItem {
	t.Helper()
	var items []*store.QueueItem
	err := st.View(t.Context(), func(tx store.Tx) (err error) {
		items, err = tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming, Limit: 100000})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func requireTriggers(t *testing.T, st store.Store, want ...string) {
	t.Helper()
	got := []string{}
	for _, it := range triggers(t, st) {
		got = append(got, it.ScheduledAt.UTC().Format(time.RFC3339))
	}
	if want == nil {
		want = []string{}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trigger windows (-want +got):\n%s", d)
	}
}

func runs(t *testing.T, st store.Store, jobID string) []*store.Run {
	t.Helper()
	var rs []*store.Run
	if err := st.View(t.Context(), func(tx store.Tx) (err error) { rs, err = tx.RunList(jobID, 1000); return }); err != nil {
		t.Fatal(err)
	}
	return rs
}

func getJob(t *testing.T, st store.Store, id string) *store.Job {
	t.Helper()
	var j *store.Job
	if err := st.View(t.Context(), func(tx store.Tx) (err error) { j, err = tx.JobGet(id); return }); err != nil {
		t.Fatal(err)
	}
	return j
}

func auditActions(t *testing.T, st store.Store, jobID string) []string {
	t.Helper()
	var evs []*store.AuditEvent
	if err := st.View(t.Context(), func(tx store.Tx) (err error) {
		evs, err = tx.AuditList(&store.AuditListParams{JobID: jobID})
		return
	}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Action)
	}
	return out
}

func startLoop(t *testing.T, s *scheduler.Scheduler) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	}
}
