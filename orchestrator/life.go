package orchestrator

import (
	"context"
	"strings"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// The life of a reminder after it fired: "snooze that", "done" mean the
// job whose post was delivered last where the person writes. Delivery
// records it (firedPut) as a conversation under firedKey; a message reads
// it (lastFired) into the selector's Input.LastFiredJobID.

// firedKey names where a job's post was seen: a channel of a profile, or
// a person (a direct message, whose channel the reply comes from is not
// the user id the job posts to), or the whole terminal.
func firedKey(profileID, channel, where string) string {
	if channel == "terminal" {
		where = ""
	}
	return "fired|" + profileID + "|" + where
}

// firedPut records, in the delivery's transaction, that job's post was
// delivered to target.
func firedPut(tx store.Tx, target store.TargetRef, jobID string, now time.Time) error {
	return tx.ConversationPut(&store.Conversation{Key: firedKey(target.ChannelProfileID, target.Channel, target.ChannelID), JobID: jobID, UpdatedAt: now})
}

// lastFired is the job whose post was delivered last in the channel m was
// written in, or to its sender directly; "" when none.
func (c *Conversations) lastFired(ctx context.Context, prof Profile, m *Message) string {
	keys := []string{firedKey(prof.ID, prof.Channel, m.ChannelID)}
	if strings.HasPrefix(m.ChannelID, "D") && m.SenderID != "" {
		keys = append(keys, firedKey(prof.ID, prof.Channel, m.SenderID))
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
		verb := "Skipping one run of"
		if fn == "schedule.unskip" {
			verb = "Restored a run of"
		}
		return verb + " job " + j.JobID + ": " + jobSentence(j) + nextRuns(j, r.NextRuns), true
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
