package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

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
