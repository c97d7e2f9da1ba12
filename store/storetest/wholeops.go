package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

// wholeOpsTests are the store.Store operations the scheduler and the
// worker use, as they use them.
var wholeOpsTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"FireHandsEachDueJobOnceAndWritesItsStatus", testFire},
	{"FireStopsAtAFiringsErrorKeepingWhatCommitted", testFireError},
	{"ClaimCompleteAndRequeue", testClaimComplete},
	{"ClaimDeliveriesCountsAttemptsAndRecordDeliveriesReleases", testDeliveries},
	{"NextRunAndNextItem", testNext},
	{"PruneEachKindAndCount", testPruneCount},
}

// recordingFiring moves each job it is handed on by an hour and queues a
// trigger for it; fired lists what committed.
type recordingFiring struct {
	mu    *sync.Mutex
	fired *[]string
	mine  []string
	fail  string // a job whose Fire fails
}

func (f *recordingFiring) Fire(tx store.Tx, j *store.Job) error {
	if j.JobID == f.fail {
		return fmt.Errorf("firing %s failed", j.JobID)
	}
	f.mine = append(f.mine, j.JobID)
	j.NextRunAt = j.NextRunAt.Add(time.Hour)
	j.RunCount++
	return tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID,
		ExecutionID: store.ExecutionID(j.JobID, t0), CreatedAt: t0, UpdatedAt: t0})
}

func (f *recordingFiring) SetAside(store.Tx, *store.RecordError) error { return nil }

func (f *recordingFiring) Committed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	*f.fired = append(*f.fired, f.mine...)
}

func putDue(t *testing.T, s store.Store, n int, at time.Time) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range n {
			if err := tx.JobPut(NewJob(fmt.Sprintf("J%02d", i), at)); err != nil {
				return err
			}
		}
		return nil
	})
}

func testFire(t *testing.T, s store.Store) {
	putDue(t, s, 10, t0)
	mustUpdate(t, s, func(tx store.Tx) error { return tx.JobPut(NewJob("LATER", t0.Add(time.Minute))) })
	var mu sync.Mutex
	var fired []string
	begin := func() store.Firing { return &recordingFiring{mu: &mu, fired: &fired} }
	if err := s.Fire(t.Context(), store.FireParams{Now: t0, Batch: 3}, begin); err != nil {
		t.Fatal(err)
	}
	slices.Sort(fired)
	if want := []string{"J00", "J01", "J02", "J03", "J04", "J05", "J06", "J07", "J08", "J09"}; !slices.Equal(fired, want) {
		t.Errorf("fired %v, want each due job once (not LATER)", fired)
	}
	mustView(t, s, func(tx store.Tx) error {
		j, err := tx.JobGet("J04")
		if err != nil {
			return err
		}
		if !j.NextRunAt.Equal(t0.Add(time.Hour)) || j.RunCount != 1 {
			t.Errorf("J04 after Fire: next %v, runs %d; want the status the Firing wrote", j.NextRunAt, j.RunCount)
		}
		return nil
	})
	if err := s.Fire(t.Context(), store.FireParams{Now: t0, Batch: 3}, begin); err != nil || len(fired) != 10 {
		t.Errorf("Fire again = %v, %d fired in all; want none left due", err, len(fired))
	}
	if c, err := s.Count(t.Context()); err != nil || c.Queues[store.QueueIncoming] != 10 {
		t.Errorf("Count = %+v, %v; want the 10 triggers", c, err)
	}
}

func testFireError(t *testing.T, s store.Store) {
	putDue(t, s, 6, t0)
	var mu sync.Mutex
	var fired []string
	begin := func() store.Firing { return &recordingFiring{mu: &mu, fired: &fired, fail: "J04"} }
	err := s.Fire(t.Context(), store.FireParams{Now: t0, Batch: 2, First: 2}, begin)
	if err == nil {
		t.Fatal("Fire = nil, want the Firing's error")
	}
	if !slices.Contains(fired, "J00") || slices.Contains(fired, "J04") {
		t.Errorf("committed %v, want the first transaction's and never J04's", fired)
	}
	// What committed moved on; the rest, J04 first, is still due.
	mustView(t, s, func(tx store.Tx) error {
		for i := range 6 {
			id := fmt.Sprintf("J%02d", i)
			j, err := tx.JobGet(id)
			if err != nil {
				return err
			}
			if moved := !j.NextRunAt.Equal(t0); moved != slices.Contains(fired, id) {
				t.Errorf("%s: next run %v, committed %v: its status and its firing disagree", id, j.NextRunAt, slices.Contains(fired, id))
			}
		}
		return nil
	})
}

func testClaimComplete(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, id := range []string{"a", "b", "c"} {
			if err := tx.QueueAdd(&store.QueueItem{ItemID: id, Kind: store.KindMessage, OrchestratorID: "default", CreatedAt: t0}); err != nil {
				return err
			}
		}
		return nil
	})
	var seen []string
	items, err := s.Claim(t.Context(), t0, 2, func(tx store.Tx, its []*store.QueueItem) error {
		for _, it := range its {
			seen = append(seen, it.ItemID)
		}
		return nil
	})
	if err != nil || len(items) != 2 || !slices.Equal(seen, []string{"a", "b"}) {
		t.Fatalf("Claim = %d items, %v; then saw %v; want a and b", len(items), err, seen)
	}
	err = s.Complete(t.Context(), items, func(tx store.Tx, it *store.QueueItem) error {
		it.Queue = store.QueueDone
		return tx.QueuePut(it)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(t.Context(), t0, 5, nil); err != nil {
		t.Fatal(err)
	}
	// c was claimed and is in nobody's hand: Requeue puts it back, due later.
	n, err := s.Requeue(t.Context(), t0, t0.Add(time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("Requeue = %d, %v; want c", n, err)
	}
	c, err := s.Count(t.Context())
	if err != nil || c.Queues[store.QueueDone] != 2 || c.Queues[store.QueueIncoming] != 1 || c.Queues[store.QueueProcessing] != 0 {
		t.Errorf("Count = %+v, %v; want 2 done, c incoming", c, err)
	}
	if at, err := s.NextItem(t.Context(), store.QueueIncoming, t0); err != nil || !at.Equal(t0.Add(time.Minute)) {
		t.Errorf("NextItem(incoming) = %v, %v; want c's new time", at, err)
	}
}

func reply(id, channel string) *store.QueueItem {
	payload, _ := json.Marshal(map[string]any{"text": "hi", "targetRef": map[string]any{"channel": "test", "channelId": channel}})
	return &store.QueueItem{ItemID: id, Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: "default",
		Payload: payload, CreatedAt: t0}
}

func testDeliveries(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, it := range []*store.QueueItem{reply("a1", "A"), reply("a2", "A"), reply("b1", "B"), reply("c1", "C")} {
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
		}
		return nil
	})
	busy := store.LaneOf(reply("x", "C"))
	hold := func(n int) time.Duration { return time.Duration(n) * time.Minute }
	lanes, err := s.ClaimDeliveries(t.Context(), &store.LaneClaim{Now: t0, Limit: 10, Busy: map[string]bool{busy: true}, Hold: hold})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, l := range lanes {
		for _, it := range l.Items {
			got[l.Key] = append(got[l.Key], it.ItemID)
			if it.Attempts != 1 || !it.FirstAttemptAt.Equal(t0) {
				t.Errorf("%s handed out with %d attempts, first at %v; want its first attempt counted", it.ItemID, it.Attempts, it.FirstAttemptAt)
			}
		}
	}
	laneA := store.LaneOf(reply("x", "A"))
	if len(got) != 2 || !slices.Equal(got[laneA], []string{"a1", "a2"}) || len(got[store.LaneOf(reply("x", "B"))]) != 1 {
		t.Fatalf("lanes = %v, want A's two in order and B's one, not the busy C", got)
	}
	mustView(t, s, func(tx store.Tx) error {
		if it, err := tx.QueueGet("a2"); err != nil || it.Attempts != 1 {
			t.Errorf("a2 as stored = %+v, %v; want its attempt counted", it, err)
		}
		return nil
	})
	var a []*store.QueueItem
	for _, l := range lanes {
		if l.Key == laneA {
			a = l.Items
		}
	}
	err = s.RecordDeliveries(t.Context(), &store.LaneRecord{Key: laneA, Hold: t0.Add(time.Minute), Release: true, LastPost: t0.Add(time.Second)},
		func(tx store.Tx) error {
			for _, it := range a {
				it.Queue = store.QueueDone
				if err := tx.QueuePut(it); err != nil {
					return err
				}
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.QueueAdd(reply("a3", "A")) })
	lanes, err = s.ClaimDeliveries(t.Context(), &store.LaneClaim{Now: t0.Add(2 * time.Second), Limit: 10,
		Busy: map[string]bool{busy: true, store.LaneOf(reply("x", "B")): true}, Hold: hold})
	if err != nil || len(lanes) != 1 || lanes[0].Key != laneA || !lanes[0].LastPost.Equal(t0.Add(time.Second)) {
		t.Errorf("A again = %+v, %v; want a3 with the lane's last post", lanes, err)
	}
}

func testNext(t *testing.T, s store.Store) {
	if at, err := s.NextRun(t.Context()); err != nil || !at.IsZero() {
		t.Errorf("NextRun of an empty store = %v, %v; want none", at, err)
	}
	putDue(t, s, 1, t0.Add(time.Hour))
	mustUpdate(t, s, func(tx store.Tx) error { return tx.JobPut(NewJob("SOONER", t0.Add(time.Minute))) })
	if at, err := s.NextRun(t.Context()); err != nil || !at.Equal(t0.Add(time.Minute)) {
		t.Errorf("NextRun = %v, %v; want the sooner job's", at, err)
	}
	out := reply("o1", "A")
	out.NotBefore = t0.Add(time.Hour)
	mustUpdate(t, s, func(tx store.Tx) error { return tx.QueueAdd(out) })
	if at, err := s.NextItem(t.Context(), store.QueueOutgoing, t0); err != nil || !at.Equal(t0.Add(time.Hour)) {
		t.Errorf("NextItem(outgoing) = %v, %v; want o1's", at, err)
	}
	if at, err := s.NextItem(t.Context(), store.QueueIncoming, t0); err != nil || !at.IsZero() {
		t.Errorf("NextItem(incoming) = %v, %v; want none", at, err)
	}
}

func testPruneCount(t *testing.T, s store.Store) {
	old, recent := t0.Add(-48*time.Hour), t0
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, at := range []time.Time{old, old, recent} {
			it := &store.QueueItem{ItemID: fmt.Sprint("q", i), Queue: store.QueueDone, Kind: store.KindMessage, OrchestratorID: "default", CreatedAt: at, UpdatedAt: at}
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
			if err := tx.RequestPut(&store.Request{Key: fmt.Sprint("r", i), Function: "schedule.pause", CreatedAt: at}); err != nil {
				return err
			}
			if err := tx.ConversationPut(&store.Conversation{Key: fmt.Sprint("c", i), UpdatedAt: at}); err != nil {
				return err
			}
		}
		return nil
	})
	for _, what := range []store.PruneKind{store.PruneQueue, store.PruneRequests, store.PruneConversations} {
		if n, err := s.Prune(t.Context(), &store.PruneParams{What: what, Before: t0.Add(-time.Hour)}); err != nil || n != 2 {
			t.Errorf("Prune %s = %d, %v; want the 2 old ones", what, n, err)
		}
	}
	if _, err := s.Prune(t.Context(), &store.PruneParams{What: "everything"}); err == nil {
		t.Error("Prune of an unknown kind = nil, want an error")
	}
	c, err := s.Count(t.Context())
	if err != nil || c.Queues[store.QueueDone] != 1 || len(c.Jobs) != len(store.JobStates) {
		t.Errorf("Count = %+v, %v; want 1 done item, every job state", c, err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.RequestGet("r2"); err != nil {
			t.Errorf("the recent request: %v", err)
		}
		if _, err := tx.ConversationGet("c2"); err != nil {
			t.Errorf("the recent conversation: %v", err)
		}
		return nil
	})
}
