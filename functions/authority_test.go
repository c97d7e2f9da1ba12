package functions_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/store"
)

var (
	ana      = store.Actor{ChannelProfileID: "team", SenderID: "UANA", Sender: "ana", Via: store.ViaSlack}
	bob      = store.Actor{ChannelProfileID: "team", SenderID: "UBOB", Sender: "bob", Via: store.ViaSlack}
	admin    = store.Actor{ChannelProfileID: "team", SenderID: "UADMIN", Sender: "boss", Via: store.ViaSlack}
	anaInOps = store.Actor{ChannelProfileID: "ops", SenderID: "UANA", Sender: "ana", Via: store.ViaSlack}
	opsAdmin = store.Actor{ChannelProfileID: "ops", SenderID: "UOPS", Sender: "olga", Via: store.ViaSlack}
	// adminInOps is team's admin, coming through ops, where they are not one.
	adminInOps = store.Actor{ChannelProfileID: "ops", SenderID: "UADMIN", Sender: "boss", Via: store.ViaSlack}
)

func (e *env) callAs(a store.Actor, fn, args string) (any, error) {
	return e.reg.Call(context(), functions.Request{Function: fn, Args: json.RawMessage(args), Actor: a})
}

// snapshot is everything a refused call must leave as it was.
type snapshot struct {
	Job   *store.Job
	Audit int
	Queue int
}

func (e *env) snapshot(t *testing.T, jobID string) snapshot {
	t.Helper()
	s := snapshot{Job: e.job(t, jobID), Audit: len(e.audit(t))}
	s.Queue = testkit.QueueLen(t, e.st, store.QueueIncoming)
	return s
}

func requireUnchanged(t *testing.T, e *env, before snapshot) {
	t.Helper()
	if d := cmp.Diff(before, e.snapshot(t, before.Job.JobID)); d != "" {
		t.Errorf("a refused call changed something (-before +after):\n%s", d)
	}
}

func TestCreateUpdate_JobRunsActionFunctionsOnly(t *testing.T) {
	e := newEnv(t)
	for _, fn := range []string{"schedule.delete", "schedule.list", "schedule.create"} {
		args := strings.Replace(friday, `"functionId":"message.post","functionArgs":{"text":"hello world"}`,
			`"functionId":"`+fn+`","functionArgs":{"jobId":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5"}`, 1)
		_, err := e.call("schedule.create", args)
		var fe *functions.FieldError
		if !errors.As(err, &fe) || fe.Field != "targetAction.functionId" || !strings.Contains(fe.Rule, "action functions only") {
			t.Errorf("create running %s: %v, want a targetAction.functionId error", fn, err)
		}
	}
	if n := len(e.audit(t)); n != 0 {
		t.Errorf("refused creates wrote %d audit events", n)
	}
	j := e.mustCreate(t, friday)
	before := e.snapshot(t, j.JobID)
	_, err := e.call("schedule.update", `{"jobId":"`+j.JobID+`","targetAction":{"type":"command_invoke","functionId":"schedule.pause","functionArgs":{"jobId":"`+j.JobID+`"}}}`)
	var fe *functions.FieldError
	if !errors.As(err, &fe) || fe.Field != "targetAction.functionId" || !strings.Contains(fe.Rule, "schedule.pause is a schedule function") {
		t.Errorf("update to run schedule.pause: %v", err)
	}
	requireUnchanged(t, e, before)
}

// A job stored before create refused schedule.* (or written by hand) must
// not run one either: a job's run calls action functions only.
func TestCall_AJobsRunNeverCallsScheduleFunctions(t *testing.T) {
	e := newEnv(t)
	victim := e.mustCreate(t, friday)
	before := e.snapshot(t, victim.JobID)
	runner := store.Actor{Via: store.ViaScheduler, Sender: "schedbot", SenderID: "scheduler", ChannelProfileID: "team"}
	for _, req := range []functions.Request{
		{Function: "schedule.delete", Args: json.RawMessage(`{"jobId":"` + victim.JobID + `"}`), Actor: runner,
			Origin: &functions.Origin{JobID: "01JDQ3Z1X7Y8W9V0A1B2C3D4E5", ExecutionID: "x"}},
		// The job's creator's identity does not lend it authority.
		{Function: "schedule.pause", Args: json.RawMessage(`{"jobId":"` + victim.JobID + `"}`), Actor: cli,
			Origin: &functions.Origin{JobID: "01JDQ3Z1X7Y8W9V0A1B2C3D4E5", ExecutionID: "x"}},
		{Function: "schedule.run_now", Args: json.RawMessage(`{"jobId":"` + victim.JobID + `"}`), Actor: runner},
	} {
		_, err := e.reg.Call(context(), req)
		if !errors.Is(err, functions.ErrNotAllowed) || !strings.Contains(err.Error(), "action functions only") {
			t.Errorf("%s from a job's run: %v, want refused", req.Function, err)
		}
	}
	requireUnchanged(t, e, before)
	// Action functions still run.
	if _, err := e.reg.Call(context(), functions.Request{Function: "message.post", Args: json.RawMessage(`{"text":"hi"}`), Actor: runner,
		Origin: &functions.Origin{JobID: victim.JobID, ExecutionID: "x"}}); err != nil {
		t.Errorf("message.post from a job's run: %v", err)
	}
}

func TestAuthority_OnlyTheCreatorOrAnAdminChangesAJob(t *testing.T) {
	e := newEnv(t)
	created, err := e.callAs(ana, "schedule.create", friday)
	if err != nil {
		t.Fatal(err)
	}
	j := created.(*functions.JobResult).Job
	id := `{"jobId":"` + j.JobID + `"}`
	if _, err := e.callAs(ana, "schedule.pause", id); err != nil {
		t.Fatalf("the creator pausing: %v", err)
	}
	before := e.snapshot(t, j.JobID)
	refused := map[string]string{
		"schedule.resume":   id,
		"schedule.pause":    id,
		"schedule.delete":   id,
		"schedule.run_now":  id,
		"schedule.update":   `{"jobId":"` + j.JobID + `","name":"mine now"}`,
		"schedule.update 2": `{"jobId":"` + j.JobID + `","schedule":{"cron":"0 10 * * 5","timezone":"UTC"}}`,
	}
	// An admin of another profile is no admin of this job, nor is this
	// profile's admin when coming through another.
	for _, who := range []store.Actor{bob, anaInOps, {ChannelProfileID: "team", Via: store.ViaSlack}, opsAdmin, adminInOps} {
		for fn, args := range refused {
			fn, _, _ = strings.Cut(fn, " ")
			_, err := e.callAs(who, fn, args)
			var ae *functions.AuthorityError
			if !errors.As(err, &ae) || !errors.Is(err, functions.ErrForbidden) {
				t.Errorf("%s by %s/%s: %v, want refused", fn, who.ChannelProfileID, who.SenderID, err)
				continue
			}
			if !strings.HasPrefix(err.Error(), "only its creator (ana) or an admin of the channel profile may ") || !strings.HasSuffix(err.Error(), " job "+j.JobID) {
				t.Errorf("%s refused with %q", fn, err)
			}
		}
	}
	requireUnchanged(t, e, before)
	_, err = e.callAs(bob, "schedule.resume", id)
	if got, want := err.Error(), "only its creator (ana) or an admin of the channel profile may resume job "+j.JobID; got != want {
		t.Errorf("a stranger resuming: %q, want %q", got, want)
	}
	// Reading is for anyone.
	if _, err := e.callAs(bob, "schedule.show", id); err != nil {
		t.Errorf("show by a stranger: %v", err)
	}
	// An admin of the profile, the creator, and the person at the CLI may.
	if _, err := e.callAs(admin, "schedule.resume", id); err != nil {
		t.Errorf("admin resuming: %v", err)
	}
	if _, err := e.callAs(ana, "schedule.run_now", id); err != nil {
		t.Errorf("creator running now: %v", err)
	}
	if _, err := e.callAs(ana, "schedule.update", `{"jobId":"`+j.JobID+`","name":"ana's"}`); err != nil {
		t.Errorf("creator updating: %v", err)
	}
	if _, err := e.callAs(cli, "schedule.delete", id); err != nil {
		t.Errorf("CLI deleting: %v", err)
	}
}

// TestAuthority_HTTPTokens: an HTTP API token acts as its sender of its
// profile: a Slack profile's sender's token has that sender's authority
// and no more, a terminal profile's token is the orchestrator's admin (as
// the terminal is).
func TestAuthority_HTTPTokens(t *testing.T) {
	e := newEnv(t)
	created, err := e.callAs(ana, "schedule.create", friday)
	if err != nil {
		t.Fatal(err)
	}
	id := `{"jobId":"` + created.(*functions.JobResult).Job.JobID + `"}`
	bobHTTP := bob
	bobHTTP.Via, bobHTTP.Token = store.ViaHTTP, "bob's laptop"
	if _, err := e.callAs(bobHTTP, "schedule.pause", id); !errors.Is(err, functions.ErrForbidden) {
		t.Errorf("another sender's token pausing: %v, want refused", err)
	}
	anaHTTP := ana
	anaHTTP.Via = store.ViaHTTP
	if _, err := e.callAs(anaHTTP, "schedule.pause", id); err != nil {
		t.Errorf("the creator's token pausing: %v", err)
	}
	term := store.Actor{ChannelProfileID: "terminal", SenderID: "ops", Via: store.ViaHTTP, Token: "ops"}
	if _, err := e.callAs(term, "schedule.resume", id); err != nil {
		t.Errorf("a terminal profile's token resuming: %v", err)
	}
	noProfile := store.Actor{SenderID: "ops", Via: store.ViaHTTP}
	if _, err := e.callAs(noProfile, "schedule.pause", id); !errors.Is(err, functions.ErrForbidden) {
		t.Errorf("a token of no profile pausing: %v, want refused", err)
	}
}

func TestTargetRef_ScopedToTheOrchestratorsProfiles(t *testing.T) {
	ref := func(r string) string {
		return strings.Replace(friday, `{"channel":"slack","channelProfileId":"team","channelId":"#team"}`, r, 1)
	}
	cases := []struct {
		name  string
		actor store.Actor
		ref   string
		field string
		rule  string
	}{
		{"unknown profile", ana, `{"channel":"slack","channelProfileId":"elsewhere","channelId":"C024BE91L"}`,
			"targetRef.channelProfileId", `"elsewhere" is not a channel profile of orchestrator "default" (its profiles: ops, team, terminal)`},
		{"profile on another channel", ana, `{"channel":"slack","channelProfileId":"terminal","channelId":"C024BE91L"}`,
			"targetRef.channel", `is slack, but profile "terminal" is on terminal`},
		{"channel the profile does not serve", anaInOps, `{"channel":"slack","channelProfileId":"ops","channelId":"C0OTHER"}`,
			"targetRef.channelId", `C0OTHER is not a channel profile "ops" serves (its channels: C0OPS, C0ALERTS)`},
		{"the caller's profile does not serve it", anaInOps, `{"channel":"slack","channelId":"C0OTHER"}`,
			"targetRef.channelId", `not a channel profile "ops" serves`},
		{"a name where ids are listed", anaInOps, `{"channel":"slack","channelId":"#ops"}`,
			"targetRef.channelId", `not a channel profile "ops" serves`},
		{"someone else's DM where ids are listed", anaInOps, `{"channel":"slack","channelId":"UBOB"}`,
			"targetRef.channelId", `not a channel profile "ops" serves`},
		{"no profile, several to choose from", cli, `{"channel":"slack","channelId":"C024BE91L"}`,
			"targetRef.channelProfileId", `is required: orchestrator "default" has several slack profiles (ops, team)`},
	}
	e := newEnv(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.callAs(c.actor, "schedule.create", ref(c.ref))
			var fe *functions.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Rule, c.rule) {
				t.Errorf("err = %v, want %s: …%s…", err, c.field, c.rule)
			}
		})
	}
	if n := len(e.audit(t)); n != 0 {
		t.Fatalf("refused creates wrote %d audit events", n)
	}
	// A target naming no profile goes through the caller's, which is
	// recorded so that delivery goes where was checked.
	for _, c := range []struct {
		actor    store.Actor
		ref, out string
	}{
		{anaInOps, `{"channel":"slack","channelId":"C0ALERTS"}`, "ops"},
		{anaInOps, `{"channel":"slack","channelId":"UANA"}`, "ops"}, // reminding oneself
		{ana, `{"channel":"slack","channelId":"C024BE91L"}`, "team"},
		{cli, `{"channel":"terminal"}`, "terminal"},
	} {
		res, err := e.callAs(c.actor, "schedule.create", ref(c.ref))
		if err != nil {
			t.Errorf("create to %s: %v", c.ref, err)
			continue
		}
		if got := res.(*functions.JobResult).Job.TargetRef.ChannelProfileID; got != c.out {
			t.Errorf("create to %s: profile %q, want %q", c.ref, got, c.out)
		}
	}
	// Update and message.post are held to the same.
	j := e.mustCreate(t, friday)
	before := e.snapshot(t, j.JobID)
	_, err := e.call("schedule.update", `{"jobId":"`+j.JobID+`","targetRef":{"channel":"slack","channelProfileId":"nope","channelId":"C024BE91L"}}`)
	var fe *functions.FieldError
	if !errors.As(err, &fe) || fe.Field != "targetRef.channelProfileId" {
		t.Errorf("update to an unknown profile: %v", err)
	}
	requireUnchanged(t, e, before)
	_, err = e.call("message.post", `{"text":"hi","targetRef":{"channel":"slack","channelProfileId":"nope","channelId":"C024BE91L"}}`)
	if !errors.As(err, &fe) || fe.Field != "targetRef.channelProfileId" {
		t.Errorf("message.post to an unknown profile: %v", err)
	}
}

// A job stored before targets were scoped does not post outside the
// orchestrator when it runs.
func TestMessagePost_AJobsStoredTargetIsCheckedWhenItRuns(t *testing.T) {
	e := newEnv(t)
	runner := store.Actor{Via: store.ViaScheduler, Sender: "schedbot", SenderID: "scheduler", ChannelProfileID: "team"}
	post := func(ref *store.TargetRef) error {
		_, err := e.reg.Call(context(), functions.Request{Function: "message.post", Args: json.RawMessage(`{"text":"hi"}`), Actor: runner,
			Origin: &functions.Origin{JobID: "01JDQ3Z1X7Y8W9V0A1B2C3D4E5", ExecutionID: "x", TargetRef: ref, ProfileID: "team"}})
		return err
	}
	err := post(&store.TargetRef{Channel: "slack", ChannelProfileID: "other-workspace", ChannelID: "C024BE91L", PostingMode: store.PostChannel})
	if !errors.Is(err, functions.ErrInvalidArgs) || !strings.Contains(err.Error(), "targetRef.channelProfileId") {
		t.Errorf("post to another workspace: %v", err)
	}
	n := testkit.QueueLen(t, e.st, store.QueueOutgoing)
	if n != 0 {
		t.Errorf("%d items queued for a refused post", n)
	}
	if err := post(&store.TargetRef{Channel: "slack", ChannelID: "C024BE91L", PostingMode: store.PostChannel}); err != nil {
		t.Errorf("post to the job's own workspace: %v", err)
	}
}

// "Remind me": a person may target their own DM through a profile that
// lists its channels, and the job's run, acting as the worker, checks the
// stored target against the job's creator, so it posts instead of failing.
// An admin changing the job cannot point it at the admin's own DM.
func TestTargetRef_RemindMeHoldsWhenTheJobRuns(t *testing.T) {
	e := newEnv(t)
	args := strings.Replace(friday, `{"channel":"slack","channelProfileId":"team","channelId":"#team"}`,
		`{"channel":"slack","channelId":"UANA"}`, 1)
	res, err := e.callAs(anaInOps, "schedule.create", args)
	if err != nil {
		t.Fatalf("ana reminding herself through ops: %v", err)
	}
	j := res.(*functions.JobResult).Job
	runner := store.Actor{Via: store.ViaScheduler, Sender: "schedbot", SenderID: "scheduler", ChannelProfileID: "ops"}
	post := func(creator string) error {
		_, err := e.reg.Call(context(), functions.Request{Function: "message.post", Args: json.RawMessage(`{"text":"hi"}`), Actor: runner,
			Origin: &functions.Origin{JobID: j.JobID, ExecutionID: "x", TargetRef: j.TargetRef, ProfileID: "ops", CreatorID: creator}})
		return err
	}
	if err := post("UANA"); err != nil {
		t.Errorf("the run of ana's reminder: %v", err)
	}
	if err := post("UBOB"); err == nil || !strings.Contains(err.Error(), "targetRef.channelId: UANA is not a channel profile \"ops\" serves") {
		t.Errorf("a run of bob's job posting to ana's DM: %v, want refused", err)
	}
	before := e.snapshot(t, j.JobID)
	_, err = e.callAs(opsAdmin, "schedule.update", `{"jobId":"`+j.JobID+`","targetRef":{"channel":"slack","channelId":"UOPS"}}`)
	var fe *functions.FieldError
	if !errors.As(err, &fe) || fe.Field != "targetRef.channelId" || !strings.Contains(fe.Rule, "UOPS is not a channel profile \"ops\" serves") {
		t.Errorf("admin pointing ana's job at the admin's DM: %v, want refused", err)
	}
	requireUnchanged(t, e, before)
	if _, err := e.callAs(opsAdmin, "schedule.update", `{"jobId":"`+j.JobID+`","targetRef":{"channel":"slack","channelId":"UANA"},"name":"ana's reminder"}`); err != nil {
		t.Errorf("admin keeping ana's job on ana's DM: %v", err)
	}
}
