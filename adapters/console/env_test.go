package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/adapters/console"
	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// t0 is the tests' "now": Wednesday 10 March 2027, 10:00 in New York,
// four days before its clocks go forward.
var t0 = time.Date(2027, 3, 10, 15, 0, 0, 0, time.UTC)

const zone = "America/New_York"

// env is the console and the API over one orchestrator ("default", in
// New York) with a real store: profiles team (Slack team T0001, channels
// C0111 and #team, admin UADMIN) and term (the terminal, whose people are
// the orchestrator's admins).
type env struct {
	t     *testing.T
	st    store.Store
	con   *console.Console
	srv   *httptest.Server
	clock *testkit.Clock
}

type envOpt func(*console.Options)

// newEnv starts the console on bbolt ("bolt") or on a throwaway
// PostgreSQL database ("postgres").
func newEnv(t *testing.T, kind string, opts ...envOpt) *env {
	t.Helper()
	e := &env{t: t, st: testkit.Store(t, kind), clock: testkit.NewClock(t0)}
	reg := functions.NewRegistry(functions.Deps{Store: e.st, Now: e.clock.Now,
		Orchestrator: functions.Orchestrator{ID: "default", Timezone: zone, MaxJobs: 100,
			Functions: []string{"schedule.*", "message.post"}},
		Profiles: map[string]functions.Profile{
			"team": {Channel: "slack", Channels: []string{"C0111", "#team"}, Admins: []string{"UADMIN"}},
			"term": {Channel: "terminal"},
		}})
	api := httpapi.New(httpapi.Options{
		Orchestrators: map[string]*httpapi.Orchestrator{"default": {ID: "default", Registry: reg, Store: e.st,
			Selector: rules.New(), Timezone: zone}},
		Profiles: map[string]httpapi.Profile{
			"team": {ID: "team", OrchestratorID: "default", Channel: "slack"},
			"term": {ID: "term", OrchestratorID: "default", Channel: "terminal"},
		},
		Now: e.clock.Now, Rate: 1000, Burst: 1000,
	})
	o := console.Options{API: api, Stores: map[string]store.Store{"default": e.st}, Now: e.clock.Now,
		Profiles: map[string]console.Profile{
			"team": {ID: "team", OrchestratorID: "default", Channel: "slack", Timezone: zone, SlackTeamID: "T0001"},
			"term": {ID: "term", OrchestratorID: "default", Channel: "terminal", Timezone: zone},
		}}
	for _, f := range opts {
		f(&o)
	}
	e.con = console.New(o)
	e.srv = httptest.NewServer(e.con)
	t.Cleanup(e.srv.Close)
	return e
}

// link is a fresh one-time sign-in link, as serve prints it.
func (e *env) link(profile, sender string) string {
	e.t.Helper()
	p, err := e.con.SignInLink(e.t.Context(), profile, sender)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.srv.URL + p
}

// client is a browser-like HTTP client with a cookie jar that does not
// follow redirects, so that tests see each answer.
func (e *env) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signedIn is a client signed in as sender of profile, through a link.
func (e *env) signedIn(profile, sender string) *http.Client {
	e.t.Helper()
	c := e.client()
	res, err := c.Get(e.link(profile, sender))
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign-in link: %s", res.Status)
	}
	return c
}

var csrfRe = regexp.MustCompile(`name="csrf-token" content="([^"]+)"`)

// page GETs path and returns its status and body.
func (e *env) page(c *http.Client, path string) (int, string) {
	e.t.Helper()
	res, err := c.Get(e.srv.URL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, b.String()
}

// csrf reads the CSRF token a page gives the signed-in client.
func (e *env) csrf(c *http.Client) string {
	e.t.Helper()
	_, body := e.page(c, "/console/schedules")
	m := csrfRe.FindStringSubmatch(body)
	if m == nil {
		e.t.Fatalf("no csrf token in the page")
	}
	return m[1]
}

// post sends a form, with origin as its Origin header ("" for none).
func (e *env) post(c *http.Client, path string, form url.Values, origin string) *http.Response {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// create makes a job through the functions, as sender of profile, with
// its args as JSON, and returns its id.
func (e *env) create(profile, sender, args string) string {
	e.t.Helper()
	tok, hash := httpapi.NewToken()
	err := e.st.Update(e.t.Context(), func(tx store.Tx) error {
		return tx.TokenPut(&store.Token{Hash: hash, ID: "t-" + sender, Name: sender, ChannelProfileID: profile, SenderID: sender, CreatedAt: t0})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/schedules", strings.NewReader(args))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var sc httpapi.Schedule
	if err := json.NewDecoder(res.Body).Decode(&sc); err != nil || res.StatusCode != http.StatusCreated {
		e.t.Fatalf("create: %s %v", res.Status, err)
	}
	return sc.Job.JobID
}

// job reads a job from the store.
func (e *env) job(id string) *store.Job {
	e.t.Helper()
	var j *store.Job
	err := e.st.View(context.Background(), func(tx store.Tx) (err error) {
		j, err = tx.JobGet(id)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

// cronArgs is a cron job posting text to channel (empty: none).
func cronArgs(cron, text, channel string) string {
	b, _ := json.Marshal(map[string]any{"scheduleType": "cron", "schedule": map[string]any{"cron": cron, "timezone": zone},
		"targetAction": map[string]any{"type": "command_invoke", "functionId": "message.post", "functionArgs": map[string]any{"text": text}},
		"targetRef":    map[string]any{"channel": "slack", "channelProfileId": "team", "channelId": channel}})
	return string(b)
}

// onceArgs is a one-time job at at, posting text on the terminal.
func onceArgs(at time.Time, text string) string {
	b, _ := json.Marshal(map[string]any{"scheduleType": "once", "schedule": map[string]any{"runAt": at.UTC().Format(time.RFC3339), "timezone": zone},
		"targetAction": map[string]any{"type": "command_invoke", "functionId": "message.post", "functionArgs": map[string]any{"text": text}}})
	return string(b)
}
