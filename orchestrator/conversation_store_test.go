package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// instance is one schedbot process's message handling: a worker running
// a Conversations, over a store that other instances may share.
type instance struct {
	st  store.Store
	w   *orchestrator.Worker
	out *recorder
}

func newInstance(t *testing.T, st store.Store, mod ...func(*orchestrator.Options)) *instance {
	t.Helper()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "America/New_York", MaxJobs: 100, Functions: []string{"schedule.*", "message.post"}},
		Profiles: testProfiles})
	c := &conversation.Conversations{Selector: rules.New(), Registry: reg, Store: st, Timezone: "America/New_York",
		Profiles: map[string]conversation.Profile{"team": {ID: "team", Channel: "slack"}}}
	out := &recorder{}
	opt := orchestrator.Options{OrchestratorID: "default", Store: st, Registry: reg,
		Deliverers: map[string]orchestrator.Deliverer{"slack": out}, ProfileChannels: map[string]string{"team": "slack"},
		Messages: c.Decide}
	for _, m := range mod {
		m(&opt)
	}
	return &instance{st: st, w: orchestrator.NewWorker(opt), out: out}
}

// say sends Ana's message in #team (in the thread of thread, when set)
// through this instance alone, and returns its reply.
func (in *instance) say(t *testing.T, text, ts, thread string) string {
	t.Helper()
	before := len(in.out.texts())
	in.send(t, text, ts, thread)
	return in.reply(t, text, before)
}

// send queues Ana's message.
func (in *instance) send(t *testing.T, text, ts, thread string) {
	t.Helper()
	payload, _ := json.Marshal(orchestrator.Message{Text: text, SenderID: "UANA", Sender: "ana", ChannelID: "C0TEAM",
		MessageTS: ts, ThreadTS: thread, Timezone: "America/New_York"})
	err := in.st.Update(t.Context(), func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", ChannelProfileID: "team", Payload: payload})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// reply runs this instance until the queue is idle and returns the one
// reply it delivered after the first before.
func (in *instance) reply(t *testing.T, text string, before int) string {
	t.Helper()
	for range 10 {
		busy, err := in.w.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !busy {
			break
		}
	}
	got := in.out.texts()
	if len(got) != before+1 {
		t.Fatalf("%q: %d replies, want 1: %q", text, len(got)-before, got[before:])
	}
	return got[before]
}

// requireJobs returns the jobs stored, failing unless there are want.
func requireJobs(t *testing.T, st store.Store, want int) []*store.Job {
	t.Helper()
	var jobs []*store.Job
	err := st.View(t.Context(), func(tx store.Tx) error {
		p, err := tx.JobList(&store.JobListParams{States: store.JobStates})
		if p != nil {
			jobs = p.Jobs
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != want {
		t.Fatalf("%d jobs, want %d: %+v", len(jobs), want, jobs)
	}
	return jobs
}

// conversationAcross runs one conversation whose messages go through the
// instances that at(step) returns: a question asked (step 0) answered in
// its thread (1) makes exactly one job; a second job made (2) is "it", so
// "pause it" (3) pauses that one and not the first.
func conversationAcross(t *testing.T, at func(step int) *instance) {
	t.Helper()
	in := at(0)
	if got := in.say(t, "remind me to stretch", "1700000000.000100", ""); !strings.HasPrefix(got, "When should I post “stretch”?") {
		t.Fatalf("question = %q", got)
	}
	in = at(1)
	got := in.say(t, "every day at 3pm", "1700000000.000200", "1700000000.000100")
	if !strings.HasPrefix(got, "OK — I'll post “stretch”") || !strings.Contains(got, "every day at 3:00 PM") {
		t.Fatalf("answer = %q, want the stretch job made", got)
	}
	stretch := requireJobs(t, in.st, 1)[0]
	in = at(2)
	if got := in.say(t, "post water every day at 4pm", "1700000000.000300", ""); !strings.HasPrefix(got, "OK — I'll post “water”") {
		t.Fatalf("second job = %q", got)
	}
	in = at(3)
	if got := in.say(t, "pause it", "1700000000.000400", ""); !strings.HasPrefix(got, "Paused job") {
		t.Fatalf("pause it = %q", got)
	}
	for _, j := range requireJobs(t, in.st, 2) {
		want := store.JobPaused
		if j.JobID == stretch.JobID {
			want = store.JobEnabled
		}
		if j.State != want {
			t.Errorf("job %s (%s) is %s, want %s", j.JobID, j.TargetAction.FunctionArgs, j.State, want)
		}
	}
}

// Two instances on one database, as two serve processes: the question
// asked through A is answered through B, and "it" spoken of through A is
// what "pause it" through B pauses.
func TestConversation_PostgresQuestionThroughAAnsweredThroughB(t *testing.T) {
	dsn := pgtest.DSN(t)
	open := func(owner string) store.Store {
		st, err := postgres.Open(t.Context(), dsn, "default", &postgres.Options{Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := newInstance(t, open("A")), newInstance(t, open("B"))
	conversationAcross(t, func(step int) *instance { return []*instance{a, b, a, b}[step] })
}

// A bolt store closed and opened again between every message, as serve
// restarted: the open question and "it" are still there.
func TestConversation_BoltRememberedAcrossARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automation.db")
	var open *bolt.Store
	conversationAcross(t, func(int) *instance {
		if open != nil {
			if err := open.Close(); err != nil {
				t.Fatal(err)
			}
		}
		st, err := bolt.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		open = st
		t.Cleanup(func() { st.Close() })
		return newInstance(t, st)
	})
}

// Two answers to one question, reaching two instances at once: one makes
// the job; the other, whose reply would commit second, finds the question
// closed, rolls back and is decided again, so it asks instead of making a
// second job.
func TestConversation_TwoAnswersAtOnceMakeOneJob(t *testing.T) {
	stores := map[string]func(t *testing.T) (store.Store, store.Store){
		"bolt": func(t *testing.T) (store.Store, store.Store) {
			st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st, st // one process, one file: two workers over it
		},
		"postgres": func(t *testing.T) (store.Store, store.Store) {
			dsn := pgtest.DSN(t)
			var out [2]store.Store
			for i, owner := range []string{"A", "B"} {
				st, err := postgres.Open(t.Context(), dsn, "default", &postgres.Options{Owner: owner})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				out[i] = st
			}
			return out[0], out[1]
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			stA, stB := open(t)
			decided, release := make(chan struct{}), make(chan struct{})
			var later atomic.Int64 // A's clock, moved on past its retry delay
			a := newInstance(t, stA, func(o *orchestrator.Options) {
				decide := o.Messages
				o.Messages = func(ctx context.Context, it *store.QueueItem, m *orchestrator.Message) orchestrator.Reply {
					r := decide(ctx, it, m)
					if m.Text == "every day at 3pm" && later.Load() == 0 {
						close(decided) // decided with the question open; held before its commit
						<-release
					}
					return r
				}
				o.Now = func() time.Time { return time.Now().Add(time.Duration(later.Load())) }
			})
			b := newInstance(t, stB)
			if got := a.say(t, "remind me to stretch", "1700000000.000100", ""); !strings.HasPrefix(got, "When should I post “stretch”?") {
				t.Fatalf("question = %q", got)
			}
			a.send(t, "every day at 3pm", "1700000000.000200", "1700000000.000100")
			stepped := make(chan error)
			go func() {
				_, err := a.w.Step(context.Background())
				stepped <- err
			}()
			<-decided
			if got := b.say(t, "every day at 4pm", "1700000000.000300", "1700000000.000100"); !strings.HasPrefix(got, "OK — I'll post “stretch”") {
				t.Fatalf("B's answer = %q", got)
			}
			close(release)
			if err := <-stepped; !strings.Contains(fmt.Sprint(err), "answered meanwhile") {
				t.Errorf("A's step = %v, want its commit refused", err)
			}
			later.Store(int64(time.Hour))
			if got := a.reply(t, "every day at 3pm", 1); got != "What should I post every day at 3:00 PM?" {
				t.Errorf("A's answer decided again = %q", got)
			}
			if j := requireJobs(t, stB, 1)[0]; j.Schedule.Cron != "0 16 * * *" {
				t.Errorf("the job = %s, want B's 4pm", j.Schedule.Cron)
			}
		})
	}
}
