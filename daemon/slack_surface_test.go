package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/adapters/slack/slacktest"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/store"
)

func slashCmd(user, channel, text string) map[string]any {
	n := slacktest.NextEnvelope()
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", n), "type": "slash_commands", "accepts_response_payload": true,
		"payload": map[string]any{"token": "x", "team_id": "T1", "channel_id": channel, "user_id": user, "command": "/schedule",
			"text": text, "trigger_id": fmt.Sprintf("tr%d", n), "response_url": fmt.Sprintf("RESPOND/slash-%d", n)}}
}

// channelMsg is a message event in a channel (message.channels): in the
// thread of threadTS when it is set.
func channelMsg(eventID, user, text, ts, threadTS string) map[string]any {
	n := slacktest.NextEnvelope()
	ev := map[string]any{"type": "message", "channel_type": "channel", "user": user, "text": text, "ts": ts, "channel": "C0TEAM", "event_ts": ts}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", n), "type": "events_api", "payload": map[string]any{
		"token": "x", "team_id": "T1", "type": "event_callback", "event_id": eventID, "event_time": 1700000000, "event": ev}}
}

func interactive(payload map[string]any) map[string]any {
	n := slacktest.NextEnvelope()
	payload["team"] = map[string]any{"id": "T1"}
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", n), "type": "interactive", "payload": payload}
}

func (e *slackEnv) ackPayload(t *testing.T, env map[string]any) map[string]any {
	t.Helper()
	id := env["envelope_id"].(string)
	waitFor(t, 10*time.Second, "the ack of "+id, func() bool { return e.f.Ack(id) != nil })
	p, _ := e.f.Ack(id)["payload"].(map[string]any)
	return p
}

// Answers meant for the asker are shown to them alone, where Slack
// shows them: at the channel's level for a request made there (an
// ephemeral message in a thread shows only once the thread exists). The
// confirmation of a job that will post in the channel stays public, in
// the thread, as does a question, so that its answer there needs no
// mention.
func TestSlack_AnswersMeantForTheAskerArePrivate(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "post hello in #team every day at 9am", "1700000000.000100", 0))
	if p := e.waitPost(t, 1, "the confirmation"); p.Method != "chat.postMessage" || p.Form.Get("thread_ts") != "1700000000.000100" {
		t.Errorf("confirmation: %s %v", p.Method, p.Form)
	}
	id := e.jobs(t)[0].JobID
	for i, c := range []struct {
		user, text, want string
		public           bool
	}{
		{"U1", "list schedules", "1 schedule(s)", false},
		{"U1", "remind me to stretch", "When should I post", true},
		{"U2", "pause job " + id, "only its creator", false},
		// a reminder of one's own is nobody else's business
		{"U0ANA", "remind me to call mom every day at 5pm", "I'll post “call mom”", false},
	} {
		ts := fmt.Sprintf("1700000000.00020%d", i)
		e.f.Send(t, slacktest.Mention(fmt.Sprintf("EvP%d", i), c.user, c.text, ts, 0))
		p := e.waitPost(t, i+2, c.text)
		if !strings.Contains(p.Form.Get("text"), c.want) {
			t.Errorf("%q: %v, want an answer saying %q", c.text, p.Form, c.want)
		}
		switch {
		case c.public && (p.Method != "chat.postMessage" || p.Form.Get("thread_ts") != ts):
			t.Errorf("%q: %s %v, want a post in the thread of the request", c.text, p.Method, p.Form)
		case !c.public && (p.Method != "chat.postEphemeral" || p.Form.Get("user") != c.user || p.Form.Has("thread_ts")):
			t.Errorf("%q: %s %v, want an ephemeral answer to %s at the channel's level", c.text, p.Method, p.Form, c.user)
		}
	}
	// /schedule list answers through its response_url, like /remind list.
	e.f.Send(t, slashCmd("U1", "C0TEAM", "list"))
	r := e.waitResponse(t, 1, "the slash listing")
	if r.Body["response_type"] != "ephemeral" || !strings.Contains(fmt.Sprint(r.Body["text"]), "2 schedule(s)") {
		t.Errorf("slash list: %v", r.Body)
	}
	if n := len(e.f.Posts()); n != 5 {
		t.Errorf("%d posts, want 5: the slash listing went through its response_url only", n)
	}
}

// A slash command where the bot is not is answered through its
// response_url, saying how to invite it; the ack warns at once.
func TestSlack_NeverSilentWhereTheBotIsNot(t *testing.T) {
	e := startSlack(t)
	env := slashCmd("U1", "C0SECRET", "post psst every day at 9am")
	e.f.Send(t, env)
	if ack := fmt.Sprint(e.ackPayload(t, env)["text"]); !strings.Contains(ack, "I'm not in <#C0SECRET>") || !strings.Contains(ack, "/invite @schedbot") {
		t.Errorf("ack = %q, want the invite hint at once", ack)
	}
	r := e.waitResponse(t, 1, "the refusal")
	if !strings.Contains(fmt.Sprint(r.Body["text"]), "Invite me") || len(e.jobs(t)) != 0 {
		t.Errorf("refusal: %v; %d jobs", r.Body, len(e.jobs(t)))
	}
	// A job for #team asked in #secret: its public confirmation cannot
	// be posted there (not_in_channel), so it comes through response_url.
	e.f.Send(t, slashCmd("U1", "C0SECRET", "post hi in #team every day at 9am"))
	r = e.waitResponse(t, 2, "the confirmation")
	if text := fmt.Sprint(r.Body["text"]); !strings.HasPrefix(text, "OK — I'll post “hi” in <#C0TEAM>") || !strings.Contains(text, "invite me with `/invite @schedbot`") {
		t.Errorf("confirmation through response_url: %q", text)
	}
	if len(e.jobs(t)) != 1 {
		t.Errorf("%d jobs, want 1", len(e.jobs(t)))
	}
}

// A reply in the thread of schedbot's question is its answer without a
// mention; nothing else in a channel is read.
func TestSlack_AReplyInTheThreadOfAQuestionNeedsNoMention(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, slacktest.Mention("Ev1", "U0ANA1234", "remind me to stretch", "1700000000.000100", 0))
	e.waitPost(t, 1, "the question")
	e.f.Send(t, channelMsg("Ev2", "U0ANA1234", "every day at 3pm", "1700000000.000200", ""))                   // not in a thread
	e.f.Send(t, channelMsg("Ev3", "U0ANA1234", "every day at 3pm", "1700000000.000300", "1700000000.000999"))  // another thread
	e.f.Send(t, channelMsg("Ev4", "U2", "every day at 4pm", "1700000000.000400", "1700000000.000100"))         // someone else
	e.f.Send(t, channelMsg("Ev5", "U0ANA1234", "<@UBOT> every day", "1700000000.000500", "1700000000.000100")) // a mention: app_mention's
	e.f.Send(t, channelMsg("Ev6", "U0ANA1234", "every day at 3pm", "1700000000.000600", "1700000000.000100"))
	p := e.waitPost(t, 2, "the answer's confirmation")
	if !strings.HasPrefix(p.Form.Get("text"), "OK — I'll post “stretch”") {
		t.Errorf("answer: %q", p.Form.Get("text"))
	}
	// The messages before it were ignored, not answered: one reply each
	// would have come before this one, in order.
	jobs := e.jobs(t)
	if len(jobs) != 1 || jobs[0].Schedule.Cron != "0 15 * * *" || len(e.f.Posts()) != 2 {
		t.Errorf("jobs %+v, %d posts", jobs, len(e.f.Posts()))
	}
	// The question opens the thread of the request, in public; the
	// sender's next mention at the top level answers it too.
	e.f.Send(t, slacktest.Mention("Ev7", "U0ANA1234", "remind me to drink water", "1700000000.000700", 0))
	if p := e.waitPost(t, 3, "the second question"); p.Method != "chat.postMessage" || p.Form.Get("thread_ts") != "1700000000.000700" {
		t.Errorf("the question: %s %v, want it in the thread of the request", p.Method, p.Form)
	}
	e.f.Send(t, slacktest.Mention("Ev8", "U0ANA1234", "every 2 hours", "1700000000.000800", 0))
	if p := e.waitPost(t, 4, "the top-level answer's confirmation"); !strings.Contains(p.Form.Get("text"), "“drink water”") || len(e.jobs(t)) != 2 {
		t.Errorf("answer by a new mention: %q, %d jobs", p.Form.Get("text"), len(e.jobs(t)))
	}
}

// The Home tab shows a user's schedules (all of them to an admin) with
// their buttons and New schedule, published again when one changes.
func TestSlack_HomeTabShowsYourSchedulesAndFollowsThem(t *testing.T) {
	e := startSlack(t)
	opened := func(user string) {
		n := slacktest.NextEnvelope()
		e.f.Send(t, map[string]any{"envelope_id": fmt.Sprintf("env-%d", n), "type": "events_api", "payload": map[string]any{
			"token": "x", "team_id": "T1", "type": "event_callback", "event_id": fmt.Sprintf("EvH%d", n), "event_time": 1700000000,
			"event": map[string]any{"type": "app_home_opened", "user": user, "channel": "D0" + user, "tab": "home", "event_ts": "1700000000.1"}}})
	}
	opened("U1")
	v := e.waitView(t, "views.publish", 1, "U1's Home")
	if v.Form.Get("user_id") != "U1" || !strings.Contains(v.Form.Get("view"), "Your schedules") || !strings.Contains(v.Form.Get("view"), "schedbot_new") ||
		!strings.Contains(v.Form.Get("view"), "No schedules yet") {
		t.Errorf("empty Home: %v", v.Form)
	}
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "post hello in #team every day at 9am", "1700000000.000100", 0))
	e.waitPost(t, 1, "the confirmation")
	id := e.jobs(t)[0].JobID
	waitFor(t, 10*time.Second, "Home published again with the job", func() bool {
		vs := e.f.ViewCalls("views.publish")
		last := vs[len(vs)-1].Form
		return last.Get("user_id") == "U1" && strings.Contains(last.Get("view"), id) && strings.Contains(last.Get("view"), "schedbot_pause")
	})
	opened("U2")
	opened("UADMIN")
	waitFor(t, 10*time.Second, "U2's and the admin's Home", func() bool {
		seen := map[string]string{}
		for _, c := range e.f.ViewCalls("views.publish") {
			seen[c.Form.Get("user_id")] = c.Form.Get("view")
		}
		return seen["U2"] != "" && seen["UADMIN"] != ""
	})
	for _, c := range e.f.ViewCalls("views.publish") {
		if has := strings.Contains(c.Form.Get("view"), id); c.Form.Get("user_id") == "U2" && has || c.Form.Get("user_id") == "UADMIN" && !has {
			t.Errorf("%s's Home, job shown: %v", c.Form.Get("user_id"), has)
		}
	}
}

func (e *slackEnv) waitView(t *testing.T, method string, n int, what string) slacktest.Call {
	t.Helper()
	waitFor(t, 10*time.Second, what, func() bool { return len(e.f.ViewCalls(method)) >= n })
	return e.f.ViewCalls(method)[n-1]
}

// formView is the New schedule form as Slack sends it back: its text and
// channel in its state.
func formView(callback, text, channel string) map[string]any {
	return map[string]any{"id": "V1", "hash": "h1", "type": "modal", "callback_id": callback, "state": map[string]any{"values": map[string]any{
		"when":  map[string]any{"schedbot_draft": map[string]any{"type": "plain_text_input", "value": text}},
		"where": map[string]any{"schedbot_where": map[string]any{"type": "conversations_select", "selected_conversation": channel}},
	}}}
}

// The global shortcut and /schedule with no text open the form; each
// keystroke updates its preview; submitting creates through
// schedule.create, and what stops it shows under the text box.
func TestSlack_NewScheduleFormPreviewsAndCreates(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, interactive(map[string]any{"type": "shortcut", "callback_id": "schedbot_new", "trigger_id": "trS", "user": map[string]any{"id": "U1"}}))
	v := e.waitView(t, "views.open", 1, "the form")
	var form struct {
		Blocks []struct {
			BlockID        string `json:"block_id"`
			DispatchAction bool   `json:"dispatch_action"`
			Element        struct {
				ActionID string `json:"action_id"`
				Dispatch struct {
					On []string `json:"trigger_actions_on"`
				} `json:"dispatch_action_config"`
			} `json:"element"`
		} `json:"blocks"`
	}
	json.Unmarshal([]byte(v.Form.Get("view")), &form)
	if b := form.Blocks[0]; b.BlockID != "when" || !b.DispatchAction || b.Element.ActionID != "schedbot_draft" || fmt.Sprint(b.Element.Dispatch.On) != "[on_character_entered]" {
		t.Errorf("the text box does not dispatch each keystroke: %+v", b)
	}
	if v.Form.Get("trigger_id") != "trS" ||
		!strings.Contains(v.Form.Get("view"), "on_character_entered") || !strings.Contains(v.Form.Get("view"), "conversations_select") {
		t.Errorf("form: %v", v.Form)
	}
	e.f.Send(t, slashCmd("U1", "C0TEAM", ""))
	e.waitView(t, "views.open", 2, "the form from /schedule")
	for i, c := range []struct{ text, want string }{
		{"post standup every Friday at 9am", "I'll post “standup” in \\u003c#C0TEAM\\u003e every Friday at 9:00 AM (America/New_York). Next: "},
		{"remind me to stretch", "❓ When should I post"},
	} {
		e.f.Send(t, interactive(map[string]any{"type": "block_actions", "user": map[string]any{"id": "U1"}, "view": formView("schedbot_new", c.text, "C0TEAM"),
			"actions": []any{map[string]any{"action_id": "schedbot_draft", "block_id": "when", "type": "plain_text_input", "value": c.text}}}))
		u := e.waitView(t, "views.update", i+1, "the preview of "+c.text)
		if u.Form.Get("view_id") != "V1" || u.Form.Get("hash") != "h1" || !strings.Contains(u.Form.Get("view"), c.want) {
			t.Errorf("preview of %q: %v", c.text, u.Form)
		}
	}
	if len(e.jobs(t)) != 0 {
		t.Fatal("a preview created a job")
	}
	bad := interactive(map[string]any{"type": "view_submission", "user": map[string]any{"id": "U1"}, "view": formView("schedbot_new", "remind me to stretch", "C0TEAM")})
	e.f.Send(t, bad)
	if p := e.ackPayload(t, bad); p["response_action"] != "errors" || !strings.Contains(fmt.Sprint(p["errors"]), "when:When should I post") {
		t.Errorf("submitting a question: %v", p)
	}
	good := interactive(map[string]any{"type": "view_submission", "user": map[string]any{"id": "U1"}, "view": formView("schedbot_new", "post standup every Friday at 9am", "C0TEAM")})
	e.f.Send(t, good)
	if p := e.ackPayload(t, good); p != nil && p["response_action"] != nil {
		t.Errorf("submitting: %v", p)
	}
	jobs := e.jobs(t)
	if len(jobs) != 1 || jobs[0].TargetRef.ChannelID != "C0TEAM" || jobs[0].CreatedBy.SenderID != "U1" || jobs[0].CreatedBy.Via != store.ViaSlack {
		t.Fatalf("jobs = %+v", jobs)
	}
	if p := e.waitPost(t, 1, "the DM confirmation"); p.Form.Get("channel") != "U1" || !strings.Contains(p.Form.Get("text"), "OK — I'll post “standup”") {
		t.Errorf("confirmation: %v", p.Form)
	}
}

// "Remind me about this" DMs the asker the message's permalink, at a
// time chosen or typed.
func TestSlack_RemindMeAboutThisMessage(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, interactive(map[string]any{"type": "message_action", "callback_id": "schedbot_remind", "trigger_id": "trR",
		"user": map[string]any{"id": "U0ANA1234"}, "channel": map[string]any{"id": "C0TEAM"},
		"message": map[string]any{"ts": "1700000000.000777", "text": "please review the doc"}}))
	v := e.waitView(t, "views.open", 1, "the reminder form")
	var view map[string]any
	json.Unmarshal([]byte(v.Form.Get("view")), &view)
	meta, _ := view["private_metadata"].(string)
	if !strings.Contains(meta, "https://example.slack.com/archives/C0TEAM/p1700000000000777") || !strings.Contains(v.Form.Get("view"), "Tomorrow at 9:00 AM") {
		t.Fatalf("reminder form: %v", v.Form)
	}
	submit := func(values map[string]any) map[string]any {
		env := interactive(map[string]any{"type": "view_submission", "user": map[string]any{"id": "U0ANA1234"},
			"view": map[string]any{"id": "V2", "type": "modal", "callback_id": "schedbot_remind", "private_metadata": meta, "state": map[string]any{"values": values}}})
		e.f.Send(t, env)
		return e.ackPayload(t, env)
	}
	before := time.Now()
	if p := submit(map[string]any{"when_choice": map[string]any{"schedbot_remind_when": map[string]any{"type": "static_select", "selected_option": map[string]any{"value": "20m"}}}}); p != nil && p["response_action"] != nil {
		t.Fatalf("choice: %v", p)
	}
	if p := submit(map[string]any{"when_words": map[string]any{"schedbot_remind_words": map[string]any{"type": "plain_text_input", "value": "every day at 3pm"}}}); p != nil && p["response_action"] != nil {
		t.Fatalf("words: %v", p)
	}
	jobs := e.jobs(t)
	if len(jobs) != 2 {
		t.Fatalf("%d jobs", len(jobs))
	}
	for _, j := range jobs {
		if j.TargetRef.ChannelID != "U0ANA1234" || !strings.Contains(string(j.TargetAction.FunctionArgs), "https://example.slack.com/archives/C0TEAM/p1700000000000777") {
			t.Errorf("reminder %+v", j)
		}
		switch j.ScheduleType {
		case store.ScheduleOnce:
			if d := j.Schedule.RunAt.Sub(before); d < 19*time.Minute || d > 21*time.Minute {
				t.Errorf("in 20 minutes: runAt %s", j.Schedule.RunAt)
			}
		default:
			if j.Schedule.Cron != "0 15 * * *" {
				t.Errorf("typed words: %+v", j.Schedule)
			}
		}
	}
	if p := submit(map[string]any{}); p["response_action"] != "errors" {
		t.Errorf("no time given: %v", p)
	}
}

// A run whose post fails for good tells the job's creator once, with the
// fix, and its run shows why; a second failure the same day says nothing.
func TestSlack_TheOwnerHearsOfAFailureOnceADay(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "post hi in #team every day at 9am", "1700000000.000100", 0))
	e.waitPost(t, 1, "the confirmation")
	id := e.jobs(t)[0].JobID
	dms := func() []slacktest.Call {
		var out []slacktest.Call
		for _, p := range e.f.Posts() {
			if p.Form.Get("channel") == "U1" {
				out = append(out, p)
			}
		}
		return out
	}
	for i := range 2 {
		e.f.Mu.Lock()
		e.f.TopErrs = []string{"is_archived"} // the run's post, not the reply in the thread
		e.f.Mu.Unlock()
		e.f.Send(t, slacktest.Mention(fmt.Sprintf("EvR%d", i), "U1", "run job "+id+" now", fmt.Sprintf("1700000000.00030%d", i), 0))
		waitFor(t, 10*time.Second, "the dead letter", func() bool {
			n := 0
			n = testkit.QueueLen(t, e.st, store.QueueDead)
			return n == i+1
		})
		if i == 0 {
			waitFor(t, 10*time.Second, "the owner's DM", func() bool { return len(dms()) == 1 })
		}
	}
	// A post that works after them, on the same channel's lane: the
	// second failure's note, had there been one, came before it.
	e.f.Send(t, slacktest.Mention("EvR9", "U1", "run job "+id+" now", "1700000000.000900", 0))
	waitFor(t, 10*time.Second, "a post that arrives", func() bool {
		for _, p := range e.f.Posts() {
			if p.Form.Get("channel") == "C0TEAM" && p.Form.Get("thread_ts") == "" {
				return true
			}
		}
		return false
	})
	got := dms()
	if len(got) != 1 || !strings.Contains(got[0].Form.Get("text"), "archived") || !strings.Contains(got[0].Form.Get("text"), "Fix:") {
		t.Errorf("DMs to the owner: %d, %v", len(got), got)
	}
	var runs []*store.Run
	e.st.View(t.Context(), func(tx store.Tx) (err error) { runs, err = tx.RunList(id, 10); return })
	failed := 0
	for _, r := range runs {
		if strings.Contains(r.Error, "is_archived") {
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("no run shows the failure: %+v", runs)
	}
}

func TestSlack_HealthzIsNotReadyWhileSlackIsDisconnected(t *testing.T) {
	e := startSlack(t)
	t.Cleanup(func() { // before the daemon stops, even when the test fails
		e.f.Mu.Lock()
		e.f.RefuseOpen = false
		e.f.Mu.Unlock()
	})
	h := e.d.MetricsHandler()
	health := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/healthz", nil))
		return rec.Code, rec.Body.String()
	}
	waitFor(t, 10*time.Second, "ready", func() bool { c, _ := health(); return c == http.StatusOK })
	e.f.Mu.Lock()
	e.f.RefuseOpen = true
	e.f.Conn.Close()
	e.f.Conn = nil
	e.f.Mu.Unlock()
	waitFor(t, 10*time.Second, "not ready", func() bool {
		c, body := health()
		return c == http.StatusServiceUnavailable && strings.Contains(body, "slack")
	})
	e.f.Mu.Lock()
	e.f.RefuseOpen = false
	e.f.Mu.Unlock()
	waitFor(t, 20*time.Second, "ready again", func() bool { c, _ := health(); return c == http.StatusOK })
}

// firedValue is the value of action on a fired post's blocks (for the
// Snooze select, of its option whose value ends in choice).
func firedValue(t *testing.T, blocks, action, choice string) string {
	t.Helper()
	var bs []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			Options  []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"elements"`
	}
	json.Unmarshal([]byte(blocks), &bs)
	for _, b := range bs {
		for _, el := range b.Elements {
			if el.ActionID != action {
				continue
			}
			for _, o := range el.Options {
				if strings.HasSuffix(o.Value, ":"+choice) {
					return o.Value
				}
			}
			return el.Value
		}
	}
	t.Fatalf("no %s in %s", action, blocks)
	return ""
}

// A fired reminder's buttons run schedule.complete, schedule.snooze and
// schedule.skip as the clicker, and the post says so. (Those functions
// come from another branch: until they are in the registry, their
// buttons are not shown, which the adapter's tests check.)
func TestSlack_AFiredReminderIsCompletedSnoozedAndSkipped(t *testing.T) {
	e := startSlack(t)
	if !e.d.Has("team", "schedule.complete") || !e.d.Has("team", "schedule.snooze") || !e.d.Has("team", "schedule.skip") {
		t.Skip("schedule.complete, snooze and skip are not in this build's registry yet")
	}
	e.f.Send(t, slacktest.Mention("Ev1", "U1", "post standup in #team every day at 9am", "1700000000.000100", 0))
	e.waitPost(t, 1, "the confirmation")
	e.f.Send(t, slacktest.Mention("Ev2", "U1", "run it now", "1700000000.000200", 0))
	var post slacktest.Call
	waitFor(t, 10*time.Second, "the fired post", func() bool {
		for _, p := range e.f.Posts() {
			if p.Form.Get("channel") == "C0TEAM" && p.Form.Get("thread_ts") == "" {
				post = p
				return true
			}
		}
		return false
	})
	blocks := post.Form.Get("blocks")
	id := e.jobs(t)[0].JobID
	for i, c := range []struct{ action, choice, note string }{
		{"schedbot_snooze", "1h", "Snoozed until"},
		{"schedbot_skip", "", "Next one skipped by"},
		{"schedbot_complete", "", "Completed by"},
	} {
		e.f.Send(t, slacktest.Click("U1", c.action, firedValue(t, blocks, c.action, c.choice)))
		upd := e.waitCall(t, "chat.update", i+1, "the post after "+c.action)
		if !strings.Contains(upd.Form.Get("blocks"), c.note) {
			t.Errorf("%s: %s", c.action, upd.Form.Get("blocks"))
		}
	}
	var evs []*store.AuditEvent
	e.st.View(t.Context(), func(tx store.Tx) (err error) { evs, err = tx.AuditList(nil); return })
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.JobID == id && ev.Actor.SenderID == "U1" {
			seen[ev.Action] = true
		}
	}
	t.Logf("audited: %v", seen)
	if j := e.jobs(t)[0]; len(seen) < 4 {
		t.Errorf("job %+v; audited actions by U1: %v", j, seen)
	}
}

// dmMsg is a direct message from U0ANA; in the thread of threadTS when set.
func dmMsg(eventID, text, ts, threadTS string) map[string]any {
	ev := map[string]any{"type": "message", "channel_type": "im", "user": "U0ANA", "text": text, "ts": ts, "channel": "D0ANA", "event_ts": ts}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
	}
	return map[string]any{"envelope_id": fmt.Sprintf("env-%d", slacktest.NextEnvelope()), "type": "events_api", "payload": map[string]any{
		"token": "x", "team_id": "T1", "type": "event_callback", "event_id": eventID, "event_time": 1700000000, "event": ev}}
}

// What Slack writes in its markup (entities, links, "@schedbot: …") is
// read as the person typed it, and posted back escaped once. A direct
// message is answered in line, and a reply in a DM's thread is the same
// conversation.
func TestSlack_TextIsWhatThePersonTyped(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, slacktest.Mention("EvT1", "U1", ": post R&amp;D sync <https://x.io/doc|the doc> in #team every day at 9am", "1700000000.000100", 0))
	post := e.waitPost(t, 1, "the confirmation")
	if text := post.Form.Get("text"); !strings.Contains(text, "“R&amp;D sync the doc (https://x.io/doc)”") || strings.Contains(text, "&amp;amp;") {
		t.Errorf("confirmation = %q, want the text escaped once", text)
	}
	if js := e.jobs(t); len(js) != 1 || !strings.Contains(string(js[0].TargetAction.FunctionArgs), `"R&D sync the doc (https://x.io/doc)"`) {
		t.Fatalf("jobs = %+v", js)
	}
	e.f.Send(t, dmMsg("EvT2", "remind me to drink water", "1700000001.000100", ""))
	post = e.waitPost(t, 2, "the DM question")
	if post.Form.Get("channel") != "D0ANA" || post.Form.Has("thread_ts") || !strings.Contains(post.Form.Get("text"), "drink water") {
		t.Errorf("DM question %v, want it in line", post.Form)
	}
	e.f.Send(t, dmMsg("EvT3", "every 2 hours", "1700000001.000200", "1700000001.000100"))
	post = e.waitPost(t, 3, "the DM answer's confirmation")
	// an interval is told in its sender's zone, as any other schedule
	if !strings.Contains(post.Form.Get("text"), "every 2 hours (America/New_York)") || len(e.jobs(t)) != 2 {
		t.Errorf("the answer in the DM's thread: %q, %d jobs", post.Form.Get("text"), len(e.jobs(t)))
	}
}

// The confirmation of a pause offers Resume, as SLACK.md says of every
// confirmation.
func TestSlack_APauseOffersResume(t *testing.T) {
	e := startSlack(t)
	e.f.Send(t, slacktest.Mention("EvR1", "U1", "post hello in #team every day at 9am", "1700000000.000100", 0))
	e.waitPost(t, 1, "the confirmation")
	e.f.Send(t, slacktest.Mention("EvR2", "U1", "pause it", "1700000000.000200", 0))
	if p := e.waitPost(t, 2, "the pause's confirmation"); !strings.Contains(p.Form.Get("text"), "Paused") || !strings.Contains(p.Form.Get("blocks"), "schedbot_resume") {
		t.Errorf("the pause's confirmation: %v", p.Form)
	}
}
