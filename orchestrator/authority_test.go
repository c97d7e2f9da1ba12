package orchestrator_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// testProfiles are the test orchestrator's channel profiles.
var testProfiles = map[string]functions.Profile{
	"terminal": {Channel: "terminal"},
	"team":     {Channel: "slack", Channels: []string{"*"}, Admins: []string{"UADMIN"}},
}

// A job stored before create refused schedule.* (or edited by hand) fails
// its run instead of acting with nobody's authority.
func TestWorker_AStoredJobNeverRunsAScheduleFunction(t *testing.T) {
	e := newEnv(t)
	victim := e.create(t, job(post, ""))
	j := e.create(t, job(post, ""))
	e.st.Update(t.Context(), func(tx store.Tx) error {
		j, _ = tx.JobGet(j.JobID)
		j.TargetAction.FunctionID, j.TargetAction.FunctionArgs = "schedule.delete", json.RawMessage(`{"jobId":"`+victim.JobID+`"}`)
		return tx.JobPut(j)
	})
	e.fire(t, j)
	if r := e.lastRun(t, j.JobID); r.Status != store.RunFailed || !strings.Contains(r.Error, "a job runs action functions only, never schedule.delete") {
		t.Errorf("run = %s %q, want failed: action functions only", r.Status, r.Error)
	}
	var got *store.Job
	e.st.View(t.Context(), func(tx store.Tx) (err error) { got, err = tx.JobGet(victim.JobID); return })
	if got.State != store.JobEnabled {
		t.Errorf("the job's run deleted job %s: %s", victim.JobID, got.State)
	}
	if strings.Contains(e.actions(t), "job.deleted") {
		t.Errorf("audit = %s", e.actions(t))
	}
}

// "Remind me" through a profile that lists its channels: the job's run
// checks its stored target against the job's creator, not the worker, so
// it posts to the creator's DM instead of failing every time.
func TestWorker_ARemindMeJobPostsToItsCreatorsDM(t *testing.T) {
	profiles := map[string]functions.Profile{
		"terminal": {Channel: "terminal"},
		"ops":      {Channel: "slack", Channels: []string{"C0OPS"}},
	}
	e := newEnvWith(t, []string{"schedule.*", "message.post"}, profiles)
	ana := store.Actor{Via: store.ViaSlack, Sender: "ana", SenderID: "UANA", ChannelProfileID: "ops"}
	res, err := e.reg.Call(t.Context(), functions.Request{Function: "schedule.create", Actor: ana,
		Args: json.RawMessage(job(post, `,"targetRef":{"channel":"slack","channelId":"UANA"}`))})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	j := res.(*functions.JobResult).Job
	e.fire(t, j)
	if r := e.lastRun(t, j.JobID); r.Status != store.RunCompleted {
		t.Fatalf("run = %s %q, want completed", r.Status, r.Error)
	}
	if got := e.slack.texts(); len(got) != 1 || got[0] != "hello world" || e.slack.got[0].Target.ChannelID != "UANA" {
		t.Errorf("slack got %+v, want hello world to UANA", e.slack.got)
	}
}

// A message from a channel profile the orchestrator no longer has (renamed
// or removed) is nobody's: it is answered, never run with the CLI's
// authority.
func TestConversation_AnUnknownProfileIsNotSetUp(t *testing.T) {
	e := newEnv(t)
	j := e.create(t, job(post, ""))
	now := time.Now()
	c := conv(e, &now)
	got := c.Handle(t.Context(), &store.QueueItem{ChannelProfileID: "gone"},
		&orchestrator.Message{Text: "delete job " + j.JobID, SenderID: "USTRANGER", Sender: "stranger", ChannelID: "C0GONE"}).Text
	if want := `Sorry, this channel is not set up: "gone" is not a channel profile of this orchestrator.`; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	requireEnabled(t, e, j.JobID)
}

// The JSON-call handler takes who is calling from the profile the message
// came through, not from what the message says, and refuses a profile it
// does not know.
func TestWorker_AMessagesAuthorityComesFromItsProfile(t *testing.T) {
	e := newEnv(t)
	j := e.create(t, job(post, ""))
	add := func(profile string, via string) {
		payload, _ := json.Marshal(orchestrator.Message{Text: `{"function":"schedule.delete","args":{"jobId":"` + j.JobID + `"}}`,
			SenderID: "USTRANGER", Sender: "stranger", ChannelID: "C0TEAM", Via: via})
		e.st.Update(t.Context(), func(tx store.Tx) error {
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", ChannelProfileID: profile, Payload: payload})
		})
	}
	add("team", store.ViaCLI) // a Slack message claiming to be the CLI
	add("gone", "")
	e.drain(t)
	got := e.slack.texts()
	if len(got) != 1 || !strings.Contains(got[0], "only its creator (ada) or an admin of the channel profile may delete job") {
		t.Errorf("replies on slack = %q, want the refusal", got)
	}
	// The unknown profile's answer goes to the default target (none here),
	// so look at the audit: nothing but the create happened.
	if got := e.actions(t); got != "job.created" {
		t.Errorf("audit = %s, want job.created only", got)
	}
	requireEnabled(t, e, j.JobID)
}

func requireEnabled(t *testing.T, e *env, jobID string) {
	t.Helper()
	var j *store.Job
	e.st.View(t.Context(), func(tx store.Tx) (err error) { j, err = tx.JobGet(jobID); return })
	if j.State != store.JobEnabled {
		t.Errorf("job %s is %s, want enabled", jobID, j.State)
	}
}
