package functions

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/schedbot/schedbot/store"
)

//go:embed message_post.json
var messagePostSchema []byte

// MessagePostArgs are message.post's arguments; the queue worker reads
// them back from an outgoing item's payload.
type MessagePostArgs struct {
	Text      string           `json:"text"`
	TargetRef *store.TargetRef `json:"targetRef,omitempty"`
}

// MessagePostResult is what message.post returns.
type MessagePostResult struct {
	ItemID string          `json:"itemId"`
	Queue  store.QueueName `json:"queue"`
}

func messagePost() Spec[MessagePostArgs] {
	return Spec[MessagePostArgs]{ID: "message.post", Schema: messagePostSchema, Handle: postMessage, Check: checkMessage}
}

func checkMessage(c *Call, a *MessagePostArgs) error {
	if strings.TrimSpace(a.Text) == "" {
		return fieldErr("text", "is blank")
	}
	if i, r := controlIn(a.Text); i >= 0 {
		// an escape sequence would reach a terminal as a command
		return fieldErr("text", "has a control character (%U at byte %d): only line breaks and tabs may be in a message", r, i)
	}
	return c.checkRef(a.TargetRef)
}

// controlIn finds the first C0 or C1 control character of s other than a
// line break ("\n", "\r\n") or a tab; -1 when there is none.
func controlIn(s string) (int, rune) {
	for i, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' && !(r == '\r' && strings.HasPrefix(s[i+1:], "\n")) || r >= 0x7f && r < 0xa0 {
			return i, r
		}
	}
	return -1, 0
}

// postMessage queues the text for delivery in the outgoing queue, where a
// channel's deliverer picks it up.
func postMessage(ctx context.Context, c *Call, a *MessagePostArgs) (any, error) {
	if err := checkMessage(c, a); err != nil {
		return nil, err
	}
	item := &store.QueueItem{
		Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: c.orch().ID,
		ChannelProfileID: c.Actor.ChannelProfileID, CreatedAt: c.Now, UpdatedAt: c.Now,
	}
	if o := c.Origin; o != nil {
		// From a job's run: to the job's target, correlated with the run.
		item.JobID, item.ExecutionID = o.JobID, o.ExecutionID
		if a.TargetRef == nil && o.TargetRef != nil {
			// The job's own target, checked again: a job stored before
			// targets were scoped must not post outside its orchestrator.
			ref := *o.TargetRef
			if err := c.checkRef(&ref); err != nil {
				return nil, fmt.Errorf("the job's %w", err)
			}
			a.TargetRef = &ref
		}
		if o.ProfileID != "" {
			item.ChannelProfileID = o.ProfileID
		}
	}
	if r := a.TargetRef; r != nil && r.Channel == "slack" && isPerson(r.ChannelID) && r.ChannelID != c.creatorID() {
		a.Text = c.whoAsked() + " asked me to remind you: " + a.Text
	}
	payload, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	item.Payload = payload
	err = c.update(ctx, func(tx store.Tx) error {
		if err := tx.QueueAdd(item); err != nil {
			return err
		}
		return tx.AuditAppend(&store.AuditEvent{OrchestratorID: c.orch().ID, Actor: c.Actor,
			Action: store.AuditMessagePosted, JobID: item.JobID, ExecutionID: item.ExecutionID, Detail: "item " + item.ItemID})
	})
	if err != nil {
		return nil, err
	}
	return &MessagePostResult{ItemID: item.ItemID, Queue: item.Queue}, nil
}

// whoAsked names, to the person a post DMs, who sent it: a job's creator
// (the post, made when the job runs, says who set it, whatever its text
// says), else the caller.
func (c *Call) whoAsked() string {
	name, id := c.Actor.Sender, c.Actor.SenderID
	if o := c.Origin; o != nil {
		name, id = o.CreatorName, o.CreatorID
	}
	switch {
	case name != "":
		return "@" + name
	case id != "":
		return "<@" + id + ">"
	}
	return "Someone"
}
