package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/storetest"
)

// faultStore is a real store whose write transactions can be made to fail
// at commit, as a full disk or a crash would: FailFunc sees every item a
// transaction writes, and an error it returns rolls the whole transaction
// back.
type faultStore struct {
	store.Store
	mu       sync.Mutex
	FailFunc func(it *store.QueueItem) error
}

var errInjected = errors.New("injected commit failure")

func (s *faultStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		ft := &faultTx{Tx: tx, s: s}
		if err := fn(ft); err != nil {
			return err
		}
		return ft.failed
	})
}

func (s *faultStore) fail(fn func(it *store.QueueItem) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.FailFunc = fn
}

type faultTx struct {
	store.Tx
	s      *faultStore
	failed error
}

func (t *faultTx) Unwrap() store.Tx { return t.Tx }

func (t *faultTx) QueuePut(it *store.QueueItem) error {
	t.s.mu.Lock()
	f := t.s.FailFunc
	t.s.mu.Unlock()
	if f != nil && t.failed == nil {
		t.failed = f(it)
	}
	return t.Tx.QueuePut(it)
}

// withFaults puts a faultStore between the worker and the env's store.
func withFaults(fs *faultStore) func(*orchestrator.Options) {
	return func(o *orchestrator.Options) {
		fs.Store = o.Store
		o.Store = storetest.Through(fs)
	}
}

func (e *env) say(t *testing.T, text string) {
	t.Helper()
	payload, _ := json.Marshal(orchestrator.Message{Text: text, SenderID: "U1", Sender: "ada", MessageTS: "1700000000.000100"})
	err := e.st.Update(t.Context(), func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{ItemID: "slack-Ev1", Kind: store.KindMessage, OrchestratorID: "default",
			ChannelProfileID: "terminal", Payload: payload})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (e *env) jobCount(t *testing.T) int {
	t.Helper()
	var n int
	e.st.View(t.Context(), func(tx store.Tx) (err error) { n, err = tx.JobCount(); return })
	return n
}

// A message's call, its reply and its completion commit together: when the
// completion fails, the call is undone with it, and the redelivered message
// makes one job, not two.
func TestWorker_AMessageFailedAtCompletionMakesOneJob(t *testing.T) {
	cases := map[string]struct {
		text string
		conv bool
	}{
		"a JSON call":          {text: `{"function":"schedule.create","args":` + job(post, "") + `}`},
		"through the selector": {text: "post hello world every day at 9am", conv: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fs := &faultStore{}
				var handler orchestrator.MessageHandler
				e := newEnv(t, withFaults(fs), func(o *orchestrator.Options) {
					o.Backoff = time.Second
					if c.conv {
						o.Messages = func(ctx context.Context, it *store.QueueItem, m *orchestrator.Message) orchestrator.Reply {
							return handler(ctx, it, m)
						}
					}
				})
				now := time.Now()
				handler = conv(e, &now).Decide
				e.say(t, c.text)
				failed := 0
				fs.fail(func(it *store.QueueItem) error {
					if it.Kind == store.KindMessage && it.Queue == store.QueueDone && failed == 0 {
						failed++
						return errInjected
					}
					return nil
				})
				e.w.Step(t.Context()) // fails at the completion
				if failed != 1 {
					t.Fatal("the completion was never attempted")
				}
				// The same message again, as a restart's recovery (or the
				// put-back after the failed commit) brings it.
				if _, err := e.w.Recover(t.Context()); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Minute)
				e.drain(t)
				if n := e.jobCount(t); n != 1 {
					t.Errorf("%d jobs after a redelivered message, want 1", n)
				}
				if got := e.term.texts(); len(got) != 1 {
					t.Errorf("replies = %q, want one", got)
				}
			})
		})
	}
}

// An item whose commit failed after its claim goes back to incoming by
// itself, after a delay, and runs without a restart.
func TestWorker_FailedCommitAfterAClaimIsRetriedWithoutARestart(t *testing.T) {
	for _, kind := range []string{store.KindTrigger, store.KindMessage} {
		t.Run(kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fs := &faultStore{}
				e := newEnv(t, withFaults(fs), func(o *orchestrator.Options) { o.Backoff = time.Second })
				if kind == store.KindTrigger {
					j := e.create(t, job(post, ""))
					e.sched.FireDue(t.Context(), j.NextRunAt)
				} else {
					e.say(t, `{"function":"schedule.list","args":{}}`)
				}
				// Every completion fails until the disk "has room" again.
				fs.fail(func(it *store.QueueItem) error {
					if it.Kind == kind && it.Queue == store.QueueDone {
						return errInjected
					}
					return nil
				})
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error)
				go func() { done <- e.w.Run(ctx) }()
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if n := e.count(t, store.QueueProcessing); n != 0 {
					t.Errorf("%d items stuck in processing", n)
				}
				fs.fail(nil)
				time.Sleep(time.Minute)
				synctest.Wait()
				cancel()
				<-done
				if got := e.term.texts(); len(got) != 1 {
					t.Errorf("delivered %q, want one message once the store works again", got)
				}
				if n := e.count(t, store.QueueDone); n != 2 {
					t.Errorf("%d done items, want the %s and its output", n, kind)
				}
			})
		})
	}
}

// fullDisk fails every Update with ENOSPC while full is set, and counts
// the attempts.
type fullDisk struct {
	store.Store
	full     atomic.Bool
	attempts atomic.Int32
}

func (f *fullDisk) Update(ctx context.Context, fn func(store.Tx) error) error {
	if !f.full.Load() {
		return f.Store.Update(ctx, fn)
	}
	f.attempts.Add(1)
	return fmt.Errorf("write at 8192: %w", syscall.ENOSPC)
}

// logLevels counts a logger's records by level and keeps their messages.
type logLevels struct {
	mu   sync.Mutex
	msgs map[slog.Level][]string
}

func (l *logLevels) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLevels) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logLevels) WithGroup(string) slog.Handler            { return l }
func (l *logLevels) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs[r.Level] = append(l.msgs[r.Level], r.Message)
	return nil
}

// take returns the messages at level and forgets every record.
func (l *logLevels) take(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.msgs[level]
	clear(l.msgs)
	return out
}

// With the store's disk full, both of the worker's loops retry after a
// growing back-off (not every Poll), say so once each at error level, and
// carry on by themselves, saying so once, when space returns.
func TestWorker_FullDiskBacksOffAndRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		disk := &fullDisk{}
		logs := &logLevels{msgs: map[slog.Level][]string{}}
		e := newEnv(t, func(o *orchestrator.Options) {
			disk.Store = o.Store
			o.Store = storetest.Through(disk)
			o.Logger = slog.New(logs)
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- e.w.Run(ctx) }()
		synctest.Wait()
		disk.full.Store(true)
		// Something for each loop to do: a post to deliver (written past the
		// worker's store, as another process would) and, by the same
		// wake, a queue to claim.
		if _, err := e.reg.Call(t.Context(), functions.Request{Function: "message.post", Args: json.RawMessage(`{"text":"after the disk filled"}`), Actor: actor}); err != nil {
			t.Fatal(err)
		}
		e.w.Wake()
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		// Each loop: 1+2+4+8+16+32 s, then once a minute: about 35 rounds in
		// 30 minutes (the queue's with a requeue each, and a prune a minute),
		// where polling every second would be 1,800 rounds each.
		if n := disk.attempts.Load(); n < 40 || n > 200 {
			t.Errorf("%d write attempts in 30 minutes of a full disk, want a back-off to one a minute per loop", n)
		}
		errs := logs.take(slog.LevelError)
		if len(errs) != 2 || !strings.Contains(strings.Join(errs, "\n"), "store's disk is full: queue paused") ||
			!strings.Contains(strings.Join(errs, "\n"), "store's disk is full: delivery paused") {
			t.Errorf("%d error lines while the disk is full (first %q), want one per loop saying the disk is full", len(errs), errs[:min(len(errs), 3)])
		}
		if got := e.term.texts(); len(got) != 0 {
			t.Fatalf("delivered %q with no record of it", got)
		}

		disk.full.Store(false) // space returns
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := e.term.texts(); len(got) != 1 {
			t.Errorf("delivered %q after space returned, want the post", got)
		}
		if infos := strings.Join(logs.take(slog.LevelInfo), "\n"); !strings.Contains(infos, "store writes recovered: queue resumed") ||
			!strings.Contains(infos, "store writes recovered: delivery resumed") {
			t.Errorf("info lines after space returned:\n%s", infos)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}
