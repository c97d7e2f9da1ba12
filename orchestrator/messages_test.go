package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// TestWorker_TriggersNeverWaitForAMessagesSelector: while the selector of
// a message hangs (a model that takes its time, 30 s three times over),
// due jobs still run and post on time; the message is answered once the
// selector returns, and the messages after it in their order.
func TestWorker_TriggersNeverWaitForAMessagesSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var mu sync.Mutex
		var seen []string
		e := newEnv(t, func(o *orchestrator.Options) {
			o.Messages = func(ctx context.Context, _ *store.QueueItem, m *orchestrator.Message) orchestrator.Reply {
				mu.Lock()
				seen = append(seen, m.Text)
				first := len(seen) == 1
				mu.Unlock()
				if first {
					select { // the selector hangs until released
					case <-release:
					case <-ctx.Done():
					}
				}
				return orchestrator.Reply{Text: "answer to " + m.Text}
			}
		})
		j := e.create(t, fmt.Sprintf(everyMinute, "C0000JOBS"))
		for _, text := range []string{"first", "second"} {
			payload, _ := json.Marshal(orchestrator.Message{Text: text, SenderID: "1000", Sender: "ada"})
			if err := e.st.Update(t.Context(), func(tx store.Tx) error {
				return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", ChannelProfileID: "terminal", Payload: payload})
			}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); e.sched.Run(ctx) }()
		go func() { defer wg.Done(); e.w.Run(ctx) }()

		time.Sleep(5*time.Minute + 30*time.Second)
		synctest.Wait()
		var runs []*store.Run
		e.st.View(t.Context(), func(tx store.Tx) (err error) { runs, err = tx.RunList(j.JobID, 100); return })
		completed := 0
		for _, r := range runs {
			if r.Status == store.RunCompleted {
				completed++
			}
		}
		if completed < 5 || len(e.slack.texts()) < 5 {
			t.Errorf("while a message's selector hung for 5 minutes: %d runs completed, %d posts; want 5 of each", completed, len(e.slack.texts()))
		}
		if got := e.term.texts(); len(got) != 0 {
			t.Errorf("replies before the selector returned: %q", got)
		}

		close(release)
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		order := fmt.Sprint(seen)
		mu.Unlock()
		if got := fmt.Sprint(e.term.texts()); order != "[first second]" || got != "[answer to first answer to second]" {
			t.Errorf("messages read %s and answered %s; want both, in order", order, got)
		}
		cancel()
		wg.Wait()
	})
}

// TestWorker_ARetryKnowsWhenTheFirstAttemptBegan: every attempt at an
// item carries the instant of its first, kept in the store, so that a
// channel looks for an earlier post from then on, not from a count.
func TestWorker_ARetryKnowsWhenTheFirstAttemptBegan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var firsts []time.Time
		e := newEnv(t, func(o *orchestrator.Options) { o.Backoff = time.Minute })
		e.slack.DeliverFunc = func(d *orchestrator.Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			firsts = append(firsts, d.FirstAttempt)
			if len(firsts) < 3 {
				return errors.New("connection reset")
			}
			return nil
		}
		start := time.Now().UTC()
		e.fire(t, e.create(t, fmt.Sprintf(everyMinute, "C0000RETRY")))
		for range 2 {
			time.Sleep(5 * time.Minute)
			e.drain(t)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(firsts) != 3 {
			t.Fatalf("%d attempts, want 3", len(firsts))
		}
		for i, f := range firsts {
			if f.IsZero() || f.Before(start) || !f.Equal(firsts[0]) {
				t.Errorf("attempt %d: first attempt at %v, want the first attempt's instant %v", i+1, f, firsts[0])
			}
		}
	})
}

// TestWorker_StoppedBeforeItBeganIsNoFailure: a worker whose context ends
// before it starts (a chat closed at once) returns no error.
func TestWorker_StoppedBeforeItBeganIsNoFailure(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := e.w.Run(ctx); err != nil {
		t.Errorf("Run with its context already ended = %v, want nil", err)
	}
}
