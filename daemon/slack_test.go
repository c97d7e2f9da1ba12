package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/adapters/slack/slacktest"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

type slackEnv struct {
	f  *slacktest.Slack
	d  *Daemon
	st store.Store
}

func startSlack(t testing.TB) *slackEnv {
	t.Helper()
	e, stop := startSlackAt(t, slacktest.New(t), t.TempDir())
	t.Cleanup(stop)
	return e
}

// startSlackAt runs the daemon on dir against f; stop ends it.
func startSlackAt(t testing.TB, f *slacktest.Slack, dir string) (*slackEnv, func()) {
	t.Helper()
	path := filepath.Join(dir, "schedbot.yaml")
	os.WriteFile(path, []byte(slacktest.Config), 0o600)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	t.Setenv("SLACK_APP_TOKEN", "xapp-test")
	t.Setenv(config.EnvSlackAPIURL, f.Server.URL+"/api/")
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	d, err := Start(ctx, cfg, Options{Logger: log, Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() {
		cancel()
		if err := d.Wait(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	}
	return &slackEnv{f: f, d: d, st: d.Orchestrator("default").Store}, stop
}

func TestSlack_RetryAfterARestartIsNotActedOnTwice(t *testing.T) {
	f := slacktest.New(t)
	dir := t.TempDir()
	e, stop := startSlackAt(t, f, dir)
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "post hello every day at 9am", "1700000000.000100", 0))
	e.waitPost(t, 1, "the confirmation")
	stop()
	f.Mu.Lock()
	f.Conn = nil
	f.Mu.Unlock()
	e, stop = startSlackAt(t, f, dir)
	defer stop()
	retry := slacktest.Mention("Ev1", "U1", "post hello every day at 9am", "1700000000.000100", 2)
	e.f.Send(t, retry)
	waitFor(t, 10*time.Second, "the retry's ack", func() bool { return e.f.Ack(retry["envelope_id"].(string)) != nil })
	e.f.Send(t, slacktest.Mention("Ev2", "U1", "list schedules", "1700000000.000200", 0))
	e.waitPost(t, 2, "the listing")
	if n := len(e.jobs(t)); n != 1 {
		t.Errorf("%d jobs after a retry across a restart, want 1", n)
	}
}

// An event is in the store by the time Slack has its ack, even while
// users.info has not answered yet; the job then gets the sender's zone.
func TestSlack_AnEventIsStoredBeforeItsAck(t *testing.T) {
	e := startSlack(t)
	gate := make(chan struct{})
	e.f.Mu.Lock()
	e.f.UserGate = gate
	e.f.Mu.Unlock()
	env := slacktest.Mention("Ev1", "U1", "post hello every day at 9am", "1700000000.000100", 0)
	e.f.Send(t, env)
	waitFor(t, 10*time.Second, "the ack", func() bool { return e.f.Ack(env["envelope_id"].(string)) != nil })
	var it *store.QueueItem
	err := e.st.View(t.Context(), func(tx store.Tx) (err error) { it, err = tx.QueueGet("slack-Ev1"); return })
	close(gate)
	if err != nil || it.Kind != store.KindMessage {
		t.Fatalf("the acknowledged event is not in the store: %v", err)
	}
	e.waitPost(t, 1, "the confirmation")
	if jobs := e.jobs(t); len(jobs) != 1 || jobs[0].Schedule.Timezone != "America/New_York" {
		t.Errorf("jobs = %+v, want one in the sender's zone", jobs)
	}
}

func (e *slackEnv) jobs(t *testing.T) []*store.Job {
	t.Helper()
	var page *store.JobPage
	e.st.View(t.Context(), func(tx store.Tx) (err error) {
		page, err = tx.JobList(&store.JobListParams{States: store.JobStates})
		return err
	})
	return page.Jobs
}

// waitResponse waits for the nth post to a response_url.
func (e *slackEnv) waitResponse(t *testing.T, n int, what string) slacktest.Response {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.Responded()) >= n })
	return e.f.Responded()[n-1]
}

// waitCall waits for the nth call of method.
func (e *slackEnv) waitCall(t *testing.T, method string, n int, what string) slacktest.Call {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.Called(method)) >= n })
	return e.f.Called(method)[n-1]
}

func (e *slackEnv) waitPost(t *testing.T, n int, what string) slacktest.Call {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.Posts()) >= n })
	return e.f.Posts()[n-1]
}

func TestSlack_MentionCreatesAJobAndConfirmsInTheThread(t *testing.T) {
	e := startSlack(t)
	env := slacktest.Mention("Ev1", "U1", "post hello world in #team every Friday at 9AM", "1700000000.000100", 0)
	e.f.Send(t, env)
	post := e.waitPost(t, 1, "the confirmation")
	if post.Form.Get("channel") != "C0TEAM" || post.Form.Get("thread_ts") != "1700000000.000100" {
		t.Errorf("confirmation went to %s thread %q", post.Form.Get("channel"), post.Form.Get("thread_ts"))
	}
	text := post.Form.Get("text")
	if !strings.HasPrefix(text, "OK — I'll post “hello world” in <#C0TEAM> every Friday at 9:00 AM (America/New_York). Next: ") {
		t.Errorf("confirmation text = %q", text)
	}
	blocks := post.Form.Get("blocks")
	for _, want := range []string{`\u003c!date^`, "schedbot_pause", "schedbot_delete"} {
		if !strings.Contains(blocks, want) {
			t.Errorf("blocks lack %s: %s", want, blocks)
		}
	}
	if e.f.Ack(env["envelope_id"].(string)) == nil {
		t.Error("the event was not acknowledged")
	}
	jobs := e.jobs(t)
	if len(jobs) != 1 || jobs[0].TargetRef.ChannelID != "C0TEAM" || jobs[0].CreatedBy.SenderID != "U1" || jobs[0].CreatedBy.Via != "slack" ||
		jobs[0].Schedule.Timezone != "America/New_York" {
		t.Fatalf("jobs = %+v", jobs)
	}
	// Slack retries the same event: acknowledged, not acted on twice.
	retry := slacktest.Mention("Ev1", "U1", "post hello world in #team every Friday at 9AM", "1700000000.000100", 1)
	e.f.Send(t, retry)
	waitFor(t, 10*time.Second, "the retry's ack", func() bool { return e.f.Ack(retry["envelope_id"].(string)) != nil })
	// No sleep to see that nothing follows: the job counts checked below,
	// after later messages have been answered, would show a second job.
	// "What's scheduled in #team" finds it by the channel's id.
	e.f.Send(t, slacktest.Mention("Ev1b", "U1", "what's scheduled in #team", "1700000000.000150", 0))
	post = e.waitPost(t, 2, "the channel listing")
	if !strings.Contains(post.Form.Get("text"), "1 schedule(s)") {
		t.Errorf("listing for #team: %q", post.Form.Get("text"))
	}
	// A channel the bot is not in: a clear reply, and no job.
	e.f.Send(t, slacktest.Mention("Ev2", "U1", "post psst in #secret every day at 9am", "1700000000.000200", 0))
	post = e.waitPost(t, 3, "the refusal")
	if !strings.Contains(post.Form.Get("text"), "Invite me") || len(e.jobs(t)) != 1 {
		t.Errorf("secret channel: %q, %d jobs", post.Form.Get("text"), len(e.jobs(t)))
	}
	// Our own messages and other bots' are ignored; a direct message is heard.
	bot := slacktest.Mention("Ev4", "UBOT", "post loop every day at 9am", "1700000000.000400", 0)
	e.f.Send(t, bot)
	other2 := slacktest.Mention("Ev5", "U7", "post spam every day at 9am", "1700000000.000500", 0)
	other2["payload"].(map[string]any)["event"].(map[string]any)["bot_id"] = "B7"
	e.f.Send(t, other2)
	dm := map[string]any{"envelope_id": fmt.Sprintf("env-%d", slacktest.NextEnvelope()), "type": "events_api", "payload": map[string]any{
		"token": "x", "team_id": "T1", "type": "event_callback", "event_id": "Ev6", "event_time": 1700000000,
		"event": map[string]any{"type": "message", "channel_type": "im", "user": "U1", "text": "list my schedules",
			"ts": "1700000000.000600", "channel": "D0ADA", "event_ts": "1700000000.000600"}}}
	e.f.Send(t, dm)
	post = e.waitPost(t, 4, "the DM answer")
	if post.Form.Get("channel") != "D0ADA" || !strings.Contains(post.Form.Get("text"), "1 schedule(s)") || len(e.jobs(t)) != 1 {
		t.Errorf("DM answer %q in %s; %d jobs (bots must be ignored)", post.Form.Get("text"), post.Form.Get("channel"), len(e.jobs(t)))
	}
	// Another team: a polite refusal and nothing else.
	other := slacktest.Mention("Ev3", "U1", "post x every day at 9am", "1700000000.000300", 0)
	other["payload"].(map[string]any)["team_id"] = "T9"
	e.f.Send(t, other)
	post = e.waitPost(t, 5, "the other team's refusal")
	if !strings.Contains(post.Form.Get("text"), "not set up for this channel") || len(e.jobs(t)) != 1 {
		t.Errorf("other team: %q", post.Form.Get("text"))
	}
}

func TestSlack_SlashCommandButtonsAndAFiredPost(t *testing.T) {
	e := startSlack(t)
	slash := map[string]any{"envelope_id": fmt.Sprintf("env-%d", slacktest.NextEnvelope()), "type": "slash_commands", "accepts_response_payload": true,
		"payload": map[string]any{"token": "x", "team_id": "T1", "channel_id": "C0TEAM", "user_id": "U1", "command": "/schedule",
			"text": "post “standup in 5” every weekday at 9:25am", "trigger_id": "tr1"}}
	e.f.Send(t, slash)
	e.waitPost(t, 1, "the slash confirmation")
	ack := e.f.Ack(slash["envelope_id"].(string))
	if ack == nil || ack["payload"].(map[string]any)["response_type"] != "ephemeral" {
		t.Errorf("slash ack = %v, want an ephemeral reply", ack)
	}
	jobs := e.jobs(t)
	if len(jobs) != 1 || jobs[0].Schedule.Cron != "25 9 * * 1-5" {
		t.Fatalf("jobs = %+v", jobs)
	}
	id := jobs[0].JobID
	value := id + ":" + slackad.Version(jobs[0])
	// A stranger's click changes nothing, and is answered to them alone.
	e.f.Send(t, slacktest.Click("U2", "schedbot_pause", value))
	r := e.waitResponse(t, 1, "the stranger's answer")
	if !strings.Contains(fmt.Sprint(r.Body["text"]), "only its creator (u1) or an admin of the channel profile may pause") ||
		r.Body["response_type"] != "ephemeral" || e.jobs(t)[0].State != store.JobEnabled {
		t.Errorf("stranger: %v, state %s", r.Body, e.jobs(t)[0].State)
	}
	// The creator's click pauses it, and the message then offers Resume.
	e.f.Send(t, slacktest.Click("U1", "schedbot_pause", value))
	upd := e.waitCall(t, "chat.update", 1, "the paused message")
	if e.jobs(t)[0].State != store.JobPaused {
		t.Errorf("after the creator's click: %s", e.jobs(t)[0].State)
	}
	if b := upd.Form.Get("blocks"); !strings.Contains(b, "schedbot_resume") || strings.Contains(b, "schedbot_pause") || !strings.Contains(b, `Paused by \u003c@U1\u003e`) ||
		upd.Form.Get("ts") != "1700000100.000001" {
		t.Errorf("updated message: %v", upd.Form)
	}
	// The same Pause clicked again on the message as it was: the job has
	// changed since, which is said, and nothing is done.
	e.f.Send(t, slacktest.Click("U1", "schedbot_resume", value))
	r = e.waitResponse(t, 2, "the stale click's answer")
	if !strings.Contains(fmt.Sprint(r.Body["text"]), "changed since this message was posted") || e.jobs(t)[0].State != store.JobPaused {
		t.Errorf("stale click: %v, state %s", r.Body, e.jobs(t)[0].State)
	}
	// The listing (to the asker alone) offers Resume, Run now and Delete,
	// the last two asking first.
	e.f.Send(t, slacktest.Mention("Ev5", "U1", "list my schedules", "1700000000.000500", 0))
	post := e.waitPost(t, 2, "the listing")
	paused := slackad.Version(e.jobs(t)[0])
	b := post.Form.Get("blocks")
	if post.Method != "chat.postEphemeral" || post.Form.Get("user") != "U1" || !strings.Contains(post.Form.Get("text"), "1 schedule(s)") ||
		!strings.Contains(b, `"value":"`+id+":"+paused+`"`) || strings.Count(b, `"confirm":{"title"`) != 2 ||
		!strings.Contains(b, "schedbot_resume") || !strings.Contains(b, "schedbot_run_now") || !strings.Contains(b, "schedbot_delete") {
		t.Errorf("listing: %s %v", post.Method, post.Form)
	}
	// Delete (confirmed in Slack's dialog) deletes.
	e.f.Send(t, slacktest.Click("U1", "schedbot_delete", id+":"+paused))
	upd = e.waitCall(t, "chat.update", 3, "the deleted message") // the second showed the stale click the job as it is
	if e.jobs(t)[0].State != store.JobDeleted || !strings.Contains(upd.Form.Get("blocks"), "Deleted by") {
		t.Errorf("after deleting: %s, %v", e.jobs(t)[0].State, upd.Form)
	}
	// A job that fires posts in its channel (escaped, "<!channel>" as the
	// words "@channel", which ping nobody), not in a thread.
	e.f.Send(t, slacktest.Mention("Ev9", "U1", "post <!channel> &amp; friends in #team every day at 9am", "1700000000.000900", 0))
	e.waitPost(t, 3, "the second confirmation")
	e.f.Send(t, slacktest.Mention("Ev10", "U1", "run it now", "1700000000.001000", 0))
	waitFor(t, 10*time.Second, "the fired post", func() bool {
		for _, p := range e.f.Posts() {
			if strings.Contains(p.Form.Get("text"), "friends") && p.Form.Get("thread_ts") == "" {
				return true
			}
		}
		return false
	})
	for _, p := range e.f.Posts() {
		if strings.Contains(p.Form.Get("text"), "friends") && p.Form.Get("thread_ts") == "" {
			if p.Form.Get("channel") != "C0TEAM" || !strings.Contains(p.Form.Get("text"), "@channel &amp; friends") || strings.Contains(p.Form.Get("text"), "<!") ||
				p.Form.Get("unfurl_links") != "false" {
				t.Errorf("fired post = %v", p.Form)
			}
		}
	}
}

func TestSlack_RateLimitAndPermanentErrors(t *testing.T) {
	e := startSlack(t)
	e.f.Mu.Lock()
	e.f.PostErrs = []string{"429"}
	e.f.Mu.Unlock()
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "list schedules", "1700000000.000100", 0))
	e.waitPost(t, 2, "the retried reply")
	posts := e.f.Posts()
	if gap := posts[1].At.Sub(posts[0].At); gap < time.Second {
		t.Errorf("retried %s after a 429 with Retry-After: 1", gap)
	}
	// A channel that is gone: recorded on the run, audited, dead-lettered.
	e.f.Send(t, slacktest.Mention("Ev2", "U1", "post hi in <#C0GONE> every day at 9am", "1700000000.000200", 0))
	e.waitPost(t, 3, "the confirmation")
	e.f.Mu.Lock()
	e.f.PostErrs = []string{"channel_not_found"}
	e.f.Mu.Unlock()
	e.f.Send(t, slacktest.Mention("Ev3", "U1", "run it now", "1700000000.000300", 0))
	waitFor(t, 10*time.Second, "the dead letter", func() bool {
		n := 0
		n = testkit.QueueLen(t, e.st, store.QueueDead)
		return n == 1
	})
	var evs []*store.AuditEvent
	e.st.View(t.Context(), func(tx store.Tx) (err error) { evs, err = tx.AuditList(nil); return })
	found := false
	for _, ev := range evs {
		found = found || ev.Action == store.AuditDeliveryFailed && strings.Contains(ev.Detail, "channel_not_found")
	}
	if !found {
		t.Error("no delivery.dead_lettered audit event")
	}
}

func TestSlack_ReconnectsAfterADisconnect(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "list schedules", "1700000000.000100", 0))
	e.waitPost(t, 1, "the first reply")
	e.f.Mu.Lock()
	e.f.Conn.Close()
	e.f.Conn = nil
	e.f.Mu.Unlock()
	waitFor(t, 20*time.Second, "a new connection", func() bool {
		e.f.Mu.Lock()
		defer e.f.Mu.Unlock()
		return e.f.Opens >= 2 && e.f.Conn != nil
	})
	e.f.Send(t, slacktest.Mention("Ev2", "U1", "post after the break every day at 9am", "1700000000.000200", 0))
	e.waitPost(t, 2, "the reply after reconnecting")
	if len(e.jobs(t)) != 1 {
		t.Errorf("jobs after reconnect: %d", len(e.jobs(t)))
	}
}

// inbox records what the HTTP adapter takes in.
type inbox struct {
	mu   sync.Mutex
	msgs []orchestrator.Message
}

func (i *inbox) Enqueue(_ context.Context, _, _ string, m orchestrator.Message, _ time.Duration) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.msgs = append(i.msgs, m)
	return nil
}

func (i *inbox) Amend(_ context.Context, _, _ string, m orchestrator.Message) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.msgs[len(i.msgs)-1] = m
	return nil
}

func (i *inbox) count() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.msgs)
}

func TestSlack_EventsOverHTTPAreVerified(t *testing.T) {
	f := slacktest.New(t)
	in := &inbox{}
	a, err := slackad.New(slackad.Options{BotToken: "xoxb-test", SigningSecret: "s3cret", APIURL: f.Server.URL + "/api/",
		Profiles: []slackad.Profile{{ID: "team", TeamID: "T1", Channels: []string{"*"}}}, Inbox: in})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.HTTPHandler(context.Background()))
	defer srv.Close()
	body, _ := json.Marshal(slacktest.Mention("Ev1", "U1", "list schedules", "1700000000.000100", 0)["payload"])
	post := func(path string, body []byte, sig string, ts int64) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("X-Slack-Signature", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	now := time.Now().Unix()
	if code := post("/slack/events", body, slacktest.Sign("wrong", now, body), now); code != http.StatusUnauthorized {
		t.Errorf("forged signature: %d", code)
	}
	old := now - 600
	if code := post("/slack/events", body, slacktest.Sign("s3cret", old, body), old); code != http.StatusUnauthorized {
		t.Errorf("stale timestamp: %d", code)
	}
	challenge := []byte(`{"type":"url_verification","challenge":"abc123","token":"x"}`)
	if code := post("/slack/events", challenge, slacktest.Sign("s3cret", now, challenge), now); code != http.StatusOK {
		t.Errorf("url_verification: %d", code)
	}
	if in.count() != 0 {
		t.Fatalf("%d messages taken in from unverified requests", in.count())
	}
	if code := post("/slack/events", body, slacktest.Sign("s3cret", now, body), now); code != http.StatusOK {
		t.Errorf("signed event: %d", code)
	}
	// Stored before the answer; the sender's zone follows.
	if in.count() != 1 {
		t.Fatalf("%d messages stored when the event was acknowledged, want 1", in.count())
	}
	waitFor(t, 10*time.Second, "the sender's zone", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.msgs[0].Timezone != ""
	})
	if m := in.msgs[0]; m.Text != "list schedules" || m.SenderID != "U1" || m.Timezone != "America/New_York" {
		t.Errorf("message = %+v", m)
	}
}
