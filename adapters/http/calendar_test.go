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
	// {"at"} skips that occurrence, not the next one.
	third := after.NextRuns[2]
	r = e.do("POST", "/api/v1/schedules/"+id+"/skip", alice, `{"at":"`+third.Format(time.RFC3339)+`"}`)
	e.requireCode(r, http.StatusOK)
	var skipped httpapi.Schedule
	r.json(t, &skipped)
	if got, want := formatAll(skipped.NextRuns)[:3], append(formatAll(after.NextRuns)[:2], formatAll(after.NextRuns)[3]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after skipping %s, next runs %v, want %v", third, got, want)
	}
	// {"count"} skips that many from the next.
	r = e.do("POST", "/api/v1/schedules/"+id+"/skip", alice, `{"count":2}`)
	e.requireCode(r, http.StatusOK)
	var counted httpapi.Schedule
	r.json(t, &counted)
	if got, want := formatAll(counted.NextRuns)[:3], formatAll(skipped.NextRuns)[2:5]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after skipping the next 2, next runs %v, want %v", got, want)
	}
	skipped = counted
	// A body an action does not take is refused; nothing changes.
	for _, c := range [][2]string{{"/pause", `{"garbage":`}, {"/trigger", `{"at":"2027-01-01T00:00:00Z"}`}, {"/skip", `{"at":"bogus"}`},
		{"/skip", `{"count":0}`}, {"/skip", `{"count":"two"}`}, {"/skip", `{"count":101}`}} {
		r = e.do("POST", "/api/v1/schedules/"+id+c[0], alice, c[1])
		e.requireCode(r, http.StatusBadRequest)
		r.problem(t)
	}
	var unchanged httpapi.Schedule
	e.do("GET", "/api/v1/schedules/"+id, alice, "").json(t, &unchanged)
	if unchanged.Job.State != store.JobEnabled || fmt.Sprint(formatAll(unchanged.NextRuns)[:3]) != fmt.Sprint(formatAll(skipped.NextRuns)[:3]) {
		t.Errorf("refused actions changed the job: %s %v", unchanged.Job.State, formatAll(unchanged.NextRuns)[:3])
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
