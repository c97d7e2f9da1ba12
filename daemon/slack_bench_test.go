package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/adapters/slack/slacktest"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// dueAcrossChannels creates perChannel once-jobs in each of n channels, all
// due now, and returns how many posts to expect.
func dueAcrossChannels(tb testing.TB, e *slackEnv, channels, perChannel int) int {
	tb.Helper()
	reg := e.d.Orchestrator("default").Reg
	runAt := time.Now().UTC().Add(-10 * time.Second).Format(time.RFC3339)
	for c := range channels {
		for i := range perChannel {
			args := fmt.Sprintf(`{"scheduleType":"once","schedule":{"runAt":%q},"targetRef":{"channel":"slack","channelId":"C%04d"},
				"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"post %d of C%04d"}}}`, runAt, c, i, c)
			if _, err := reg.Call(context.Background(), functions.Request{Function: "schedule.create", Args: []byte(args), Actor: store.Actor{Via: store.ViaCLI}}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return channels * perChannel
}

// checkPace waits for every post and checks that none was lost or doubled
// and that no channel got two posts within the per-channel interval.
func checkPace(tb testing.TB, e *slackEnv, want int, limit time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	deadline := start.Add(limit)
	var posts []slacktest.Call
	for {
		posts = posts[:0]
		for _, p := range e.f.Posts() {
			if strings.HasPrefix(p.Form.Get("text"), "post ") {
				posts = append(posts, p)
			}
		}
		if len(posts) >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	seen := map[string]int{}
	last := map[string]time.Time{}
	minGap := time.Hour
	for _, p := range posts {
		seen[p.Form.Get("text")]++
		ch := p.Form.Get("channel")
		if t, ok := last[ch]; ok {
			minGap = min(minGap, p.At.Sub(t))
		}
		last[ch] = p.At
	}
	if len(seen) != want || len(posts) != want {
		tb.Fatalf("%d distinct posts (%d in all), want %d", len(seen), len(posts), want)
	}
	if minGap < 900*time.Millisecond {
		tb.Errorf("two posts to one channel %s apart; the limit is one a second", minGap)
	}
	return time.Since(start)
}

func TestSlack_ManyPostsDueAtOnceKeepThePace(t *testing.T) {
	e := startSlack(t)
	n := dueAcrossChannels(t, e, 20, 3)
	took := checkPace(t, e, n, 30*time.Second)
	t.Logf("%d posts across 20 channels in %s", n, took)
}

// BenchmarkSlackMentionToConfirmation: from a mention on the socket to the
// confirmation's chat.postMessage, through the whole pipeline, rules selector.
func BenchmarkSlackMentionToConfirmation(b *testing.B) {
	e := startSlack(b)
	var each []time.Duration
	i := 0
	for b.Loop() {
		i++
		before := len(e.f.Posts())
		env := slacktest.Mention(fmt.Sprintf("EvB%d", i), "U1", "post standup every weekday at 9:25am", fmt.Sprintf("1700000000.%06d", i), 0)
		// A channel of its own, so the per-channel pace does not count.
		env["payload"].(map[string]any)["event"].(map[string]any)["channel"] = fmt.Sprintf("CB%05d", i)
		start := time.Now()
		e.f.SendB(b, env)
		for len(e.f.Posts()) == before {
			time.Sleep(100 * time.Microsecond)
		}
		each = append(each, time.Since(start))
	}
	slices.Sort(each)
	b.ReportMetric(float64(each[len(each)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(each[len(each)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSlack1000PostsAcross100Channels: all delivered, one a second per channel.
func BenchmarkSlack1000PostsAcross100Channels(b *testing.B) {
	for b.Loop() {
		e := startSlack(b)
		n := dueAcrossChannels(b, e, 100, 10)
		took := checkPace(b, e, n, 120*time.Second)
		b.ReportMetric(took.Seconds(), "s-to-deliver-all")
	}
}
