package orchestrator

import (
	"time"

	"github.com/schedbot/schedbot/store"
)

// The life of a reminder after it fired: "snooze that", "done" mean the
// job whose post was delivered last where the person writes. Delivery
// records it (FiredPut) as a conversation under FiredKey; the
// conversation layer reads it.

// FiredKey names where a job's post was seen: a channel of a profile, or
// a person (a direct message, whose channel the reply comes from is not
// the user id the job posts to), or the whole terminal.
func FiredKey(profileID, channel, where string) string {
	if channel == "terminal" {
		where = ""
	}
	return "fired|" + profileID + "|" + where
}

// FiredPut records, in the delivery's transaction, that job's post was
// delivered to target.
func FiredPut(tx store.Tx, target store.TargetRef, jobID string, now time.Time) error {
	return tx.ConversationPut(&store.Conversation{Key: FiredKey(target.ChannelProfileID, target.Channel, target.ChannelID), JobID: jobID, UpdatedAt: now})
}
