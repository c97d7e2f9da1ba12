package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// t0 is the tests' "now": a Wednesday, days before New York springs
// forward (2027-03-14).
var t0 = time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)

// env is the API over one orchestrator with a real bbolt store: profile
// team (Slack, channels C1 and C2, admin UADMIN) and term (terminal).
type env struct {
	t   *testing.T
	srv *httptest.Server
	st  store.Store
	reg *functions.Registry
	*testkit.Clock
}

func newEnv(t *testing.T, tune ...func(*httpapi.Options)) *env {
	t.Helper()
	return newEnvAt(t, filepath.Join(t.TempDir(), "store.db"), tune...)
}

// newEnvAt is newEnv on the store file at path.
func newEnvAt(t *testing.T, path string, tune ...func(*httpapi.Options)) *env {
	t.Helper()
	st, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, st: st, Clock: testkit.NewClock(t0)}
	e.reg = functions.NewRegistry(functions.Deps{Store: st, Now: e.Now,
		Orchestrator: functions.Orchestrator{ID: "default", Timezone: "America/New_York", MaxJobs: 100,
			Functions: []string{"schedule.*", "message.post"}},
		Profiles: map[string]functions.Profile{
			"team": {Channel: "slack", Channels: []string{"C0111", "C0222", "#team"}, Admins: []string{"UADMIN"}},
			"term": {Channel: "terminal"},
		}})
	opts := httpapi.Options{
		Orchestrators: map[string]*httpapi.Orchestrator{"default": {ID: "default", Registry: e.reg, Store: st,
			Selector: rules.New(), Timezone: "America/New_York"}},
		Profiles: map[string]httpapi.Profile{
			"team": {ID: "team", OrchestratorID: "default", Channel: "slack"},
			"term": {ID: "term", OrchestratorID: "default", Channel: "terminal"},
		},
		Now: e.Now,
	}
	for _, f := range tune {
		f(&opts)
	}
	e.srv = httptest.NewServer(httpapi.New(opts))
	t.Cleanup(e.srv.Close)
	return e
}

// mustToken stores a token for sender of profile and returns it.
func (e *env) mustToken(profile, sender string, tune ...func(*store.Token)) string {
	e.t.Helper()
	tok, hash := httpapi.NewToken()
	rec := &store.Token{Hash: hash, ID: "tok_" + sender + profile, Name: sender + "-token", ChannelProfileID: profile,
		SenderID: sender, CreatedAt: t0}
	for _, f := range tune {
		f(rec)
	}
	if err := e.st.Update(e.t.Context(), func(tx store.Tx) error { return tx.TokenPut(rec) }); err != nil {
		e.t.Fatal(err)
	}
	return tok
}

type resp struct {
	code int
	hdr  http.Header
	body []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (r resp) problem(t *testing.T) httpapi.Problem {
	t.Helper()
	if ct := r.hdr.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json (body %s)", ct, r.body)
	}
	var p httpapi.Problem
	r.json(t, &p)
	if p.Status != r.code || p.Type == "" || p.Title == "" {
		t.Errorf("problem %+v lacks type, title or the status %d", p, r.code)
	}
	return p
}

// do sends one request; headers come in name, value pairs.
func (e *env) do(method, path, token, body string, headers ...string) resp {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

func (e *env) requireCode(r resp, want int) {
	e.t.Helper()
	if r.code != want {
		e.t.Fatalf("status %d, want %d: %s", r.code, want, r.body)
	}
}

func createBody(cron, text, channel string) string {
	ref := ""
	if channel != "" {
		ref = fmt.Sprintf(`,"targetRef":{"channel":"slack","channelId":%q}`, channel)
	}
	return fmt.Sprintf(`{"scheduleType":"cron","schedule":{"cron":%q,"timezone":"America/New_York"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":%q}}%s}`, cron, text, ref)
}

// mustCreate creates a job over the API and returns its id.
func (e *env) mustCreate(token, body string) string {
	e.t.Helper()
	r := e.do("POST", "/api/v1/schedules", token, body)
	e.requireCode(r, http.StatusCreated)
	var s httpapi.Schedule
	r.json(e.t, &s)
	return s.Job.JobID
}
