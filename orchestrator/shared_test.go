package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// laneWatch is a channel shared by several processes' workers. It
// records each item's deliveries, each process's, the most posts in flight
// on one channel at once, and the posts that followed another process's
// post on their channel without being told when it was (LastPost).
type laneWatch struct {
	mu       sync.Mutex
	got      map[string]int
	by       map[string]int
	inFlight map[string]int
	maxIn    int
	lastBy   map[string]string
	blind    int
}

// as is the deliverer of one process.
type as struct {
	l    *laneWatch
	proc string
}

func (a as) Deliver(ctx context.Context, d *orchestrator.Delivery) error {
	l, ch := a.l, d.Target.ChannelID
	l.mu.Lock()
	l.inFlight[ch]++
	l.maxIn = max(l.maxIn, l.inFlight[ch])
	if prev := l.lastBy[ch]; prev != "" && prev != a.proc && d.LastPost.IsZero() {
		l.blind++
	}
	l.mu.Unlock()
	time.Sleep(3 * time.Millisecond) // a post takes a moment
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight[ch]--
	l.lastBy[ch] = a.proc
	l.got[d.ItemID]++
	l.by[a.proc]++
	return nil
}

type tlog struct{ t *testing.T }

func (l tlog) Write(b []byte) (int, error) { l.t.Log(string(b)); return len(b), nil }

// slowReads is a store whose reads come back late, as from a far or busy
// database: what they return may have changed by then.
type slowReads struct{ store.Store }

func (s slowReads) View(ctx context.Context, fn func(store.Tx) error) error {
	err := s.Store.View(ctx, fn)
	time.Sleep(10 * time.Millisecond)
	return err
}

// TestWorkers_ProcessesDeliverEachItemOnceAChannelAtATime: three
// processes' workers on one database share the outgoing queue: each item
// is delivered once (also by a process whose reads come back late), and a
// channel never has two posts in flight, though
// every process delivers.
func TestWorkers_ProcessesDeliverEachItemOnceAChannelAtATime(t *testing.T) {
	dsn := pgtest.DSN(t)
	watch := &laneWatch{got: map[string]int{}, by: map[string]int{}, inFlight: map[string]int{}, lastBy: map[string]string{}}
	var stores []*postgres.Store
	for range 3 {
		st, err := postgres.Open(t.Context(), dsn, "default", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
	}
	const perChannel, channels = 60, 3
	var ids []string
	err := stores[0].Update(t.Context(), func(tx store.Tx) error {
		for i := range perChannel * channels {
			p, _ := json.Marshal(orchestrator.ReplyPayload{MessagePostArgs: functions.MessagePostArgs{Text: fmt.Sprint("post ", i),
				TargetRef: &store.TargetRef{Channel: "test", ChannelID: fmt.Sprintf("C%d", i%channels)}}})
			it := &store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", Queue: store.QueueOutgoing, Payload: p}
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
			ids = append(ids, it.ItemID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, st := range stores {
		var ws store.Store = st
		if i == 0 {
			ws = storetest.Through(slowReads{st})
		}
		w := orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: ws,
			Registry: functions.NewRegistry(functions.Deps{Store: st}), Batch: 4, Poll: 5 * time.Millisecond,
			Deliverers: map[string]orchestrator.Deliverer{"test": as{watch, fmt.Sprint("p", i)}},
			Logger:     slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Run(ctx)
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if testkit.QueueLen(t, stores[0], store.QueueOutgoing) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	watch.mu.Lock()
	defer watch.mu.Unlock()
	for _, id := range ids {
		if n := watch.got[id]; n != 1 {
			t.Errorf("item %s delivered %d times, want once", id, n)
		}
	}
	if watch.maxIn != 1 {
		t.Errorf("%d posts in flight on one channel at once, want 1", watch.maxIn)
	}
	if len(watch.by) < 2 {
		t.Errorf("deliveries by process: %v; want them shared", watch.by)
	}
	if watch.blind != 0 {
		t.Errorf("%d posts followed another process's post on their channel without its time (LastPost)", watch.blind)
	}
}

// gate is a channel whose posts wait until it opens, then fail.
type gate struct {
	started chan struct{}
	open    chan struct{}
}

func (g *gate) Deliver(ctx context.Context, d *orchestrator.Delivery) error {
	close(g.started)
	<-g.open
	return errors.New("connection reset")
}

// TestWorker_ALaneTakenOverLeavesItsOutcomesToTheNewHolder: a process
// whose lane another process took over (its lease ran out mid-post) does
// not record its late outcome over what the new holder recorded.
func TestWorker_ALaneTakenOverLeavesItsOutcomesToTheNewHolder(t *testing.T) {
	dsn := pgtest.DSN(t)
	var stores []*postgres.Store
	for range 2 {
		st, err := postgres.Open(t.Context(), dsn, "default", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
	}
	a, b := stores[0], stores[1]
	p, _ := json.Marshal(orchestrator.ReplyPayload{MessagePostArgs: functions.MessagePostArgs{Text: "hi",
		TargetRef: &store.TargetRef{Channel: "test", ChannelID: "C1"}}})
	it := &store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", Queue: store.QueueOutgoing, Payload: p}
	if err := a.Update(t.Context(), func(tx store.Tx) error { return tx.QueueAdd(it) }); err != nil {
		t.Fatal(err)
	}
	g := &gate{started: make(chan struct{}), open: make(chan struct{})}
	w := orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: a,
		Registry: functions.NewRegistry(functions.Deps{Store: a}), Deliverers: map[string]orchestrator.Deliverer{"test": g}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Step(t.Context())
	}()
	<-g.started
	// Another process takes the lane once its lease has run out, and
	// records the item delivered.
	later := time.Now().Add(time.Hour)
	lanes, err := b.ClaimDeliveries(t.Context(), &store.LaneClaim{Now: later, Limit: 10, Hold: func(int) time.Duration { return time.Hour }})
	if err != nil || len(lanes) != 1 || lanes[0].Key != "test||C1" {
		t.Fatalf("take the lane: %+v, %v", lanes, err)
	}
	err = b.RecordDeliveries(t.Context(), &store.LaneRecord{Key: lanes[0].Key, Hold: later.Add(time.Hour), Release: true, LastPost: later}, func(tx store.Tx) error {
		cur := lanes[0].Items[0]
		cur.Queue = store.QueueDone
		return tx.QueuePut(cur)
	})
	if err != nil {
		t.Fatal(err)
	}
	close(g.open)
	<-done
	a.View(t.Context(), func(tx store.Tx) error {
		cur, err := tx.QueueGet(it.ItemID)
		if err != nil || cur.Queue != store.QueueDone {
			t.Errorf("item after the late failure = %v, %v; want done, as the lane's new holder left it", cur.Queue, err)
		}
		return nil
	})
}
