package orchestrator_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// recorder is a deliverer that keeps what it was given.
type recorder struct {
	mu          sync.Mutex
	got         []orchestrator.Delivery
	DeliverFunc func(d *orchestrator.Delivery) error
}

func (r *recorder) Deliver(_ context.Context, d *orchestrator.Delivery) error {
	if r.DeliverFunc != nil {
		if err := r.DeliverFunc(d); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, *d)
	return nil
}

func (r *recorder) texts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, d := range r.got {
		out = append(out, d.Text)
	}
	return out
}

type panicArgs struct{}

type env struct {
	st    store.Store
	reg   *functions.Registry
	w     *orchestrator.Worker
	term  *recorder
	slack *recorder
	sched *scheduler.Scheduler
}

var actor = store.Actor{Via: store.ViaCLI, Sender: "ada", SenderID: "1000", ChannelProfileID: "terminal"}

func newEnv(t *testing.T, mod ...func(*orchestrator.Options)) *env {
	t.Helper()
	return newEnvAllowing(t, []string{"schedule.*", "message.post", "test.*"}, mod...)
}

func newEnvAllowing(t *testing.T, allowed []string, mod ...func(*orchestrator.Options)) *env {
	t.Helper()
	return newEnvWith(t, allowed, testProfiles, mod...)
}

func newEnvWith(t *testing.T, allowed []string, profiles map[string]functions.Profile, mod ...func(*orchestrator.Options)) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{st: st, term: &recorder{}, slack: &recorder{}}
	workflows := map[string]*config.Workflow{
		"daily-report": {Steps: []config.Step{
			{Function: "message.post", Args: map[string]any{"text": "Report for {{.inputs.team}} at {{.trigger.scheduledAt}}"}},
			{Function: "message.post", Args: map[string]any{"text": "second step"}},
		}},
		"broken": {Steps: []config.Step{{Function: "message.post", Args: map[string]any{"text": "{{.inputs.missing}}"}}}},
	}
	e.reg = functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 1000, Functions: allowed,
		Workflows: map[string]bool{"daily-report": true, "broken": true, "gone": true}},
		Profiles: profiles})
	functions.MustRegister(e.reg, functions.Spec[panicArgs]{ID: "test.panic", Schema: []byte(`{"type":"object"}`),
		Handle: func(context.Context, *functions.Call, *panicArgs) (any, error) { panic("boom") }})
	// Wired as the daemon wires them: a dispatch wakes the worker.
	e.sched = scheduler.New(st, &scheduler.Options{DispatchedFunc: func(*store.Job, *store.Run, time.Duration) { e.w.Wake() }})
	opt := orchestrator.Options{
		OrchestratorID: "default", Store: st, Registry: e.reg, Workflows: workflows,
		Deliverers:      map[string]orchestrator.Deliverer{"terminal": e.term, "slack": e.slack},
		ProfileChannels: map[string]string{},
	}
	for id, p := range profiles {
		opt.ProfileChannels[id] = p.Channel
	}
	for _, m := range mod {
		m(&opt)
	}
	e.w = orchestrator.NewWorker(opt)
	return e
}

func (e *env) create(t *testing.T, args string) *store.Job {
	t.Helper()
	res, err := e.reg.Call(t.Context(), functions.Request{Function: "schedule.create", Args: json.RawMessage(args), Actor: actor})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return res.(*functions.JobResult).Job
}

// fire dispatches the job's next window and works the queue until idle.
func (e *env) fire(t *testing.T, j *store.Job) {
	t.Helper()
	if _, err := e.sched.FireDue(t.Context(), j.NextRunAt); err != nil {
		t.Fatal(err)
	}
	e.drain(t)
}

func (e *env) drain(t *testing.T) {
	t.Helper()
	for range 100 {
		busy, err := e.w.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !busy {
			return
		}
	}
	t.Fatal("queue never went idle")
}

func (e *env) lastRun(t *testing.T, jobID string) *store.Run {
	t.Helper()
	var rs []*store.Run
	e.st.View(t.Context(), func(tx store.Tx) (err error) { rs, err = tx.RunList(jobID, 1); return })
	if len(rs) == 0 {
		t.Fatalf("job %s has no runs", jobID)
	}
	return rs[0]
}

func (e *env) count(t *testing.T, q store.QueueName) int {
	t.Helper()
	return testkit.QueueLen(t, e.st, q)
}

func (e *env) actions(t *testing.T) string {
	t.Helper()
	var evs []*store.AuditEvent
	e.st.View(t.Context(), func(tx store.Tx) (err error) { evs, err = tx.AuditList(nil); return })
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Action)
	}
	return strings.Join(out, " ")
}

func job(action string, extra string) string {
	return fmt.Sprintf(`{"scheduleType":"cron","schedule":{"cron":"0 9 * * *","timezone":"UTC"},"targetAction":%s%s}`, action, extra)
}

const post = `{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello world"}}`

func TestWorker_CommandInvokePostsToTheJobsTarget(t *testing.T) {
	e := newEnv(t)
	j := e.create(t, job(post, `,"targetRef":{"channel":"slack","channelId":"C024BE91L"}`))
	e.fire(t, j)
	if got := e.slack.texts(); len(got) != 1 || got[0] != "hello world" {
		t.Fatalf("slack got %v", got)
	}
	d := e.slack.got[0]
	if d.Target.ChannelID != "C024BE91L" || d.JobID != j.JobID || d.ExecutionID == "" {
		t.Errorf("delivery = %+v", d)
	}
	r := e.lastRun(t, j.JobID)
	if r.Status != store.RunCompleted || r.StartedAt.IsZero() || r.CompletedAt.IsZero() {
		t.Errorf("run = %+v", r)
	}
	var got *store.Job
	e.st.View(t.Context(), func(tx store.Tx) (err error) { got, err = tx.JobGet(j.JobID); return })
	if got.LastResult == nil || got.LastResult.Status != "completed" || got.RunCount != 1 {
		t.Errorf("job lastResult = %+v, runCount %d", got.LastResult, got.RunCount)
	}
	for _, q := range []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing, store.QueueDead} {
		if n := e.count(t, q); n != 0 {
			t.Errorf("%d items left in %s", n, q)
		}
	}
	if n := e.count(t, store.QueueDone); n != 2 {
		t.Errorf("%d done items, want the trigger and the delivery", n)
	}
}

func TestWorker_NoTargetGoesWhereTheJobWasCreated(t *testing.T) {
	e := newEnv(t)
	e.fire(t, e.create(t, job(post, "")))
	if got := e.term.texts(); len(got) != 1 {
		t.Errorf("terminal got %v, want the job's post (created from the terminal profile)", got)
	}
}

func TestWorker_WorkflowStepsAreTemplated(t *testing.T) {
	e := newEnv(t)
	j := e.create(t, job(`{"type":"workflow_start","workflowId":"daily-report","inputs":{"team":"ops"}}`, ""))
	e.fire(t, j)
	want := []string{"Report for ops at " + j.NextRunAt.Format(time.RFC3339), "second step"}
	if got := e.term.texts(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("workflow posted %q, want %q", got, want)
	}
}

func TestWorker_FailuresFailTheRunAndTheWorkerGoesOn(t *testing.T) {
	cases := []struct{ name, action, want string }{
		{"missing template key", `{"type":"workflow_start","workflowId":"broken"}`, `map has no entry for key "missing"`},
		{"workflow gone from config", `{"type":"workflow_start","workflowId":"gone"}`, `no workflow "gone"`},
		{"function panics", `{"type":"command_invoke","functionId":"test.panic","functionArgs":{}}`, "function panicked: boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			bad := e.create(t, job(c.action, ""))
			good := e.create(t, job(post, ""))
			// Both due at once: one transaction fails, the fallback runs each.
			e.fire(t, bad)
			r := e.lastRun(t, bad.JobID)
			if r.Status != store.RunFailed || !strings.Contains(r.Error, c.want) {
				t.Errorf("bad run = %s %q, want failed with %q", r.Status, r.Error, c.want)
			}
			if r := e.lastRun(t, good.JobID); r.Status != store.RunCompleted {
				t.Errorf("good run beside it = %s", r.Status)
			}
			if !strings.Contains(e.actions(t), "trigger.failed") {
				t.Errorf("audit = %s", e.actions(t))
			}
			if got := e.term.texts(); len(got) != 1 || got[0] != "hello world" {
				t.Errorf("delivered %v, want only the good job's post", got)
			}
		})
	}
}

func TestWorker_FunctionOutsideTheOrchestratorsSetFails(t *testing.T) {
	e := newEnvAllowing(t, []string{"schedule.create", "schedule.list", "message.post"})
	j := e.create(t, job(post, ""))
	// A stored job names a function this orchestrator does not allow (the
	// config changed since), or one that does not exist at all.
	for fn, want := range map[string]string{"schedule.delete": `"schedule.delete" is not among the functions of orchestrator "default"`,
		"shell.exec": `unknown function "shell.exec"`} {
		e.st.Update(t.Context(), func(tx store.Tx) error {
			j, _ = tx.JobGet(j.JobID)
			j.TargetAction.FunctionID, j.TargetAction.FunctionArgs = fn, json.RawMessage(`{"jobId":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5"}`)
			return tx.JobPut(j)
		})
		e.fire(t, j)
		if r := e.lastRun(t, j.JobID); r.Status != store.RunFailed || !strings.Contains(r.Error, want) {
			t.Errorf("%s: run = %s %q, want %q", fn, r.Status, r.Error, want)
		}
	}
	if len(e.term.texts()) != 0 {
		t.Errorf("delivered %v", e.term.texts())
	}
}

func TestWorker_DuplicateTriggerIsDropped(t *testing.T) {
	e := newEnv(t)
	j := e.create(t, job(post, ""))
	e.fire(t, j)
	r := e.lastRun(t, j.JobID)
	// The same trigger again, as a redelivery after a crash would bring it.
	e.st.Update(t.Context(), func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID, ExecutionID: r.ExecutionID})
	})
	e.drain(t)
	if got := e.term.texts(); len(got) != 1 {
		t.Errorf("delivered %d times, want once", len(got))
	}
	if !strings.Contains(e.actions(t), "trigger.duplicate") {
		t.Errorf("audit = %s", e.actions(t))
	}
}

func TestWorker_RecoverRequeuesProcessingItems(t *testing.T) {
	e := newEnv(t)
	j := e.create(t, job(post, ""))
	e.sched.FireDue(t.Context(), j.NextRunAt)
	// Claimed, then the process died.
	e.st.Claim(t.Context(), time.Now(), 10, nil)
	if e.count(t, store.QueueProcessing) != 1 {
		t.Fatal("claim did not move the item")
	}
	n, err := e.w.Recover(t.Context())
	if err != nil || n != 1 || e.count(t, store.QueueIncoming) != 1 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	e.drain(t)
	if r := e.lastRun(t, j.JobID); r.Status != store.RunCompleted || len(e.term.texts()) != 1 {
		t.Errorf("after recovery: run %s, %d deliveries", r.Status, len(e.term.texts()))
	}
}

func TestWorker_DeliveryRetriesThenDeadLetters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var attempts []time.Time
		e := newEnv(t, func(o *orchestrator.Options) { o.MaxAttempts = 4; o.Backoff = time.Second })
		e.slack.DeliverFunc = func(d *orchestrator.Delivery) error {
			attempts = append(attempts, time.Now())
			return errors.New("connection reset")
		}
		j := e.create(t, job(post, `,"targetRef":{"channel":"slack","channelId":"C024BE91L"}`))
		e.sched.FireDue(t.Context(), j.NextRunAt)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- e.w.Run(ctx) }()
		time.Sleep(time.Minute)
		synctest.Wait()
		cancel()
		<-done
		if len(attempts) != 4 {
			t.Fatalf("%d attempts, want 4", len(attempts))
		}
		for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			if gap := attempts[i+1].Sub(attempts[i]); gap < want || gap > want+2*time.Second {
				t.Errorf("retry %d after %s, want about %s", i+1, gap, want)
			}
		}
		if e.count(t, store.QueueDead) != 1 || e.count(t, store.QueueOutgoing) != 0 {
			t.Errorf("dead %d, outgoing %d", e.count(t, store.QueueDead), e.count(t, store.QueueOutgoing))
		}
		if r := e.lastRun(t, j.JobID); !strings.Contains(r.Error, "delivery failed: connection reset") {
			t.Errorf("run error = %q", r.Error)
		}
		if !strings.Contains(e.actions(t), "delivery.dead_lettered") {
			t.Errorf("audit = %s", e.actions(t))
		}
	})
}

func TestWorker_PermanentDeliveryErrorIsNotRetried(t *testing.T) {
	e := newEnv(t)
	calls := 0
	e.slack.DeliverFunc = func(*orchestrator.Delivery) error {
		calls++
		return orchestrator.Permanent(errors.New("channel_not_found"))
	}
	e.fire(t, e.create(t, job(post, `,"targetRef":{"channel":"slack","channelId":"C024BE91L"}`)))
	if calls != 1 || e.count(t, store.QueueDead) != 1 {
		t.Errorf("calls %d, dead %d", calls, e.count(t, store.QueueDead))
	}
}

func TestWorker_MessagesAreCallsOrGetHelp(t *testing.T) {
	e := newEnv(t)
	add := func(text string) {
		payload, _ := json.Marshal(orchestrator.Message{Text: text, SenderID: "U1", Sender: "ada"})
		e.st.Update(t.Context(), func(tx store.Tx) error {
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", ChannelProfileID: "terminal", Payload: payload})
		})
	}
	add(`{"function":"schedule.create","args":` + job(post, "") + `}`)
	add("post hello every friday")
	add(`{"function":"schedule.delete","args":{"jobId":"nope"}}`)
	e.drain(t)
	got := e.term.texts()
	if len(got) != 3 || !strings.HasPrefix(got[0], "Done:") || !strings.Contains(got[1], "I only understand function calls") ||
		!strings.Contains(got[2], "jobId") {
		t.Errorf("replies = %q", got)
	}
	var page *store.JobPage
	e.st.View(t.Context(), func(tx store.Tx) (err error) { page, err = tx.JobList(nil); return })
	if len(page.Jobs) != 1 || page.Jobs[0].CreatedBy.SenderID != "U1" {
		t.Errorf("jobs = %+v", page.Jobs)
	}
}
