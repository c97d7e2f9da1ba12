package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// quotaOrch is an orchestrator "default" on st with the given quotas.
func quotaOrch(st store.Store, maxJobs, perSender int) *Orch {
	o := &config.Orchestrator{ID: "default", Timezone: "UTC"}
	reg := functions.NewRegistry(functions.Deps{Store: st,
		Orchestrator: functions.Orchestrator{ID: "default", Timezone: "UTC", MaxJobs: maxJobs, MaxJobsPerSender: perSender,
			Functions: []string{"schedule.*", "message.post"}},
		Profiles: map[string]functions.Profile{"team": {Channel: "slack", Channels: []string{"*"}}}})
	return &Orch{Cfg: o, Store: st, Reg: reg}
}

// pgOrchs are n stores of orchestrator "default" on one fresh database,
// as n processes serving it would have.
func pgOrchs(t *testing.T, n, maxJobs, perSender int) []*Orch {
	t.Helper()
	dsn := pgtest.DSN(t)
	var out []*Orch
	for range n {
		st, err := postgres.Open(t.Context(), dsn, "default", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out = append(out, quotaOrch(st, maxJobs, perSender))
	}
	return out
}

func boltOrchs(t *testing.T, maxJobs, perSender int) []*Orch {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return []*Orch{quotaOrch(st, maxJobs, perSender)}
}

func quotaCreateArgs(name string) json.RawMessage {
	named := ""
	if name != "" {
		named = fmt.Sprintf(`"name":%q,`, name)
	}
	return json.RawMessage(`{` + named + `"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}},
		"targetRef":{"channel":"slack","channelProfileId":"team","channelId":"C024BE91L"}}`)
}

var (
	anaActor = store.Actor{ChannelProfileID: "team", SenderID: "UANA", Sender: "ana", Via: store.ViaSlack}
	quotaCLI = store.Actor{ChannelProfileID: "team", Via: store.ViaCLI}
)

// createAtOnce makes n creates at once, spread over orchs, as actor, and
// returns how many succeeded; every failure must be the quota's.
func createAtOnce(t *testing.T, orchs []*Orch, n int, actor store.Actor) int {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := orchs[i%len(orchs)].Reg.Call(t.Context(), functions.Request{Function: "schedule.create", Args: quotaCreateArgs(""), Actor: actor})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, functions.ErrQuota):
			t.Errorf("create: %v, want success or the quota", err)
		}
	}
	return ok
}

func countJobs(t *testing.T, st store.Store) int {
	t.Helper()
	var n int
	if err := st.View(t.Context(), func(tx store.Tx) (err error) { n, err = tx.JobCount(); return }); err != nil {
		t.Fatal(err)
	}
	return n
}

// Quotas hold whatever the concurrency, on both stores: 40 creates at
// once through four processes' stores leave max_jobs jobs, and as many of
// one sender's as max_jobs_per_sender.
func TestQuotas_HoldUnderConcurrency(t *testing.T) {
	for _, c := range []struct {
		name  string
		orchs func(t *testing.T, maxJobs, perSender int) []*Orch
	}{
		{"bolt", boltOrchs},
		{"postgres", func(t *testing.T, maxJobs, perSender int) []*Orch { return pgOrchs(t, 8, maxJobs, perSender) }},
	} {
		t.Run(c.name+"/max_jobs", func(t *testing.T) {
			orchs := c.orchs(t, 5, 0)
			if got := createAtOnce(t, orchs, 40, anaActor); got != 5 {
				t.Errorf("%d creates succeeded, want 5", got)
			}
			if n := countJobs(t, orchs[0].Store); n != 5 {
				t.Errorf("%d jobs stored, want max_jobs 5", n)
			}
		})
		// Far from the quota creates go several at once; near it, one at
		// a time: a burst may stop a few short, and the rest then fit.
		t.Run(c.name+"/max_jobs_far_then_near", func(t *testing.T) {
			orchs := c.orchs(t, 100, 0)
			got := createAtOnce(t, orchs, 150, quotaCLI)
			if got > 100 {
				t.Errorf("%d creates of a burst of 150 succeeded, want at most 100", got)
			}
			for i := 0; ; i++ {
				_, err := orchs[i%len(orchs)].Reg.Call(t.Context(), functions.Request{Function: "schedule.create", Args: quotaCreateArgs(""), Actor: quotaCLI})
				if errors.Is(err, functions.ErrQuota) && strings.Contains(err.Error(), "delete some first") {
					break
				} else if err != nil && !errors.Is(err, functions.ErrQuota) || i > 100 {
					t.Fatalf("create %d after the burst: %v", i, err)
				}
			}
			if n := countJobs(t, orchs[0].Store); n != 100 {
				t.Errorf("%d jobs stored, want max_jobs 100", n)
			}
		})
		t.Run(c.name+"/max_jobs_per_sender", func(t *testing.T) {
			orchs := c.orchs(t, 1000, 3)
			if got := createAtOnce(t, orchs, 40, anaActor); got != 3 {
				t.Errorf("%d of ana's creates succeeded, want 3", got)
			}
			bob := anaActor
			bob.SenderID, bob.Sender = "UBOB", "bob"
			if got := createAtOnce(t, orchs, 8, bob); got != 3 {
				t.Errorf("%d of bob's creates succeeded, want 3", got)
			}
			if n := countJobs(t, orchs[0].Store); n != 6 {
				t.Errorf("%d jobs stored, want 6", n)
			}
		})
	}
}

// A retry with the same request id returns the first call's result, on
// both stores, concurrently or not: 20 calls at once through four
// processes' stores make one job and all answer with it.
func TestCallOnce_RetriesAtOnceReturnTheFirstResult(t *testing.T) {
	for _, c := range []struct {
		name  string
		orchs func(t *testing.T) []*Orch
	}{
		{"bolt", func(t *testing.T) []*Orch { return boltOrchs(t, 100, 0) }},
		{"postgres", func(t *testing.T) []*Orch { return pgOrchs(t, 4, 100, 0) }},
	} {
		for _, name := range []string{"", "standup"} {
			t.Run(c.name+"/name="+name, func(t *testing.T) {
				orchs := c.orchs(t)
				const n = 20
				var wg sync.WaitGroup
				outs, errs := make([]json.RawMessage, n), make([]error, n)
				for i := range n {
					wg.Go(func() {
						outs[i], errs[i] = CallOnce(t.Context(), orchs[i%len(orchs)], "team",
							functions.Request{Function: "schedule.create", Args: quotaCreateArgs(name), Actor: anaActor}, "retry-1")
					})
				}
				wg.Wait()
				for i := range n {
					if errs[i] != nil {
						t.Errorf("call %d: %v", i, errs[i])
					} else if string(outs[i]) != string(outs[0]) {
						t.Errorf("call %d answered %s, the first %s", i, outs[i], outs[0])
					}
				}
				if got := countJobs(t, orchs[0].Store); got != 1 {
					t.Errorf("%d jobs, want 1", got)
				}
				// And a retry later, one at a time.
				out, err := CallOnce(t.Context(), orchs[len(orchs)-1], "team",
					functions.Request{Function: "schedule.create", Args: quotaCreateArgs(name), Actor: anaActor}, "retry-1")
				if err != nil || string(out) != string(outs[0]) {
					t.Errorf("a later retry: %s, %v; want the first result", out, err)
				}
			})
		}
	}
}
