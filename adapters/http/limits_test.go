package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
	"go.etcd.io/bbolt"
)

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
	e.Advance(time.Hour)
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
	e.requireCode(r, http.StatusConflict) // as HTTP_API.md says: valid, but taken
	if p := r.problem(t); p.Errors[0].Field != "name" {
		t.Errorf("a name taken: %+v", p)
	}
	// A once job paused past its time has nothing to resume to: 409.
	once := e.mustCreate(alice, `{"scheduleType":"once","schedule":{"runAt":"2027-03-10T12:02:00Z"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"soon"}}}`)
	e.requireCode(e.do("POST", "/api/v1/schedules/"+once+"/pause", alice, ""), http.StatusOK)
	e.Advance(10 * time.Minute)
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
	// A method an endpoint does not take is 405 naming the ones it does.
	r = e.do("PUT", "/api/v1/schedules/"+id, alice, "")
	e.requireCode(r, http.StatusMethodNotAllowed)
	if allow := r.hdr.Get("Allow"); allow != "GET, PATCH, DELETE" {
		t.Errorf("Allow = %q", allow)
	}
	r.problem(t)
	e.requireCode(e.do("GET", "/api/v1/nothing", alice, ""), http.StatusNotFound)
	// The auth scheme is case-insensitive (RFC 9110).
	e.requireCode(e.do("GET", "/api/v1/schedules", "", "", "Authorization", "bearer "+alice), http.StatusOK)
	// Bytes that are not UTF-8 are refused, not stored as U+FFFD.
	r = e.do("POST", "/api/v1/schedules", alice, strings.Replace(createBody("0 9 * * 5", "x", ""), `"x"`, "\"caf\xc3\x28\"", 1))
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); p.Errors[0].Field != "body" || !strings.Contains(p.Errors[0].Rule, "UTF-8") {
		t.Errorf("invalid UTF-8: %+v", p)
	}
	// A now whose next runs cannot be written is refused, not an empty 200.
	r = e.do("POST", "/api/v1/parse", alice, `{"text":"post hi every day at 9am","now":"9999-12-31T23:00:00Z"}`)
	e.requireCode(r, http.StatusBadRequest)
	if p := r.problem(t); p.Errors[0].Field != "now" {
		t.Errorf("parse in the year 9999: %+v", p)
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
	e.Advance(time.Second)
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
