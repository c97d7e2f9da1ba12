package functions_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// friday's runs after now (Sun 22 Nov 2026): Fri 27 Nov, 4 Dec, 11 Dec,
// 18 Dec, 25 Dec at 9:00 New York (14:00 UTC).
var (
	fri27 = time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	fri4  = time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	fri11 = time.Date(2026, 12, 11, 14, 0, 0, 0, time.UTC)
	fri25 = time.Date(2026, 12, 25, 14, 0, 0, 0, time.UTC)
)

func jobArgs(id string, kv ...string) string {
	s := `{"jobId":"` + id + `"`
	for i := 0; i+1 < len(kv); i += 2 {
		s += `,"` + kv[i] + `":"` + kv[i+1] + `"`
	}
	return s + "}"
}

func TestSkip_LeavesOutOneRunAndUnskipRestoresIt(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	// No at: the next run.
	res := e.mustCall(t, "schedule.skip", jobArgs(j.JobID)).(*functions.JobResult)
	if got := res.Job.Skip; len(got) != 1 || !got[0].Equal(fri27) {
		t.Fatalf("skip = %v, want [%s]", got, fri27)
	}
	if !res.Job.NextRunAt.Equal(fri4) || !res.NextRuns[0].Equal(fri4) || !res.NextRuns[1].Equal(fri11) {
		t.Errorf("next = %s, runs %v; want 4 Dec first", res.Job.NextRunAt, res.NextRuns)
	}
	e.mustCall(t, "schedule.skip", jobArgs(j.JobID, "at", fri25.Format(time.RFC3339)))
	got := e.job(t, j.JobID)
	if want := "Every Friday at 9:00 AM, except Fri 27 Nov and Fri 25 Dec (America/New_York)"; got.Description != want {
		t.Errorf("description = %q, want %q", got.Description, want)
	}
	// Skipping a skipped run changes nothing, and writes no event.
	n := len(e.audit(t))
	e.mustCall(t, "schedule.skip", jobArgs(j.JobID, "at", fri25.Format(time.RFC3339)))
	if len(e.audit(t)) != n {
		t.Error("skipping a skipped run wrote an event")
	}
	res = e.mustCall(t, "schedule.unskip", jobArgs(j.JobID, "at", fri27.Format(time.RFC3339))).(*functions.JobResult)
	if !res.Job.NextRunAt.Equal(fri27) || len(res.Job.Skip) != 1 {
		t.Errorf("after unskip: next %s, skip %v", res.Job.NextRunAt, res.Job.Skip)
	}
	acts := []string{}
	for _, ev := range e.audit(t) {
		acts = append(acts, ev.Action)
	}
	if got, want := strings.Join(acts, " "), "job.created job.skipped job.skipped job.unskipped"; got != want {
		t.Errorf("audit = %s, want %s", got, want)
	}
	// Once passed, a skip is no longer said, and is dropped when the job
	// is next written.
	e.now = fri4.Add(time.Hour)
	e.mustCall(t, "schedule.skip", jobArgs(j.JobID, "at", fri11.Format(time.RFC3339)))
	e.now = fri11.Add(time.Hour)
	show := e.mustCall(t, "schedule.show", jobArgs(j.JobID)).(*functions.JobResult)
	if want := "Every Friday at 9:00 AM, except Fri 25 Dec (America/New_York)"; show.Job.Description != want {
		t.Errorf("shown after 11 Dec: %q, want %q", show.Job.Description, want)
	}
	e.now = fri25.Add(time.Hour)
	e.mustCall(t, "schedule.skip", jobArgs(j.JobID))
	if got := e.job(t, j.JobID).Skip; len(got) != 1 || !got[0].Equal(time.Date(2027, 1, 1, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("skip = %v, want only Fri 1 Jan 2027", got)
	}
}

// "skip the next 2": count runs from at (or the next), passing over those
// skipped already; more runs than are left is refused, changing nothing.
func TestSkip_CountLeavesOutThatManyRuns(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	e.mustCall(t, "schedule.skip", jobArgs(j.JobID, "at", fri4.Format(time.RFC3339)))
	res := e.mustCall(t, "schedule.skip", `{"jobId":"`+j.JobID+`","count":3}`).(*functions.JobResult)
	want := []time.Time{fri27, fri4, fri11, fri11.AddDate(0, 0, 7)}
	if got := res.Job.Skip; len(got) != len(want) || !got[0].Equal(want[0]) || !got[3].Equal(want[3]) {
		t.Fatalf("skip = %v, want %v", got, want)
	}
	if !res.Job.NextRunAt.Equal(fri25) {
		t.Errorf("next = %s, want %s", res.Job.NextRunAt, fri25)
	}
	limited := e.mustCreate(t, `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"America/New_York"},"endAt":"2026-12-10T00:00:00Z",
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
	before := e.snapshot(t, limited.JobID)
	if _, err := e.call("schedule.skip", `{"jobId":"`+limited.JobID+`","count":5}`); !errors.Is(err, functions.ErrConflict) {
		t.Errorf("skipping 5 of the 2 runs before its end: %v, want a conflict", err)
	}
	requireUnchanged(t, e, before)
}

func TestSkip_BadInputNamesTheFieldAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	once := e.mustCreate(t, `{"scheduleType":"once","schedule":{"runAt":"2026-11-23T14:00:00Z"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
	cases := []struct{ fn, args, field, rule string }{
		{"schedule.skip", jobArgs(j.JobID, "at", "2026-11-28T14:00:00Z"), "at", "is not a run of job"},
		{"schedule.skip", jobArgs(j.JobID, "at", "2026-11-20T14:00:00Z"), "at", "has passed"},
		{"schedule.skip", jobArgs(j.JobID, "at", "Dec 24"), "at", "is not an RFC 3339 instant"},
		{"schedule.skip", `{"jobId":"` + j.JobID + `","count":101}`, "count", "must be at most 100"},
		{"schedule.skip", `{"jobId":"` + j.JobID + `","count":0}`, "count", "must be at least 1"},
		{"schedule.unskip", jobArgs(j.JobID), "at", "is required"},
		{"schedule.unskip", jobArgs(j.JobID, "at", fri4.Format(time.RFC3339)), "at", "is not a run job"},
		{"schedule.snooze", jobArgs(j.JobID, "until", "2026-11-22T11:00:00Z"), "until", "is not in the future"},
		{"schedule.snooze", jobArgs(j.JobID), "until", "is required"},
		{"schedule.complete", jobArgs(j.JobID, "executionId", "01XXXXXXXXXXXXXXXXXXXXXXXX@20261127T140000Z"), "executionId", "is not a run of job"},
	}
	for _, c := range cases {
		before := e.snapshot(t, j.JobID)
		_, err := e.call(c.fn, c.args)
		var fe *functions.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Rule, c.rule) {
			t.Errorf("%s %s: %v, want %s: …%s…", c.fn, c.args, err, c.field, c.rule)
		}
		requireUnchanged(t, e, before)
	}
	// A one-time job's only run is not skipped: that is deleting it.
	before := e.snapshot(t, once.JobID)
	if _, err := e.call("schedule.skip", jobArgs(once.JobID)); !errors.Is(err, functions.ErrConflict) {
		t.Errorf("skipping a once job's run: %v, want a conflict", err)
	}
	requireUnchanged(t, e, before)
}

func TestSnooze_ComesBackAfterAOnceJobFired(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, `{"scheduleType":"once","schedule":{"runAt":"2026-11-22T12:30:00Z"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"stretch"}}}`)
	e.now = time.Date(2026, 11, 22, 12, 30, 0, 0, time.UTC)
	if n, err := scheduler.New(e.st, nil).FireDue(t.Context(), e.now); err != nil || n != 1 {
		t.Fatalf("FireDue = %d, %v", n, err)
	}
	if got := e.job(t, j.JobID); got.State != store.JobDisabled {
		t.Fatalf("fired once job is %s", got.State)
	}
	until := e.now.Add(10 * time.Minute)
	res := e.mustCall(t, "schedule.snooze", jobArgs(j.JobID, "until", until.Format(time.RFC3339))).(*functions.JobResult)
	if got := res.Job; got.State != store.JobEnabled || !got.NextRunAt.Equal(until) || !got.SnoozeAt.Equal(until) {
		t.Errorf("snoozed: %s next %s snooze %s", got.State, got.NextRunAt, got.SnoozeAt)
	}
	if len(res.NextRuns) != 1 || !res.NextRuns[0].Equal(until) {
		t.Errorf("next runs %v, want the snooze alone", res.NextRuns)
	}
	if acts := e.audit(t); acts[len(acts)-1].Action != store.AuditJobSnoozed {
		t.Errorf("last event %s", acts[len(acts)-1].Action)
	}
}

func TestComplete_MarksTheLatestRunDone(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	if _, err := e.call("schedule.complete", jobArgs(j.JobID)); !errors.Is(err, functions.ErrConflict) {
		t.Errorf("done before any run: %v, want a conflict", err)
	}
	e.now = fri27
	if n, err := scheduler.New(e.st, nil).FireDue(t.Context(), fri27); err != nil || n != 1 {
		t.Fatalf("FireDue = %d, %v", n, err)
	}
	e.now = fri27.Add(5 * time.Minute)
	res, err := e.callAs(ana, "schedule.complete", jobArgs(j.JobID))
	var ae *functions.AuthorityError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "may mark done a run of job") {
		t.Fatalf("a stranger marking done: %v, %v", res, err)
	}
	res = e.mustCall(t, "schedule.complete", jobArgs(j.JobID))
	runs := res.(*functions.JobResult).Runs
	if len(runs) != 1 || runs[0].ExecutionID != store.ExecutionID(j.JobID, fri27) || runs[0].DoneBy == nil ||
		runs[0].DoneBy.Sender != "ada" || !runs[0].DoneAt.Equal(e.now) {
		t.Fatalf("runs = %+v", runs)
	}
	show := e.mustCall(t, "schedule.show", jobArgs(j.JobID)).(*functions.JobResult)
	if len(show.Runs) != 1 || show.Runs[0].DoneBy == nil {
		t.Errorf("show's runs = %+v, want the done one", show.Runs)
	}
	ev := e.audit(t)
	if last := ev[len(ev)-1]; last.Action != store.AuditRunCompleted || last.ExecutionID != runs[0].ExecutionID {
		t.Errorf("last event %s %s", last.Action, last.ExecutionID)
	}
}

// The person a reminder is sent to may snooze it and mark it done (and
// stop, pause or skip it: quotas_test.go), not make it go on or run.
func TestAuthority_TheRecipientMaySnoozeAndCompleteOnly(t *testing.T) {
	e := newEnv(t)
	created, err := e.callAs(ana, "schedule.create", strings.Replace(friday, `"channelId":"#team"`, `"channelId":"UBOB"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	j := created.(*functions.JobResult).Job
	e.now = fri27
	scheduler.New(e.st, nil).FireDue(t.Context(), fri27)
	if _, err := e.callAs(bob, "schedule.complete", jobArgs(j.JobID)); err != nil {
		t.Errorf("the recipient marking done: %v", err)
	}
	if _, err := e.callAs(bob, "schedule.snooze", jobArgs(j.JobID, "until", fri27.Add(time.Hour).Format(time.RFC3339))); err != nil {
		t.Errorf("the recipient snoozing: %v", err)
	}
	before := e.snapshot(t, j.JobID)
	for _, fn := range []string{"schedule.run_now", "schedule.resume"} {
		if _, err := e.callAs(bob, fn, jobArgs(j.JobID)); !errors.Is(err, functions.ErrForbidden) {
			t.Errorf("%s by the recipient: %v, want refused", fn, err)
		}
	}
	requireUnchanged(t, e, before)
	if _, err := e.callAs(admin, "schedule.snooze", jobArgs(j.JobID, "until", fri4.Format(time.RFC3339))); err != nil {
		t.Errorf("the admin snoozing: %v", err)
	}
}

func TestCreate_CountIsKeptAsRunsLeft(t *testing.T) {
	e := newEnv(t)
	res := e.mustCall(t, "schedule.create", strings.Replace(friday, `"scheduleType"`, `"count":2,"scheduleType"`, 1)).(*functions.JobResult)
	if res.Job.Remaining != 2 || len(res.NextRuns) != 2 || !strings.Contains(res.Job.Description, ", 2 more times") || !res.Job.EndAt.IsZero() {
		t.Errorf("counted job: remaining %d, next %v, %q, end %s", res.Job.Remaining, res.NextRuns, res.Job.Description, res.Job.EndAt)
	}
	for _, bad := range []string{`"count":0,`, `"count":10001,`} {
		if _, err := e.call("schedule.create", strings.Replace(friday, `"scheduleType"`, bad+`"scheduleType"`, 1)); !errors.Is(err, functions.ErrInvalidArgs) {
			t.Errorf("%s: %v, want invalid", bad, err)
		}
	}
}

// An update may set or clear the count, and a new schedule drops the
// skipped runs it does not have.
func TestUpdate_CountAndSkipsFollowTheNewSchedule(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	e.mustCall(t, "schedule.skip", jobArgs(j.JobID, "at", fri4.Format(time.RFC3339)))
	res := e.mustCall(t, "schedule.update", `{"jobId":"`+j.JobID+`","count":4}`).(*functions.JobResult)
	if res.Job.Remaining != 4 || len(res.Job.Skip) != 1 || len(res.NextRuns) != 3 || !res.NextRuns[1].Equal(fri11) {
		t.Errorf("count 4: remaining %d, skip %v, next %v", res.Job.Remaining, res.Job.Skip, res.NextRuns)
	}
	res = e.mustCall(t, "schedule.update", `{"jobId":"`+j.JobID+`","count":null,"schedule":{"cron":"0 10 * * 5","timezone":"America/New_York"}}`).(*functions.JobResult)
	if res.Job.Remaining != 0 || res.Job.Skip != nil || strings.Contains(res.Job.Description, "except") {
		t.Errorf("new schedule, no count: remaining %d, skip %v, %q", res.Job.Remaining, res.Job.Skip, res.Job.Description)
	}
	before := e.snapshot(t, j.JobID)
	if _, err := e.call("schedule.update", `{"jobId":"`+j.JobID+`","count":0}`); !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("count 0: %v", err)
	}
	requireUnchanged(t, e, before)
}

// The agenda of a day months ahead lists an hourly job's runs that day,
// however many runs come before it; a job given a count lists no more
// than it has left.
func TestAgenda_FarDayAndCount(t *testing.T) {
	e := newEnv(t)
	hourly := strings.Replace(friday, `{"cron":"0 9 * * 5","timezone":"America/New_York"}`, `{"cron":"0 * * * *","timezone":"America/New_York"}`, 1)
	e.mustCreate(t, hourly)
	day := `{"from":"2027-03-14T05:00:00Z","until":"2027-03-15T04:00:00Z"}` // 14 Mar 2027 in New York: 23 hours
	res := e.mustCall(t, "schedule.agenda", day).(*functions.AgendaResult)
	if len(res.Items) != 23 || res.Truncated {
		t.Errorf("hourly job on the spring-forward day: %d runs (truncated %v), want 23", len(res.Items), res.Truncated)
	}

	e2 := newEnv(t)
	daily := strings.Replace(friday, `{"cron":"0 9 * * 5","timezone":"America/New_York"}`, `{"cron":"0 9 * * *","timezone":"America/New_York"}`, 1)
	e2.mustCreate(t, strings.Replace(daily, `"scheduleType"`, `"count":3,"scheduleType"`, 1))
	res = e2.mustCall(t, "schedule.agenda", `{"from":"2026-11-22T12:00:00Z","until":"2026-12-10T00:00:00Z"}`).(*functions.AgendaResult)
	if len(res.Items) != 3 {
		t.Errorf("daily job given 3 runs: %d runs in the agenda, want 3", len(res.Items))
	}
	res = e2.mustCall(t, "schedule.agenda", `{"from":"2026-12-01T05:00:00Z","until":"2026-12-02T05:00:00Z"}`).(*functions.AgendaResult)
	if len(res.Items) != 0 {
		t.Errorf("daily job given 3 runs, a day after its last: %d runs, want none", len(res.Items))
	}
}

// schedule.show lists as many next runs as asked, three when not.
func TestShow_NextRuns(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	for _, c := range []struct {
		args string
		want int
	}{{`{"jobId":"` + j.JobID + `"}`, 3}, {`{"jobId":"` + j.JobID + `","next":7}`, 7}} {
		if res := e.mustCall(t, "schedule.show", c.args).(*functions.JobResult); len(res.NextRuns) != c.want {
			t.Errorf("show %s: %d next runs, want %d", c.args, len(res.NextRuns), c.want)
		}
	}
	if _, err := e.call("schedule.show", `{"jobId":"`+j.JobID+`","next":50}`); !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("next 50: %v, want invalid args", err)
	}
}
