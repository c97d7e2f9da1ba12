package orchestrator_test

import (
	"encoding/json"
	"testing"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// A reminder ana set for bob reaches bob's DM saying who asked; her own
// reminder, in her DM, says nothing of the kind.
func TestWorker_ReminderForAnotherSaysWhoAsked(t *testing.T) {
	e := newEnv(t)
	ana := store.Actor{ChannelProfileID: "team", SenderID: "UANA", Sender: "ana", ChannelID: "D0ANA", Via: store.ViaSlack}
	create := func(target string) *store.Job {
		t.Helper()
		res, err := e.reg.Call(t.Context(), functions.Request{Function: "schedule.create", Actor: ana,
			Args: json.RawMessage(job(post, `,"targetRef":{"channel":"slack","channelId":"`+target+`"}`))})
		if err != nil {
			t.Fatalf("ana's reminder to %s: %v", target, err)
		}
		return res.(*functions.JobResult).Job
	}
	e.fire(t, create("UBOB"))
	e.fire(t, create("D0ANA"))
	got := e.slack.texts()
	if len(got) != 2 || got[0] != "@ana asked me to remind you: hello world" || got[1] != "hello world" {
		t.Errorf("slack got %q, want bob's DM to say who asked and ana's not", got)
	}
}
