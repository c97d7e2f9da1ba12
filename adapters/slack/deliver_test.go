package slack

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/schedbot/schedbot/orchestrator"
)

func TestEscape_KeepsOurLinksNotPings(t *testing.T) {
	for in, want := range map[string]string{
		"hello <!channel> & <b>":           "hello &lt;!channel&gt; &amp; &lt;b&gt;",
		"posting in <#C024BE91L> to <@U1>": "posting in <#C024BE91L> to &lt;@U1&gt;",
		"a DM to <@U0ADA12>":               "a DM to <@U0ADA12>",
		"<https://evil.example|click>":     "&lt;https://evil.example|click&gt;",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	var ra *orchestrator.RetryAfterError
	if err := classify(&slack.RateLimitedError{RetryAfter: 3 * time.Second}); !errors.As(err, &ra) || ra.After != 3*time.Second {
		t.Errorf("429: %v", err)
	}
	var pe *orchestrator.PermanentError
	for _, code := range []string{"channel_not_found", "not_in_channel", "is_archived"} {
		if err := classify(slack.SlackErrorResponse{Err: code}); !errors.As(err, &pe) {
			t.Errorf("%s: %v is not permanent", code, err)
		}
	}
	if err := classify(errors.New("connection reset by peer")); errors.As(err, &pe) || errors.As(err, &ra) {
		t.Errorf("a network error must be retried with backoff: %v", err)
	}
}

func TestReplyBlocks_DatesForEachReaderAndButtons(t *testing.T) {
	at := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	d := &orchestrator.Delivery{ReplyJobID: "01KAAAAAAAAAAAAAAAAAAAAAAA", Actions: []string{"pause", "delete"}, NextRuns: []time.Time{at}}
	text := "OK — I'll post “x” every Friday at 9:00 AM (America/New_York). Next: Fri 27 Nov 9:00 AM. Job 01KAAAAAAAAAAAAAAAAAAAAAAA."
	a, err := New(Options{BotToken: "xoxb-test"})
	if err != nil {
		t.Fatal(err)
	}
	blocks := a.blocks(t.Context(), d, text)
	if len(blocks) != 2 {
		t.Fatalf("%d blocks", len(blocks))
	}
	sec := blocks[0].(*slack.SectionBlock).Text.Text
	if !strings.Contains(sec, "<!date^1795788000^{date_short_pretty} at {time}|Fri 27 Nov 14:00 UTC>") || !strings.HasSuffix(sec, ". Job 01KAAAAAAAAAAAAAAAAAAAAAAA.") {
		t.Errorf("section = %q", sec)
	}
	acts := blocks[1].(*slack.ActionBlock).Elements.ElementSet
	if len(acts) != 3 || acts[2].(*slack.ButtonBlockElement).Style != slack.StyleDanger || acts[2].(*slack.ButtonBlockElement).Confirm == nil {
		t.Errorf("buttons = %+v", acts)
	}
	if a.blocks(t.Context(), &orchestrator.Delivery{}, "plain") != nil {
		t.Error("a plain post got blocks")
	}
}
