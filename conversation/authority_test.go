package conversation_test

import (
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Chat and Slack's buttons (which arrive as "pause job ID" and "delete job
// ID" from their clicker) go through the functions' one authority check.
func TestConversation_AStrangerCannotResumeWhatItsCreatorPaused(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	if got := say(c, "UANA", "post standup notes every weekday at 9:30am"); !strings.HasPrefix(got, "OK") {
		t.Fatalf("create = %q", got)
	}
	var j *store.Job
	e.st.View(t.Context(), func(tx store.Tx) error {
		p, err := tx.JobList(nil)
		j = p.Jobs[0]
		return err
	})
	if got := say(c, "UANA", "pause job "+j.JobID); !strings.HasPrefix(got, "Paused job") {
		t.Fatalf("creator's pause button = %q", got)
	}
	before := e.actions(t)
	refusal := "Sorry — only its creator (uana) or an admin of the channel profile may "
	for text, verb := range map[string]string{
		"resume the standup notes":                       "resume",
		"resume job " + j.JobID:                          "resume",
		"run the standup notes now":                      "run",
		"delete job " + j.JobID:                          "delete", // the confirmed delete button
		"pause job " + j.JobID:                           "pause",  // the pause button
		"change the standup notes to 10am every weekday": "change",
	} {
		if got, want := say(c, "UBOB", text), refusal+verb+" job "+j.JobID+"."; got != want {
			t.Errorf("stranger %q:\n got %q\nwant %q", text, got, want)
		}
	}
	if after := e.actions(t); after != before {
		t.Errorf("refused calls were audited: %s", strings.TrimPrefix(after, before))
	}
	e.st.View(t.Context(), func(tx store.Tx) (err error) { j, err = tx.JobGet(j.JobID); return })
	if j.State != store.JobPaused || e.count(t, store.QueueIncoming) != 0 {
		t.Fatalf("a stranger changed the job: %s, %d queued", j.State, e.count(t, store.QueueIncoming))
	}
	if got := say(c, "UADMIN", "resume job "+j.JobID); !strings.HasPrefix(got, "Resumed job") {
		t.Errorf("admin resume = %q", got)
	}
}
