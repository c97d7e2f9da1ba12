package slack_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// busyChannel is a Slack channel with a long history: conversations.history
// pages through it newest first, honouring limit, cursor and oldest, as
// Slack does.
type busyChannel struct {
	mu      sync.Mutex
	msgs    []map[string]any // oldest first
	posts   int
	oldests []string
}

func (b *busyChannel) serve(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	w.Header().Set("Content-Type", "application/json")
	b.mu.Lock()
	defer b.mu.Unlock()
	switch strings.TrimPrefix(r.URL.Path, "/api/") {
	case "chat.postMessage":
		b.posts++
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": r.Form.Get("channel"), "ts": "9999999999.000001"})
	case "conversations.history":
		b.oldests = append(b.oldests, r.Form.Get("oldest"))
		oldest, _ := strconv.ParseFloat(r.Form.Get("oldest"), 64)
		limit, _ := strconv.Atoi(r.Form.Get("limit"))
		start, _ := strconv.Atoi(r.Form.Get("cursor")) // an offset from the newest
		var page []map[string]any
		next := ""
		for i := len(b.msgs) - 1 - start; i >= 0; i-- {
			if ts, _ := strconv.ParseFloat(b.msgs[i]["ts"].(string), 64); ts < oldest {
				break
			}
			if len(page) == limit {
				next = strconv.Itoa(start + len(page))
				break
			}
			page = append(page, b.msgs[i])
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "messages": page, "has_more": next != "",
			"response_metadata": map[string]any{"next_cursor": next}})
	default:
		json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "unknown_method"})
	}
}

// TestDeliver_ARetryFindsItsPostBehindThousandsOfNewerMessages: before
// posting again, the check reads back to shortly before the item's first
// attempt, however many messages arrived since (here 2,500, more than the
// 2,000 a count bound read), and not before it.
func TestDeliver_ARetryFindsItsPostBehindThousandsOfNewerMessages(t *testing.T) {
	first := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	b := &busyChannel{}
	ts := func(at time.Time, n int) string { return fmt.Sprintf("%d.%06d", at.Unix(), n) }
	// An unrelated message from before the item was queued, the earlier
	// attempt's post, and 2,500 messages after it.
	b.msgs = append(b.msgs, map[string]any{"type": "message", "ts": ts(first.Add(-3*time.Hour), 0), "text": "old"})
	b.msgs = append(b.msgs, map[string]any{"type": "message", "ts": ts(first, 1), "text": "hello",
		"metadata": map[string]any{"event_type": slackad.DeliveryEventType, "event_payload": map[string]any{"delivery_id": "item-1"}}})
	for i := range 2500 {
		b.msgs = append(b.msgs, map[string]any{"type": "message", "ts": ts(first.Add(time.Duration(i+1)*time.Second), i+2), "text": "chatter"})
	}
	srv := httptest.NewServer(http.HandlerFunc(b.serve))
	defer srv.Close()
	ad, err := slackad.New(slackad.Options{BotToken: "xoxb-test", APIURL: srv.URL + "/api/", MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	d := &orchestrator.Delivery{ItemID: "item-1", Text: "hello", Attempt: 2, Created: first.Add(-time.Hour), FirstAttempt: first,
		Target: store.TargetRef{Channel: "slack", ChannelID: "C0000BUSY"}}
	if err := ad.Deliver(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.posts != 0 {
		t.Errorf("posted again although the earlier attempt's post is in the channel, behind 2,500 newer messages")
	}
	want := strconv.FormatInt(first.Add(-5*time.Minute).Unix(), 10) + ".000000"
	for _, o := range b.oldests {
		if o != want {
			t.Errorf("history read from %s, want from 5 minutes before the first attempt (%s)", o, want)
			break
		}
	}
}
