package functions_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

var update = flag.Bool("update", false, "rewrite golden files")

// now is Sunday 22 Nov 2026, 12:00 UTC (07:00 in New York).
var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type env struct {
	st    store.Store
	reg   *functions.Registry
	now   time.Time
	wakes int
}

func newEnv(t *testing.T, mod ...func(*functions.Orchestrator)) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{st: st, now: now}
	o := functions.Orchestrator{
		ID: "default", Timezone: "America/New_York", MaxJobs: 100,
		Functions: []string{"schedule.*", "message.post"},
		Workflows: map[string]bool{"daily-report": true},
	}
	for _, m := range mod {
		m(&o)
	}
	e.reg = functions.NewRegistry(functions.Deps{
		Store: st, Orchestrator: o, Profiles: profiles,
		Now:         func() time.Time { return e.now },
		ChangedFunc: func() { e.wakes++ },
	})
	return e
}

var cli = store.Actor{SenderID: "1000", Sender: "ada", Via: store.ViaCLI}

// profiles are the test orchestrator's: a Slack workspace on every
// channel, one on two channels only, and the terminal.
var profiles = map[string]functions.Profile{
	"team":     {Channel: "slack", Channels: []string{"*"}, Admins: []string{"UADMIN"}},
	"ops":      {Channel: "slack", Channels: []string{"C0OPS", "C0ALERTS"}, Admins: []string{"UOPS"}},
	"terminal": {Channel: "terminal"},
}

func (e *env) call(fn, args string) (any, error) {
	return e.reg.Call(context(), functions.Request{Function: fn, Args: json.RawMessage(args), Actor: cli})
}

func (e *env) mustCall(t *testing.T, fn, args string) any {
	t.Helper()
	res, err := e.call(fn, args)
	if err != nil {
		t.Fatalf("%s %s: %v", fn, args, err)
	}
	return res
}

func (e *env) mustCreate(t *testing.T, args string) *store.Job {
	t.Helper()
	return e.mustCall(t, "schedule.create", args).(*functions.JobResult).Job
}

func (e *env) audit(t *testing.T) []*store.AuditEvent {
	t.Helper()
	var evs []*store.AuditEvent
	if err := e.st.View(context(), func(tx store.Tx) (err error) { evs, err = tx.AuditList(nil); return }); err != nil {
		t.Fatal(err)
	}
	return evs
}

func (e *env) job(t *testing.T, id string) *store.Job {
	t.Helper()
	var j *store.Job
	if err := e.st.View(context(), func(tx store.Tx) (err error) { j, err = tx.JobGet(id); return }); err != nil {
		t.Fatal(err)
	}
	return j
}

const friday = `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"America/New_York"},
	"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello world"}},
	"targetRef":{"channel":"slack","channelProfileId":"team","channelId":"#team"}}`

func TestCreate_CronJobIsStoredAuditedAndDescribed(t *testing.T) {
	e := newEnv(t)
	res := e.mustCall(t, "schedule.create", friday).(*functions.JobResult)
	j := res.Job
	if j.State != store.JobEnabled || j.OrchestratorID != "default" || j.CreatedBy != cli {
		t.Errorf("job = %+v", j)
	}
	if j.Description != "Every Friday at 9:00 AM (America/New_York)" {
		t.Errorf("description = %q", j.Description)
	}
	want := []time.Time{
		time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 11, 14, 0, 0, 0, time.UTC),
	}
	if d := cmp.Diff(want, res.NextRuns); d != "" {
		t.Errorf("next runs (-want +got):\n%s", d)
	}
	if !j.NextRunAt.Equal(want[0]) || j.NextRunAtLocal != "2026-11-27T09:00:00" {
		t.Errorf("nextRunAt = %s / %s", j.NextRunAt, j.NextRunAtLocal)
	}
	if j.MisfirePolicy != store.MisfireFireOnce || j.OverlapPolicy != store.OverlapSkip || j.TargetRef.PostingMode != store.PostChannel {
		t.Errorf("defaults not filled: %+v", j)
	}
	if d := cmp.Diff(j, e.job(t, j.JobID)); d != "" {
		t.Errorf("stored job differs (-returned +stored):\n%s", d)
	}
	evs := e.audit(t)
	if len(evs) != 1 || evs[0].Action != store.AuditJobCreated || evs[0].JobID != j.JobID || evs[0].Actor != cli || len(evs[0].After) == 0 {
		t.Errorf("audit = %+v", evs)
	}
	if e.wakes != 1 {
		t.Errorf("scheduler woken %d times, want 1", e.wakes)
	}
}

func TestCreate_IntervalAndOnce(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, `{"scheduleType":"interval","schedule":{"everySeconds":900},
		"targetAction":{"type":"workflow_start","workflowId":"daily-report","inputs":{"team":"ops"}}}`)
	if !j.Schedule.StartAt.Equal(now) || !j.NextRunAt.Equal(now.Add(15*time.Minute)) || j.Schedule.Timezone != "America/New_York" {
		t.Errorf("interval job = %+v", j.Schedule)
	}
	if j.Description != "Every 15 minutes (America/New_York)" {
		t.Errorf("description = %q", j.Description)
	}
	j = e.mustCreate(t, `{"scheduleType":"once","schedule":{"runAt":"2026-11-27T14:00:00Z"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
	if j.Description != "Once on Fri 27 Nov 2026 at 9:00 AM (America/New_York)" {
		t.Errorf("description = %q", j.Description)
	}
	// Within the 60 s grace a once job runs now.
	e.now = now.Add(30 * time.Second)
	j = e.mustCreate(t, `{"scheduleType":"once","schedule":{"runAt":"2026-11-22T12:00:00Z"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`)
	if !j.NextRunAt.Equal(e.now) {
		t.Errorf("once within grace: next %s, want now %s", j.NextRunAt, e.now)
	}
}

func TestCreate_BadInputNamesFieldAndChangesNothing(t *testing.T) {
	post := `"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"x"}}`
	cron := func(expr, tz string) string {
		return fmt.Sprintf(`{"scheduleType":"cron","schedule":{"cron":%q,"timezone":%q},%s}`, expr, tz, post)
	}
	cases := []struct{ name, args, field, rule string }{
		{"invalid JSON", `{"scheduleType":`, "args", "not valid JSON"},
		{"not an object", `[1,2]`, "args", "object"},
		{"unknown field", `{"scheduleType":"cron","schedule":{},"targetAction":{"type":"command_invoke"},"colour":"red"}`, "colour", "unknown field"},
		{"unknown nested field", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","tz":"UTC"},` + post + `}`, "schedule.tz", "unknown field"},
		{"missing action", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"}}`, "targetAction", "is required"},
		{"bad type", `{"scheduleType":"weekly","schedule":{},` + post + `}`, "scheduleType", "must be one of"},
		{"6-field cron", cron("0 0 9 * * 5", "UTC"), "schedule.cron", "6 fields given, 5 expected"},
		{"@every", cron("@every 5m", "UTC"), "schedule.cron", "@every is not supported"},
		{"never fires", cron("0 0 31 2 *", "UTC"), "schedule.cron", "never fires"},
		{"CRON_TZ", cron("CRON_TZ=UTC 0 9 * * 5", "UTC"), "schedule.cron", "CRON_TZ"},
		{"unknown timezone", cron("0 9 * * 5", "America/Gotham"), "schedule.timezone", "unknown timezone"},
		{"cron without zone", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5"},` + post + `}`, "schedule.timezone", "required"},
		{"interval 0", `{"scheduleType":"interval","schedule":{"everySeconds":0},` + post + `}`, "schedule.everySeconds", "between 60"},
		{"interval 10s", `{"scheduleType":"interval","schedule":{"everySeconds":10},` + post + `}`, "schedule.everySeconds", "between 60"},
		{"interval 1e3", `{"scheduleType":"interval","schedule":{"everySeconds":1e3},` + post + `}`, "schedule.everySeconds", "must be a whole number"},
		{"runAt in the past", `{"scheduleType":"once","schedule":{"runAt":"2026-11-22T11:58:00Z"},` + post + `}`, "schedule.runAt", "in the past"},
		{"runAt too far", `{"scheduleType":"once","schedule":{"runAt":"2040-01-01T00:00:00Z"},` + post + `}`, "schedule.runAt", "10 years"},
		{"runAt not a time", `{"scheduleType":"once","schedule":{"runAt":"next friday"},` + post + `}`, "schedule.runAt", "date-time"},
		{"endAt before the first run", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},"endAt":"2026-11-23T00:00:00Z",` + post + `}`, "endAt", "does not fire before"},
		{"1 MB of text", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"text":"`+strings.Repeat("a", 1<<20)+`"`, 1), "args", "at most 65536"},
		{"text too long", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"text":"`+strings.Repeat("a", 4001)+`"`, 1), "targetAction.functionArgs.text", "4000"},
		{"blank text", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"text":"   "`, 1), "targetAction.functionArgs.text", "blank"},
		{"escape sequence in text", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"text":"esc\u001b]0;PWNED\u0007\u001b[2Jcleared"`, 1), "targetAction.functionArgs.text", "control character (U+001B"},
		{"carriage return alone", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"text":"cleared\rOVER"`, 1), "targetAction.functionArgs.text", "control character (U+000D"},
		{"function args unknown field", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"txt":"x"`, 1), "targetAction.functionArgs.txt", "unknown field"},
		{"unknown function", strings.Replace(cron("0 9 * * 5", "UTC"), `"message.post"`, `"shell.exec"`, 1), "targetAction.functionId", "unknown function"},
		{"unknown workflow", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},"targetAction":{"type":"workflow_start","workflowId":"nope"}}`, "targetAction.workflowId", `no workflow "nope"`},
		{"workflow with function", `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},"targetAction":{"type":"workflow_start","workflowId":"daily-report","functionId":"message.post"}}`, "targetAction", "workflowId and inputs only"},
		{"thread reply without ts", strings.Replace(friday, `"channelId":"#team"`, `"channelId":"C024BE91L","postingMode":"thread_reply"`, 1), "targetRef.threadTs", "required"},
		{"bad channel id", strings.Replace(friday, `"#team"`, `"../x"`, 1), "targetRef.channelId", "path traversal"},
		{"bad channel name", strings.Replace(friday, `"#team"`, `"team channel"`, 1), "targetRef.channelId", "neither"},
		{"other orchestrator", strings.Replace(friday, `{"scheduleType"`, `{"orchestratorId":"ops","scheduleType"`, 1), "orchestratorId", "not the orchestrator of this request"},
		{"bad name", strings.Replace(friday, `{"scheduleType"`, `{"name":"<script>","scheduleType"`, 1), "name", "letters, digits"},
		{"name like an id", strings.Replace(friday, `{"scheduleType"`, `{"name":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5","scheduleType"`, 1), "name", "job id"},
		{"NUL in text", strings.Replace(cron("0 9 * * 5", "UTC"), `"text":"x"`, `"text":"a\u0000b"`, 1), "targetAction.functionArgs.text", "NUL"},
		{"trailing data", friday + `{}`, "args", "not valid JSON"},
	}
	e := newEnv(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.call("schedule.create", c.args)
			var fe *functions.FieldError
			if !errors.As(err, &fe) || !errors.Is(err, functions.ErrInvalidArgs) {
				t.Fatalf("err = %v, want a FieldError", err)
			}
			if fe.Field != c.field || !strings.Contains(fe.Rule, c.rule) {
				t.Errorf("err = %q, want %s: …%s…", err, c.field, c.rule)
			}
		})
	}
	if evs := e.audit(t); len(evs) != 0 {
		t.Errorf("%d audit events after only bad calls", len(evs))
	}
	page := e.mustCall(t, "schedule.list", `{"state":"all"}`).(*store.JobPage)
	if len(page.Jobs) != 0 {
		t.Errorf("%d jobs after only bad calls", len(page.Jobs))
	}
}

func TestCall_UnknownAndDisallowedFunctions(t *testing.T) {
	e := newEnv(t, func(o *functions.Orchestrator) { o.Functions = []string{"schedule.list", "schedule.create"} })
	if _, err := e.call("schedule.explode", `{}`); !errors.Is(err, functions.ErrUnknownFunction) {
		t.Errorf("unknown function: %v", err)
	}
	if _, err := e.call("schedule.delete", `{"jobId":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5"}`); !errors.Is(err, functions.ErrNotAllowed) {
		t.Errorf("disallowed function: %v", err)
	}
	// A job may not invoke a function its orchestrator does not allow.
	_, err := e.call("schedule.create", friday)
	var fe *functions.FieldError
	if !errors.As(err, &fe) || fe.Field != "targetAction.functionId" || !strings.Contains(fe.Rule, "not among the functions") {
		t.Errorf("create invoking a disallowed function: %v", err)
	}
}

func TestCall_OtherOrchestratorsJobIsNotFound(t *testing.T) {
	a, b := newEnv(t), newEnv(t)
	j := a.mustCreate(t, friday)
	for _, fn := range []string{"schedule.show", "schedule.pause", "schedule.delete", "schedule.run_now"} {
		_, err := b.call(fn, `{"jobId":"`+j.JobID+`"}`)
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of another orchestrator's job: %v, want not found", fn, err)
		}
	}
	_, err := b.call("schedule.show", `{"jobId":"../../a/automation.db"}`)
	if !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("path as job id: %v", err)
	}
}

func TestCreate_QuotaAndUniqueNames(t *testing.T) {
	e := newEnv(t, func(o *functions.Orchestrator) { o.MaxJobs = 2 })
	named := strings.Replace(friday, `{"scheduleType"`, `{"name":"friday post","scheduleType"`, 1)
	e.mustCreate(t, named)
	_, err := e.call("schedule.create", named)
	var fe *functions.FieldError
	if !errors.As(err, &fe) || fe.Field != "name" {
		t.Errorf("duplicate name: %v", err)
	}
	j := e.mustCreate(t, friday)
	if _, err := e.call("schedule.create", friday); !errors.Is(err, functions.ErrQuota) {
		t.Errorf("third job with max_jobs 2: %v", err)
	}
	// Deleted jobs do not count against the quota.
	e.mustCall(t, "schedule.delete", `{"jobId":"`+j.JobID+`"}`)
	e.mustCreate(t, friday)
}

func TestList_SortedFilteredPaged(t *testing.T) {
	e := newEnv(t)
	var want []string
	for _, h := range []int{17, 9, 13} {
		j := e.mustCreate(t, fmt.Sprintf(`{"scheduleType":"cron","schedule":{"cron":"0 %d * * *","timezone":"UTC"},
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"x"}}}`, h))
		want = append(want, j.JobID)
	}
	want = []string{want[0], want[1], want[2]} // 17:00 today, 09:00 tomorrow... sorted below
	page := e.mustCall(t, "schedule.list", `{}`).(*store.JobPage)
	var got []string
	for _, j := range page.Jobs {
		got = append(got, j.JobID)
	}
	// 12:00 now: 13:00 today, 17:00 today, then 09:00 tomorrow.
	if d := cmp.Diff([]string{want[2], want[0], want[1]}, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	e.mustCall(t, "schedule.pause", `{"jobId":"`+want[2]+`"}`)
	page = e.mustCall(t, "schedule.list", `{"state":"paused"}`).(*store.JobPage)
	if len(page.Jobs) != 1 || page.Jobs[0].JobID != want[2] {
		t.Errorf("paused filter = %v", page.Jobs)
	}
	page = e.mustCall(t, "schedule.list", `{"limit":2}`).(*store.JobPage)
	if len(page.Jobs) != 2 || page.NextCursor == "" {
		t.Fatalf("first page = %d jobs, cursor %q", len(page.Jobs), page.NextCursor)
	}
	page = e.mustCall(t, "schedule.list", `{"limit":2,"cursor":"`+page.NextCursor+`"}`).(*store.JobPage)
	if len(page.Jobs) != 1 || page.Jobs[0].JobID != want[2] || page.NextCursor != "" {
		t.Errorf("second page = %v", page.Jobs)
	}
	page = e.mustCall(t, "schedule.list", `{"createdBy":"someone-else"}`).(*store.JobPage)
	if len(page.Jobs) != 0 {
		t.Errorf("creator filter let %d through", len(page.Jobs))
	}
	if _, err := e.call("schedule.list", `{"cursor":"nonsense"}`); !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("bad cursor: %v", err)
	}
	if _, err := e.call("schedule.list", `{"limit":0}`); !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("limit 0: %v", err)
	}
}

func TestUpdate_RecomputesAndAuditsBeforeAfter(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	res := e.mustCall(t, "schedule.update", `{"jobId":"`+j.JobID+`","schedule":{"cron":"0 10 * * 5","timezone":"America/New_York"},"name":"friday post"}`).(*functions.JobResult)
	if res.Job.Description != "Every Friday at 10:00 AM (America/New_York)" || res.Job.Name != "friday post" {
		t.Errorf("updated = %+v", res.Job)
	}
	if !res.Job.NextRunAt.Equal(time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("nextRunAt = %s", res.Job.NextRunAt)
	}
	evs := e.audit(t)
	last := evs[len(evs)-1]
	var before, after store.Job
	json.Unmarshal(last.Before, &before)
	json.Unmarshal(last.After, &after)
	if last.Action != store.AuditJobUpdated || before.Schedule.Cron != "0 9 * * 5" || after.Schedule.Cron != "0 10 * * 5" {
		t.Errorf("audit before/after = %s / %s", before.Schedule.Cron, after.Schedule.Cron)
	}
	// A bad update changes nothing.
	stored := e.job(t, j.JobID)
	for _, bad := range []string{
		`{"jobId":"` + j.JobID + `","schedule":{"cron":"0 0 31 2 *","timezone":"UTC"}}`,
		`{"jobId":"` + j.JobID + `","scheduleType":"interval"}`,
		`{"jobId":"` + j.JobID + `","targetAction":{"type":"workflow_start","workflowId":"missing"}}`,
		`{"jobId":"` + j.JobID + `"}`,
		`{"jobId":"` + j.JobID + `","state":"enabled"}`,
	} {
		if _, err := e.call("schedule.update", bad); !errors.Is(err, functions.ErrInvalidArgs) {
			t.Errorf("update %s: %v, want invalid", bad, err)
		}
	}
	if d := cmp.Diff(stored, e.job(t, j.JobID)); d != "" {
		t.Errorf("bad updates changed the job:\n%s", d)
	}
	if n := len(e.audit(t)); n != len(evs) {
		t.Errorf("bad updates added %d audit events", n-len(evs))
	}
	// null clears; interval switch needs a schedule and re-anchors now.
	res = e.mustCall(t, "schedule.update", `{"jobId":"`+j.JobID+`","name":null,"targetRef":null,"scheduleType":"interval","schedule":{"everySeconds":3600}}`).(*functions.JobResult)
	if res.Job.Name != "" || res.Job.TargetRef != nil || !res.Job.NextRunAt.Equal(now.Add(time.Hour)) {
		t.Errorf("after clearing = %+v", res.Job)
	}
}

func TestPauseResume_NoBackfill(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	res := e.mustCall(t, "schedule.pause", `{"jobId":"`+j.JobID+`"}`).(*functions.JobResult)
	if res.Job.State != store.JobPaused || !res.Job.NextRunAt.IsZero() {
		t.Errorf("paused = %+v", res.Job)
	}
	n := len(e.audit(t))
	e.mustCall(t, "schedule.pause", `{"jobId":"`+j.JobID+`"}`) // again: no change, no event
	if len(e.audit(t)) != n {
		t.Error("pausing a paused job was audited as a change")
	}
	e.now = now.Add(3 * 7 * 24 * time.Hour) // three Fridays pass
	res = e.mustCall(t, "schedule.resume", `{"jobId":"`+j.JobID+`"}`).(*functions.JobResult)
	if want := time.Date(2026, 12, 18, 14, 0, 0, 0, time.UTC); !res.Job.NextRunAt.Equal(want) {
		t.Errorf("resumed next = %s, want %s (from now, no backfill)", res.Job.NextRunAt, want)
	}
	acts := []string{}
	for _, ev := range e.audit(t) {
		acts = append(acts, ev.Action)
	}
	if d := cmp.Diff([]string{"job.created", "job.paused", "job.resumed"}, acts); d != "" {
		t.Errorf("audit actions (-want +got):\n%s", d)
	}
}

func TestDelete_SoftKeepsHistory(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, strings.Replace(friday, `{"scheduleType"`, `{"name":"standup","scheduleType"`, 1))
	e.mustCall(t, "schedule.run_now", `{"jobId":"`+j.JobID+`"}`)
	e.mustCall(t, "schedule.delete", `{"jobId":"`+j.JobID+`"}`)
	show := e.mustCall(t, "schedule.show", `{"jobId":"`+j.JobID+`"}`).(*functions.JobResult)
	if show.Job.State != store.JobDeleted || len(show.Runs) != 1 || !show.Job.NextRunAt.IsZero() {
		t.Errorf("deleted job = %+v, runs %d", show.Job, len(show.Runs))
	}
	if _, err := e.call("schedule.pause", `{"jobId":"`+j.JobID+`"}`); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("pause of a deleted job: %v", err)
	}
	page := e.mustCall(t, "schedule.list", `{}`).(*store.JobPage)
	if len(page.Jobs) != 0 {
		t.Errorf("deleted job listed by default")
	}
	e.mustCreate(t, strings.Replace(friday, `{"scheduleType"`, `{"name":"standup","scheduleType"`, 1)) // name is free
}

func TestRunNow_ManualRunAndTriggerNextUnchanged(t *testing.T) {
	e := newEnv(t)
	j := e.mustCreate(t, friday)
	res := e.mustCall(t, "schedule.run_now", `{"jobId":"`+j.JobID+`"}`).(*functions.RunNowResult)
	if !res.Run.Manual || res.Run.Status != store.RunDispatched || !res.Job.NextRunAt.Equal(j.NextRunAt) || res.Job.RunCount != 1 {
		t.Errorf("run_now = run %+v job next %s count %d", res.Run, res.Job.NextRunAt, res.Job.RunCount)
	}
	err := e.st.View(context(), func(tx store.Tx) error {
		items, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming})
		if err != nil {
			return err
		}
		if len(items) != 1 || items[0].Kind != store.KindTrigger || items[0].JobID != j.JobID || items[0].ExecutionID != res.Run.ExecutionID || items[0].ItemID != res.ItemID {
			t.Errorf("incoming = %+v", items)
		}
		r, err := tx.RunGet(res.Run.ExecutionID)
		if err != nil || !r.Manual {
			t.Errorf("run record = %+v, %v", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMessagePost_QueuesOutgoing(t *testing.T) {
	e := newEnv(t)
	res := e.mustCall(t, "message.post", `{"text":"hello"}`).(*functions.MessagePostResult)
	if res.Queue != store.QueueOutgoing {
		t.Errorf("queued in %s", res.Queue)
	}
	if _, err := e.call("message.post", `{}`); !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("message.post without text: %v", err)
	}
}

func TestTools_MatchGolden(t *testing.T) {
	e := newEnv(t)
	got, err := json.MarshalIndent(e.reg.Tools(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./functions -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("tools differ from %s (-want +got):\n%s", path, d)
	}
	if len(e.reg.Tools()) != 15 {
		t.Errorf("%d tools, want 15", len(e.reg.Tools()))
	}
}
