package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/selector/llm"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// fakeOpenAI speaks the chat-completions protocol from a script of replies.
type fakeOpenAI struct {
	mu       sync.Mutex
	replies  []func(w http.ResponseWriter)
	requests []map[string]any
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	var reply func(w http.ResponseWriter)
	if len(f.replies) > 0 {
		reply, f.replies = f.replies[0], f.replies[1:]
	}
	f.mu.Unlock()
	if reply == nil {
		http.Error(w, `{"error":{"message":"script ran out"}}`, http.StatusInternalServerError)
		return
	}
	reply(w)
}

func (f *fakeOpenAI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeOpenAI) req(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

func toolCall(name, args string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
				"role": "assistant", "content": nil,
				"tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
					"function": map[string]any{"name": name, "arguments": args}}}}}},
		})
	}
}

func text(content string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}
}

func status(code int) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, `{"error":{"message":"try later","type":"rate_limit"}}`)
	}
}

func newRegistry(t *testing.T) *functions.Registry {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 100, Functions: []string{"schedule.*", "message.post"}}})
}

func setup(t *testing.T, replies ...func(w http.ResponseWriter)) (*llm.Selector, *fakeOpenAI, *functions.Registry) {
	t.Helper()
	f := &fakeOpenAI{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	reg := newRegistry(t)
	s := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "test", APIKey: "test-key", Timeout: 500 * time.Millisecond, MaxRetries: 2}, reg, nil)
	return s, f, reg
}

var now = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

func input(text string) selector.Input {
	return selector.Input{Text: text, SenderID: "U1", Sender: "ada", ProfileID: "team", Channel: "slack", ChannelID: "C1",
		Timezone: "America/New_York", Now: now, Functions: []string{"schedule.create", "schedule.list", "schedule.pause", "message.post"}}
}

const goodCreate = `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"America/New_York"},
	"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello"}},"orchestratorId":"other"}`

func TestLLM_ToolCallBecomesAValidatedCall(t *testing.T) {
	s, f, _ := setup(t, toolCall("schedule__create", goodCreate))
	d, err := s.Select(context.Background(), input("every friday morning at nine, say hello"))
	if err != nil || d.Function != "schedule.create" {
		t.Fatalf("decision = %+v, %v", d, err)
	}
	if strings.Contains(string(d.Args), "orchestratorId") {
		t.Errorf("orchestratorId from the model survived: %s", d.Args)
	}
	// Only the profile's functions were offered, as tools generated from the schemas.
	tools := f.req(0)["tools"].([]any)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "message__post,schedule__create,schedule__list,schedule__pause" {
		t.Errorf("offered %v", names)
	}
	sys := f.req(0)["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "America/New_York") || !strings.Contains(sys, "2026-11-20T10:00:00-05:00") {
		t.Errorf("system prompt lacks the zone or now:\n%s", sys)
	}
}

func TestLLM_InvalidProposalsGetOneRepair(t *testing.T) {
	cases := []struct {
		name    string
		first   func(w http.ResponseWriter)
		wantErr string
	}{
		{"hallucinated function", toolCall("schedule__explode", `{}`), "not one of the functions offered"},
		{"function not offered", toolCall("schedule__delete", `{"jobId":"01KAAAAAAAAAAAAAAAAAAAAAAA"}`), "not one of the functions offered"},
		{"malformed arguments", toolCall("schedule__create", `{"scheduleType":`), "JSON object"},
		{"array arguments", toolCall("schedule__pause", `["01KAAAAAAAAAAAAAAAAAAAAAAA"]`), "JSON object"},
		{"missing job id", toolCall("schedule__pause", `{}`), "jobId: is required"},
		{"unknown field", toolCall("schedule__create", strings.Replace(goodCreate, `"scheduleType"`, `"priority":1,"scheduleType"`, 1)), "priority: unknown field"},
		{"invalid cron", toolCall("schedule__create", strings.Replace(goodCreate, "0 9 * * 5", "0 0 9 * * 5", 1)), "6 fields given"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, f, _ := setup(t, c.first, toolCall("schedule__create", goodCreate))
			d, err := s.Select(context.Background(), input("say hello on fridays at 9"))
			if err != nil || d.Function != "schedule.create" {
				t.Fatalf("after repair: %+v, %v", d, err)
			}
			if f.count() != 2 {
				t.Fatalf("%d requests, want 2", f.count())
			}
			msgs := f.req(1)["messages"].([]any)
			last := msgs[len(msgs)-1].(map[string]any)
			if last["role"] != "tool" || !strings.Contains(last["content"].(string), c.wantErr) {
				t.Errorf("repair message = %v, want the error %q", last, c.wantErr)
			}
		})
	}
	// Two bad proposals: a question, not a call.
	s, f, _ := setup(t, toolCall("schedule__explode", `{}`), toolCall("schedule__explode", `{}`))
	d, err := s.Select(context.Background(), input("do the thing"))
	if err != nil || d.IsCall() || d.Clarify == "" || f.count() != 2 {
		t.Errorf("two bad proposals: %+v, %v, %d requests", d, err, f.count())
	}
}

func TestLLM_OtherOrchestratorsJobIsNotFoundWhenRun(t *testing.T) {
	s, _, reg := setup(t, toolCall("schedule__pause", `{"jobId":"01KAAAAAAAAAAAAAAAAAAAAAAA","orchestratorId":"ops"}`))
	d, err := s.Select(context.Background(), input("pause the ops job"))
	if err != nil || d.Function != "schedule.pause" || strings.Contains(string(d.Args), "ops") {
		t.Fatalf("decision = %+v, %v", d, err)
	}
	_, err = reg.Call(context.Background(), functions.Request{Function: d.Function, Args: d.Args, Actor: store.Actor{Via: store.ViaSlack}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("executing it: %v, want not found", err)
	}
}

func TestLLM_TextRepliesAreQuestionsOrUnsupported(t *testing.T) {
	s, _, _ := setup(t, text("What time on Fridays?"), text("Unsupported: I can't follow sunset."))
	d, _ := s.Select(context.Background(), input("say hello on fridays"))
	if d.Clarify != "What time on Fridays?" || d.Missing != selector.MissingTime || d.Pending == nil {
		t.Errorf("question: %+v", d)
	}
	d, _ = s.Select(context.Background(), input("say hello at sunset"))
	if d.Unsupported != "I can't follow sunset." {
		t.Errorf("unsupported: %+v", d)
	}
}

func TestLLM_RetriesThenGivesUp(t *testing.T) {
	s, f, _ := setup(t, status(429), status(503), toolCall("schedule__list", `{}`))
	d, err := s.Select(context.Background(), input("what's on"))
	if err != nil || d.Function != "schedule.list" || f.count() != 3 {
		t.Fatalf("after 429 and 503: %+v, %v, %d requests", d, err, f.count())
	}
	s, f, _ = setup(t, status(500), status(500), status(500), status(500))
	if _, err := s.Select(context.Background(), input("what's on")); !errors.Is(err, llm.ErrUnavailable) || f.count() != 3 {
		t.Errorf("all 5xx: %v after %d requests, want ErrUnavailable after 3", err, f.count())
	}
	s, f, _ = setup(t, status(401))
	if _, err := s.Select(context.Background(), input("what's on")); !errors.Is(err, llm.ErrUnavailable) || f.count() != 1 {
		t.Errorf("401: %v after %d requests, want no retry", err, f.count())
	}
}

func TestLLM_SlowRepliesTimeOutAndTheRulesAnswer(t *testing.T) {
	slow := func(w http.ResponseWriter) { time.Sleep(time.Second); text("late")(w) }
	s, f, _ := setup(t, slow, slow, slow)
	fb := &selector.Fallback{Primary: s, Backup: rules.New()}
	start := time.Now()
	d, err := fb.Select(context.Background(), input("post hello every friday at 9am"))
	if err != nil || d.Function != "schedule.create" {
		t.Fatalf("fallback: %+v, %v", d, err)
	}
	if f.count() != 3 || time.Since(start) > 10*time.Second {
		t.Errorf("%d requests in %s", f.count(), time.Since(start))
	}
}

func TestLLM_NoKeyNoNetwork(t *testing.T) {
	if s := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, newRegistry(t), nil); s != nil {
		t.Error("a selector without an API key was made")
	}
}

func TestHybrid_AsksTheLLMOnlyWhenTheRulesCannot(t *testing.T) {
	s, f, _ := setup(t, toolCall("schedule__create", goodCreate))
	h := &selector.Hybrid{First: rules.New(), Second: s}
	// The rules decide: no request.
	if d, _ := h.Select(context.Background(), input("post hello every friday at 9am")); d.Function != "schedule.create" || f.count() != 0 {
		t.Errorf("rules case: %+v, %d requests", d, f.count())
	}
	// A missing time stays the rules' question: a model must not invent it.
	if d, _ := h.Select(context.Background(), input("post hello every friday")); d.Missing != "time" || f.count() != 0 {
		t.Errorf("missing time: %+v, %d requests", d, f.count())
	}
	// Phrasing the rules cannot read goes to the model.
	if d, _ := h.Select(context.Background(), input("could you greet everybody with a cheery hello")); d.Function != "schedule.create" || f.count() != 1 {
		t.Errorf("llm case: %+v, %d requests", d, f.count())
	}
}

func createArgs(sched, text string) string {
	return `{"scheduleType":"` + strings.SplitN(sched, ":", 2)[0] + `","schedule":` + strings.SplitN(sched, ":", 2)[1] +
		`,"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"` + text + `"}}}`
}

// In llm and hybrid mode every proposal passes the rules' leftover-word and
// verification checks: a model that drops a word, moves a day or rewrites
// the message is asked about, never acted on; a right reading goes through.
func TestChecked_ModelProposalsAreHeldToTheRules(t *testing.T) {
	friday9 := `cron:{"cron":"0 9 * * 5","timezone":"America/New_York"}`
	cases := []struct {
		name, text, proposal string
		call                 bool
	}{
		{"a right reading", "every friday morning at nine, say hello", createArgs(friday9, "hello"), true},
		{"a right reading in other words", "could you greet everybody with a cheery hello every friday at 9am", createArgs(friday9, "a cheery hello"), true},
		{"a day moved", "post hello every friday at 9am", createArgs(`cron:{"cron":"0 9 * * 4","timezone":"America/New_York"}`, "hello"), false},
		{"an hour moved", "post hello every friday at 9am", createArgs(`cron:{"cron":"0 10 * * 5","timezone":"America/New_York"}`, "hello"), false},
		{"a holiday dropped", "remind me to send flowers every valentine's day at 9am",
			createArgs(`once:{"runAt":"2027-11-21T14:00:00Z"}`, "send flowers"), false},
		{"a recurrence left in the text", "say hello every other thursday at 9am", createArgs(friday9, "hello every other thursday"), false},
		{"words that are not the sender's", "say hello every friday at 9am", createArgs(friday9, "Good morning team!"), false},
		{"an interval that ignores its qualifier", "post tick every minute on the last weekday of the month",
			createArgs(`interval:{"everySeconds":60}`, "tick"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, _ := setup(t, toolCall("schedule__create", c.proposal))
			checked := &selector.Checked{Inner: s, Check: rules.CheckProposal}
			d, err := checked.Select(context.Background(), input(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if d.IsCall() != c.call {
				t.Errorf("%q with %s: got %+v (args %s), want call=%v", c.text, c.proposal, d, d.Args, c.call)
			}
		})
	}
	// hybrid: the rules can't read it, the model's reading is checked too
	s, f, _ := setup(t, toolCall("schedule__create", createArgs(`cron:{"cron":"0 9 * * 4","timezone":"America/New_York"}`, "a cheery hello")))
	h := &selector.Hybrid{First: rules.New(), Second: &selector.Checked{Inner: s, Check: rules.CheckProposal}}
	d, _ := h.Select(context.Background(), input("could you greet everybody with a cheery hello every friday at 9am"))
	if d.IsCall() || f.count() != 1 {
		t.Errorf("hybrid with a day moved: %+v, %d requests; want a question after one request", d, f.count())
	}
}

// A model's update is held to the rules' reading of the same words: the
// same job, the same fires; otherwise it is asked about.
func TestChecked_ModelUpdatesAreHeldToTheRules(t *testing.T) {
	const id = "01KJ1000000000000000000000"
	job := selector.JobRef{JobID: id, Name: "standup", Text: "standup in 5", Description: "Every weekday at 9:30 AM (America/New_York)",
		State: "enabled", ScheduleType: "cron", Schedule: store.Schedule{Cron: "30 9 * * 1-5", Timezone: "America/New_York"}}
	update := func(cron string) string {
		return `{"jobId":"` + id + `","scheduleType":"cron","schedule":{"cron":"` + cron + `","timezone":"America/New_York"}}`
	}
	for _, c := range []struct {
		name, proposal string
		call           bool
	}{
		{"a right reading", update("0 10 * * 1-5"), true},
		{"the days dropped", update("0 10 * * *"), false},
		{"another job", `{"jobId":"01KJ2000000000000000000000","scheduleType":"cron","schedule":{"cron":"0 10 * * 1-5","timezone":"America/New_York"}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _, _ := setup(t, toolCall("schedule__update", c.proposal))
			checked := &selector.Checked{Inner: s, Check: rules.CheckProposal}
			in := input("move the standup to 10am")
			in.Jobs = []selector.JobRef{job}
			in.Functions = append(in.Functions, "schedule.update")
			d, err := checked.Select(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if d.IsCall() != c.call {
				t.Errorf("%s: got %+v (args %s), want call=%v", c.proposal, d, d.Args, c.call)
			}
		})
	}
}
