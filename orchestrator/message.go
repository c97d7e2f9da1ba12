package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// handleMessage runs a person's message through the message handler. The
// call it decides, the reply and the item's move to done commit in one
// transaction, so a crash or a failed commit never leaves a call made and
// its message still to do (whose redelivery would make it twice). A
// failed commit puts the item back in incoming after a delay.
func (w *Worker) handleMessage(ctx context.Context, it *store.QueueItem) error {
	var m Message
	var reply Reply
	if err := json.Unmarshal(it.Payload, &m); err != nil {
		reply.Text = "I could not read that message."
	} else {
		reply = w.opt.Messages(ctx, it, &m)
	}
	called := false
	var res any
	err := w.opt.Store.Update(ctx, func(tx store.Tx) error {
		called = false
		r := reply
		if reply.Call != nil {
			var err error
			res, err = CallSafely(ctx, w.opt.Registry, tx, *reply.Call)
			if err != nil {
				return &actionError{err}
			}
			r, called = reply.done(res, nil), true
			r.Public = publicCalls[reply.Call.Function] && !forOnePerson(res)
		}
		return w.finishMessage(tx, it, &m, r)
	})
	var ae *actionError
	if errors.As(err, &ae) {
		// The call failed and rolled back: answer with why, alone.
		called = false
		err = w.opt.Store.Update(ctx, func(tx store.Tx) error {
			return w.finishMessage(tx, it, &m, reply.done(nil, ae.err))
		})
	}
	if err != nil {
		w.log.Error("reply to message", slog.String("itemId", it.ItemID), slog.Any("error", err))
		w.putBack(ctx, it, err)
		return err
	}
	if called {
		w.opt.Registry.Committed(res)
	}
	w.Wake()
	return nil
}

// publicCalls are the changes whose confirmation everyone where it was
// asked may read: what a job will post there, or no longer will.
var publicCalls = map[string]bool{"schedule.create": true, "schedule.update": true, "schedule.pause": true,
	"schedule.resume": true, "schedule.delete": true, "schedule.run_now": true}

// forOnePerson reports whether a call's result is a job that posts to one
// person (a Slack user or DM): its confirmation is theirs, not the
// channel's, as a reminder of one's own is nobody else's business.
func forOnePerson(res any) bool {
	jr, ok := res.(*functions.JobResult)
	if !ok || jr.Job == nil || jr.Job.TargetRef == nil {
		return false
	}
	id := jr.Job.TargetRef.ChannelID
	return strings.HasPrefix(id, "U") || strings.HasPrefix(id, "W") || strings.HasPrefix(id, "D")
}

// done is the reply once the call has run.
func (r Reply) done(res any, err error) Reply {
	if r.Done != nil {
		return r.Done(res, err)
	}
	if err != nil {
		return Reply{Text: "That did not work: " + err.Error()}
	}
	b, _ := json.Marshal(res)
	return Reply{Text: "Done: " + truncate(string(b), 3500)}
}

// CallSafely runs req in tx; a panicking function is an error.
func CallSafely(ctx context.Context, reg *functions.Registry, tx store.Tx, req functions.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("function panicked: %v", r)
		}
	}()
	return reg.CallTx(ctx, tx, req)
}

// finishMessage writes what the conversation remembers, queues r to the
// conversation it answers and moves the message item to done.
func (w *Worker) finishMessage(tx store.Tx, it *store.QueueItem, m *Message, r Reply) error {
	if r.SaveFunc != nil {
		if err := r.SaveFunc(tx); err != nil {
			return err
		}
	}
	if r.Text != "" {
		target := w.replyTarget(it, m, !r.Public)
		payload, err := json.Marshal(ReplyPayload{MessagePostArgs: functions.MessagePostArgs{Text: r.Text, TargetRef: &target},
			JobID: r.JobID, Actions: r.Actions, NextRuns: r.NextRuns, ListJobs: r.ListJobs, ListArgs: r.ListArgs,
			Private: !r.Public, Asker: m.SenderID, ResponseURL: m.ResponseURL})
		if err != nil {
			return err
		}
		out := &store.QueueItem{Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: it.OrchestratorID,
			ChannelProfileID: it.ChannelProfileID, InReplyTo: it.ItemID, Payload: payload}
		if err := tx.QueueAdd(out); err != nil {
			return err
		}
	}
	done := *it
	done.Queue, done.UpdatedAt = store.QueueDone, w.now()
	return tx.QueuePut(&done)
}

func (w *Worker) replyTarget(it *store.QueueItem, m *Message, private bool) store.TargetRef {
	t := store.TargetRef{Channel: w.opt.ProfileChannels[it.ChannelProfileID], ChannelProfileID: it.ChannelProfileID,
		ChannelID: m.ChannelID, ThreadTS: m.ThreadTS, PostingMode: store.PostChannel}
	if t.Channel == "" {
		t.Channel = w.opt.DefaultTarget.Channel
	}
	switch {
	case m.ThreadTS != "":
		t.PostingMode = store.PostThread
	case m.MessageTS != "" && !private && !strings.HasPrefix(m.ChannelID, "D"):
		// A channel's public answer (a confirmation, a question) in the
		// thread of the request, where a reply answers without a
		// mention. A DM is answered in line; a private answer at the
		// channel's level, where Slack shows it (an ephemeral message in
		// a thread shows only once the thread exists).
		t.ThreadTS, t.PostingMode = m.MessageTS, store.PostThread
	}
	return t
}

// jsonCallMessages is the message handler until the selector exists: a
// message that is a JSON function call is executed as its sender; anything
// else gets a reply saying what works.
func (w *Worker) jsonCallMessages(_ context.Context, it *store.QueueItem, m *Message) Reply {
	text := strings.TrimSpace(m.Text)
	var call struct {
		Function string          `json:"function"`
		Args     json.RawMessage `json:"args"`
	}
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &call) != nil || call.Function == "" {
		return Reply{Text: `I only understand function calls for now, such as {"function":"schedule.list","args":{}}.`}
	}
	// Who the sender is comes from the profile the message came through,
	// never from the message.
	via := ViaOf(w.opt.ProfileChannels[it.ChannelProfileID])
	if via == "" {
		return Reply{Text: NotSetUp(it.ChannelProfileID)}
	}
	actor := store.Actor{ChannelProfileID: it.ChannelProfileID, SenderID: m.SenderID, Sender: m.Sender, MessageID: m.MessageTS, ChannelID: m.ChannelID, Via: via}
	return Reply{Call: &functions.Request{Function: call.Function, Args: call.Args, Actor: actor}}
}

// ViaOf is how a message on a channel profile of kind channel arrives: the
// terminal is the person at the machine (the CLI, an admin of the
// orchestrator), Slack is a Slack user. Any other kind is none ("").
func ViaOf(channel string) string {
	switch channel {
	case "terminal":
		return store.ViaCLI
	case "slack":
		return store.ViaSlack
	}
	return ""
}

// NotSetUp answers a message from a channel profile the orchestrator does
// not have (renamed or removed since the message came in).
func NotSetUp(profileID string) string {
	return fmt.Sprintf("Sorry, this channel is not set up: %q is not a channel profile of this orchestrator.", profileID)
}
