package conversation

import (
	"context"
	"strings"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// The life of a reminder after it fired: "snooze that", "done" mean the
// job whose post was delivered last where the person writes. Delivery
// records it (orchestrator.FiredPut); a message reads it (lastFired) into
// the selector's Input.LastFiredJobID.

// lastFired is the job whose post was delivered last in the channel m was
// written in, or to its sender directly; "" when none.
func (c *Conversations) lastFired(ctx context.Context, prof Profile, m *orchestrator.Message) string {
	keys := []string{orchestrator.FiredKey(prof.ID, prof.Channel, m.ChannelID)}
	if strings.HasPrefix(m.ChannelID, "D") && m.SenderID != "" {
		keys = append(keys, orchestrator.FiredKey(prof.ID, prof.Channel, m.SenderID))
	}
	var id string
	var at time.Time
	err := c.Store.View(ctx, func(tx store.Tx) error {
		for _, k := range keys {
			cv, err := c.conversation(tx, k)
			if err != nil {
				return err
			}
			if cv != nil && cv.UpdatedAt.After(at) {
				id, at = cv.JobID, cv.UpdatedAt
			}
		}
		return nil
	})
	if err != nil {
		return "" // a question follows, not a wrong job
	}
	return id
}

// describeLife confirms skip, unskip, snooze and done in words.
func describeLife(fn string, r *functions.JobResult) (string, bool) {
	j := r.Job
	loc := zoneOf(j)
	day := func(t time.Time) string { return t.In(loc).Format("Mon 2 Jan 3:04 PM") }
	switch fn {
	case "schedule.skip", "schedule.unskip":
		// the runs left out are the ones its sentence excepts: one, or
		// "skip the next 2"
		verb := "Skipped — job "
		if fn == "schedule.unskip" {
			verb = "Restored a run of job "
		}
		return verb + j.JobID + ": " + jobSentence(j) + nextRuns(j, r.NextRuns), true
	case "schedule.snooze":
		return "Snoozed — I'll " + actionSentence(j) + " again on " + day(j.SnoozeAt) + ". Job " + j.JobID + ".", true
	case "schedule.complete":
		if len(r.Runs) == 0 {
			return "", false
		}
		run := r.Runs[0]
		who := ""
		if run.DoneBy != nil && run.DoneBy.Sender != "" {
			who = " by " + run.DoneBy.Sender
		}
		return "Marked done" + who + ": the run of " + day(run.ScheduledAt) + " of job " + j.JobID + " (" + actionSentence(j) + ").", true
	}
	return "", false
}
