package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// handleMessage runs a person's message through the message handler and
// queues the reply to the conversation it came from, in one transaction
// with the item's move to done.
func (w *Worker) handleMessage(ctx context.Context, it *store.QueueItem) {
	var m Message
	var reply Reply
	if err := json.Unmarshal(it.Payload, &m); err != nil {
		reply.Text = "I could not read that message."
	} else {
		reply = w.opt.Messages(ctx, it, &m)
	}
	err := w.opt.Store.Update(ctx, func(tx store.Tx) error {
		if reply.Text != "" {
			target := w.replyTarget(it, &m)
			payload, err := json.Marshal(ReplyPayload{MessagePostArgs: functions.MessagePostArgs{Text: reply.Text, TargetRef: &target},
				JobID: reply.JobID, Actions: reply.Actions, NextRuns: reply.NextRuns, ListJobs: reply.ListJobs})
			if err != nil {
				return err
			}
			out := &store.QueueItem{Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: it.OrchestratorID,
				ChannelProfileID: it.ChannelProfileID, InReplyTo: it.ItemID, Payload: payload}
			if err := tx.QueueAdd(out); err != nil {
				return err
			}
		}
		it.Queue, it.UpdatedAt = store.QueueDone, now()
		return tx.QueuePut(it)
	})
	if err != nil {
		w.log.Error("reply to message", slog.String("itemId", it.ItemID), slog.Any("error", err))
		return
	}
	w.Wake()
}

func (w *Worker) replyTarget(it *store.QueueItem, m *Message) store.TargetRef {
	t := store.TargetRef{Channel: w.opt.ProfileChannels[it.ChannelProfileID], ChannelProfileID: it.ChannelProfileID,
		ChannelID: m.ChannelID, ThreadTS: m.ThreadTS, PostingMode: store.PostChannel}
	if t.Channel == "" {
		t.Channel = w.opt.DefaultTarget.Channel
	}
	if m.ThreadTS != "" {
		t.PostingMode = store.PostThread
	} else if m.MessageTS != "" {
		t.ThreadTS, t.PostingMode = m.MessageTS, store.PostThread // answer in the thread of the request
	}
	return t
}

// jsonCallMessages is the message handler until the selector exists: a
// message that is a JSON function call is executed as its sender; anything
// else gets a reply saying what works.
func (w *Worker) jsonCallMessages(ctx context.Context, it *store.QueueItem, m *Message) Reply {
	return Reply{Text: w.jsonCall(ctx, it, m)}
}

func (w *Worker) jsonCall(ctx context.Context, it *store.QueueItem, m *Message) string {
	text := strings.TrimSpace(m.Text)
	var call struct {
		Function string          `json:"function"`
		Args     json.RawMessage `json:"args"`
	}
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &call) != nil || call.Function == "" {
		return `I only understand function calls for now, such as {"function":"schedule.list","args":{}}.`
	}
	via := m.Via
	if via == "" {
		via = store.ViaTerminal
	}
	actor := store.Actor{ChannelProfileID: it.ChannelProfileID, SenderID: m.SenderID, Sender: m.Sender, MessageID: m.MessageTS, Via: via}
	res, err := w.opt.Registry.Call(ctx, functions.Request{Function: call.Function, Args: call.Args, Actor: actor})
	if err != nil {
		return "That did not work: " + err.Error()
	}
	b, _ := json.Marshal(res)
	return fmt.Sprintf("Done: %s", truncate(string(b), 3500))
}
