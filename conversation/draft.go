package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Draft decides what a message asks for as Decide would, but remembers
// nothing and runs nothing: the call to make, or (req nil) the answer a
// person would get instead (a question, a refusal). A form that shows a
// preview as the person types, and then makes the call, uses it.
func (c *Conversations) Draft(ctx context.Context, profileID string, m *orchestrator.Message) (req *functions.Request, answer string) {
	prof, ok := c.Profiles[profileID]
	via := orchestrator.ViaOf(prof.Channel)
	if !ok || via == "" {
		return nil, orchestrator.NotSetUp(profileID)
	}
	var jobs []selector.JobRef
	if err := c.Store.View(ctx, func(tx store.Tx) (err error) { jobs, err = jobRefsTx(tx); return err }); err != nil {
		return nil, "Sorry, I can't read the schedules right now: " + err.Error()
	}
	d, err := c.Selector.Select(ctx, selector.Input{
		Text: m.Text, SenderID: m.SenderID, Sender: m.Sender, ProfileID: prof.ID, Channel: prof.Channel,
		ChannelID: m.ChannelID, ThreadTS: m.ThreadTS, Timezone: c.zone(m, prof), Now: c.now(),
		Workflows: c.Workflows, Functions: c.Registry.Allowed(), Jobs: jobs,
	})
	switch {
	case err != nil:
		return nil, "Sorry, I couldn't work that out."
	case d.Clarify != "":
		return nil, d.Clarify
	case d.Unsupported != "":
		return nil, d.Unsupported
	case d.Reply != "":
		return nil, d.Reply
	case !d.IsCall():
		return nil, "Sorry, I couldn't work that out."
	}
	args, err := c.resolve(ctx, d, prof)
	if err != nil {
		return nil, err.Error()
	}
	actor := store.Actor{ChannelProfileID: prof.ID, SenderID: m.SenderID, Sender: m.Sender, MessageID: m.MessageTS, Via: via}
	return &functions.Request{Function: d.Function, Args: args, Actor: actor}, ""
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// DryRun makes req in a transaction that is rolled back, so it runs every
// check a real call runs and changes nothing, and says what it would do
// the way its confirmation would.
func DryRun(ctx context.Context, st store.Store, reg *functions.Registry, req functions.Request) (string, error) {
	var res any
	var callErr error
	err := st.Update(ctx, func(tx store.Tx) error {
		res, callErr = orchestrator.CallSafely(ctx, reg, tx, req)
		return errDryRun
	})
	if callErr != nil {
		return "", callErr
	}
	if err != nil && !errors.Is(err, errDryRun) {
		return "", err
	}
	return Describe(req.Function, res), nil
}

// OpenQuestion reports whether the conversation a message continues
// holds a question schedbot asked its sender that is still open: a
// thread reply that answers it needs no mention.
func OpenQuestion(tx store.Tx, profileID string, m *orchestrator.Message, now time.Time) bool {
	cv, _, err := findQuestion(func(key string) (*store.Conversation, error) {
		cv, err := tx.ConversationGet(key)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		return cv, err
	}, &store.QueueItem{ChannelProfileID: profileID}, m)
	if err != nil || cv == nil || len(cv.Pending) == 0 {
		return false
	}
	var p selector.Pending
	return json.Unmarshal(cv.Pending, &p) == nil && now.Before(p.Expires)
}
