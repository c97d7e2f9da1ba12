package slack_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// channelSlack is a local Slack that keeps what is posted, with its
// metadata, and answers conversations.history and conversations.replies
// from it. PostFault scripts how the next chat.postMessage goes wrong.
type channelSlack struct {
	srv *httptest.Server

	mu        sync.Mutex
	msgs      []map[string]any
	posts     int // chat.postMessage requests
	checks    int // history and replies requests
	PostFault string
	Hang      chan struct{} // when set, chat.postMessage waits for it to close
	UserGate  chan struct{} // when set, users.info waits for it to close
}

const (
	faultRefuse = "refuse" // the post never arrives: an error before Slack keeps it
	faultLose   = "lose"   // the post arrives, its answer is lost with the connection
)

func newChannelSlack(t *testing.T) *channelSlack {
	f := &channelSlack{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *channelSlack) serve(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch method {
	case "chat.postMessage":
		f.posts++
		if h := f.Hang; h != nil {
			f.mu.Unlock()
			select {
			case <-h:
			case <-r.Context().Done():
			}
			f.mu.Lock()
		}
		fault := f.PostFault
		f.PostFault = ""
		if fault == faultRefuse {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var meta map[string]any
		json.Unmarshal([]byte(r.Form.Get("metadata")), &meta)
		ts := fmt.Sprintf("%d.%06d", time.Now().Unix(), len(f.msgs)+1)
		f.msgs = append(f.msgs, map[string]any{"type": "message", "ts": ts, "text": r.Form.Get("text"),
			"channel": r.Form.Get("channel"), "thread_ts": r.Form.Get("thread_ts"), "metadata": meta})
		if fault == faultLose {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": r.Form.Get("channel"), "ts": ts})
	case "users.info":
		if g := f.UserGate; g != nil {
			f.mu.Unlock()
			<-g
			f.mu.Lock()
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "user": map[string]any{"id": r.Form.Get("user"), "name": "ada", "tz": "Europe/Paris"}})
	case "conversations.history", "conversations.replies":
		f.checks++
		var out []map[string]any
		for _, m := range f.msgs {
			if m["channel"] != r.Form.Get("channel") || (method == "conversations.replies") != (m["thread_ts"] == r.Form.Get("ts") && m["thread_ts"] != "") {
				continue
			}
			c := map[string]any{}
			for k, v := range m {
				if k != "metadata" || r.Form.Get("include_all_metadata") == "1" || r.Form.Get("include_all_metadata") == "true" {
					c[k] = v
				}
			}
			out = append(out, c)
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "messages": out, "has_more": false,
			"response_metadata": map[string]any{"next_cursor": ""}})
	default:
		json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "unknown_method"})
	}
}

func (f *channelSlack) count() (msgs, posts, checks int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.msgs), f.posts, f.checks
}

// faultStore fails a write transaction at commit when FailFunc says so of
// an item it writes, as a crash or a full disk would leave it.
type faultStore struct {
	store.Store
	mu       sync.Mutex
	FailFunc func(it *store.QueueItem) bool
}

var errKilled = errors.New("killed before the commit")

func (s *faultStore) fail(fn func(it *store.QueueItem) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.FailFunc = fn
}

func (s *faultStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		ft := &faultTx{Tx: tx, s: s}
		if err := fn(ft); err != nil {
			return err
		}
		if ft.failed {
			return errKilled
		}
		return nil
	})
}

type faultTx struct {
	store.Tx
	s      *faultStore
	failed bool
}

func (t *faultTx) QueuePut(it *store.QueueItem) error {
	t.s.mu.Lock()
	f := t.s.FailFunc
	t.s.mu.Unlock()
	if f != nil && f(it) {
		t.failed = true
	}
	return t.Tx.QueuePut(it)
}

// clock is a fake clock the workers read.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// A delivery posts once whatever step a crash cuts it at: before its
// intent is recorded, between the intent and the post, between the post
// and its record (with or without Slack's answer), and after the record.
// Each "crash" leaves the store as a kill would (the commit that was due
// fails) and a new worker takes over, as after a restart.
func TestDeliver_AKillAtEachStepPostsOnce(t *testing.T) {
	intent := func(it *store.QueueItem) bool { return it.Queue == store.QueueOutgoing && it.LastError == "" }
	recorded := func(it *store.QueueItem) bool { return it.Queue != store.QueueOutgoing || it.LastError != "" }
	cases := []struct {
		name  string
		fault string
		kill  func(it *store.QueueItem) bool
	}{
		{"before the intent is recorded", "", intent},
		{"after the intent, before the post", faultRefuse, recorded},
		{"after the post, before its record", "", recorded},
		{"after the post, its answer lost, before its record", faultLose, recorded},
		{"after the post, its answer lost, recorded as failed", faultLose, nil},
		{"after the record", "", nil},
	}
	for _, mode := range []string{store.PostChannel, store.PostThread} {
		for _, c := range cases {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				f := newChannelSlack(t)
				ad, err := slackad.New(slackad.Options{BotToken: "xoxb-test", APIURL: f.srv.URL + "/api/", MinInterval: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				clk := &clock{t: time.Now()}
				fs := &faultStore{Store: st}
				worker := func(s store.Store) *orchestrator.Worker {
					return orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: s,
						Deliverers: map[string]orchestrator.Deliverer{"slack": ad}, Now: clk.Now, Backoff: time.Second})
				}
				ref := &store.TargetRef{Channel: "slack", ChannelProfileID: "team", ChannelID: "C1", PostingMode: mode}
				if mode == store.PostThread {
					ref.ThreadTS = "1700000000.000100"
				}
				payload, _ := json.Marshal(orchestrator.ReplyPayload{MessagePostArgs: functions.MessagePostArgs{Text: "hello", TargetRef: ref}})
				st.Update(t.Context(), func(tx store.Tx) error {
					return tx.QueueAdd(&store.QueueItem{Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: "default", Payload: payload})
				})

				f.mu.Lock()
				f.PostFault = c.fault
				f.mu.Unlock()
				fs.fail(c.kill)
				worker(fs).Step(t.Context()) // killed (or not) at the step

				// The restarted daemon, once the attempt's lease is over.
				clk.Add(2 * time.Minute)
				w := worker(st)
				for range 3 {
					if _, err := w.Step(t.Context()); err != nil {
						t.Fatal(err)
					}
					clk.Add(2 * time.Minute)
				}
				msgs, posts, checks := f.count()
				if msgs != 1 {
					t.Errorf("the channel has %d posts, want 1 (%d requests, %d checks)", msgs, posts, checks)
				}
				done := testkit.QueueLen(t, st, store.QueueDone)
				if done != 1 {
					t.Errorf("%d items done, want 1", done)
				}
			})
		}
	}
}

// A post that Slack never answers ends at the client's deadline even when
// the caller's context has none.
func TestDeliver_AHungPostEndsAtTheClientsDeadline(t *testing.T) {
	f := newChannelSlack(t)
	f.Hang = make(chan struct{})
	defer close(f.Hang)
	ad, err := slackad.New(slackad.Options{BotToken: "xoxb-test", APIURL: f.srv.URL + "/api/", HTTPTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	d := &orchestrator.Delivery{ItemID: "I1", Text: "hello", Attempt: 1, Target: store.TargetRef{Channel: "slack", ChannelID: "C1"}}
	errc := make(chan error, 1)
	go func() { errc <- ad.Deliver(context.Background(), d) }()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("a post Slack never answered succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Deliver still waiting 10s after a 100ms client deadline")
	}
}

// TestDeliver_KeepsThePaceAnotherProcessSet: a channel another process
// posted to a moment ago (the lane's LastPost) is not posted to again
// before the interval is up; the delivery asks to be tried after the rest.
func TestDeliver_KeepsThePaceAnotherProcessSet(t *testing.T) {
	f := newChannelSlack(t)
	ad, err := slackad.New(slackad.Options{BotToken: "xoxb-test", APIURL: f.srv.URL + "/api/", MinInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := &orchestrator.Delivery{ItemID: "01PACE", Text: "hi", Attempt: 1, Created: time.Now(), LastPost: time.Now().Add(-300 * time.Millisecond),
		Target: store.TargetRef{Channel: "slack", ChannelID: "C1"}}
	err = ad.Deliver(t.Context(), d)
	var ra *orchestrator.RetryAfterError
	if !errors.As(err, &ra) || ra.After <= 0 || ra.After > 700*time.Millisecond {
		t.Fatalf("Deliver 300ms after another process's post = %v, want to retry within the rest of the second", err)
	}
	if f.posts != 0 {
		t.Errorf("%d posts, want none before the pace allows", f.posts)
	}
	d.LastPost = time.Now().Add(-2 * time.Second)
	if err := ad.Deliver(t.Context(), d); err != nil || f.posts != 1 {
		t.Errorf("Deliver once the interval passed = %v, %d posts; want one post", err, f.posts)
	}
}
