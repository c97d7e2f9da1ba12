package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/daemon"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// fakeSlack is a local Slack: the Web API methods schedbot calls, recorded,
// and a Socket Mode websocket that the test pushes envelopes through.
type fakeSlack struct {
	srv *httptest.Server

	mu       sync.Mutex
	calls    []apiCall
	conn     *websocket.Conn
	connWMu  sync.Mutex
	opens    int
	acks     []map[string]any
	postErrs []string // scripted chat.postMessage answers: "" ok, "429", or an error code
	ts       int
	userGate chan struct{} // when set, users.info waits for it to close
	// responses are what was posted to response_urls (/respond/…), in order.
	responses []response
	// views are the views.open, views.update and views.publish calls, in order.
	views []apiCall
	// scopes, when set, are the granted scopes auth.test reports (default
	// the manifest's); teamID its team (default T1).
	scopes []string
	teamID string
	// refuseOpen makes apps.connections.open fail: no new connection.
	refuseOpen bool
	// topErrs script the answers to posts outside threads (fired posts).
	topErrs []string
}

// response is one post to a response_url.
type response struct {
	Path string
	Body map[string]any
}

type apiCall struct {
	Method string
	Form   url.Values
	At     time.Time
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func newServer(f *fakeSlack) *httptest.Server { return httptest.NewServer(http.HandlerFunc(f.serve)) }

func newFakeSlack(t testing.TB) *fakeSlack {
	f := &fakeSlack{}
	f.srv = newServer(f)
	t.Cleanup(func() {
		f.mu.Lock()
		if f.conn != nil {
			f.conn.Close()
		}
		f.mu.Unlock()
		f.srv.Close()
	})
	return f
}

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ws" {
		f.serveWS(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/respond/") {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.responses = append(f.responses, response{Path: r.URL.Path, Body: body})
		f.mu.Unlock()
		io.WriteString(w, "ok")
		return
	}
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		// views.* and the like send JSON: kept as a form of its fields,
		// each a string or its JSON.
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		r.Form = url.Values{}
		for k, v := range body {
			if str, ok := v.(string); ok {
				r.Form.Set(k, str)
			} else {
				b, _ := json.Marshal(v)
				r.Form.Set(k, string(b))
			}
		}
	} else {
		r.ParseForm()
	}
	f.mu.Lock()
	f.calls = append(f.calls, apiCall{Method: method, Form: r.Form, At: time.Now()})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	reply := func(v map[string]any) { v["ok"] = true; json.NewEncoder(w).Encode(v) }
	switch method {
	case "auth.test":
		f.mu.Lock()
		scopes, team := f.scopes, cmp.Or(f.teamID, "T1")
		f.mu.Unlock()
		if scopes == nil {
			scopes = manifestScopes()
		}
		w.Header().Set("X-OAuth-Scopes", strings.Join(scopes, ","))
		reply(map[string]any{"user_id": "UBOT", "team_id": team, "bot_id": "BBOT", "user": "schedbot"})
	case "apps.connections.open":
		f.mu.Lock()
		f.opens++
		refuse := f.refuseOpen
		f.mu.Unlock()
		if refuse {
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "internal_error"})
			return
		}
		reply(map[string]any{"url": "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/ws"})
	case "users.info":
		f.mu.Lock()
		gate := f.userGate
		f.mu.Unlock()
		if gate != nil {
			<-gate
		}
		tz := "America/New_York"
		if r.Form.Get("user") == "U2" {
			tz = "Europe/Paris"
		}
		reply(map[string]any{"user": map[string]any{"id": r.Form.Get("user"), "name": strings.ToLower(r.Form.Get("user")), "tz": tz, "tz_offset": -18000}})
	case "conversations.list":
		reply(map[string]any{"channels": []any{
			map[string]any{"id": "C0TEAM", "name": "team", "is_member": true},
			map[string]any{"id": "C0SECRET", "name": "secret", "is_member": false},
		}, "response_metadata": map[string]any{"next_cursor": ""}})
	case "conversations.info":
		reply(map[string]any{"channel": map[string]any{"id": r.Form.Get("channel"), "is_member": r.Form.Get("channel") != "C0SECRET"}})
	case "views.open", "views.update", "views.publish":
		f.mu.Lock()
		f.views = append(f.views, apiCall{Method: method, Form: r.Form, At: time.Now()})
		f.mu.Unlock()
		reply(map[string]any{"view": map[string]any{"id": "V1", "hash": "h1"}})
	case "chat.update":
		reply(map[string]any{"channel": r.Form.Get("channel"), "ts": r.Form.Get("ts")})
	case "chat.getPermalink":
		reply(map[string]any{"channel": r.Form.Get("channel"), "permalink": "https://example.slack.com/archives/" + r.Form.Get("channel") + "/p" + strings.ReplaceAll(r.Form.Get("message_ts"), ".", "")})
	case "chat.postMessage", "chat.postEphemeral":
		f.mu.Lock()
		answer := ""
		if len(f.postErrs) > 0 {
			answer, f.postErrs = f.postErrs[0], f.postErrs[1:]
		}
		if answer == "" && method == "chat.postMessage" && r.Form.Get("thread_ts") == "" && len(f.topErrs) > 0 {
			answer, f.topErrs = f.topErrs[0], f.topErrs[1:]
		}
		f.ts++
		ts := fmt.Sprintf("1700000100.%06d", f.ts)
		f.mu.Unlock()
		if answer == "" && method == "chat.postMessage" && r.Form.Get("channel") == "C0SECRET" {
			answer = "not_in_channel"
		}
		switch answer {
		case "":
			reply(map[string]any{"channel": r.Form.Get("channel"), "ts": ts, "message_ts": ts})
		case "429":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
		default:
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": answer})
		}
	default:
		json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "unknown_method"})
	}
}

func (f *fakeSlack) serveWS(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.conn = conn
	f.mu.Unlock()
	f.write(conn, map[string]any{"type": "hello", "num_connections": 1, "connection_info": map[string]any{"app_id": "A1"}})
	done := make(chan struct{})
	go func() { // Slack pings; the client's dead-man timer expects them
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f.connWMu.Lock()
				err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
				f.connWMu.Unlock()
				if err != nil {
					return
				}
			}
		}
	}()
	defer close(done)
	for {
		var ack map[string]any
		if err := conn.ReadJSON(&ack); err != nil {
			return
		}
		f.mu.Lock()
		f.acks = append(f.acks, ack)
		f.mu.Unlock()
	}
}

func (f *fakeSlack) write(conn *websocket.Conn, v any) error {
	f.connWMu.Lock()
	defer f.connWMu.Unlock()
	return conn.WriteJSON(v)
}

// send pushes an envelope through the socket; a response_url written
// "RESPOND/…" points at the fake's /respond/….
func (f *fakeSlack) send(t *testing.T, envelope map[string]any) {
	t.Helper()
	b, _ := json.Marshal(envelope)
	b = bytes.ReplaceAll(b, []byte(`"RESPOND/`), []byte(`"`+f.srv.URL+`/respond/`))
	var v map[string]any
	json.Unmarshal(b, &v)
	f.sendB(t, v)
}

func (f *fakeSlack) sendB(t testing.TB, envelope map[string]any) {
	t.Helper()
	waitFor(t, 10*time.Second, "a socket mode connection", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.conn != nil
	})
	f.mu.Lock()
	conn := f.conn
	f.mu.Unlock()
	if err := f.write(conn, envelope); err != nil {
		t.Fatal(err)
	}
}

// posts are the messages posted, public (chat.postMessage) or to one
// person (chat.postEphemeral), in order.
func (f *fakeSlack) posts() []apiCall {
	return f.called("chat.postMessage", "chat.postEphemeral")
}

// called are the calls of the methods given, in order.
func (f *fakeSlack) called(methods ...string) []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiCall
	for _, c := range f.calls {
		if slices.Contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeSlack) responded() []response {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.responses)
}

func (f *fakeSlack) viewCalls(method string) []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiCall
	for _, c := range f.views {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeSlack) ack(id string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.acks {
		if a["envelope_id"] == id {
			return a
		}
	}
	return nil
}

var envelopeN int

func mention(eventID, user, text, ts string, retry int) map[string]any {
	envelopeN++
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", envelopeN), "type": "events_api", "retry_attempt": retry,
		"accepts_response_payload": false, "payload": map[string]any{
			"token": "x", "team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": eventID, "event_time": 1700000000,
			"event": map[string]any{"type": "app_mention", "user": user, "text": "<@UBOT> " + text, "ts": ts, "channel": "C0TEAM", "event_ts": ts},
		}}
}

// click is a button's block_actions payload: value is what the button
// carries ("<jobId>:<version>[:<extra>]", or a bare job id as buttons of
// old did); the message it is on is posted (ts 1700000100.000001) with
// one block of that id; its response_url is the fake's /respond/<n>.
func click(user, action, value string) map[string]any {
	envelopeN++
	jobID, _, _ := strings.Cut(value, ":")
	block := "job_" + jobID
	if strings.HasPrefix(action, "schedbot_complete") || action == "schedbot_snooze" || action == "schedbot_skip" || action == "schedbot_stop" {
		block = "fired_" + jobID
	}
	act := map[string]any{"action_id": action, "block_id": block, "value": value, "type": "button"}
	if action == "schedbot_snooze" {
		act = map[string]any{"action_id": action, "block_id": block, "type": "static_select", "selected_option": map[string]any{"value": value}}
	}
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", envelopeN), "type": "interactive", "payload": map[string]any{
		"type": "block_actions", "team": map[string]any{"id": "T1"}, "user": map[string]any{"id": user},
		"channel":   map[string]any{"id": "C0TEAM"},
		"container": map[string]any{"type": "message", "message_ts": "1700000100.000001", "channel_id": "C0TEAM"},
		"message": map[string]any{"ts": "1700000100.000001", "text": "the message", "blocks": []any{
			map[string]any{"type": "section", "block_id": "text", "text": map[string]any{"type": "mrkdwn", "text": "the message"}},
			map[string]any{"type": "actions", "block_id": block, "elements": []any{}},
		}},
		"action_ts":    fmt.Sprintf("1700000200.%d", envelopeN),
		"response_url": "RESPOND/" + strconv.Itoa(envelopeN),
		"actions":      []any{act},
	}}
}

const slackConfig = `
orchestrators:
  default:
    runtime_root: data
    timezone: UTC
channel_profiles:
  team:
    channel: slack
    orchestrator_id: default
    slack: {team_id: T1, channels: ["*"]}
    admins: [UADMIN]
  terminal:
    channel: terminal
    orchestrator_id: default
server:
  socket: schedbot.sock
`

type slackEnv struct {
	f  *fakeSlack
	d  *daemon.Daemon
	st store.Store
}

func startSlack(t testing.TB) *slackEnv {
	t.Helper()
	e, stop := startSlackAt(t, newFakeSlack(t), t.TempDir())
	t.Cleanup(stop)
	return e
}

// startSlackAt runs the daemon on dir against f; stop ends it.
func startSlackAt(t testing.TB, f *fakeSlack, dir string) (*slackEnv, func()) {
	t.Helper()
	path := filepath.Join(dir, "schedbot.yaml")
	os.WriteFile(path, []byte(slackConfig), 0o600)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	t.Setenv("SLACK_APP_TOKEN", "xapp-test")
	t.Setenv(config.EnvSlackAPIURL, f.srv.URL+"/api/")
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	d, err := daemon.Start(ctx, cfg, daemon.Options{Logger: log, Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() {
		cancel()
		if err := d.Wait(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	}
	return &slackEnv{f: f, d: d, st: d.Orchestrator("default").Store}, stop
}

func TestSlack_RetryAfterARestartIsNotActedOnTwice(t *testing.T) {
	f := newFakeSlack(t)
	dir := t.TempDir()
	e, stop := startSlackAt(t, f, dir)
	e.f.send(t, mention("Ev1", "U1", "post hello every day at 9am", "1700000000.000100", 0))
	e.waitPost(t, 1, "the confirmation")
	stop()
	f.mu.Lock()
	f.conn = nil
	f.mu.Unlock()
	e, stop = startSlackAt(t, f, dir)
	defer stop()
	retry := mention("Ev1", "U1", "post hello every day at 9am", "1700000000.000100", 2)
	e.f.send(t, retry)
	waitFor(t, 10*time.Second, "the retry's ack", func() bool { return e.f.ack(retry["envelope_id"].(string)) != nil })
	e.f.send(t, mention("Ev2", "U1", "list schedules", "1700000000.000200", 0))
	e.waitPost(t, 2, "the listing")
	if n := len(e.jobs(t)); n != 1 {
		t.Errorf("%d jobs after a retry across a restart, want 1", n)
	}
}

// An event is in the store by the time Slack has its ack, even while
// users.info has not answered yet; the job then gets the sender's zone.
func TestSlack_AnEventIsStoredBeforeItsAck(t *testing.T) {
	e := startSlack(t)
	gate := make(chan struct{})
	e.f.mu.Lock()
	e.f.userGate = gate
	e.f.mu.Unlock()
	env := mention("Ev1", "U1", "post hello every day at 9am", "1700000000.000100", 0)
	e.f.send(t, env)
	waitFor(t, 10*time.Second, "the ack", func() bool { return e.f.ack(env["envelope_id"].(string)) != nil })
	var it *store.QueueItem
	err := e.st.View(t.Context(), func(tx store.Tx) (err error) { it, err = tx.QueueGet("slack-Ev1"); return })
	close(gate)
	if err != nil || it.Kind != store.KindMessage {
		t.Fatalf("the acknowledged event is not in the store: %v", err)
	}
	e.waitPost(t, 1, "the confirmation")
	if jobs := e.jobs(t); len(jobs) != 1 || jobs[0].Schedule.Timezone != "America/New_York" {
		t.Errorf("jobs = %+v, want one in the sender's zone", jobs)
	}
}

func (e *slackEnv) jobs(t *testing.T) []*store.Job {
	t.Helper()
	var page *store.JobPage
	e.st.View(t.Context(), func(tx store.Tx) (err error) {
		page, err = tx.JobList(&store.JobListParams{States: store.JobStates})
		return err
	})
	return page.Jobs
}

// waitResponse waits for the nth post to a response_url.
func (e *slackEnv) waitResponse(t *testing.T, n int, what string) response {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.responded()) >= n })
	return e.f.responded()[n-1]
}

// waitCall waits for the nth call of method.
func (e *slackEnv) waitCall(t *testing.T, method string, n int, what string) apiCall {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.called(method)) >= n })
	return e.f.called(method)[n-1]
}

func (e *slackEnv) waitPost(t *testing.T, n int, what string) apiCall {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.posts()) >= n })
	return e.f.posts()[n-1]
}

func TestSlack_MentionCreatesAJobAndConfirmsInTheThread(t *testing.T) {
	e := startSlack(t)
	env := mention("Ev1", "U1", "post hello world in #team every Friday at 9AM", "1700000000.000100", 0)
	e.f.send(t, env)
	post := e.waitPost(t, 1, "the confirmation")
	if post.Form.Get("channel") != "C0TEAM" || post.Form.Get("thread_ts") != "1700000000.000100" {
		t.Errorf("confirmation went to %s thread %q", post.Form.Get("channel"), post.Form.Get("thread_ts"))
	}
	text := post.Form.Get("text")
	if !strings.HasPrefix(text, "OK — I'll post “hello world” in <#C0TEAM> every Friday at 9:00 AM (America/New_York). Next: ") {
		t.Errorf("confirmation text = %q", text)
	}
	blocks := post.Form.Get("blocks")
	for _, want := range []string{`\u003c!date^`, "schedbot_pause", "schedbot_delete"} {
		if !strings.Contains(blocks, want) {
			t.Errorf("blocks lack %s: %s", want, blocks)
		}
	}
	if e.f.ack(env["envelope_id"].(string)) == nil {
		t.Error("the event was not acknowledged")
	}
	jobs := e.jobs(t)
	if len(jobs) != 1 || jobs[0].TargetRef.ChannelID != "C0TEAM" || jobs[0].CreatedBy.SenderID != "U1" || jobs[0].CreatedBy.Via != "slack" ||
		jobs[0].Schedule.Timezone != "America/New_York" {
		t.Fatalf("jobs = %+v", jobs)
	}
	// Slack retries the same event: acknowledged, not acted on twice.
	retry := mention("Ev1", "U1", "post hello world in #team every Friday at 9AM", "1700000000.000100", 1)
	e.f.send(t, retry)
	waitFor(t, 10*time.Second, "the retry's ack", func() bool { return e.f.ack(retry["envelope_id"].(string)) != nil })
	// No sleep to see that nothing follows: the job counts checked below,
	// after later messages have been answered, would show a second job.
	// "What's scheduled in #team" finds it by the channel's id.
	e.f.send(t, mention("Ev1b", "U1", "what's scheduled in #team", "1700000000.000150", 0))
	post = e.waitPost(t, 2, "the channel listing")
	if !strings.Contains(post.Form.Get("text"), "1 schedule(s)") {
		t.Errorf("listing for #team: %q", post.Form.Get("text"))
	}
	// A channel the bot is not in: a clear reply, and no job.
	e.f.send(t, mention("Ev2", "U1", "post psst in #secret every day at 9am", "1700000000.000200", 0))
	post = e.waitPost(t, 3, "the refusal")
	if !strings.Contains(post.Form.Get("text"), "Invite me") || len(e.jobs(t)) != 1 {
		t.Errorf("secret channel: %q, %d jobs", post.Form.Get("text"), len(e.jobs(t)))
	}
	// Our own messages and other bots' are ignored; a direct message is heard.
	bot := mention("Ev4", "UBOT", "post loop every day at 9am", "1700000000.000400", 0)
	e.f.send(t, bot)
	other2 := mention("Ev5", "U7", "post spam every day at 9am", "1700000000.000500", 0)
	other2["payload"].(map[string]any)["event"].(map[string]any)["bot_id"] = "B7"
	e.f.send(t, other2)
	envelopeN++
	dm := map[string]any{"envelope_id": fmt.Sprintf("env-%d", envelopeN), "type": "events_api", "payload": map[string]any{
		"token": "x", "team_id": "T1", "type": "event_callback", "event_id": "Ev6", "event_time": 1700000000,
		"event": map[string]any{"type": "message", "channel_type": "im", "user": "U1", "text": "list my schedules",
			"ts": "1700000000.000600", "channel": "D0ADA", "event_ts": "1700000000.000600"}}}
	e.f.send(t, dm)
	post = e.waitPost(t, 4, "the DM answer")
	if post.Form.Get("channel") != "D0ADA" || !strings.Contains(post.Form.Get("text"), "1 schedule(s)") || len(e.jobs(t)) != 1 {
		t.Errorf("DM answer %q in %s; %d jobs (bots must be ignored)", post.Form.Get("text"), post.Form.Get("channel"), len(e.jobs(t)))
	}
	// Another team: a polite refusal and nothing else.
	other := mention("Ev3", "U1", "post x every day at 9am", "1700000000.000300", 0)
	other["payload"].(map[string]any)["team_id"] = "T9"
	e.f.send(t, other)
	post = e.waitPost(t, 5, "the other team's refusal")
	if !strings.Contains(post.Form.Get("text"), "not set up for this channel") || len(e.jobs(t)) != 1 {
		t.Errorf("other team: %q", post.Form.Get("text"))
	}
}

func TestSlack_SlashCommandButtonsAndAFiredPost(t *testing.T) {
	e := startSlack(t)
	envelopeN++
	slash := map[string]any{"envelope_id": fmt.Sprintf("env-%d", envelopeN), "type": "slash_commands", "accepts_response_payload": true,
		"payload": map[string]any{"token": "x", "team_id": "T1", "channel_id": "C0TEAM", "user_id": "U1", "command": "/schedule",
			"text": "post “standup in 5” every weekday at 9:25am", "trigger_id": "tr1"}}
	e.f.send(t, slash)
	e.waitPost(t, 1, "the slash confirmation")
	ack := e.f.ack(slash["envelope_id"].(string))
	if ack == nil || ack["payload"].(map[string]any)["response_type"] != "ephemeral" {
		t.Errorf("slash ack = %v, want an ephemeral reply", ack)
	}
	jobs := e.jobs(t)
	if len(jobs) != 1 || jobs[0].Schedule.Cron != "25 9 * * 1-5" {
		t.Fatalf("jobs = %+v", jobs)
	}
	id := jobs[0].JobID
	value := id + ":" + slackad.Version(jobs[0])
	// A stranger's click changes nothing, and is answered to them alone.
	e.f.send(t, click("U2", "schedbot_pause", value))
	r := e.waitResponse(t, 1, "the stranger's answer")
	if !strings.Contains(fmt.Sprint(r.Body["text"]), "only its creator (u1) or an admin of the channel profile may pause") ||
		r.Body["response_type"] != "ephemeral" || e.jobs(t)[0].State != store.JobEnabled {
		t.Errorf("stranger: %v, state %s", r.Body, e.jobs(t)[0].State)
	}
	// The creator's click pauses it, and the message then offers Resume.
	e.f.send(t, click("U1", "schedbot_pause", value))
	upd := e.waitCall(t, "chat.update", 1, "the paused message")
	if e.jobs(t)[0].State != store.JobPaused {
		t.Errorf("after the creator's click: %s", e.jobs(t)[0].State)
	}
	if b := upd.Form.Get("blocks"); !strings.Contains(b, "schedbot_resume") || strings.Contains(b, "schedbot_pause") || !strings.Contains(b, `Paused by \u003c@U1\u003e`) ||
		upd.Form.Get("ts") != "1700000100.000001" {
		t.Errorf("updated message: %v", upd.Form)
	}
	// The same Pause clicked again on the message as it was: the job has
	// changed since, which is said, and nothing is done.
	e.f.send(t, click("U1", "schedbot_resume", value))
	r = e.waitResponse(t, 2, "the stale click's answer")
	if !strings.Contains(fmt.Sprint(r.Body["text"]), "changed since this message was posted") || e.jobs(t)[0].State != store.JobPaused {
		t.Errorf("stale click: %v, state %s", r.Body, e.jobs(t)[0].State)
	}
	// The listing (to the asker alone) offers Resume, Run now and Delete,
	// the last two asking first.
	e.f.send(t, mention("Ev5", "U1", "list my schedules", "1700000000.000500", 0))
	post := e.waitPost(t, 2, "the listing")
	paused := slackad.Version(e.jobs(t)[0])
	b := post.Form.Get("blocks")
	if post.Method != "chat.postEphemeral" || post.Form.Get("user") != "U1" || !strings.Contains(post.Form.Get("text"), "1 schedule(s)") ||
		!strings.Contains(b, `"value":"`+id+":"+paused+`"`) || strings.Count(b, `"confirm":{"title"`) != 2 ||
		!strings.Contains(b, "schedbot_resume") || !strings.Contains(b, "schedbot_run_now") || !strings.Contains(b, "schedbot_delete") {
		t.Errorf("listing: %s %v", post.Method, post.Form)
	}
	// Delete (confirmed in Slack's dialog) deletes.
	e.f.send(t, click("U1", "schedbot_delete", id+":"+paused))
	upd = e.waitCall(t, "chat.update", 3, "the deleted message") // the second showed the stale click the job as it is
	if e.jobs(t)[0].State != store.JobDeleted || !strings.Contains(upd.Form.Get("blocks"), "Deleted by") {
		t.Errorf("after deleting: %s, %v", e.jobs(t)[0].State, upd.Form)
	}
	// A job that fires posts in its channel (escaped), not in a thread.
	e.f.send(t, mention("Ev9", "U1", "post <!channel> & friends in #team every day at 9am", "1700000000.000900", 0))
	e.waitPost(t, 3, "the second confirmation")
	e.f.send(t, mention("Ev10", "U1", "run it now", "1700000000.001000", 0))
	waitFor(t, 10*time.Second, "the fired post", func() bool {
		for _, p := range e.f.posts() {
			if strings.Contains(p.Form.Get("text"), "friends") && p.Form.Get("thread_ts") == "" {
				return true
			}
		}
		return false
	})
	for _, p := range e.f.posts() {
		if strings.Contains(p.Form.Get("text"), "friends") && p.Form.Get("thread_ts") == "" {
			if p.Form.Get("channel") != "C0TEAM" || !strings.Contains(p.Form.Get("text"), "&lt;!channel&gt; &amp; friends") ||
				p.Form.Get("unfurl_links") != "false" {
				t.Errorf("fired post = %v", p.Form)
			}
		}
	}
}

func TestSlack_RateLimitAndPermanentErrors(t *testing.T) {
	e := startSlack(t)
	e.f.mu.Lock()
	e.f.postErrs = []string{"429"}
	e.f.mu.Unlock()
	e.f.send(t, mention("Ev1", "U1", "list schedules", "1700000000.000100", 0))
	e.waitPost(t, 2, "the retried reply")
	posts := e.f.posts()
	if gap := posts[1].At.Sub(posts[0].At); gap < time.Second {
		t.Errorf("retried %s after a 429 with Retry-After: 1", gap)
	}
	// A channel that is gone: recorded on the run, audited, dead-lettered.
	e.f.send(t, mention("Ev2", "U1", "post hi in <#C0GONE> every day at 9am", "1700000000.000200", 0))
	e.waitPost(t, 3, "the confirmation")
	e.f.mu.Lock()
	e.f.postErrs = []string{"channel_not_found"}
	e.f.mu.Unlock()
	e.f.send(t, mention("Ev3", "U1", "run it now", "1700000000.000300", 0))
	waitFor(t, 10*time.Second, "the dead letter", func() bool {
		n := 0
		n = testkit.QueueLen(t, e.st, store.QueueDead)
		return n == 1
	})
	var evs []*store.AuditEvent
	e.st.View(t.Context(), func(tx store.Tx) (err error) { evs, err = tx.AuditList(nil); return })
	found := false
	for _, ev := range evs {
		found = found || ev.Action == store.AuditDeliveryFailed && strings.Contains(ev.Detail, "channel_not_found")
	}
	if !found {
		t.Error("no delivery.dead_lettered audit event")
	}
}

func TestSlack_ReconnectsAfterADisconnect(t *testing.T) {
	e := startSlack(t)
	e.f.send(t, mention("Ev1", "U1", "list schedules", "1700000000.000100", 0))
	e.waitPost(t, 1, "the first reply")
	e.f.mu.Lock()
	e.f.conn.Close()
	e.f.conn = nil
	e.f.mu.Unlock()
	waitFor(t, 20*time.Second, "a new connection", func() bool {
		e.f.mu.Lock()
		defer e.f.mu.Unlock()
		return e.f.opens >= 2 && e.f.conn != nil
	})
	e.f.send(t, mention("Ev2", "U1", "post after the break every day at 9am", "1700000000.000200", 0))
	e.waitPost(t, 2, "the reply after reconnecting")
	if len(e.jobs(t)) != 1 {
		t.Errorf("jobs after reconnect: %d", len(e.jobs(t)))
	}
}

// inbox records what the HTTP adapter takes in.
type inbox struct {
	mu   sync.Mutex
	msgs []orchestrator.Message
}

func (i *inbox) Enqueue(_ context.Context, _, _ string, m orchestrator.Message, _ time.Duration) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.msgs = append(i.msgs, m)
	return nil
}

func (i *inbox) Amend(_ context.Context, _, _ string, m orchestrator.Message) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.msgs[len(i.msgs)-1] = m
	return nil
}

func (i *inbox) count() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.msgs)
}

func sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%d:%s", ts, body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

func TestSlack_EventsOverHTTPAreVerified(t *testing.T) {
	f := newFakeSlack(t)
	in := &inbox{}
	a, err := slackad.New(slackad.Options{BotToken: "xoxb-test", SigningSecret: "s3cret", APIURL: f.srv.URL + "/api/",
		Profiles: []slackad.Profile{{ID: "team", TeamID: "T1", Channels: []string{"*"}}}, Inbox: in})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.HTTPHandler(context.Background()))
	defer srv.Close()
	body, _ := json.Marshal(mention("Ev1", "U1", "list schedules", "1700000000.000100", 0)["payload"])
	post := func(path string, body []byte, sig string, ts int64) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("X-Slack-Signature", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	now := time.Now().Unix()
	if code := post("/slack/events", body, sign("wrong", now, body), now); code != http.StatusUnauthorized {
		t.Errorf("forged signature: %d", code)
	}
	old := now - 600
	if code := post("/slack/events", body, sign("s3cret", old, body), old); code != http.StatusUnauthorized {
		t.Errorf("stale timestamp: %d", code)
	}
	challenge := []byte(`{"type":"url_verification","challenge":"abc123","token":"x"}`)
	if code := post("/slack/events", challenge, sign("s3cret", now, challenge), now); code != http.StatusOK {
		t.Errorf("url_verification: %d", code)
	}
	if in.count() != 0 {
		t.Fatalf("%d messages taken in from unverified requests", in.count())
	}
	if code := post("/slack/events", body, sign("s3cret", now, body), now); code != http.StatusOK {
		t.Errorf("signed event: %d", code)
	}
	// Stored before the answer; the sender's zone follows.
	if in.count() != 1 {
		t.Fatalf("%d messages stored when the event was acknowledged, want 1", in.count())
	}
	waitFor(t, 10*time.Second, "the sender's zone", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.msgs[0].Timezone != ""
	})
	if m := in.msgs[0]; m.Text != "list schedules" || m.SenderID != "U1" || m.Timezone != "America/New_York" {
		t.Errorf("message = %+v", m)
	}
}
