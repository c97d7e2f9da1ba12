package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// Chat through a running serve: `schedbot chat` sends each line to the
// daemon's local API (POST /v1/chat), which queues it as a message of the
// terminal profile and answers with the reply once the worker has made
// it. The jobs made live in the daemon and keep firing after chat ends;
// their posts are printed where serve runs.

// chatWait bounds how long the local API waits for a reply: a model may
// take 30 s three times over.
const chatWait = 3 * time.Minute

// chatHub hands the replies to messages sent through the local API to the
// requests waiting for them; every other terminal delivery, and a reply
// nobody waits for any more, goes on to the terminal.
type chatHub struct {
	mu      sync.Mutex
	waiting map[string]chan *orchestrator.Delivery // by message item id
}

func newChatHub() *chatHub { return &chatHub{waiting: map[string]chan *orchestrator.Delivery{}} }

func (h *chatHub) expect(itemID string) chan *orchestrator.Delivery {
	ch := make(chan *orchestrator.Delivery, 1)
	h.mu.Lock()
	h.waiting[itemID] = ch
	h.mu.Unlock()
	return ch
}

func (h *chatHub) forget(itemID string) {
	h.mu.Lock()
	delete(h.waiting, itemID)
	h.mu.Unlock()
}

// before puts the hub in front of the terminal deliverer next.
func (h *chatHub) before(next orchestrator.Deliverer) orchestrator.Deliverer {
	return deliverFunc(func(ctx context.Context, d *orchestrator.Delivery) error {
		if d.InReplyTo != "" {
			h.mu.Lock()
			ch := h.waiting[d.InReplyTo]
			delete(h.waiting, d.InReplyTo)
			h.mu.Unlock()
			if ch != nil {
				ch <- d
				return nil
			}
		}
		return next.Deliver(ctx, d)
	})
}

type deliverFunc func(ctx context.Context, d *orchestrator.Delivery) error

func (f deliverFunc) Deliver(ctx context.Context, d *orchestrator.Delivery) error { return f(ctx, d) }

// chatMessage queues one line as a message of a terminal profile, from
// the OS user at the other end of the socket, and waits for its reply.
func (d *Daemon) chatMessage(ctx context.Context, req localapi.ChatRequest) (*localapi.ChatReply, error) {
	prof, err := d.cfg.Profile(req.Profile)
	if err != nil {
		return nil, app.Usagef("profile: %v", err)
	}
	if prof.Channel != config.ChannelTerminal {
		return nil, app.Usagef("profile %s is a %s profile; chat talks through a terminal profile", req.Profile, prof.Channel)
	}
	if req.Session == "" || len(req.Session) > 100 {
		return nil, app.Usagef("session: 1 to 100 characters")
	}
	oc := d.orchs[prof.OrchestratorID]
	if oc == nil || oc.Worker == nil {
		return nil, fmt.Errorf("orchestrator %s is not served", prof.OrchestratorID)
	}
	who := localapi.PeerActor(ctx, req.Profile)
	payload, err := json.Marshal(orchestrator.Message{Text: req.Text, SenderID: who.SenderID, Sender: who.Sender,
		ChannelID: req.Session, Via: store.ViaCLI})
	if err != nil {
		return nil, err
	}
	item := &store.QueueItem{ItemID: ulid.Make().String(), Kind: store.KindMessage, OrchestratorID: oc.Cfg.ID,
		ChannelProfileID: req.Profile, Payload: payload}
	replies := d.chat.expect(item.ItemID)
	if err := oc.Store.Update(ctx, func(tx store.Tx) error { return tx.QueueAdd(item) }); err != nil {
		d.chat.forget(item.ItemID)
		return nil, err
	}
	oc.Worker.Wake()
	t := time.NewTimer(chatWait)
	defer t.Stop()
	select {
	case r := <-replies:
		return &localapi.ChatReply{Text: r.Text}, nil
	case <-t.C:
	case <-ctx.Done():
	}
	d.chat.forget(item.ItemID)
	select { // handed over just before it was forgotten
	case r := <-replies:
		return &localapi.ChatReply{Text: r.Text}, nil
	default:
	}
	return &localapi.ChatReply{Pending: true}, nil
}

// Say queues m, typed at this terminal, as a message of the terminal
// profile profileID, and wakes its worker: chat when no serve runs.
func (d *Daemon) Say(ctx context.Context, profileID string, m orchestrator.Message) error {
	oc, err := d.inbox(profileID)
	if err != nil {
		return err
	}
	payload, _ := json.Marshal(m)
	err = oc.Store.Update(ctx, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: oc.Cfg.ID, ChannelProfileID: profileID, Payload: payload})
	})
	if err != nil {
		return err
	}
	oc.Worker.Wake()
	return nil
}

// Drain waits, at most limit, until nothing is left in the orchestrator's
// incoming, processing or outgoing queues: the answers to what was said
// have been delivered.
func (d *Daemon) Drain(orchID string, limit time.Duration) {
	if oc := d.orchs[orchID]; oc != nil {
		drain(oc.Store, limit)
	}
}

// drain waits, at most limit, until nothing is left in the queue's
// incoming, processing or outgoing stages.
func drain(st store.Store, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		c, err := st.Count(context.Background())
		if err == nil && c.Queues[store.QueueIncoming]+c.Queues[store.QueueProcessing]+c.Queues[store.QueueOutgoing] == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
