package slack_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/orchestrator"
)

// inbox keeps what the adapter stores, or fails to store with Err.
type inbox struct {
	amended chan struct{}
	mu      sync.Mutex
	Err     error
	keys    []string
	msgs    []orchestrator.Message
	holds   []time.Duration
}

func (i *inbox) Enqueue(_ context.Context, _, key string, m orchestrator.Message, hold time.Duration) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.Err != nil {
		return i.Err
	}
	i.keys, i.msgs, i.holds = append(i.keys, key), append(i.msgs, m), append(i.holds, hold)
	return nil
}

func (i *inbox) Amend(_ context.Context, _, key string, m orchestrator.Message) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	for n, k := range i.keys {
		if k == key {
			i.msgs[n] = m
		}
	}
	select {
	case i.amended <- struct{}{}:
	default:
	}
	return nil
}

func (i *inbox) snapshot() ([]orchestrator.Message, []time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]orchestrator.Message(nil), i.msgs...), append([]time.Duration(nil), i.holds...)
}

func postSigned(t *testing.T, url string, body []byte) int {
	t.Helper()
	ts := time.Now().Unix()
	mac := hmac.New(sha256.New, []byte("s3cret"))
	fmt.Fprintf(mac, "v0:%d:%s", ts, body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

const mentionEvent = `{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"Ev1","event_time":1700000000,
"event":{"type":"app_mention","user":"U1","text":"<@UBOT> list schedules","ts":"1700000000.000100","channel":"C1","event_ts":"1700000000.000100"}}`

// A Slack event is stored before it is acknowledged: a crash right after
// the answer loses nothing. users.info (the network) comes after, and
// completes the stored message.
func TestHTTP_AnEventIsStoredBeforeItsAck(t *testing.T) {
	f := newChannelSlack(t)
	f.UserGate = make(chan struct{})
	in := &inbox{amended: make(chan struct{}, 1)}
	a, err := slackad.New(slackad.Options{BotToken: "xoxb-test", SigningSecret: "s3cret", APIURL: f.srv.URL + "/api/",
		Profiles: []slackad.Profile{{ID: "team", TeamID: "T1", Channels: []string{"*"}}}, Inbox: in})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.HTTPHandler(t.Context()))
	defer srv.Close()
	released := false
	defer func() {
		if !released {
			close(f.UserGate)
		}
	}()
	if code := postSigned(t, srv.URL+"/slack/events", []byte(mentionEvent)); code != http.StatusOK {
		t.Fatalf("event answered %d", code)
	}
	msgs, holds := in.snapshot()
	if len(msgs) != 1 {
		t.Fatalf("%d messages stored when the event was acknowledged, want 1", len(msgs))
	}
	if msgs[0].Text != "list schedules" || holds[0] <= 0 {
		t.Errorf("stored %+v with hold %s, want the text, held for the sender's zone", msgs[0], holds[0])
	}
	close(f.UserGate)
	released = true
	select {
	case <-in.amended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stored message was never completed")
	}
	msgs, _ = in.snapshot()
	if msgs[0].Timezone != "Europe/Paris" || msgs[0].Sender != "ada" {
		t.Errorf("after users.info: %+v, want the sender's name and zone", msgs[0])
	}

	// A store that fails: the event is not acknowledged, so Slack sends
	// it again.
	in.mu.Lock()
	in.Err = errors.New("disk full")
	in.mu.Unlock()
	if code := postSigned(t, srv.URL+"/slack/events", []byte(mentionEvent)); code == http.StatusOK {
		t.Errorf("an event that could not be stored was acknowledged")
	}
}
