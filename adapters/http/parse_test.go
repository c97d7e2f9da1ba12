package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

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
	// the field and the JSON it must be, never the Go types behind them
	for body, field := range map[string]string{`{}`: "text", `{"text":"x","tz":"Nowhere/Land"}`: "tz", `{"text":"x","extra":1}`: "extra",
		`{"text":5}`: "text", `{"text":"x","now":"friday"}`: "now", `{"text":"x","now":5}`: "now", `{"text":`: "body", `[]`: "body"} {
		r := e.do("POST", "/api/v1/parse", alice, body)
		e.requireCode(r, http.StatusBadRequest)
		if p := r.problem(t); p.Errors[0].Field != field || strings.Contains(p.Errors[0].Rule, "Go ") || strings.Contains(p.Errors[0].Rule, "ParseRequest") {
			t.Errorf("%s: field %q (%s), want %q", body, p.Errors[0].Field, p.Errors[0].Rule, field)
		}
	}
}

func TestAudit_PagesFiltersAndVerifies(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	bob := e.mustToken("team", "UBOB")
	a := e.mustCreate(alice, createBody("0 9 * * 5", "a", "C0111"))
	e.Advance(time.Hour)
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
