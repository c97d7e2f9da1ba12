package functions_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// dmProfiles add to the test orchestrator's profiles a Slack workspace
// that lists no channels: its users talk to schedbot in DMs.
var dmProfiles = func() map[string]functions.Profile {
	ps := map[string]functions.Profile{"dm": {Channel: "slack", Admins: []string{"UDMADMIN"}}}
	for id, p := range profiles {
		ps[id] = p
	}
	return ps
}()

// newEnvWith is newEnv with the given profiles.
func newEnvWith(t *testing.T, ps map[string]functions.Profile, mod ...func(*functions.Orchestrator)) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{st: st, now: now}
	o := functions.Orchestrator{ID: "default", Timezone: "America/New_York", MaxJobs: 100,
		Functions: []string{"schedule.*", "message.post"}}
	for _, m := range mod {
		m(&o)
	}
	e.reg = functions.NewRegistry(functions.Deps{Store: st, Orchestrator: o, Profiles: ps, Now: func() time.Time { return e.now }})
	return e
}

// withTarget is friday posting to ref.
func withTarget(ref string) string {
	return strings.Replace(friday, `{"channel":"slack","channelProfileId":"team","channelId":"#team"}`, ref, 1)
}

func TestCreate_PerSenderQuotaLeavesRoomForOthers(t *testing.T) {
	e := newEnv(t, func(o *functions.Orchestrator) { o.MaxJobsPerSender = 2 })
	for range 2 {
		if _, err := e.callAs(ana, "schedule.create", friday); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.callAs(ana, "schedule.create", friday)
	if !errors.Is(err, functions.ErrQuota) || !strings.Contains(err.Error(), "you have 2 jobs, this orchestrator's max_jobs_per_sender") {
		t.Errorf("ana's third job: %v, want refused with the limit", err)
	}
	// The same sender through another profile is the same sender.
	if _, err := e.callAs(store.Actor{ChannelProfileID: "team", SenderID: "UANA", Via: store.ViaSlack}, "schedule.create", friday); !errors.Is(err, functions.ErrQuota) {
		t.Errorf("ana again: %v, want refused", err)
	}
	if _, err := e.callAs(bob, "schedule.create", friday); err != nil {
		t.Errorf("bob's first job: %v", err)
	}
	if _, err := e.call("schedule.create", friday); err != nil {
		t.Errorf("the CLI is held to max_jobs alone: %v", err)
	}
	// A deleted job frees its place.
	var page *store.JobPage
	e.st.View(context(), func(tx store.Tx) (err error) { page, err = tx.JobList(&store.JobListParams{CreatedBy: "UANA"}); return })
	if _, err := e.callAs(ana, "schedule.delete", `{"jobId":"`+page.Jobs[0].JobID+`"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.callAs(ana, "schedule.create", friday); err != nil {
		t.Errorf("ana after deleting one: %v", err)
	}
}

func TestCreateUpdate_FrequencyFloor(t *testing.T) {
	sched := func(typ, s string) string {
		return `{"scheduleType":"` + typ + `","schedule":` + s + `,
			"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}},
			"targetRef":{"channel":"slack","channelProfileId":"team","channelId":"#team"}}`
	}
	floor15 := func(o *functions.Orchestrator) { o.MinInterval = 15 * time.Minute }
	cases := []struct {
		name, typ, s, rule string
	}{
		{"cron every 5 minutes", "cron", `{"cron":"*/5 * * * *","timezone":"UTC"}`, "fires every 5 minutes; this orchestrator's floor is 15 minutes"},
		{"cron twice in an hour", "cron", `{"cron":"0,10 9 * * 1","timezone":"UTC"}`, "fires as often as every 10 minutes; this orchestrator's floor is 15 minutes"},
		{"interval of 5 minutes", "interval", `{"everySeconds":300}`, "fires every 5 minutes; this orchestrator's floor is 15 minutes"},
		{"rrule at 9:00 and 9:05", "rrule", `{"rrule":"FREQ=DAILY;BYHOUR=9;BYMINUTE=0,5","timezone":"UTC"}`, "fires as often as every 5 minutes"},
	}
	e := newEnv(t, floor15)
	for _, c := range cases {
		_, err := e.callAs(ana, "schedule.create", sched(c.typ, c.s))
		var fe *functions.FieldError
		if !errors.As(err, &fe) || fe.Field != "schedule" || !strings.Contains(fe.Rule, c.rule) {
			t.Errorf("%s: %v, want schedule: …%s…", c.name, err, c.rule)
		}
	}
	for _, s := range []struct{ typ, s string }{
		{"cron", `{"cron":"*/15 * * * *","timezone":"UTC"}`},
		{"interval", `{"everySeconds":900}`},
		{"rrule", `{"rrule":"FREQ=DAILY;BYHOUR=9;BYMINUTE=0,30","timezone":"UTC"}`},
	} {
		if _, err := e.callAs(ana, "schedule.create", sched(s.typ, s.s)); err != nil {
			t.Errorf("%s at the floor: %v", s.s, err)
		}
	}
	// Update is held to it too, and a refused one changes nothing.
	j := e.mustCreate(t, friday)
	before := e.snapshot(t, j.JobID)
	_, err := e.call("schedule.update", `{"jobId":"`+j.JobID+`","schedule":{"cron":"*/5 * * * *","timezone":"UTC"}}`)
	if err == nil || err.Error() != "schedule: fires every 5 minutes; this orchestrator's floor is 15 minutes (min_interval)" {
		t.Errorf("update to every 5 minutes: %v", err)
	}
	_, err = e.call("schedule.update", `{"jobId":"`+j.JobID+`","scheduleType":"interval","schedule":{"everySeconds":600}}`)
	if err == nil || !strings.Contains(err.Error(), "fires every 10 minutes") {
		t.Errorf("update to every 10 minutes: %v", err)
	}
	requireUnchanged(t, e, before)
	// At the default floor of a minute, every minute is fine.
	e = newEnv(t, func(o *functions.Orchestrator) { o.MinInterval = time.Minute })
	if _, err := e.callAs(ana, "schedule.create", sched("cron", `{"cron":"* * * * *","timezone":"UTC"}`)); err != nil {
		t.Errorf("every minute at a floor of a minute: %v", err)
	}
}

// A profile listing no channels serves DMs: its users may remind another
// person (their user id), whose DM then says who asked, and who may stop
// it; somebody else's DM conversation (D…) is never a target.
func TestDM_RemindingAnotherPerson(t *testing.T) {
	e := newEnvWith(t, dmProfiles)
	anaDM := store.Actor{ChannelProfileID: "dm", SenderID: "UANA", Sender: "ana", ChannelID: "D0ANA", Via: store.ViaSlack}
	bobDM := store.Actor{ChannelProfileID: "dm", SenderID: "UBOB", Sender: "bob", ChannelID: "D0BOB", Via: store.ViaSlack}
	carolDM := store.Actor{ChannelProfileID: "dm", SenderID: "UCAROL", Sender: "carol", ChannelID: "D0CAROL", Via: store.ViaSlack}

	for _, c := range []struct {
		who store.Actor
		ref string
	}{
		{anaDM, `{"channel":"slack","channelId":"D0BOB"}`},
		{anaDM, `{"channel":"slack","channelProfileId":"dm","channelId":"D0BOB"}`},
		{cli, `{"channel":"slack","channelProfileId":"dm","channelId":"D0BOB"}`},
	} {
		_, err := e.callAs(c.who, "schedule.create", withTarget(c.ref))
		var fe *functions.FieldError
		if !errors.As(err, &fe) || fe.Field != "targetRef.channelId" || !strings.Contains(fe.Rule, "D0BOB is a direct-message conversation other than the one this was asked in") {
			t.Errorf("%s targeting bob's DM conversation: %v, want refused", c.who.SenderID, err)
		}
	}
	if n := len(e.audit(t)); n != 0 {
		t.Fatalf("refused creates wrote %d audit events", n)
	}
	if _, err := e.callAs(anaDM, "schedule.create", withTarget(`{"channel":"slack","channelId":"D0ANA"}`)); err != nil {
		t.Errorf("ana's job in her own DM: %v", err)
	}
	res, err := e.callAs(anaDM, "schedule.create", withTarget(`{"channel":"slack","channelId":"UBOB"}`))
	if err != nil {
		t.Fatalf("ana reminding bob: %v", err)
	}
	j := res.(*functions.JobResult).Job

	// Its run: the DM says who asked; ana's own reminder does not.
	post := func(ref *store.TargetRef) string {
		t.Helper()
		runner := store.Actor{Via: store.ViaScheduler, Sender: "schedbot", SenderID: "scheduler", ChannelProfileID: "dm"}
		res, err := e.reg.Call(context(), functions.Request{Function: "message.post", Args: json.RawMessage(`{"text":"stand up"}`), Actor: runner,
			Origin: &functions.Origin{JobID: j.JobID, ExecutionID: "x", TargetRef: ref, ProfileID: "dm",
				CreatorID: "UANA", CreatorName: "ana", CreatorChannelID: "D0ANA"}})
		if err != nil {
			t.Fatalf("the run posting to %s: %v", ref.ChannelID, err)
		}
		var it *store.QueueItem
		e.st.View(context(), func(tx store.Tx) (err error) {
			it, err = tx.QueueGet(res.(*functions.MessagePostResult).ItemID)
			return
		})
		var p functions.MessagePostArgs
		json.Unmarshal(it.Payload, &p)
		return p.Text
	}
	if got, want := post(j.TargetRef), "@ana asked me to remind you: stand up"; got != want {
		t.Errorf("bob's DM says %q, want %q", got, want)
	}
	if got, want := post(&store.TargetRef{Channel: "slack", ChannelProfileID: "dm", ChannelID: "UANA"}), "stand up"; got != want {
		t.Errorf("ana's own reminder says %q, want %q", got, want)
	}
	if got, want := post(&store.TargetRef{Channel: "slack", ChannelProfileID: "dm", ChannelID: "D0ANA"}), "stand up"; got != want {
		t.Errorf("ana's reminder in her DM says %q, want %q", got, want)
	}

	// A post made at once says who sent it too.
	res, err = e.callAs(anaDM, "message.post", `{"text":"hi","targetRef":{"channel":"slack","channelId":"UBOB"}}`)
	if err != nil {
		t.Fatal(err)
	}
	var it *store.QueueItem
	e.st.View(context(), func(tx store.Tx) (err error) {
		it, err = tx.QueueGet(res.(*functions.MessagePostResult).ItemID)
		return
	})
	if !strings.Contains(string(it.Payload), `"text":"@ana asked me to remind you: hi"`) {
		t.Errorf("ana's post to bob: %s", it.Payload)
	}

	// Bob may stop it, not change it; nobody else may do either.
	id := `{"jobId":"` + j.JobID + `"}`
	before := e.snapshot(t, j.JobID)
	for fn, args := range map[string]string{
		"schedule.update":  `{"jobId":"` + j.JobID + `","name":"bobs"}`,
		"schedule.run_now": id,
	} {
		if _, err := e.callAs(bobDM, fn, args); !errors.Is(err, functions.ErrForbidden) {
			t.Errorf("%s by the recipient: %v, want refused", fn, err)
		}
	}
	for _, who := range []store.Actor{carolDM, {ChannelProfileID: "team", SenderID: "UBOB", Via: store.ViaSlack}} {
		if _, err := e.callAs(who, "schedule.delete", id); !errors.Is(err, functions.ErrForbidden) {
			t.Errorf("delete by %s/%s: %v, want refused", who.ChannelProfileID, who.SenderID, err)
		}
	}
	requireUnchanged(t, e, before)
	if _, err := e.callAs(bobDM, "schedule.pause", id); err != nil {
		t.Errorf("the recipient pausing: %v", err)
	}
	if _, err := e.callAs(bobDM, "schedule.resume", id); !errors.Is(err, functions.ErrForbidden) {
		t.Errorf("the recipient resuming: %v, want refused", err)
	}
	if _, err := e.callAs(bobDM, "schedule.delete", id); err != nil {
		t.Fatalf("the recipient deleting: %v", err)
	}
	evs := e.audit(t)
	last := evs[len(evs)-1]
	if last.Action != store.AuditJobDeleted || last.Actor.SenderID != "UBOB" || last.JobID != j.JobID {
		t.Errorf("last audit event %s by %s of %s, want %s by UBOB", last.Action, last.Actor.SenderID, last.JobID, store.AuditJobDeleted)
	}
}

// A target goes through a profile the caller may use, and the admins of
// the profile a job posts through may manage it.
func TestTargetRef_AnotherProfileIsForItsAdmins(t *testing.T) {
	e := newEnv(t)
	opsRef := withTarget(`{"channel":"slack","channelProfileId":"ops","channelId":"C0OPS"}`)
	for _, who := range []store.Actor{ana, admin} {
		_, err := e.callAs(who, "schedule.create", opsRef)
		var fe *functions.FieldError
		if !errors.As(err, &fe) || fe.Field != "targetRef.channelProfileId" || !strings.Contains(fe.Rule, `"ops" is not the channel profile this request came through ("team"); only an admin of "ops" may post through it`) {
			t.Errorf("%s posting through ops: %v, want refused", who.SenderID, err)
		}
	}
	j := e.mustCreate(t, friday)
	if _, err := e.callAs(ana, "schedule.create", friday); err != nil {
		t.Fatal(err)
	}
	// Ana's own job may not be moved to ops by her either.
	res, _ := e.callAs(ana, "schedule.create", friday)
	mine := res.(*functions.JobResult).Job
	if _, err := e.callAs(ana, "schedule.update", `{"jobId":"`+mine.JobID+`","targetRef":{"channel":"slack","channelProfileId":"ops","channelId":"C0OPS"}}`); !errors.Is(err, functions.ErrInvalidArgs) {
		t.Errorf("ana moving her job to ops: %v, want refused", err)
	}
	// An admin of ops, writing through team, may post through ops.
	opsAdminInTeam := store.Actor{ChannelProfileID: "team", SenderID: "UOPS", Sender: "olga", Via: store.ViaSlack}
	res, err := e.callAs(opsAdminInTeam, "schedule.create", opsRef)
	if err != nil {
		t.Fatalf("ops's admin posting through ops: %v", err)
	}
	viaOps := res.(*functions.JobResult).Job
	// ops's admin, through ops, manages the jobs that post through ops,
	// not the others.
	if _, err := e.callAs(opsAdmin, "schedule.pause", `{"jobId":"`+viaOps.JobID+`"}`); err != nil {
		t.Errorf("ops's admin pausing a job that posts through ops: %v", err)
	}
	if _, err := e.callAs(opsAdmin, "schedule.pause", `{"jobId":"`+j.JobID+`"}`); !errors.Is(err, functions.ErrForbidden) {
		t.Errorf("ops's admin pausing a job that posts through team: %v, want refused", err)
	}
	// The CLI may post through any.
	if _, err := e.call("schedule.create", opsRef); err != nil {
		t.Errorf("the CLI posting through ops: %v", err)
	}
}

// Message texts may say anything about files; names of things may not
// look like paths.
func TestCreate_MessageTextsMayMentionPaths(t *testing.T) {
	e := newEnv(t)
	for _, text := range []string{"release notes: see ../CHANGELOG", "file: Q4 report is due", `see ..\notes`} {
		b, _ := json.Marshal(text)
		if _, err := e.callAs(ana, "schedule.create", strings.Replace(friday, `"hello world"`, string(b), 1)); err != nil {
			t.Errorf("text %q: %v", text, err)
		}
		if _, err := e.callAs(ana, "message.post", `{"text":`+string(b)+`}`); err != nil {
			t.Errorf("message.post %q: %v", text, err)
		}
	}
	for _, c := range []struct{ args, field string }{
		{strings.Replace(friday, `{"scheduleType"`, `{"name":"../etc","scheduleType"`, 1), "name"},
		{`{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},"targetAction":{"type":"workflow_start","workflowId":"../daily"}}`, "targetAction.workflowId"},
		{`{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},"targetAction":{"type":"workflow_start","workflowId":"file:daily"}}`, "targetAction.workflowId"},
	} {
		_, err := e.callAs(ana, "schedule.create", c.args)
		var fe *functions.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Rule, "path traversal and file references") {
			t.Errorf("%s: %v, want %s refused as a path", c.args, err, c.field)
		}
	}
}
