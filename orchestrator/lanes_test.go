package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// hungChannel never answers a post to one channel (until its context
// ends) and records the others.
type hungChannel struct {
	channel string
	mu      sync.Mutex
	got     map[string]int
	hung    int
}

func (h *hungChannel) Deliver(ctx context.Context, d *orchestrator.Delivery) error {
	if d.Target.ChannelID == h.channel {
		h.mu.Lock()
		h.hung++
		h.mu.Unlock()
		<-ctx.Done()
		return ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got[d.Target.ChannelID]++
	return nil
}

func (h *hungChannel) counts() (map[string]int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return map[string]int{"C0000FINE": h.got["C0000FINE"]}, h.hung
}

const everyMinute = `{"scheduleType":"interval","schedule":{"everySeconds":60},"targetAction":` + post + `,"targetRef":{"channel":"slack","channelId":"%s"}}`

// A post that hangs in one channel holds up neither the other channels
// nor the runs (no window is skipped for it), each attempt ends at its
// deadline, and shutdown does not wait for it.
func TestWorker_AHungChannelHoldsUpNothingElse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hung := &hungChannel{channel: "C0000HUNG", got: map[string]int{}}
		e := newEnv(t, func(o *orchestrator.Options) {
			o.Deliverers["slack"] = hung
			o.DeliveryTimeout = 30 * time.Second
			o.MaxAttempts = 100
		})
		stuck := e.create(t, fmt.Sprintf(everyMinute, "C0000HUNG"))
		fine := e.create(t, fmt.Sprintf(everyMinute, "C0000FINE"))
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); e.sched.Run(ctx) }()
		done := make(chan error, 1)
		go func() { defer wg.Done(); done <- e.w.Run(ctx) }()
		time.Sleep(10*time.Minute + 30*time.Second)
		synctest.Wait()
		got, attempts := hung.counts()
		if got["C0000FINE"] < 9 {
			t.Errorf("C0000FINE got %d posts in 10 minutes beside a hung channel, want 10", got["C0000FINE"])
		}
		if attempts < 5 {
			t.Errorf("%d attempts at the hung post: each must end at its deadline and be retried", attempts)
		}
		for _, j := range []*store.Job{stuck, fine} {
			var runs []*store.Run
			e.st.View(t.Context(), func(tx store.Tx) (err error) { runs, err = tx.RunList(j.JobID, 100); return })
			for _, r := range runs {
				if r.Status == store.RunSkipped {
					t.Errorf("job %s: window %s skipped (%s)", j.JobID, r.ScheduledAt.Format(time.TimeOnly), r.Reason)
				}
			}
			if len(runs) < 9 {
				t.Errorf("job %s: %d runs in 10 minutes", j.JobID, len(runs))
			}
		}
		// Shutdown with the hung post in flight: within a bound.
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return within 5s of its context ending")
		}
		wg.Wait()
	})
}

// A lane records each delivery as it happens: a post that hangs later in
// the same channel does not leave the ones before it looking undelivered
// (to be posted again after a crash).
func TestWorker_ALaneRecordsEachDeliveryAsItGoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, func(o *orchestrator.Options) { o.DeliveryTimeout = time.Minute })
		e.term.DeliverFunc = func(d *orchestrator.Delivery) error {
			if d.Text == "second" {
				time.Sleep(time.Hour) // hung, past its deadline
			}
			return nil
		}
		for _, text := range []string{"first", "second"} {
			if _, err := e.reg.Call(t.Context(), functions.Request{Function: "message.post", Args: json.RawMessage(`{"text":"` + text + `"}`), Actor: actor}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- e.w.Run(ctx) }()
		time.Sleep(10 * time.Second) // the second post is in flight
		synctest.Wait()
		if got := e.term.texts(); len(got) != 1 || got[0] != "first" {
			t.Fatalf("delivered %q, want the first", got)
		}
		if n := e.count(t, store.QueueDone); n != 1 {
			t.Errorf("%d items done while the lane's second post hangs, want the first", n)
		}
		cancel()
		<-done
	})
}
