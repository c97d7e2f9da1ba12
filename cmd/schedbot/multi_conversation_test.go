package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/adapters/slack/slacktest"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// slackHTTPInstance is one serve child process on the shared database,
// taking Slack's events over HTTP on its own address.
type slackHTTPInstance struct {
	p   *daemonProc
	url string // where its Events API listens
}

func startSlackHTTPInstance(t *testing.T) *slackHTTPInstance {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "schedbot.yaml")
	src := `store: {driver: postgres}
orchestrators:
  default: {timezone: UTC}
channel_profiles:
  team: {channel: slack, orchestrator_id: default, slack: {team_id: T1, channels: ["*"]}}
slack: {mode: http, http_listen: "` + addr + `"}
server: {socket: ./schedbot.sock}
`
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startServeConfig(t, cfg)
	p.waitReady(t, dir)
	return &slackHTTPInstance{p: p, url: "http://" + addr + "/slack/events"}
}

// event sends user's message in #team (in thread, when set) to this
// instance, signed as Slack signs it, and waits for its 200.
func (in *slackHTTPInstance) event(t *testing.T, user, id, text, ts, thread string) {
	t.Helper()
	ev := slacktest.Mention(id, user, text, ts, 0)["payload"].(map[string]any)
	if thread != "" {
		ev["event"].(map[string]any)["thread_ts"] = thread
	}
	body, _ := json.Marshal(ev)
	var status int
	waitFor(t, 10*time.Second, "the Events API of "+in.url, func() bool {
		now := time.Now().Unix()
		req, _ := http.NewRequest(http.MethodPost, in.url, bytes.NewReader(body))
		req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now, 10))
		req.Header.Set("X-Slack-Signature", slacktest.Sign("s3cret", now, body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false // not listening yet
		}
		resp.Body.Close()
		status = resp.StatusCode
		return true
	})
	if status != http.StatusOK {
		t.Fatalf("event %s to %s: status %d\n%s", id, in.url, status, in.p.stderr.String())
	}
}

// Two serve processes on one database, Slack's events reaching each over
// HTTP (as behind a load balancer): a question asked through A is
// answered through B into exactly one job, and "pause it" through B
// pauses the job last spoken of through A. Either process may take any
// message from the shared queue, so three people do it, A and B swapped
// for the second: a conversation kept in each process's memory fails at
// least one of them nearly always.
func TestServe_PostgresQuestionThroughAAnsweredThroughB(t *testing.T) {
	dsn := pgtest.DSN(t)
	f := slacktest.New(t)
	t.Setenv("SCHEDBOT_DATABASE_URL", dsn)
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	t.Setenv("SLACK_SIGNING_SECRET", "s3cret")
	t.Setenv(config.EnvSlackAPIURL, f.Server.URL+"/api/")
	a, b := startSlackHTTPInstance(t), startSlackHTTPInstance(t)
	st, err := postgres.Open(t.Context(), dsn, "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobsOf := func(user string) []*store.Job {
		var page *store.JobPage
		if err := st.View(t.Context(), func(tx store.Tx) (err error) {
			page, err = tx.JobList(&store.JobListParams{States: store.JobStates, CreatedBy: user})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return page.Jobs
	}
	posts := 0
	reply := func(what string) string {
		t.Helper()
		posts++
		waitFor(t, 20*time.Second, what, func() bool { return len(f.Posts()) >= posts })
		if got := len(f.Posts()); got != posts {
			t.Fatalf("%d posts, want %d", got, posts)
		}
		return f.Posts()[posts-1].Form.Get("text")
	}
	for i, user := range []string{"U0ANA1234", "U0BOB1234", "U0CAR1234"} {
		a, b := a, b
		if i == 1 {
			a, b = b, a
		}
		ts := func(n int) string { return fmt.Sprintf("17000000%02d.%06d", i, n) }
		ev := func(n int) string { return fmt.Sprintf("Ev%d-%d", i, n) }
		a.event(t, user, ev(1), "remind me to stretch", ts(1), "")
		if got := reply("the question"); !strings.HasPrefix(got, "When should I post “stretch”?") {
			t.Fatalf("%s: question = %q", user, got)
		}
		b.event(t, user, ev(2), "every day at 3pm", ts(2), ts(1))
		if got := reply("the answer's confirmation"); !strings.HasPrefix(got, "OK — I'll post “stretch”") {
			t.Fatalf("%s: answer through the other instance = %q", user, got)
		}
		if n := len(jobsOf(user)); n != 1 {
			t.Fatalf("%s: %d jobs after the answer, want 1", user, n)
		}
		a.event(t, user, ev(3), "post water every day at 4pm", ts(3), "")
		if got := reply("the second job"); !strings.HasPrefix(got, "OK — I'll post “water”") {
			t.Fatalf("%s: second job = %q", user, got)
		}
		b.event(t, user, ev(4), "pause it", ts(4), "")
		if got := reply("the pause"); !strings.HasPrefix(got, "Paused job") {
			t.Fatalf("%s: pause it through the other instance = %q", user, got)
		}
		for _, j := range jobsOf(user) {
			want := store.JobPaused
			if strings.Contains(string(j.TargetAction.FunctionArgs), "stretch") {
				want = store.JobEnabled
			}
			if j.State != want {
				t.Errorf("%s: job %s (%s) is %s, want %s", user, j.JobID, j.TargetAction.FunctionArgs, j.State, want)
			}
		}
	}
}
