// Package slacktest is a local Slack for tests: the Web API methods
// schedbot calls, recorded, and a Socket Mode websocket that a test pushes
// envelopes through.
package slacktest

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/schedbot/schedbot/deploy"
)

// Slack is a local Slack: the Web API methods schedbot calls, recorded,
// and a Socket Mode websocket that the test pushes envelopes through. A
// test sets its scripted answers, holding Mu.
type Slack struct {
	Server *httptest.Server

	Mu       sync.Mutex
	calls    []Call
	Conn     *websocket.Conn // the Socket Mode connection, nil before one opens
	connWMu  sync.Mutex
	Opens    int // apps.connections.open calls
	acks     []map[string]any
	PostErrs []string // scripted chat.postMessage answers: "" ok, "429", or an error code
	ts       int
	UserGate chan struct{} // when set, users.info waits for it to close
	// responses are what was posted to response_urls (/respond/…), in order.
	responses []Response
	// views are the views.open, views.update and views.publish calls, in order.
	views []Call
	// Scopes, when set, are the granted scopes auth.test reports (default
	// the manifest's); TeamID its team (default T1).
	Scopes []string
	TeamID string
	// RefuseOpen makes apps.connections.open fail: no new connection.
	RefuseOpen bool
	// TopErrs script the answers to posts outside threads (fired posts).
	TopErrs []string
}

// Response is one post to a response_url.
type Response struct {
	Path string
	Body map[string]any
}

// Call is one Web API call.
type Call struct {
	Method string
	Form   url.Values
	At     time.Time
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// New starts a local Slack, stopped when t ends. Point schedbot at it
// with $SLACK_API_URL set to Server.URL+"/api/".
func New(t testing.TB) *Slack {
	f := &Slack{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.Mu.Lock()
		if f.Conn != nil {
			f.Conn.Close()
		}
		f.Mu.Unlock()
		f.Server.Close()
	})
	return f
}

func (f *Slack) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ws" {
		f.serveWS(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/respond/") {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.Mu.Lock()
		f.responses = append(f.responses, Response{Path: r.URL.Path, Body: body})
		f.Mu.Unlock()
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
	f.Mu.Lock()
	f.calls = append(f.calls, Call{Method: method, Form: r.Form, At: time.Now()})
	f.Mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	reply := func(v map[string]any) { v["ok"] = true; json.NewEncoder(w).Encode(v) }
	switch method {
	case "auth.test":
		f.Mu.Lock()
		scopes, team := f.Scopes, cmp.Or(f.TeamID, "T1")
		f.Mu.Unlock()
		if scopes == nil {
			scopes = deploy.SlackBotScopes()
		}
		w.Header().Set("X-OAuth-Scopes", strings.Join(scopes, ","))
		reply(map[string]any{"user_id": "UBOT", "team_id": team, "bot_id": "BBOT", "user": "schedbot"})
	case "apps.connections.open":
		f.Mu.Lock()
		f.Opens++
		refuse := f.RefuseOpen
		f.Mu.Unlock()
		if refuse {
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "internal_error"})
			return
		}
		reply(map[string]any{"url": "ws" + strings.TrimPrefix(f.Server.URL, "http") + "/ws"})
	case "users.info":
		f.Mu.Lock()
		gate := f.UserGate
		f.Mu.Unlock()
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
		f.Mu.Lock()
		f.views = append(f.views, Call{Method: method, Form: r.Form, At: time.Now()})
		f.Mu.Unlock()
		reply(map[string]any{"view": map[string]any{"id": "V1", "hash": "h1"}})
	case "chat.update":
		reply(map[string]any{"channel": r.Form.Get("channel"), "ts": r.Form.Get("ts")})
	case "chat.getPermalink":
		reply(map[string]any{"channel": r.Form.Get("channel"), "permalink": "https://example.slack.com/archives/" + r.Form.Get("channel") + "/p" + strings.ReplaceAll(r.Form.Get("message_ts"), ".", "")})
	case "chat.postMessage", "chat.postEphemeral":
		f.Mu.Lock()
		answer := ""
		if len(f.PostErrs) > 0 {
			answer, f.PostErrs = f.PostErrs[0], f.PostErrs[1:]
		}
		if answer == "" && method == "chat.postMessage" && r.Form.Get("thread_ts") == "" && len(f.TopErrs) > 0 {
			answer, f.TopErrs = f.TopErrs[0], f.TopErrs[1:]
		}
		f.ts++
		ts := fmt.Sprintf("1700000100.%06d", f.ts)
		f.Mu.Unlock()
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

func (f *Slack) serveWS(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	f.Mu.Lock()
	f.Conn = conn
	f.Mu.Unlock()
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
		f.Mu.Lock()
		f.acks = append(f.acks, ack)
		f.Mu.Unlock()
	}
}

func (f *Slack) write(conn *websocket.Conn, v any) error {
	f.connWMu.Lock()
	defer f.connWMu.Unlock()
	return conn.WriteJSON(v)
}

// Send pushes an envelope through the socket; a response_url written
// "RESPOND/…" points at the fake's /respond/….
func (f *Slack) Send(t *testing.T, envelope map[string]any) {
	t.Helper()
	b, _ := json.Marshal(envelope)
	b = bytes.ReplaceAll(b, []byte(`"RESPOND/`), []byte(`"`+f.Server.URL+`/respond/`))
	var v map[string]any
	json.Unmarshal(b, &v)
	f.SendB(t, v)
}

// SendB is Send for benchmarks, the envelope sent as it is.
func (f *Slack) SendB(t testing.TB, envelope map[string]any) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		f.Mu.Lock()
		conn := f.Conn
		f.Mu.Unlock()
		if conn != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for a socket mode connection")
		}
	}
	f.Mu.Lock()
	conn := f.Conn
	f.Mu.Unlock()
	if err := f.write(conn, envelope); err != nil {
		t.Fatal(err)
	}
}

// Posts are the messages posted, public (chat.postMessage) or to one
// person (chat.postEphemeral), in order.
func (f *Slack) Posts() []Call {
	return f.Called("chat.postMessage", "chat.postEphemeral")
}

// Called are the calls of the methods given, in order.
func (f *Slack) Called(methods ...string) []Call {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var out []Call
	for _, c := range f.calls {
		if slices.Contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

// Responded are the posts to response_urls, in order.
func (f *Slack) Responded() []Response {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return slices.Clone(f.responses)
}

// ViewCalls are the calls of one views.* method, in order.
func (f *Slack) ViewCalls(method string) []Call {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var out []Call
	for _, c := range f.views {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Ack is the acknowledgement of the envelope id, nil before it comes.
func (f *Slack) Ack(id string) map[string]any {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	for _, a := range f.acks {
		if a["envelope_id"] == id {
			return a
		}
	}
	return nil
}

var (
	envelopeMu sync.Mutex
	envelopeN  int
)

// NextEnvelope numbers a new envelope: its id is "env-N", unique in the
// test binary.
func NextEnvelope() int {
	envelopeMu.Lock()
	defer envelopeMu.Unlock()
	envelopeN++
	return envelopeN
}

// Mention is an app_mention of the bot by user in channel C0TEAM, as
// Socket Mode sends it (retry: its retry_attempt).
func Mention(eventID, user, text, ts string, retry int) map[string]any {
	n := NextEnvelope()
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", n), "type": "events_api", "retry_attempt": retry,
		"accepts_response_payload": false, "payload": map[string]any{
			"token": "x", "team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": eventID, "event_time": 1700000000,
			"event": map[string]any{"type": "app_mention", "user": user, "text": "<@UBOT> " + text, "ts": ts, "channel": "C0TEAM", "event_ts": ts},
		}}
}

// Click is a button's block_actions payload: value is what the button
// carries ("<jobId>:<version>[:<extra>]", or a bare job id as buttons of
// old did); the message it is on is posted (ts 1700000100.000001) with
// one block of that id; its response_url is the fake's /respond/<n>.
func Click(user, action, value string) map[string]any {
	n := NextEnvelope()
	jobID, _, _ := strings.Cut(value, ":")
	block := "job_" + jobID
	if strings.HasPrefix(action, "schedbot_complete") || action == "schedbot_snooze" || action == "schedbot_skip" || action == "schedbot_stop" {
		block = "fired_" + jobID
	}
	act := map[string]any{"action_id": action, "block_id": block, "value": value, "type": "button"}
	if action == "schedbot_snooze" {
		act = map[string]any{"action_id": action, "block_id": block, "type": "static_select", "selected_option": map[string]any{"value": value}}
	}
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", n), "type": "interactive", "payload": map[string]any{
		"type": "block_actions", "team": map[string]any{"id": "T1"}, "user": map[string]any{"id": user},
		"channel":   map[string]any{"id": "C0TEAM"},
		"container": map[string]any{"type": "message", "message_ts": "1700000100.000001", "channel_id": "C0TEAM"},
		"message": map[string]any{"ts": "1700000100.000001", "text": "the message", "blocks": []any{
			map[string]any{"type": "section", "block_id": "text", "text": map[string]any{"type": "mrkdwn", "text": "the message"}},
			map[string]any{"type": "actions", "block_id": block, "elements": []any{}},
		}},
		"action_ts":    fmt.Sprintf("1700000200.%d", n),
		"response_url": "RESPOND/" + strconv.Itoa(n),
		"actions":      []any{act},
	}}
}

// Sign is the X-Slack-Signature Slack gives an HTTP request's body sent
// at ts, under the app's signing secret.
func Sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%d:%s", ts, body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// Config is a schedbot config whose Slack profile team (team T1, every
// channel, admin UADMIN) and terminal profile share orchestrator default.
const Config = `
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
