package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"go.etcd.io/bbolt"
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

	mu  sync.Mutex
	now time.Time
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
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
	e := &env{t: t, st: st, now: t0}
	e.reg = functions.NewRegistry(functions.Deps{Store: st, Now: e.clock,
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
		Now: e.clock,
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

func TestSchedules_CreateShowListPatchDelete(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")

	r := e.do("POST", "/api/v1/schedules", alice, createBody("0 9 * * 5", "standup notes", "C0111"))
	e.requireCode(r, http.StatusCreated)
	var created httpapi.Schedule
	r.json(t, &created)
	id := created.Job.JobID
	if loc := r.hdr.Get("Location"); loc != "/api/v1/schedules/"+id {
		t.Errorf("Location = %q", loc)
	}
	if got := created.Job.CreatedBy; got.Via != store.ViaHTTP || got.SenderID != "UALICE" || got.ChannelProfileID != "team" || got.Token != "UALICE-token" {
		t.Errorf("createdBy = %+v, want UALICE of team via http with the token's name", got)
	}

	r = e.do("GET", "/api/v1/schedules/"+id, alice, "")
	e.requireCode(r, http.StatusOK)
	var shown httpapi.Schedule
	r.json(t, &shown)
	if shown.Description != "Every Friday at 9:00 AM (America/New_York)" || shown.NextRunAtLocal != "2027-03-12T09:00:00" {
		t.Errorf("description %q, nextRunAtLocal %q", shown.Description, shown.NextRunAtLocal)
	}
	wantRuns := []string{"2027-03-12T14:00:00Z", "2027-03-19T13:00:00Z", "2027-03-26T13:00:00Z", "2027-04-02T13:00:00Z", "2027-04-09T13:00:00Z",
		"2027-04-16T13:00:00Z", "2027-04-23T13:00:00Z", "2027-04-30T13:00:00Z", "2027-05-07T13:00:00Z", "2027-05-14T13:00:00Z"}
	if got := fmt.Sprint(formatAll(shown.NextRuns)); got != fmt.Sprint(wantRuns) {
		t.Errorf("nextRuns = %v, want %v (EST, then EDT)", got, wantRuns)
	}
	tag := r.hdr.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag")
	}

	// Filters and pages.
	e.mustCreate(alice, createBody("0 10 * * 1", "weekly planning", "C0222"))
	bob := e.mustToken("team", "UBOB")
	e.mustCreate(bob, createBody("0 17 * * 5", "weekend!", "C0111"))
	list := func(query string) httpapi.Page[*store.Job] {
		t.Helper()
		r := e.do("GET", "/api/v1/schedules"+query, alice, "")
		e.requireCode(r, http.StatusOK)
		var p httpapi.Page[*store.Job]
		r.json(t, &p)
		return p
	}
	for query, want := range map[string]int{"": 3, "?createdBy=UBOB": 1, "?channel=C0222": 1, "?q=STANDUP": 1,
		"?state=paused": 0, "?createdBy=UALICE&channel=C0111": 1} {
		if got := list(query); len(got.Items) != want {
			t.Errorf("GET /schedules%s: %d items, want %d", query, len(got.Items), want)
		}
	}
	first := list("?limit=2")
	if len(first.Items) != 2 || first.Next == "" {
		t.Fatalf("limit 2: %d items, next %q", len(first.Items), first.Next)
	}
	if rest := list("?limit=2&cursor=" + first.Next); len(rest.Items) != 1 || rest.Next != "" {
		t.Errorf("second page: %d items, next %q", len(rest.Items), rest.Next)
	}

	// A merge patch changes the cron and keeps the zone; a stale ETag is 412.
	r = e.do("PATCH", "/api/v1/schedules/"+id, alice, `{"schedule":{"cron":"30 8 * * 5"},"name":"standup"}`,
		"Content-Type", "application/merge-patch+json", "If-Match", tag)
	e.requireCode(r, http.StatusOK)
	var patched httpapi.Schedule
	r.json(t, &patched)
	if patched.Job.Schedule.Cron != "30 8 * * 5" || patched.Job.Schedule.Timezone != "America/New_York" || patched.Job.Name != "standup" {
		t.Errorf("patched job: %+v, name %q", patched.Job.Schedule, patched.Job.Name)
	}
	r = e.do("PATCH", "/api/v1/schedules/"+id, alice, `{"name":"other"}`, "If-Match", tag)
	e.requireCode(r, http.StatusPreconditionFailed)
	r.problem(t)
	r = e.do("PATCH", "/api/v1/schedules/"+id, alice, `{"name":null}`)
	e.requireCode(r, http.StatusOK)
	var cleared httpapi.Schedule
	r.json(t, &cleared)
	if cleared.Job.Name != "" {
		t.Errorf("null did not clear the name: %q", patched.Job.Name)
	}

	r = e.do("DELETE", "/api/v1/schedules/"+id, alice, "")
	e.requireCode(r, http.StatusNoContent)
	r = e.do("GET", "/api/v1/schedules/"+id+"/runs", alice, "")
	e.requireCode(r, http.StatusOK) // a deleted job's history stays readable
	r = e.do("PATCH", "/api/v1/schedules/"+id, alice, `{"name":"x"}`)
	e.requireCode(r, http.StatusNotFound)
	r.problem(t)
	if got := list(""); len(got.Items) != 2 {
		t.Errorf("after delete: %d jobs listed, want 2", len(got.Items))
	}
}

func formatAll(ts []time.Time) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.UTC().Format(time.RFC3339))
	}
	return out
}

// TestAuthority_TokensActAsTheirSender: a token has its sender's authority
// and no more; an admin's token (and a terminal profile's) may change
// anyone's job; a revoked, expired, unknown or missing token is 401 and
// says nothing else.
func TestAuthority_TokensActAsTheirSender(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	bob := e.mustToken("team", "UBOB")
	admin := e.mustToken("team", "UADMIN")
	term := e.mustToken("term", "ops")
	id := e.mustCreate(alice, createBody("0 9 * * 5", "standup", "C0111"))

	for _, path := range []string{"/pause", "/trigger", ""} {
		method := "POST"
		if path == "" {
			method = "DELETE"
		}
		r := e.do(method, "/api/v1/schedules/"+id+path, bob, "")
		e.requireCode(r, http.StatusForbidden)
		if p := r.problem(t); !strings.Contains(p.Detail, "only its creator (UALICE) or an admin") {
			t.Errorf("%s %s: 403 does not say who may: %q", method, path, p.Detail)
		}
	}
	r := e.do("PATCH", "/api/v1/schedules/"+id, bob, `{"name":"mine"}`)
	e.requireCode(r, http.StatusForbidden)

	r = e.do("POST", "/api/v1/schedules/"+id+"/pause", admin, "")
	e.requireCode(r, http.StatusOK)
	var s httpapi.Schedule
	r.json(t, &s)
	if s.Job.State != store.JobPaused {
		t.Errorf("admin's pause left the job %s", s.Job.State)
	}
	r = e.do("POST", "/api/v1/schedules/"+id+"/resume", term, "")
	e.requireCode(r, http.StatusOK)
	r = e.do("POST", "/api/v1/schedules/"+id+"/trigger", alice, "")
	e.requireCode(r, http.StatusAccepted)

	revoked := e.mustToken("team", "UREV", func(tk *store.Token) { tk.RevokedAt = t0 })
	expired := e.mustToken("team", "UEXP", func(tk *store.Token) { tk.ExpiresAt = t0.Add(time.Hour) })
	feed := e.mustToken("team", "UFEED", func(tk *store.Token) { tk.Feed = true })
	e.advance(time.Hour)
	for name, tok := range map[string]string{"revoked": revoked, "expired": expired, "feed": feed,
		"unknown": "sbt_nope", "none": "", "no prefix": "abc"} {
		r := e.do("GET", "/api/v1/schedules", tok, "")
		if r.code != http.StatusUnauthorized {
			t.Errorf("%s token: status %d, want 401", name, r.code)
			continue
		}
		if p := r.problem(t); p.Detail != "" || len(p.Errors) > 0 {
			t.Errorf("%s token: 401 says more than that: %+v", name, p)
		}
		if r.hdr.Get("WWW-Authenticate") == "" {
			t.Errorf("%s token: 401 without WWW-Authenticate", name)
		}
	}
	// The changes are audited via http with the token's name.
	r = e.do("GET", "/api/v1/audit?job="+id, alice, "")
	e.requireCode(r, http.StatusOK)
	var audit httpapi.Page[*store.AuditEvent]
	r.json(t, &audit)
	var got []string
	for _, ev := range audit.Items {
		if strings.HasPrefix(ev.Action, "job.") {
			got = append(got, ev.Action+" by "+ev.Actor.SenderID+" via "+ev.Actor.Via+" token "+ev.Actor.Token)
		}
	}
	want := []string{"job.created by UALICE via http token UALICE-token", "job.paused by UADMIN via http token UADMIN-token",
		"job.resumed by ops via http token ops-token", "job.triggered by UALICE via http token UALICE-token"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("audit:\n got %v\nwant %v", got, want)
	}
	var tok *store.Token
	e.st.View(t.Context(), func(tx store.Tx) (err error) {
		tok, err = tx.TokenGet(httpapi.HashToken(alice))
		return err
	})
	if tok == nil || !tok.LastUsedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("alice's token's lastUsedAt = %v, want %v", tok.LastUsedAt, t0.Add(time.Hour))
	}
}

func TestErrors_AreProblemsWithFieldsAndNoInternals(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	id := e.mustCreate(alice, createBody("0 9 * * 5", "standup", "C0111"))

	r := e.do("POST", "/api/v1/schedules", alice, `{"scheduleType":`)
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "args" {
		t.Errorf("bad JSON: %+v", p)
	}
	r = e.do("POST", "/api/v1/schedules", alice, createBody("0 9 * * * *", "x", ""))
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "schedule.cron" || !strings.Contains(p.Errors[0].Rule, "6 fields") {
		t.Errorf("bad cron: %+v", p)
	}
	r = e.do("POST", "/api/v1/schedules", alice, createBody("0 9 * * 5", "x", "C0999"))
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "targetRef.channelId" {
		t.Errorf("channel the profile does not serve: %+v", p)
	}
	r = e.do("POST", "/api/v1/schedules", alice, createBody("0 9 * * 5", "x", ""), "Content-Type", "text/plain")
	e.requireCode(r, http.StatusUnsupportedMediaType)
	r.problem(t)
	big := `{"scheduleType":"cron","x":"` + strings.Repeat("a", httpapi.MaxBodyBytes) + `"}`
	r = e.do("POST", "/api/v1/schedules", alice, big)
	e.requireCode(r, http.StatusRequestEntityTooLarge)
	r.problem(t)
	r = e.do("GET", "/api/v1/schedules/01ARZ3NDEKTSV4RRFFQ69G5FAV", alice, "")
	e.requireCode(r, http.StatusNotFound)
	r.problem(t)
	r = e.do("GET", "/api/v1/schedules?limit=0", alice, "")
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); p.Errors[0].Field != "limit" {
		t.Errorf("limit 0: %+v", p)
	}
	r = e.do("POST", "/api/v1/schedules", alice, `{"name":"dup",`+createBody("0 9 * * 5", "x", "")[1:])
	e.requireCode(r, http.StatusCreated)
	r = e.do("POST", "/api/v1/schedules", alice, `{"name":"dup",`+createBody("0 9 * * 5", "y", "")[1:])
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); p.Errors[0].Field != "name" {
		t.Errorf("a name taken: %+v", p)
	}
	// A once job paused past its time has nothing to resume to: 409.
	once := e.mustCreate(alice, `{"scheduleType":"once","schedule":{"runAt":"2027-03-10T12:02:00Z"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"soon"}}}`)
	e.requireCode(e.do("POST", "/api/v1/schedules/"+once+"/pause", alice, ""), http.StatusOK)
	e.advance(10 * time.Minute)
	r = e.do("POST", "/api/v1/schedules/"+once+"/resume", alice, "")
	e.requireCode(r, http.StatusConflict)
	if p := r.problem(t); !strings.Contains(p.Detail, "no run after now") {
		t.Errorf("resume past its time: %+v", p)
	}
	r = e.do("GET", "/api/v1/calendar?start=2027-03-10T00:00:00Z", alice, "")
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); p.Errors[0].Field != "end" {
		t.Errorf("calendar without end: %+v", p)
	}
	_ = id
}

// TestErrors_InternalFailureIs500WithoutDetail: a job whose stored record
// cannot be read is a 500 that says nothing of the store or the record.
func TestErrors_InternalFailureIs500WithoutDetail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	e := newEnvAt(t, path)
	alice := e.mustToken("team", "UALICE")
	id := e.mustCreate(alice, createBody("0 9 * * 5", "standup", "C0111"))
	e.srv.Close()
	e.st.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("jobs")).Put([]byte(id), []byte("{not json")) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	e = newEnvAt(t, path)
	r := e.do("GET", "/api/v1/schedules/"+id, alice, "")
	e.requireCode(r, http.StatusInternalServerError)
	p := r.problem(t)
	for _, leak := range []string{"json", "corrupt", "bolt", "invalid character", id} {
		if strings.Contains(strings.ToLower(string(r.body)), strings.ToLower(leak)) {
			t.Errorf("the 500 shows %q: %s", leak, r.body)
		}
	}
	if p.Detail == "" {
		t.Error("the 500 has no detail at all")
	}
}

func TestRateLimit_PerTokenWithRetryAfter(t *testing.T) {
	e := newEnv(t, func(o *httpapi.Options) { o.Rate, o.Burst = 1, 2 })
	alice := e.mustToken("team", "UALICE")
	bob := e.mustToken("team", "UBOB")
	for range 2 {
		e.requireCode(e.do("GET", "/api/v1/schedules", alice, ""), http.StatusOK)
	}
	r := e.do("GET", "/api/v1/schedules", alice, "")
	e.requireCode(r, http.StatusTooManyRequests)
	r.problem(t)
	if ra := r.hdr.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After = %q, want 1", ra)
	}
	e.requireCode(e.do("GET", "/api/v1/schedules", bob, ""), http.StatusOK) // another token's budget
	e.advance(time.Second)
	e.requireCode(e.do("GET", "/api/v1/schedules", alice, ""), http.StatusOK)
}

func TestInFlight_BoundedWith503(t *testing.T) {
	// A budget no poll below can spend: the clock here stands still.
	e := newEnv(t, func(o *httpapi.Options) { o.MaxInFlight, o.Rate, o.Burst = 1, 1e9, 1<<30 })
	alice := e.mustToken("team", "UALICE")
	// A request whose body has not all come holds the one slot. It is
	// written by hand on a connection of its own, so that nothing in an
	// HTTP client decides when its headers leave.
	body := `{"text":"post hello every friday at 9am"}`
	var conn net.Conn
	var done chan resp
	hold := func() {
		var err error
		if conn, err = net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "POST /api/v1/parse HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			alice, len(body), body[:8])
		done = make(chan resp, 1)
		go func(conn net.Conn, done chan resp) {
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				done <- resp{}
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			done <- resp{res.StatusCode, res.Header, b}
		}(conn, done)
	}
	hold()
	// The first request is in its handler once a second one is refused. It
	// may itself come while a poll holds the slot, and be refused: then it
	// is sent again.
	var r resp
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if r = e.do("GET", "/api/v1/schedules", alice, ""); r.code == http.StatusServiceUnavailable {
			break
		}
		select {
		case first := <-done:
			if first.code != http.StatusServiceUnavailable {
				t.Fatalf("the request meant to hold the slot: %d %s", first.code, first.body)
			}
			hold()
		default:
		}
	}
	e.requireCode(r, http.StatusServiceUnavailable)
	r.problem(t)
	if _, err := io.WriteString(conn, body[8:]); err != nil {
		t.Fatal(err)
	}
	if first := <-done; first.code != http.StatusOK {
		t.Errorf("the request in flight: %d %s", first.code, first.body)
	}
	e.requireCode(e.do("GET", "/api/v1/schedules", alice, ""), http.StatusOK)
}

func TestIdempotencyKey_RetryGetsTheFirstResult(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	body := createBody("0 9 * * 5", "standup", "C0111")
	a := e.do("POST", "/api/v1/schedules", alice, body, "Idempotency-Key", "create-standup-1")
	b := e.do("POST", "/api/v1/schedules", alice, body, "Idempotency-Key", "create-standup-1")
	e.requireCode(a, http.StatusCreated)
	e.requireCode(b, http.StatusCreated)
	if a.hdr.Get("Location") != b.hdr.Get("Location") {
		t.Errorf("a retry made another job: %s and %s", a.hdr.Get("Location"), b.hdr.Get("Location"))
	}
	r := e.do("GET", "/api/v1/schedules", alice, "")
	var page httpapi.Page[*store.Job]
	r.json(t, &page)
	if len(page.Items) != 1 {
		t.Errorf("%d jobs after a retried create, want 1", len(page.Items))
	}
	r = e.do("POST", "/api/v1/schedules", alice, createBody("0 9 * * 5", "other", "C0111"), "Idempotency-Key", "create-standup-1")
	e.requireCode(r, http.StatusConflict)
	r.problem(t)
	r = e.do("POST", "/api/v1/schedules", alice, body, "Idempotency-Key", "bad key!")
	e.requireCode(r, http.StatusBadRequest)

	// A retried pause answers as the first did, though the job is paused now.
	id := strings.TrimPrefix(a.hdr.Get("Location"), "/api/v1/schedules/")
	p1 := e.do("POST", "/api/v1/schedules/"+id+"/pause", alice, "", "Idempotency-Key", "p1")
	p2 := e.do("POST", "/api/v1/schedules/"+id+"/pause", alice, "", "Idempotency-Key", "p1")
	if p1.code != http.StatusOK || string(p1.body) != string(p2.body) {
		t.Errorf("retried pause: %d %s / %d %s", p1.code, p1.body, p2.code, p2.body)
	}
	d1 := e.do("DELETE", "/api/v1/schedules/"+id, alice, "", "Idempotency-Key", "d1")
	d2 := e.do("DELETE", "/api/v1/schedules/"+id, alice, "", "Idempotency-Key", "d1")
	e.requireCode(d1, http.StatusNoContent)
	e.requireCode(d2, http.StatusNoContent)
	e.requireCode(e.do("DELETE", "/api/v1/schedules/"+id, alice, ""), http.StatusNotFound)
}

func TestRuns_PagedWithResultsAndLateness(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	id := e.mustCreate(alice, createBody("0 9 * * *", "daily", "C0111"))
	mustPutRuns(t, e.st, id, 5)
	r := e.do("GET", "/api/v1/schedules/"+id+"/runs?limit=2", alice, "")
	e.requireCode(r, http.StatusOK)
	var page struct {
		Items []struct {
			ExecutionID     string   `json:"executionId"`
			Status          string   `json:"status"`
			Error           string   `json:"error"`
			LatenessSeconds *float64 `json:"latenessSeconds"`
		} `json:"items"`
		Next string `json:"next"`
	}
	r.json(t, &page)
	if len(page.Items) != 2 || page.Next == "" {
		t.Fatalf("first page: %s", r.body)
	}
	if it := page.Items[0]; it.Status != "failed" || it.Error != "boom" || it.LatenessSeconds == nil || *it.LatenessSeconds != 3 {
		t.Errorf("newest run: %+v", it)
	}
	seen := len(page.Items)
	for page.Next != "" {
		r = e.do("GET", "/api/v1/schedules/"+id+"/runs?limit=2&cursor="+page.Next, alice, "")
		e.requireCode(r, http.StatusOK)
		page.Next = ""
		r.json(t, &page)
		seen += len(page.Items)
	}
	if seen != 5 {
		t.Errorf("paged through %d runs, want 5", seen)
	}
	e.requireCode(e.do("GET", "/api/v1/schedules/"+id+"/runs?cursor=xyz", alice, ""), http.StatusBadRequest)
	e.requireCode(e.do("GET", "/api/v1/schedules/01ARZ3NDEKTSV4RRFFQ69G5FAV/runs", alice, ""), http.StatusNotFound)
}

// mustPutRuns records n daily runs of job id before t0, the newest failed,
// each dispatched 3 seconds late.
func mustPutRuns(t *testing.T, st store.Store, id string, n int) {
	t.Helper()
	err := st.Update(t.Context(), func(tx store.Tx) error {
		for i := range n {
			at := time.Date(2027, 3, 9-i, 14, 0, 0, 0, time.UTC)
			run := &store.Run{ExecutionID: store.ExecutionID(id, at), JobID: id, ScheduledAt: at,
				DispatchedAt: at.Add(3 * time.Second), CompletedAt: at.Add(4 * time.Second), Status: store.RunCompleted}
			if i == 0 {
				run.Status, run.Error = store.RunFailed, "boom"
			}
			if err := tx.RunPut(run); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCalendar_PastRunsAndFutureOccurrencesAcrossDST(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	id := e.mustCreate(alice, createBody("30 2 * * *", "night job", "C0111"))
	mustPutRuns(t, e.st, id, 2) // 2027-03-09 and -08 at 14:00Z
	r := e.do("GET", "/api/v1/calendar?start=2027-03-09T00:00:00Z&end=2027-03-16T00:00:00Z&tz=Europe/Berlin", alice, "")
	e.requireCode(r, http.StatusOK)
	var cal httpapi.Calendar
	r.json(t, &cal)
	var got []string
	for _, en := range cal.Entries {
		s := en.Kind + " " + en.At.Format(time.RFC3339)
		if en.Status != "" {
			s += " " + string(en.Status)
		}
		got = append(got, s)
	}
	want := []string{
		"run 2027-03-09T14:00:00Z failed",
		"occurrence 2027-03-11T07:30:00Z", "occurrence 2027-03-12T07:30:00Z", "occurrence 2027-03-13T07:30:00Z",
		"occurrence 2027-03-14T07:00:00Z", // 02:30 does not exist: 03:00 EDT, as the scheduler fires
		"occurrence 2027-03-15T06:30:00Z",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || cal.Truncated {
		t.Errorf("calendar:\n got %v\nwant %v (truncated %v)", got, want, cal.Truncated)
	}
	if cal.Entries[1].AtLocal != "2027-03-11T08:30:00" {
		t.Errorf("atLocal in Europe/Berlin = %q", cal.Entries[1].AtLocal)
	}

	// Every minute for 300 days: 200 for the schedule, and truncated.
	e.mustCreate(alice, `{"scheduleType":"interval","schedule":{"everySeconds":60},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"tick"}}}`)
	r = e.do("GET", "/api/v1/calendar?start=2027-03-10T00:00:00Z&end=2028-01-01T00:00:00Z", alice, "")
	e.requireCode(r, http.StatusOK)
	r.json(t, &cal)
	n := 0
	for _, en := range cal.Entries {
		if en.Description == "Every minute" || strings.Contains(en.Description, "minute") {
			n++
		}
	}
	if !cal.Truncated || n != 200 {
		t.Errorf("every minute over 300 days: %d entries of it, truncated %v", n, cal.Truncated)
	}
	r = e.do("GET", "/api/v1/calendar?start=2027-03-10T00:00:00Z&end=2029-01-01T00:00:00Z", alice, "")
	e.requireCode(r, http.StatusBadRequest)
	r = e.do("GET", "/api/v1/calendar?start=2027-03-10T00:00:00Z&end=2027-03-11T00:00:00Z&tz=Mars/Olympus", alice, "")
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); p.Errors[0].Field != "tz" {
		t.Errorf("bad tz: %+v", p)
	}
}

func TestCalendar_AtMost2000Entries(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("term", "ops")
	for i := range 11 {
		e.mustCreate(alice, fmt.Sprintf(`{"scheduleType":"interval","schedule":{"everySeconds":%d},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"tick"}}}`, 60+i))
	}
	r := e.do("GET", "/api/v1/calendar?start=2027-03-10T00:00:00Z&end=2027-06-01T00:00:00Z", alice, "")
	e.requireCode(r, http.StatusOK)
	var cal httpapi.Calendar
	r.json(t, &cal)
	if len(cal.Entries) != 2000 || !cal.Truncated {
		t.Errorf("%d entries, truncated %v; want 2000, true", len(cal.Entries), cal.Truncated)
	}
}

func TestParse_DecidesAndPreviewsAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	r := e.do("POST", "/api/v1/parse", alice, `{"text":"post standup in #team every weekday at 9am","tz":"Europe/Berlin","now":"2027-03-10T12:00:00Z"}`)
	e.requireCode(r, http.StatusOK)
	var res httpapi.ParseResult
	r.json(t, &res)
	if res.Decision.Function != "schedule.create" || res.Description != "Every weekday at 9:00 AM (Europe/Berlin)" || len(res.NextRuns) != 10 {
		t.Fatalf("parse: %s", r.body)
	}
	if got := res.NextRuns[0].Format(time.RFC3339); got != "2027-03-11T08:00:00Z" {
		t.Errorf("first run %s, want 2027-03-11T08:00:00Z", got)
	}
	r = e.do("POST", "/api/v1/parse", alice, `{"text":"post hello"}`)
	e.requireCode(r, http.StatusOK)
	res = httpapi.ParseResult{}
	r.json(t, &res)
	if res.Decision.Clarify == "" || res.Decision.Function != "" {
		t.Errorf("a text without a time: %s", r.body)
	}
	r = e.do("GET", "/api/v1/schedules", alice, "")
	var page httpapi.Page[*store.Job]
	r.json(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("parse made %d jobs", len(page.Items))
	}
	for body, field := range map[string]string{`{}`: "text", `{"text":"x","tz":"Nowhere/Land"}`: "tz", `{"text":"x","extra":1}`: "body"} {
		r := e.do("POST", "/api/v1/parse", alice, body)
		e.requireCode(r, http.StatusBadRequest)
		if p := r.problem(t); p.Errors[0].Field != field {
			t.Errorf("%s: field %q, want %q", body, p.Errors[0].Field, field)
		}
	}
}

func TestAudit_PagesFiltersAndVerifies(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	bob := e.mustToken("team", "UBOB")
	a := e.mustCreate(alice, createBody("0 9 * * 5", "a", "C0111"))
	e.advance(time.Hour)
	e.mustCreate(bob, createBody("0 9 * * 5", "b", "C0111"))
	e.do("POST", "/api/v1/schedules/"+a+"/pause", alice, "")
	get := func(q string) httpapi.Page[*store.AuditEvent] {
		t.Helper()
		r := e.do("GET", "/api/v1/audit"+q, alice, "")
		e.requireCode(r, http.StatusOK)
		var p httpapi.Page[*store.AuditEvent]
		r.json(t, &p)
		return p
	}
	if p := get("?job=" + a); len(p.Items) != 2 {
		t.Errorf("job filter: %d events", len(p.Items))
	}
	if p := get("?actor=UBOB"); len(p.Items) != 1 {
		t.Errorf("actor filter: %d events", len(p.Items))
	}
	p := get("?limit=1")
	if len(p.Items) != 1 || p.Next == "" {
		t.Fatalf("limit 1: %+v", p)
	}
	if q := get("?limit=5&cursor=" + p.Next); len(q.Items) != 2 || q.Items[0].Seq != p.Items[0].Seq+1 {
		t.Errorf("second page: %d events", len(q.Items))
	}
	// Audit records carry the store's own clock: until is taken from them.
	all := get("")
	if p := get("?until=" + all.Items[0].At.Format(time.RFC3339Nano)); len(p.Items) != 1 {
		t.Errorf("until the first event: %d events, want 1", len(p.Items))
	}
	if p := get("?since=" + all.Items[2].At.Format(time.RFC3339Nano)); len(p.Items) != 1 {
		t.Errorf("since the last event: %d events, want 1", len(p.Items))
	}
	e.requireCode(e.do("GET", "/api/v1/audit?since=yesterday", alice, ""), http.StatusBadRequest)
	r := e.do("GET", "/api/v1/audit/verify", alice, "")
	e.requireCode(r, http.StatusOK)
	var v httpapi.Verification
	r.json(t, &v)
	if !v.OK || v.Checked != 3 {
		t.Errorf("verify: %+v", v)
	}
}

func TestCalendar_MarksDSTAndShowsPausedJobsAndSkipNext(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	// 2027-03-14 is the US spring-forward Sunday.
	id := e.mustCreate(alice, createBody("0 9 * * *", "daily", "C0111"))
	cal := func() httpapi.Calendar {
		r := e.do("GET", "/api/v1/calendar?start=2027-03-12T00:00:00Z&end=2027-03-17T00:00:00Z&tz=UTC", alice, "")
		e.requireCode(r, http.StatusOK)
		var c httpapi.Calendar
		r.json(t, &c)
		return c
	}
	var marked []string
	for _, en := range cal().Entries {
		if en.JobState != store.JobEnabled || en.ScheduleType != store.ScheduleCron {
			t.Errorf("entry %+v: want an enabled cron job's", en)
		}
		if en.DST != "" {
			marked = append(marked, en.AtLocal[:10]+": "+en.DST)
		}
	}
	want := []string{
		"2027-03-13: clocks go forward 1h in America/New_York on Sun 14 Mar",
		"2027-03-14: clocks go forward 1h in America/New_York on Sun 14 Mar",
	}
	if fmt.Sprint(marked) != fmt.Sprint(want) {
		t.Errorf("DST marks:\n got %q\nwant %q", marked, want)
	}

	// Skip next leaves out the next occurrence, through the functions.
	var before, after httpapi.Schedule
	e.do("GET", "/api/v1/schedules/"+id, alice, "").json(t, &before)
	r := e.do("POST", "/api/v1/schedules/"+id+"/skip", alice, "")
	e.requireCode(r, http.StatusOK)
	r.json(t, &after)
	if got, want := formatAll(after.NextRuns)[:9], formatAll(before.NextRuns)[1:]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after skip next, next runs %v, want %v", got, want)
	}

	// A paused job's occurrences are shown, as paused.
	e.requireCode(e.do("POST", "/api/v1/schedules/"+id+"/pause", alice, ""), http.StatusOK)
	c := cal()
	if len(c.Entries) == 0 {
		t.Fatal("a paused job shows no occurrences")
	}
	for _, en := range c.Entries {
		if en.JobState != store.JobPaused {
			t.Errorf("entry of a paused job: %+v", en)
		}
	}
}

func TestPreview_DescribesArgumentsOrSaysTheProblemAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	r := e.do("POST", "/api/v1/preview", alice, createBody("0 9 * * 5", "hello", "C0111"))
	e.requireCode(r, http.StatusOK)
	var res httpapi.ParseResult
	r.json(t, &res)
	if res.Description != "Every Friday at 9:00 AM (America/New_York)" || len(res.NextRuns) != 10 || res.Invalid != nil {
		t.Errorf("preview: %s", r.body)
	}
	r = e.do("POST", "/api/v1/preview", alice, createBody("61 9 * * 5", "hello", "C0111"))
	e.requireCode(r, http.StatusOK)
	res = httpapi.ParseResult{}
	r.json(t, &res)
	if res.Invalid == nil || len(res.Invalid.Errors) == 0 || res.Invalid.Errors[0].Field != "schedule.cron" {
		t.Errorf("preview of a bad cron: %s", r.body)
	}
	var page httpapi.Page[*store.Job]
	e.do("GET", "/api/v1/schedules", alice, "").json(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("preview made %d jobs", len(page.Items))
	}
}
