package orchestrator_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// "snooze that" in a direct message means the reminder just posted there,
// though the job last spoken of is another: the post's delivery recorded
// it for the person it went to.
func TestConversations_SnoozeThatIsTheReminderThatFired(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	in := newInstance(t, st)
	if got := in.say(t, "remind me to stretch every day at 3pm", "1700000000.000100", ""); !strings.HasPrefix(got, "OK — I'll") {
		t.Fatalf("stretch = %q", got)
	}
	if got := in.say(t, "post water in #team every day at 4pm", "1700000000.000200", ""); !strings.HasPrefix(got, "OK — I'll post “water”") {
		t.Fatalf("water = %q", got)
	}
	var stretch, water *store.Job
	for _, j := range requireJobs(t, st, 2) {
		if strings.Contains(string(j.TargetAction.FunctionArgs), "stretch") {
			stretch = j
		} else {
			water = j
		}
	}
	if stretch.TargetRef == nil || stretch.TargetRef.ChannelID != "UANA" {
		t.Fatalf("stretch goes to %+v, want Ana directly", stretch.TargetRef)
	}
	// The reminder fires (run now) and its post is delivered.
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "America/New_York", MaxJobs: 100, Functions: []string{"schedule.*", "message.post"}}, Profiles: testProfiles})
	if _, err := reg.Call(t.Context(), functions.Request{Function: "schedule.run_now", Args: json.RawMessage(`{"jobId":"` + stretch.JobID + `"}`),
		Actor: store.Actor{ChannelProfileID: "team", SenderID: "UANA", Sender: "ana", Via: store.ViaSlack}}); err != nil {
		t.Fatal(err)
	}
	before := len(in.out.texts())
	for range 10 {
		if busy, err := in.w.Step(t.Context()); err != nil {
			t.Fatal(err)
		} else if !busy {
			break
		}
	}
	if got := in.out.texts(); len(got) != before+1 || got[before] != "stretch" {
		t.Fatalf("posts after the run: %q", got[before:])
	}
	dm := func(text, ts string) string {
		t.Helper()
		before := len(in.out.texts())
		payload, _ := json.Marshal(orchestrator.Message{Text: text, SenderID: "UANA", Sender: "ana", ChannelID: "D0ANA",
			MessageTS: ts, Timezone: "America/New_York"})
		if err := st.Update(t.Context(), func(tx store.Tx) error {
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", ChannelProfileID: "team", Payload: payload})
		}); err != nil {
			t.Fatal(err)
		}
		return in.reply(t, text, before)
	}
	if got := dm("snooze that 10 minutes", "1700000000.000300"); !strings.HasPrefix(got, "Snoozed — I'll") {
		t.Fatalf("snooze = %q", got)
	}
	if got := dm("done", "1700000000.000400"); !strings.HasPrefix(got, "Marked done by ana") {
		t.Fatalf("done = %q", got)
	}
	for _, j := range requireJobs(t, st, 2) {
		switch j.JobID {
		case stretch.JobID:
			if j.SnoozeAt.IsZero() {
				t.Errorf("stretch was not snoozed")
			}
		case water.JobID:
			if !j.SnoozeAt.IsZero() {
				t.Errorf("water, the job last spoken of, was snoozed")
			}
		}
	}
}
