package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// outgoingTo is an outgoing item posted to channel of profile p.
func outgoingTo(id, p, channel string, notBefore time.Time) *store.QueueItem {
	payload, _ := json.Marshal(map[string]any{"text": "hi", "targetRef": map[string]any{"channel": "slack", "channelProfileId": p, "channelId": channel}})
	return &store.QueueItem{ItemID: id, Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: "default",
		ChannelProfileID: p, Payload: payload, NotBefore: notBefore}
}

// testQueueDueLanes: a store that indexes outgoing by lane hands out the
// due items of the lanes not busy, each lane's in order, skipping a busy
// lane whole, and keeps the index in step with puts and deletes.
func testQueueDueLanes(t *testing.T, s store.Store) {
	due := func(busy ...string) (string, bool) {
		var out string
		var indexed, ok bool
		mustUpdate(t, s, func(tx store.Tx) error {
			lr, is := ops.RowsOf(tx), true
			if !is {
				return nil
			}
			ok = true
			skip := map[string]bool{}
			for _, b := range busy {
				skip[b] = true
			}
			items, idx, err := lr.QueueDueLanes(t0, 100, skip)
			indexed = idx
			for _, it := range items {
				out += it.ItemID + " "
			}
			return err
		})
		if ok && !indexed {
			t.Fatal("QueueDueLanes in a write transaction did not use its index")
		}
		return out, ok
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, it := range []*store.QueueItem{
			outgoingTo("a1", "p", "CA", time.Time{}), outgoingTo("b1", "p", "CB", time.Time{}),
			outgoingTo("a2", "p", "CA", t0.Add(time.Minute)), outgoingTo("a3", "p", "CA", t0.Add(-time.Minute)),
		} {
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
		}
		return nil
	})
	got, ok := due()
	if !ok {
		t.Skip("this store does not index outgoing by lane")
	}
	laneA, laneB := store.LaneOf(outgoingTo("x", "p", "CA", time.Time{})), store.LaneOf(outgoingTo("x", "p", "CB", time.Time{}))
	if want := lanesOrder(laneA, laneB, "a1 a3 ", "b1 "); got != want {
		t.Errorf("due = %q, want %q (a2 is not due yet)", got, want)
	}
	if got, _ := due(laneA); got != "b1 " {
		t.Errorf("due with %s busy = %q, want b1 only", laneA, got)
	}
	mustView(t, s, func(tx store.Tx) error {
		if next, ok, err := ops.RowsOf(tx).QueueNextAt(store.QueueOutgoing, t0); err != nil || !ok || !next.Equal(t0.Add(time.Minute)) {
			t.Errorf("QueueNextAt(outgoing) beside the index = %v, %v, %v; want a2's %v", next, ok, err, t0.Add(time.Minute))
		}
		return nil
	})
	// Items added after the index was made, moved out, and deleted.
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.QueueAdd(outgoingTo("b2", "p", "CB", time.Time{})); err != nil {
			return err
		}
		a1, err := tx.QueueGet("a1")
		if err != nil {
			return err
		}
		a1.Queue = store.QueueDone
		if err := tx.QueuePut(a1); err != nil {
			return err
		}
		a2, err := tx.QueueGet("a2")
		if err != nil {
			return err
		}
		a2.NotBefore = t0.Add(-time.Second) // due now
		if err := tx.QueuePut(a2); err != nil {
			return err
		}
		return ops.RowsOf(tx).QueueDelete("b1")
	})
	if got, _ := due(); got != lanesOrder(laneA, laneB, "a2 a3 ", "b2 ") {
		t.Errorf("due after put, move and delete = %q, want a2 a3 and b2", got)
	}
}

// lanesOrder is what QueueDueLanes returns for two lanes: lane by lane,
// in the order of their keys.
func lanesOrder(a, b, ofA, ofB string) string {
	if a < b {
		return fmt.Sprint(ofA, ofB)
	}
	return fmt.Sprint(ofB, ofA)
}
