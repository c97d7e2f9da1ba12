package slack_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// apiSlack is a local Slack Web API that records every call (form or
// JSON) and every post to a response_url (/respond/…).
type apiSlack struct {
	srv *httptest.Server

	mu        sync.Mutex
	calls     []call
	responses []map[string]any
}

type call struct {
	Method string
	Form   url.Values
}

func newAPISlack(t *testing.T) *apiSlack {
	f := &apiSlack{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *apiSlack) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.HasPrefix(r.URL.Path, "/respond/") {
		var v map[string]any
		json.Unmarshal(body, &v)
		f.mu.Lock()
		f.responses = append(f.responses, v)
		f.mu.Unlock()
		return
	}
	form := url.Values{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var v map[string]any
		json.Unmarshal(body, &v)
		for k, x := range v {
			b, _ := json.Marshal(x)
			form.Set(k, string(b))
		}
	} else {
		form, _ = url.ParseQuery(string(body))
	}
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	f.mu.Lock()
	f.calls = append(f.calls, call{Method: method, Form: form})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	out := map[string]any{"ok": true, "ts": "1700000100.000001", "channel": form.Get("channel")}
	if method == "users.info" {
		out["user"] = map[string]any{"id": form.Get("user"), "name": "ana", "tz": "America/New_York"}
	}
	json.NewEncoder(w).Encode(out)
}

func (f *apiSlack) called(method string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (f *apiSlack) responded() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.responses...)
}

// backend is a Backend over a map of jobs: each call is recorded and
// answered with the job (CallFunc may answer otherwise).
type backend struct {
	mu       sync.Mutex
	jobs     map[string]*store.Job
	has      map[string]bool
	calls    []functions.Request
	CallFunc func(req functions.Request) (any, error)
}

func (b *backend) Call(_ context.Context, _ string, req functions.Request) (any, error) {
	b.mu.Lock()
	b.calls = append(b.calls, req)
	fn := b.CallFunc
	b.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	var args struct {
		JobID string `json:"jobId"`
	}
	json.Unmarshal(req.Args, &args)
	b.mu.Lock()
	defer b.mu.Unlock()
	j := b.jobs[args.JobID]
	if j == nil {
		return nil, store.ErrNotFound
	}
	switch req.Function {
	case "schedule.pause":
		j.State = store.JobPaused
	case "schedule.delete":
		j.State = store.JobDeleted
	}
	c := *j
	return &functions.JobResult{Job: &c}, nil
}

// lifeFunctions are the functions an orchestrator may not have yet.
var lifeFunctions = map[string]bool{"schedule.complete": true, "schedule.snooze": true, "schedule.skip": true}

func (b *backend) Has(_, fn string) bool { return !lifeFunctions[fn] || b.has[fn] }

func (b *backend) Job(_ context.Context, _, id string) (*store.Job, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if j := b.jobs[id]; j != nil {
		c := *j
		return &c, nil
	}
	return nil, store.ErrNotFound
}

func (b *backend) HomeJobs(context.Context, string, string) ([]*store.Job, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*store.Job
	for _, j := range b.jobs {
		out = append(out, j)
	}
	return out, nil
}

func (b *backend) OpenQuestion(context.Context, string, orchestrator.Message) bool { return false }

func (b *backend) Draft(context.Context, string, orchestrator.Message) (*functions.Request, string) {
	return nil, "When?"
}

func (b *backend) requests() []functions.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]functions.Request(nil), b.calls...)
}

const (
	jobA = "01KAAAAAAAAAAAAAAAAAAAAAAA"
	jobB = "01KBBBBBBBBBBBBBBBBBBBBBBB"
)

func testJob(id, scheduleType, target, creator string) *store.Job {
	return &store.Job{JobID: id, ScheduleType: scheduleType, State: store.JobEnabled, Description: "Every day at 9:00 AM (UTC)",
		Schedule:  store.Schedule{Cron: "0 9 * * *", Timezone: "UTC"},
		CreatedBy: store.Actor{ChannelProfileID: "team", SenderID: creator, Via: store.ViaSlack},
		TargetRef: &store.TargetRef{Channel: "slack", ChannelProfileID: "team", ChannelID: target}}
}

type env struct {
	f   *apiSlack
	b   *backend
	a   *slackad.Adapter
	srv *httptest.Server
}

func newEnv(t *testing.T, has ...string) *env {
	f := newAPISlack(t)
	b := &backend{jobs: map[string]*store.Job{}, has: map[string]bool{}}
	for _, fn := range has {
		b.has[fn] = true
	}
	a, err := slackad.New(slackad.Options{BotToken: "xoxb-test", SigningSecret: "s3cret", APIURL: f.srv.URL + "/api/",
		Profiles: []slackad.Profile{{ID: "team", TeamID: "T1", Channels: []string{"*"}}}, Inbox: nopInbox{}, Backend: b, MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.HTTPHandler(t.Context()))
	t.Cleanup(srv.Close)
	return &env{f: f, b: b, a: a, srv: srv}
}

type nopInbox struct{}

func (nopInbox) Enqueue(context.Context, string, string, orchestrator.Message, time.Duration) error {
	return nil
}
func (nopInbox) Amend(context.Context, string, string, orchestrator.Message) error { return nil }

// interact posts a signed interactivity payload and returns the answer.
func (e *env) interact(t *testing.T, payload map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(payload)
	body := url.Values{"payload": {string(b)}}.Encode()
	now := time.Now().Unix()
	mac := hmac.New(sha256.New, []byte("s3cret"))
	fmt.Fprintf(mac, "v0:%d:%s", now, body)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/slack/interactive", strings.NewReader(body))
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now, 10))
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("interactive: %s", resp.Status)
	}
	return string(out)
}

// clickOn is a click on the fired post's (or a listing's) block: value
// is the button's, or the select's chosen option's.
func (e *env) clickOn(t *testing.T, user, action, block, value string) {
	t.Helper()
	act := map[string]any{"action_id": action, "block_id": block, "type": "button", "value": value}
	if action == "schedbot_snooze" {
		act = map[string]any{"action_id": action, "block_id": block, "type": "static_select", "selected_option": map[string]any{"value": value}}
	}
	e.interact(t, map[string]any{"type": "block_actions", "team": map[string]any{"id": "T1"}, "user": map[string]any{"id": user},
		"channel": map[string]any{"id": "C0TEAM"}, "container": map[string]any{"type": "message", "message_ts": "1700000100.000001"},
		"message": map[string]any{"ts": "1700000100.000001", "text": "standup", "blocks": []any{
			map[string]any{"type": "section", "block_id": "t", "text": map[string]any{"type": "mrkdwn", "text": "standup"}},
			map[string]any{"type": "actions", "block_id": block, "elements": []any{}}}},
		"response_url": e.f.srv.URL + "/respond/1", "actions": []any{act}})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// deliver delivers d as the worker would, waiting out the channel's pace.
func (e *env) deliver(t *testing.T, d *orchestrator.Delivery) error {
	for {
		err := e.a.Deliver(t.Context(), d)
		var ra *orchestrator.RetryAfterError
		if !errors.As(err, &ra) {
			return err
		}
		time.Sleep(ra.After)
	}
}

func fired(jobID string) *orchestrator.Delivery {
	return &orchestrator.Delivery{ItemID: "it-" + jobID, JobID: jobID, ExecutionID: jobID + "@20261127T090000Z", Text: "standup", Attempt: 1,
		Target: store.TargetRef{Channel: "slack", ChannelProfileID: "team", ChannelID: "C0TEAM"}}
}

var allLife = []string{"schedule.complete", "schedule.snooze", "schedule.skip"}

// Every fired reminder can be acted on: Mark as complete, Snooze, and
// for a repeating job Skip next and Pause; a one-time one has no Skip or
// Pause.
func TestFiredReminder_OffersItsButtons(t *testing.T) {
	e := newEnv(t, allLife...)
	e.b.jobs[jobA] = testJob(jobA, "cron", "C0TEAM", "U1")
	e.b.jobs[jobB] = testJob(jobB, "once", "C0TEAM", "U1")
	for _, id := range []string{jobA, jobB} {
		if err := e.deliver(t, fired(id)); err != nil {
			t.Fatal(err)
		}
	}
	posts := e.f.called("chat.postMessage")
	if len(posts) != 2 {
		t.Fatalf("%d posts", len(posts))
	}
	a, b := posts[0].Form.Get("blocks"), posts[1].Form.Get("blocks")
	v := slackad.Version(e.b.jobs[jobA])
	for _, want := range []string{`"block_id":"fired_` + jobA, `"value":"` + jobA + ":" + v + ":" + jobA + `@20261127T090000Z"`, "Mark as complete",
		"schedbot_snooze", "20 minutes", "1 hour", "3 hours", "Tomorrow at 9:00 AM", "schedbot_skip", "schedbot_pause"} {
		if !strings.Contains(a, want) {
			t.Errorf("repeating reminder lacks %s: %s", want, a)
		}
	}
	if !strings.Contains(b, "schedbot_complete") || strings.Contains(b, "schedbot_skip") || strings.Contains(b, "schedbot_pause") {
		t.Errorf("one-time reminder: %s", b)
	}
	if strings.Contains(a, "schedbot_stop") {
		t.Error("a channel post offers Stop these reminders")
	}
}

// Without snooze, complete and skip in the orchestrator, their buttons
// are not shown.
func TestFiredReminder_HidesButtonsItsOrchestratorLacks(t *testing.T) {
	e := newEnv(t)
	e.b.jobs[jobA] = testJob(jobA, "cron", "C0TEAM", "U1")
	if err := e.deliver(t, fired(jobA)); err != nil {
		t.Fatal(err)
	}
	b := e.f.called("chat.postMessage")[0].Form.Get("blocks")
	if strings.Contains(b, "schedbot_complete") || strings.Contains(b, "schedbot_snooze") || strings.Contains(b, "schedbot_skip") || !strings.Contains(b, "schedbot_pause") {
		t.Errorf("blocks: %s", b)
	}
}

// A click runs its function as the clicker, and the post is updated to
// say who did what.
func TestFiredReminder_ClicksCallTheirFunctionAndUpdateThePost(t *testing.T) {
	e := newEnv(t, allLife...)
	e.b.jobs[jobA] = testJob(jobA, "cron", "C0TEAM", "U1")
	v := slackad.Version(e.b.jobs[jobA])
	ny, _ := time.LoadLocation("America/New_York")
	now := time.Now()
	tomorrow := now.In(ny).AddDate(0, 0, 1)
	cases := []struct {
		action, value, function, args, note string
	}{
		{"schedbot_complete", jobA + ":" + v + ":" + jobA + "@20261127T090000Z", "schedule.complete",
			`{"executionId":"` + jobA + `@20261127T090000Z","jobId":"` + jobA + `"}`, "Completed by \\u003c@U1\\u003e"},
		{"schedbot_snooze", jobA + ":" + v + ":tom9", "schedule.snooze",
			`{"jobId":"` + jobA + `","until":"` + time.Date(tomorrow.Year(), tomorrow.Month(), tomorrow.Day(), 9, 0, 0, 0, ny).UTC().Format(time.RFC3339) + `"}`, "Snoozed until \\u003c!date^"},
		{"schedbot_skip", jobA + ":" + v, "schedule.skip", `{"jobId":"` + jobA + `"}`, "Next one skipped by"},
	}
	for i, c := range cases {
		e.clickOn(t, "U1", c.action, "fired_"+jobA, c.value)
		waitFor(t, "the update after "+c.action, func() bool { return len(e.f.called("chat.update")) == i+1 })
		req := e.b.requests()[i]
		if req.Function != c.function || string(req.Args) != c.args || req.Actor.SenderID != "U1" || req.Actor.Via != store.ViaSlack || req.Actor.ChannelProfileID != "team" {
			t.Errorf("%s called %s %s as %+v", c.action, req.Function, req.Args, req.Actor)
		}
		upd := e.f.called("chat.update")[i].Form
		if !strings.Contains(upd.Get("blocks"), c.note) || upd.Get("ts") != "1700000100.000001" || upd.Get("channel") != "C0TEAM" {
			t.Errorf("%s: update %v", c.action, upd)
		}
		if c.action == "schedbot_complete" && strings.Contains(upd.Get("blocks"), "schedbot_") {
			t.Errorf("a completed reminder still has buttons: %s", upd.Get("blocks"))
		}
	}
	// 20 minutes from the click.
	e.clickOn(t, "U1", "schedbot_snooze", "fired_"+jobA, jobA+":"+v+":20m")
	waitFor(t, "the 20 minute snooze", func() bool { return len(e.b.requests()) == 4 })
	var args struct{ Until time.Time }
	json.Unmarshal(e.b.requests()[3].Args, &args)
	if d := args.Until.Sub(now); d < 19*time.Minute || d > 21*time.Minute {
		t.Errorf("snoozed until %s, %s from the click", args.Until, d)
	}
}

// A DM reminder someone else set up offers its recipient Stop these
// reminders, which deletes the job as the recipient.
func TestFiredReminder_TheRecipientCanStopRemindersSomeoneElseSet(t *testing.T) {
	e := newEnv(t)
	e.b.jobs[jobA] = testJob(jobA, "cron", "U0BOB", "U0ANA")
	e.b.jobs[jobB] = testJob(jobB, "cron", "U0ANA", "U0ANA")
	for _, id := range []string{jobA, jobB} {
		d := fired(id)
		d.Target.ChannelID = e.b.jobs[id].TargetRef.ChannelID
		if err := e.deliver(t, d); err != nil {
			t.Fatal(err)
		}
	}
	posts := e.f.called("chat.postMessage")
	if !strings.Contains(posts[0].Form.Get("blocks"), "Stop these reminders") || strings.Contains(posts[1].Form.Get("blocks"), "Stop these reminders") {
		t.Errorf("Stop offered: to Bob %v, to Ana herself %v", strings.Contains(posts[0].Form.Get("blocks"), "Stop"), strings.Contains(posts[1].Form.Get("blocks"), "Stop"))
	}
	e.clickOn(t, "U0BOB", "schedbot_stop", "fired_"+jobA, jobA+":"+slackad.Version(e.b.jobs[jobA]))
	waitFor(t, "the stop", func() bool { return len(e.b.requests()) == 1 })
	if req := e.b.requests()[0]; req.Function != "schedule.delete" || req.Actor.SenderID != "U0BOB" {
		t.Errorf("stop called %s as %+v", req.Function, req.Actor)
	}
}

// A click the functions refuse is answered to the clicker alone, and
// the post is left as it was.
func TestJobButtons_ARefusalIsPrivate(t *testing.T) {
	e := newEnv(t)
	e.b.jobs[jobA] = testJob(jobA, "cron", "C0TEAM", "U1")
	e.b.CallFunc = func(functions.Request) (any, error) {
		return nil, &functions.AuthorityError{JobID: jobA, Verb: "pause", Creator: "ana"}
	}
	e.clickOn(t, "U2", "schedbot_pause", "fired_"+jobA, jobA+":"+slackad.Version(e.b.jobs[jobA]))
	waitFor(t, "the refusal", func() bool { return len(e.f.responded()) == 1 })
	r := e.f.responded()[0]
	if r["response_type"] != "ephemeral" || !strings.Contains(fmt.Sprint(r["text"]), "only its creator (ana)") || len(e.f.called("chat.update")) != 0 {
		t.Errorf("refusal: %v; %d updates", r, len(e.f.called("chat.update")))
	}
	if !errors.Is(&functions.AuthorityError{}, functions.ErrForbidden) {
		t.Fatal("AuthorityError is not ErrForbidden")
	}
}

// A listing of 500 jobs is sent a page at a time within Block Kit's
// limits; Next page shows the next one in its place.
func TestListing_OfFiveHundredJobsPages(t *testing.T) {
	e := newEnv(t)
	var ids []string
	var lines []string
	page := &store.JobPage{}
	for i := range 500 {
		id := fmt.Sprintf("01K%023d", i)
		ids = append(ids, id)
		j := testJob(id, "cron", "C0TEAM", "U1")
		j.Description = strings.Repeat("long words ", 20)
		e.b.jobs[id] = j
		page.Jobs = append(page.Jobs, j)
		lines = append(lines, "• "+id+" — post “x” — "+j.Description)
	}
	e.b.CallFunc = func(req functions.Request) (any, error) { return page, nil }
	d := &orchestrator.Delivery{ItemID: "list", Text: "500 schedule(s):\n" + strings.Join(lines, "\n"), ListJobs: ids,
		ListArgs: json.RawMessage(`{"createdBy":"U1"}`), Private: true, Asker: "U1",
		Target: store.TargetRef{Channel: "slack", ChannelProfileID: "team", ChannelID: "C0TEAM", ThreadTS: "1700000000.000100", PostingMode: store.PostThread}}
	if err := e.deliver(t, d); err != nil {
		t.Fatal(err)
	}
	p := e.f.called("chat.postEphemeral")[0].Form
	var blocks []map[string]any
	json.Unmarshal([]byte(p.Get("blocks")), &blocks)
	if len(blocks) > 50 || len([]rune(p.Get("text"))) > 3000 {
		t.Fatalf("%d blocks, text of %d", len(blocks), len([]rune(p.Get("text"))))
	}
	if !strings.Contains(p.Get("blocks"), ids[14]) || strings.Contains(p.Get("blocks"), `"text":"• `+ids[15]) || !strings.Contains(p.Get("blocks"), `"value":"15|{\"createdBy\":\"U1\"}"`) {
		t.Errorf("first page: %s", p.Get("blocks"))
	}
	e.clickOn(t, "U1", "schedbot_page", "page", `15|{"createdBy":"U1"}`)
	waitFor(t, "the next page", func() bool { return len(e.f.responded()) == 1 })
	r := e.f.responded()[0]
	next, _ := json.Marshal(r["blocks"])
	if r["replace_original"] != true || !strings.Contains(string(next), "• "+ids[15]) || strings.Contains(string(next), "• "+ids[14]) || len(r["blocks"].([]any)) > 50 {
		t.Errorf("next page: %v", r)
	}
	if req := e.b.requests()[0]; req.Function != "schedule.list" || !strings.Contains(string(req.Args), `"createdBy":"U1"`) || req.Actor.SenderID != "U1" {
		t.Errorf("next page asked %s %s as %+v", req.Function, req.Args, req.Actor)
	}
}

// A text longer than a section holds is split; the Home tab of a user
// with 500 jobs stays within a view's 100 blocks.
func TestBlocks_StayWithinBlockKitLimits(t *testing.T) {
	e := newEnv(t)
	// Lines that fit a section each but not together, and one longer
	// than a section.
	long := strings.Repeat(strings.Repeat("w", 999)+"\n", 6) + strings.Repeat("x", 7000)
	d := &orchestrator.Delivery{ItemID: "long", Text: long, Target: store.TargetRef{Channel: "slack", ChannelProfileID: "team", ChannelID: "C0TEAM"}}
	if err := e.deliver(t, d); err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Text struct{ Text string }
	}
	p := e.f.called("chat.postMessage")[0].Form
	json.Unmarshal([]byte(p.Get("blocks")), &blocks)
	total := 0
	for _, b := range blocks {
		if n := len([]rune(b.Text.Text)); n > 3000 {
			t.Errorf("a section of %d characters", n)
		}
		total += len([]rune(b.Text.Text))
	}
	if len(blocks) < 5 || total < 12900 || len([]rune(p.Get("text"))) > 3000 {
		t.Errorf("%d sections, %d characters, text of %d", len(blocks), total, len([]rune(p.Get("text"))))
	}
	for i := range 500 {
		id := fmt.Sprintf("01K%023d", i)
		e.b.jobs[id] = testJob(id, "cron", "C0TEAM", "U1")
	}
	e.interactHome(t)
	waitFor(t, "the Home tab", func() bool { return len(e.f.called("views.publish")) == 1 })
	var view struct {
		Blocks []any `json:"blocks"`
	}
	json.Unmarshal([]byte(e.f.called("views.publish")[0].Form.Get("view")), &view)
	if len(view.Blocks) > 100 || len(view.Blocks) < 90 || !strings.Contains(e.f.called("views.publish")[0].Form.Get("view"), "more: `/schedule list`") {
		t.Errorf("Home of 500 jobs: %d blocks", len(view.Blocks))
	}
}

// interactHome opens U1's Home tab (an app_home_opened event).
func (e *env) interactHome(t *testing.T) {
	t.Helper()
	body := []byte(`{"token":"x","team_id":"T1","type":"event_callback","event_id":"EvH","event_time":1700000000,"event":{"type":"app_home_opened","user":"U1","channel":"D1","tab":"home","event_ts":"1.1"}}`)
	now := time.Now().Unix()
	mac := hmac.New(sha256.New, []byte("s3cret"))
	fmt.Fprintf(mac, "v0:%d:%s", now, body)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/slack/events", strings.NewReader(string(body)))
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now, 10))
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
