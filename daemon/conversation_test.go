package daemon

import (
	"strings"
	"testing"

	"github.com/schedbot/schedbot/adapters/slack/slacktest"
	"github.com/schedbot/schedbot/store"
)

// A question asked in Slack before serve restarts is answered after it,
// and "it" is still the job last spoken of: both are in the bolt store,
// not in the process.
func TestSlack_AQuestionAndItSurviveARestart(t *testing.T) {
	f := slacktest.New(t)
	dir := t.TempDir()
	e, stop := startSlackAt(t, f, dir)
	restart := func() {
		t.Helper()
		stop()
		f.Mu.Lock()
		f.Conn = nil
		f.Mu.Unlock()
		e, stop = startSlackAt(t, f, dir)
	}
	defer func() { stop() }()
	e.f.Send(t, slacktest.Mention("Ev1", "U0ANA1234", "remind me to stretch", "1700000000.000100", 0))
	if got := e.waitPost(t, 1, "the question").Form.Get("text"); !strings.HasPrefix(got, "When should I post “stretch”?") {
		t.Fatalf("question = %q", got)
	}
	restart()
	answer := slacktest.Mention("Ev2", "U0ANA1234", "every day at 3pm", "1700000000.000200", 0)
	answer["payload"].(map[string]any)["event"].(map[string]any)["thread_ts"] = "1700000000.000100"
	e.f.Send(t, answer)
	if got := e.waitPost(t, 2, "the answer's confirmation").Form.Get("text"); !strings.HasPrefix(got, "OK — I'll post “stretch”") {
		t.Fatalf("answer after a restart = %q", got)
	}
	if n := len(e.jobs(t)); n != 1 {
		t.Fatalf("%d jobs after the answer, want 1", n)
	}
	e.f.Send(t, slacktest.Mention("Ev3", "U0ANA1234", "post water every day at 4pm", "1700000000.000300", 0))
	if got := e.waitPost(t, 3, "the second job").Form.Get("text"); !strings.HasPrefix(got, "OK — I'll post “water”") {
		t.Fatalf("second job = %q", got)
	}
	restart()
	e.f.Send(t, slacktest.Mention("Ev4", "U0ANA1234", "pause it", "1700000000.000400", 0))
	if got := e.waitPost(t, 4, "the pause").Form.Get("text"); !strings.HasPrefix(got, "Paused job") {
		t.Fatalf("pause it after a restart = %q", got)
	}
	for _, j := range e.jobs(t) {
		want := store.JobPaused
		if strings.Contains(string(j.TargetAction.FunctionArgs), "stretch") {
			want = store.JobEnabled
		}
		if j.State != want {
			t.Errorf("job %s (%s) is %s, want %s", j.JobID, j.TargetAction.FunctionArgs, j.State, want)
		}
	}
}
