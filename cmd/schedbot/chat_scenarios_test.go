package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Conversations as a new user has them in `schedbot chat`: typed lines on
// standard input, answers on standard output, and judged by what they
// leave in the store.

// chat types lines into `schedbot chat` and returns what it printed.
func (c *cli) chat(lines ...string) string {
	c.t.Helper()
	stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	c.t.Cleanup(func() { stdin = strings.NewReader("") })
	return c.mustRun("chat")
}

// jobs are the store's jobs not deleted, as schedule.list returns them.
func (c *cli) jobs() []*store.Job {
	c.t.Helper()
	var page store.JobPage
	if err := json.Unmarshal([]byte(c.mustRun("call", "schedule.list", "--args", `{"state":"all"}`, "--json")), &page); err != nil {
		c.t.Fatal(err)
	}
	var out []*store.Job
	for _, j := range page.Jobs {
		if j.State != store.JobDeleted {
			out = append(out, j)
		}
	}
	return out
}

func jobText(j *store.Job) string {
	var a struct{ Text string }
	json.Unmarshal(j.TargetAction.FunctionArgs, &a)
	return a.Text
}

// jobWant is what a test expects of a conversation's one job; only the
// fields set are compared.
type jobWant struct {
	cron, rrule, text, channel string
	skips                      int
}

// onlyJob fails the test unless the store holds exactly one job, as want
// says, and returns it; out is the conversation, shown on failure.
func (c *cli) onlyJob(out string, want jobWant) *store.Job {
	c.t.Helper()
	js := c.jobs()
	ok := len(js) == 1
	if ok {
		j, ch := js[0], ""
		if j.TargetRef != nil {
			ch = j.TargetRef.ChannelID
		}
		ok = (want.cron == "" || j.Schedule.Cron == want.cron) && (want.rrule == "" || j.Schedule.RRule == want.rrule) &&
			(want.text == "" || jobText(j) == want.text) && (want.channel == "" || ch == want.channel) && (want.skips == 0 || len(j.Skip) == want.skips)
	}
	if !ok {
		c.t.Fatalf("jobs %+v, want one job %+v:\n%s", js, want, out)
	}
	return js[0]
}

func (c *cli) jobByText(text string) *store.Job {
	c.t.Helper()
	for _, j := range c.jobs() {
		if jobText(j) == text {
			return j
		}
	}
	c.t.Fatalf("no job posts %q", text)
	return nil
}

// The mission's own sentence, and every example the README and the help
// give, work in chat on the embedded default: a #channel is a label the
// terminal prints the post under.
func TestChat_ExamplesWork(t *testing.T) {
	c := newCLI(t)
	examples := []string{
		"post hello world in #team every Friday at 9AM",
		"post “standup in 5” in #team every weekday at 9:25am",
		"remind me to send the invoices on the 1st of every month at 10am",
		"remind #design Design review every other Tuesday at 12:30",
		"post hello in #team every Friday at 9am",
	}
	out := c.chat(examples...)
	if strings.Contains(out, "targetRef") || strings.Contains(out, "couldn't") {
		t.Fatalf("an example failed:\n%s", out)
	}
	if n := strings.Count(out, "OK — I'll post"); n != len(examples) {
		t.Fatalf("%d of %d examples scheduled:\n%s", n, len(examples), out)
	}
	j := c.jobByText("hello world")
	if j.TargetRef == nil || j.TargetRef.Channel != "terminal" || j.TargetRef.ChannelID != "#team" || j.Schedule.Cron != "0 9 * * 5" {
		t.Errorf("the mission's job: %+v %+v", j.TargetRef, j.Schedule)
	}
	if j := c.jobByText("Design review"); j.TargetRef == nil || j.TargetRef.ChannelID != "#design" || j.ScheduleType != store.ScheduleRRule {
		t.Errorf("the /remind example: %+v %s", j.TargetRef, j.ScheduleType)
	}
	// The examples the README's tour and help suggest next also work.
	out = c.chat("list my schedules", "pause the standup", "resume it", "move the standup to 10am", "run the standup now", "delete the standup")
	wantAll(t, out, "schedule(s):", "Paused job", "Resumed job", "Updated — I'll post “standup in 5” in #team every weekday at 10:00 AM", "Running job", "Deleted job")
}

// What the README suggests right after a create changes that job: a
// correction, a relative move, a new message, a rename (NL_SPEC 23, 39).
func TestChat_ChangesRightAfterACreate(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hello world in #team every Friday at 9AM", "no, make it 10am", "push it back an hour",
		"make it say hi all", "rename it to friday hello")
	if n := strings.Count(out, "Updated"); n != 4 {
		t.Fatalf("%d of 4 changes updated the job:\n%s", n, out)
	}
	js := c.jobs()
	if len(js) != 1 {
		t.Fatalf("%d jobs, want the one made and changed:\n%s", len(js), out)
	}
	if j := js[0]; j.Schedule.Cron != "0 11 * * 5" || jobText(j) != "hi all" || j.Name != "friday hello" || j.TargetRef == nil || j.TargetRef.ChannelID != "#team" {
		t.Errorf("the job after the changes: %s %q %q %+v\n%s", j.Schedule.Cron, jobText(j), j.Name, j.TargetRef, out)
	}
	if !strings.Contains(out, "Updated “friday hello” — I'll post “hi all” in #team every Friday at 11:00 AM") {
		t.Errorf("the rename is not confirmed in words:\n%s", out)
	}
}

// "post it in #eng too" makes a second job like the first; "send it to
// me" then moves that one (the job last spoken of) to the sender.
func TestChat_CopyThenSendToMe(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hello world in #team every Friday at 9AM 3 times", "post it in #eng too", "send it to me instead")
	wantAll(t, out, "I'll post “hello world” in #eng every Friday at 9:00 AM", "Updated")
	js := c.jobs()
	if len(js) != 2 {
		t.Fatalf("%d jobs, want the first and its copy:\n%s", len(js), out)
	}
	var where []string
	for _, j := range js {
		if j.Schedule.Cron != "0 9 * * 5" || jobText(j) != "hello world" || j.Remaining != 3 {
			t.Errorf("job %s: %s %q, %d runs left; want the first's schedule, message and count", j.JobID, j.Schedule.Cron, jobText(j), j.Remaining)
		}
		if j.TargetRef == nil {
			where = append(where, "sender")
		} else {
			where = append(where, j.TargetRef.ChannelID)
		}
	}
	if slices.Sort(where); !slices.Equal(where, []string{"#team", "sender"}) {
		t.Errorf("the jobs post to %q, want #team and the sender:\n%s", where, out)
	}
}

// A copy said shortly ("same for #eng") and changes said with what they
// replace ("from 9am to 10am", "hi team instead of hello") each do what
// they say to the job in context, and nothing more.
func TestChat_SameForThenChangesFromTo(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hello in #team every Friday at 9AM", "same for #eng", "change the time from 9am to 10am",
		"make it post hi team instead of hello")
	wantAll(t, out, "I'll post “hello” in #eng every Friday at 9:00 AM", "Updated")
	js := c.jobs()
	if len(js) != 2 {
		t.Fatalf("%d jobs, want the first and its copy:\n%s", len(js), out)
	}
	got := map[string]string{}
	for _, j := range js {
		got[j.TargetRef.ChannelID] = j.Schedule.Cron + " " + jobText(j)
	}
	if want := map[string]string{"#team": "0 9 * * 5 hello", "#eng": "0 10 * * 5 hi team"}; !maps.Equal(got, want) {
		t.Errorf("jobs %q, want %q: the copy changed, the first as made\n%s", got, want, out)
	}
}

// A correction said while a question about a new request is open
// changes that request (decision 26): the answer then makes it as
// corrected, not as first said.
func TestChat_ACorrectionWhileAskedChangesTheRequest(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hello every friday", "actually make it monday", "i meant #ops", "9am")
	js := c.jobs()
	if len(js) != 1 || js[0].Schedule.Cron != "0 9 * * 1" || js[0].TargetRef == nil || js[0].TargetRef.ChannelID != "#ops" || jobText(js[0]) != "hello" {
		t.Fatalf("jobs %+v, want one posting hello in #ops on Mondays at 9:\n%s", js, out)
	}
	c = newCLI(t)
	out = c.chat("remind me to call mom", "no wait, call dad not mom", "tomorrow at 5pm")
	if js := c.jobs(); len(js) != 1 || jobText(js[0]) != "call dad" {
		t.Fatalf("jobs %+v, want one reminder to call dad:\n%s", js, out)
	}
	// a time for a request without one is the time it lacked; a channel
	// for a reminder is where it posts, never words of it
	c = newCLI(t)
	out = c.chat("post bye every monday", "send it at 5pm instead", "remind me at 5pm", "send it to #eng instead", "stretch")
	got := map[string]string{}
	for _, j := range c.jobs() {
		got[jobText(j)] = j.Schedule.Cron
		if j.TargetRef != nil {
			got[jobText(j)] += " " + j.TargetRef.ChannelID
		}
	}
	if want := map[string]string{"bye": "0 17 * * 1", "stretch": " #eng"}; !maps.Equal(got, want) {
		t.Errorf("jobs %q, want %q:\n%s", got, want, out)
	}
}

// An answer to "What should I post? What time …?" may give both, with
// the words that lead to a message ("to", "about"), which are not part of
// it; "never mind, <request>" is that request.
func TestChat_AnAnswerGivesItsMessageAndTime(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me tomorrow", "to submit timesheet at 9am", "remind me at 5pm", "about the call",
		"remind me at 3 to call bob", "never mind, remind me at 4pm to call alice")
	got := map[string]string{}
	for _, j := range c.jobs() {
		got[jobText(j)] = j.Schedule.RunAt.UTC().Format("15:04") // the tests run in UTC
	}
	if want := map[string]string{"submit timesheet": "09:00", "the call": "17:00", "call alice": "16:00"}; !maps.Equal(got, want) {
		t.Errorf("jobs %q, want %q:\n%s", got, want, out)
	}
}

// "Which channel should I remind them in?" takes a channel with or
// without its "#"; the channel is where they are reminded, not words of
// the reminder.
func TestChat_WhichChannelTakesItsName(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind the team every friday at 9am to submit timesheets", "the eng channel")
	c.onlyJob(out, jobWant{text: "submit timesheets", channel: "#eng"})
}

// A request with no action word ("standup reminder …") is asked what to
// post, naming the channel and the when it understood; the answer is the
// message, and the when and the channel stay.
func TestChat_NoActionWordAsksTheMessage(t *testing.T) {
	c := newCLI(t)
	out := c.chat("every monday standup reminder in #eng at 9am", "Standup in 5!")
	c.onlyJob(out, jobWant{cron: "0 9 * * 1", text: "Standup in 5!", channel: "#eng"})
	if !strings.Contains(out, "What should I post in #eng every Monday at 9:00 AM?") {
		t.Errorf("the question does not say what it understood:\n%s", out)
	}
}

// A one-time post whose message opens with how often ("send daily
// summary at 6pm") asks whether it repeats: "no" posts it once, "yes"
// every day.
func TestChat_HowOftenInTheMessageIsAsked(t *testing.T) {
	c := newCLI(t)
	out := c.chat("send daily summary at 6pm", "no", "send weekly report in #finance on friday at 4pm", "yes")
	got := map[string]string{}
	for _, j := range c.jobs() {
		got[jobText(j)] = j.ScheduleType + " " + j.Schedule.Cron
	}
	if len(got) != 2 || got["daily summary"] != "once " || got["weekly report"] != "cron 0 16 * * 5" {
		t.Fatalf("jobs %v, want “daily summary” once and “weekly report” every Friday at 4pm:\n%s", got, out)
	}
	if n := strings.Count(out, "Should this repeat?"); n != 2 {
		t.Errorf("asked %d times, want twice:\n%s", n, out)
	}
}

// "is “in 5” part of the message or of the schedule?" is answered
// "message" (its channel kept), and "schedule" asks it again rather
// than listing the schedules.
func TestChat_PartOfTheMessageIsAnswered(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post standup in 5 in #team every weekday at 9:25am", "schedule", "the message")
	c.onlyJob(out, jobWant{cron: "25 9 * * 1-5", text: "standup in 5", channel: "#team"})
	if n := strings.Count(out, "part of the message or of the schedule?"); n != 2 {
		t.Errorf("asked %d times, want twice:\n%s", n, out)
	}
}

// "skip the next 2" leaves out two runs, where it used to leave out one
// and say so; "skip it next week" every run of that week.
func TestChat_SkipTheNextTwoSkipsTwo(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post “standup in 5” in #team every weekday at 9:25am", "skip the next 2")
	c.onlyJob(out, jobWant{skips: 2})
	out = c.chat("skip the standup next week")
	now := time.Now().UTC() // the chat's zone; weeks run Monday to Sunday
	monday := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7-(int(now.Weekday())+6)%7)
	inWeek := 0
	for _, at := range c.jobs()[0].Skip {
		if !at.Before(monday) && at.Before(monday.AddDate(0, 0, 7)) {
			inWeek++
		}
	}
	if inWeek != 5 {
		t.Fatalf("%d runs of the week of %s skipped, want its 5:\n%s", inWeek, monday.Format("Jan 2"), out)
	}
}

// A pause said for a while comes back by itself (its runs till then are
// skipped); "i don't need it anymore" deletes, once confirmed.
func TestChat_PauseForAWhileAndNotNeeded(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post “standup in 5” in #team every weekday at 9:25am", "pause it for 2 weeks")
	js := c.jobs()
	if len(js) != 1 || js[0].State != store.JobEnabled || len(js[0].Skip) != 10 {
		t.Fatalf("jobs %+v, want one enabled, skipping its 10 runs of 2 weeks:\n%s", js, out)
	}
	out = c.chat("i don't need it anymore", "yes")
	if js := c.jobs(); len(js) != 0 || !strings.Contains(out, "Deleted job") {
		t.Fatalf("jobs %+v, want it deleted:\n%s", js, out)
	}
}

// Replies to "What time?" that are not the time — a day part, a question
// back, filler around it — never become words of the message.
func TestChat_AnswersKeepTheMessageClean(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me on monday to renew the ssl cert", "morning", "9am",
		"remind #global every monday to post updates", "what timezone is that in?", "9am UTC",
		"remind #eng about the retro", "ok every other thursday at 2pm")
	got := map[string]bool{}
	for _, j := range c.jobs() {
		got[jobText(j)] = true
	}
	if len(got) != 3 || !got["renew the ssl cert"] || !got["post updates"] || !got["the retro"] {
		t.Fatalf("messages %v, want the three as first said:\n%s", got, out)
	}
}

// "who can see this?" is answered, and a question open then still waits.
func TestChat_WhoCanSeeThisKeepsTheQuestion(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me to call mom", "who can see this?", "tomorrow at 5pm")
	if !strings.Contains(out, "everyone in that channel sees it") {
		t.Errorf("not answered:\n%s", out)
	}
	if js := c.jobs(); len(js) != 1 || jobText(js[0]) != "call mom" {
		t.Fatalf("jobs %+v, want “call mom” made by the answer after the aside:\n%s", js, out)
	}
}

// "thanks!" and "ok" after a job are answered as what they are; while a
// question waits they answer nothing, and it is asked again.
func TestChat_ThanksIsNoRequest(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post “standup” in #team every weekday at 9am", "thanks!", "ok", "remind me to call mom", "ok", "👍", "5pm")
	if strings.Contains(out, "What would you like me to schedule?") || !strings.Contains(out, "You're welcome!") || strings.Count(out, "Anything else?") != 1 {
		t.Errorf("thanks and ok were read as requests, or answered as such while a question waited:\n%s", out)
	}
	if js := c.jobs(); len(js) != 2 {
		t.Fatalf("jobs %+v, want the standup and “call mom”:\n%s", js, out)
	}
}

// A time said alone right after a change is the job's time: "only
// weekdays", then "8am", moves it to 8am rather than asking what to post.
func TestChat_ATimeAloneAfterAChangeIsItsTime(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post “standup” in #team every day at 9am", "only weekdays", "8am")
	c.onlyJob(out, jobWant{cron: "0 8 * * 1-5"})
}

// "every second Monday" is asked about; the answers the question offers
// settle it, and a time alone does not.
func TestChat_EverySecondMondayIsAskedAndAnswered(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me to stretch every second monday", "9am", "every other monday at 9am")
	c.onlyJob(out, jobWant{rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=9;BYMINUTE=0"})
	if n := strings.Count(out, "Every second Monday of the month, or every second week?"); n != 2 {
		t.Errorf("asked %d times, want twice (a time alone answers nothing):\n%s", n, out)
	}
}

// While a question about a new request waits, "it" is that request: a
// copy or a move said then never touches the job made before.
func TestChat_ACopyWhileAskedTouchesNoEarlierJob(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hi every monday at 9am in #ops", "post hello every friday in #team", "and #eng", "dm me too", "9am")
	got := map[string]string{}
	for _, j := range c.jobs() {
		got[jobText(j)] = "the sender"
		if j.TargetRef != nil {
			got[jobText(j)] = j.TargetRef.ChannelID
		}
	}
	if want := map[string]string{"hi": "#ops", "hello": "#team"}; !maps.Equal(got, want) {
		t.Errorf("jobs %q, want %q:\n%s", got, want, out)
	}
}

// "change the message" and "change the day" name only the part to
// change; each asks, and its answer alone is the new message or day.
func TestChat_ChangeAPartThenAnswer(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hello world in #team every Friday at 9AM", "change the message", "ok", "see you at 5", "what?", "yes", "change the day", "tuesday")
	// "ok" and "what?" answer nothing; words with a time ask first
	wantAll(t, out, "What should it say?", "I'm still asking about", "Should the new message be “see you at 5”?", "What should it change to?")
	c.onlyJob(out, jobWant{cron: "0 9 * * 2", text: "see you at 5"})
}

// A question's request is quoted as its sender said it: a message given
// in answer to "What would you like me to schedule?" is "post “…”".
func TestChat_AQuestionQuotesItsRequestAsSaid(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post", "hello world", "huh?", "post hi every day at 9am")
	wantAll(t, out, "I'm still asking about “post “hello world””", "I've dropped my earlier question about “post “hello world””")
	if strings.Contains(out, ": “hello world”") {
		t.Errorf("the request is quoted in its stored form:\n%s", out)
	}
}

// A name another job holds is refused in words (the API's 409), and
// nothing changes.
func TestChat_ANameTakenIsSaidInWords(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hi every day at 9am in #team", "rename it to standup", "post bye every day at 10am in #team", "rename it to standup")
	wantAll(t, out, "Another schedule already has that name; pick another one. Nothing was changed.")
	names := 0
	for _, j := range c.jobs() {
		if j.Name == "standup" {
			names++
		}
	}
	if names != 1 {
		t.Errorf("%d jobs named standup, want 1:\n%s", names, out)
	}
}

// A refusal is said in words, naming what to do; no field path reaches
// the person, and nothing changes.
func TestChat_RefusalInWords(t *testing.T) {
	c := newCLI(t)
	cfg := filepath.Join(t.TempDir(), "schedbot.yaml")
	os.WriteFile(cfg, []byte(`orchestrators:
  ops:
    runtime_root: `+c.data+`
    timezone: UTC
    functions: ["schedule.*", "message.post"]
channel_profiles:
  team-slack:
    channel: slack
    orchestrator_id: ops
    slack: {team_id: T0001, channels: ["#ops", "#eng"]}
  terminal:
    channel: terminal
    orchestrator_id: ops
`), 0o600)
	stdin = strings.NewReader("post hi in #team every day at 9am\n")
	t.Cleanup(func() { stdin = strings.NewReader("") })
	out := c.mustRun("chat", "--config", cfg)
	if !strings.Contains(out, "#team isn't a channel I post to from here — the channel profile team-slack serves #ops and #eng. Nothing was scheduled.") {
		t.Errorf("refusal:\n%s", out)
	}
	if strings.Contains(out, "targetRef") {
		t.Errorf("a field path reached the person:\n%s", out)
	}
	list := c.mustRun("call", "schedule.list", "--config", cfg, "--json")
	if strings.Contains(list, `"jobId"`) {
		t.Errorf("a refused request left a job: %s", list)
	}
}

// A question never swallows the next request: a complete new request is
// that request (and says the question was dropped), cancel drops it, and a
// reply that is neither asks the question again.
func TestChat_NoSwallowing(t *testing.T) {
	c := newCLI(t)
	out := c.chat(
		"post hello every friday",             // asks what time
		"remind me to drink water every hour", // a new, complete request
		"post tea every monday",               // asks what time
		"what?",                               // neither: asked again
		"never mind",                          // dropped
		"post stretch every day",              // asks what time
		"list my schedules",                   // a request: the list
		"post coffee every day",               // asks
		"at 5",                                // narrows: am or pm?
		"pm",                                  // answered
	)
	wantAll(t, out,
		"I've dropped my earlier question about “post hello every friday”.",
		"I'm still asking about “post tea every monday”",
		"OK, dropped — nothing scheduled.",
		"Is that 5 in the morning or in the afternoon?",
		"OK — I'll post “coffee” every day at 5:00 PM",
	)
	var texts []string
	for _, j := range c.jobs() {
		texts = append(texts, jobText(j))
	}
	if strings.Join(texts, ",") != "drink water,coffee" && strings.Join(texts, ",") != "coffee,drink water" {
		t.Errorf("jobs %q, want drink water and coffee", texts)
	}
}

// "Which one?" lists the candidates numbered, by what they post, where and
// when; a number, an ordinal, a time, a channel or the job's words answer.
// The list is in next-run order, so the three jobs run two, three and
// four hours from now: the order holds at any time of day.
func TestChat_WhichOne(t *testing.T) {
	c := newCLI(t)
	at := func(k int) time.Time {
		return time.Now().UTC().Truncate(time.Hour).Add(time.Duration(k) * time.Hour)
	}
	said := func(k int) string { return at(k).Format("3pm") }                 // "9am"
	shown := func(k int) string { return at(k).Format("3:04 PM") + " (UTC)" } // "9:00 AM (UTC)"
	c.chat("post backup check A every day at "+said(2), "post backup check B in #ops every day at "+said(3),
		"post backup check C in #eng every day at "+said(4))
	a, b, cc := c.jobByText("backup check A"), c.jobByText("backup check B"), c.jobByText("backup check C")
	out := c.chat("pause the backup check", "2")
	if !strings.Contains(out, "1. post “backup check A” — every day at "+shown(2)+" · "+a.JobID) ||
		!strings.Contains(out, "2. post “backup check B” in #ops — every day at "+shown(3)+" · "+b.JobID) {
		t.Errorf("the question:\n%s", out)
	}
	if j := c.jobByText("backup check B"); j.State != store.JobPaused {
		t.Errorf("“2” paused nothing: B is %s", j.State)
	}
	c.mustRun("call", "schedule.resume", "--args", `{"jobId":"`+b.JobID+`"}`)
	for _, tc := range []struct {
		answer string
		want   *store.Job
	}{
		{"the third one", cc},
		{"the " + said(2) + " one", a},
		{"the one in #ops", b},
		{"the backup check C", cc},
		{"#1", a},
		{"last one", cc},
		{"one", a},
		{"number one", a},
	} {
		c.chat("pause the backup check", tc.answer)
		if j := c.jobByText(jobText(tc.want)); j.State != store.JobPaused {
			t.Errorf("%q: %s is %s, want paused", tc.answer, jobText(tc.want), j.State)
		}
		c.mustRun("call", "schedule.resume", "--args", `{"jobId":"`+tc.want.JobID+`"}`)
	}
	// An answer that names none keeps the question open, and cancel drops it.
	out = c.chat("delete the backup check", "the purple one", "cancel")
	if !strings.Contains(out, "OK, dropped — nothing changed.") {
		t.Errorf("cancel:\n%s", out)
	}
	if n := len(c.jobs()); n != 3 {
		t.Errorf("%d jobs left, want 3", n)
	}
}

// Chat answers what is paused, what runs on a day, when a job last ran,
// and who changed it, from the store and the audit log.
func TestChat_Questions(t *testing.T) {
	c := newCLI(t)
	c.chat("post standup in #team every weekday at 9:25am", "post backup check in #ops every day at 5pm",
		"pause the backup check", "move the standup to 10am")
	out := c.chat("what is paused?", "what's on this week?", "who paused the backup check?",
		"what changed in #team this week?", "when did the standup last run?", "show the standup")
	user, _ := chatUser()
	wantAll(t, out,
		"• "+c.jobByText("backup check").JobID+" — post “backup check” in #ops — Every day at 5:00 PM (UTC) — paused",
		user+" paused post “backup check” in #ops on ",
		user+" changed post “standup” in #team on ",
		"from “Every weekday at 9:25 AM (UTC)” to “Every weekday at 10:00 AM (UTC)”",
		"active: post “standup” in #team every weekday at 10:00 AM (UTC).",
		"It has not run yet.",
	)
	if strings.Contains(out, "backup check” in #ops\n") || strings.Contains(out, "What would you like") {
		t.Errorf("a question was not understood:\n%s", out)
	}
	// Run it now; show then tells the run.
	c.chat("run the standup now")
	if out := c.chat("show the standup"); !strings.Contains(out, "Last run: ") {
		t.Errorf("show after a run:\n%s", out)
	}
}

// A yes/no question takes yes or no.
func TestChat_YesNo(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post ping every 2 hours", "move the ping to 10am", "no", "move the ping to 10am", "yes")
	if !strings.Contains(out, "Should it run every day at 10:00 AM instead? (yes or no)") || !strings.Contains(out, "OK — I've left it as it is.") {
		t.Errorf("yes/no:\n%s", out)
	}
	if j := c.jobByText("ping"); j.ScheduleType != store.ScheduleCron || j.Schedule.Cron != "0 10 * * *" {
		t.Errorf("after yes: %s %+v", j.ScheduleType, j.Schedule)
	}
}

// "cancel" or "stop" with no question open cancels nothing and says so:
// it is never the delete (or the pause) of the job last spoken of. Words
// that name the job still change it.
func TestChat_BareCancelDeletesNothing(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post bye every monday", "9am", "cancel", "stop", "Cancel.", "never mind")
	if n := strings.Count(out, "There's nothing to cancel — I wasn't waiting for an answer, and this changed nothing."); n != 4 {
		t.Errorf("%d of 4 cancel words said there was nothing to cancel:\n%s", n, out)
	}
	if j := c.jobByText("bye"); j.State != store.JobEnabled {
		t.Errorf("a bare cancel word changed the job: it is %s\n%s", j.State, out)
	}
	c.chat("post standup every tuesday at 10am", "stop the standup")
	if j := c.jobByText("standup"); j.State != store.JobPaused {
		t.Errorf("“stop the standup”: the standup is %s", j.State)
	}
	c.chat("cancel the bye post")
	if n := len(c.jobs()); n != 1 {
		t.Errorf("“cancel the bye post” left %d jobs, want 1 (the standup)", n)
	}
	// "cancel that" after a change means undo it, which schedbot cannot
	// do: it deletes nothing (a review found it deleting a job just paused).
	out = c.chat("post lunch every day at noon", "pause it", "cancel that")
	if n := len(c.jobs()); n != 2 || !strings.Contains(out, "There's nothing to cancel") {
		t.Errorf("“cancel that” after a pause left %d jobs, want 2:\n%s", n, out)
	}
}

// While a question about a new job waits, "it" and "that" are that
// request, not yet a job: "remove it" drops the question, and no "it"
// reaches the job spoken of before.
func TestChat_ItWhileACreateWaitsIsTheRequest(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post standup in #eng every monday at 9am",
		"post hello every friday", "remove it",
		"post hello every friday", "pause it", "delete that")
	if n := strings.Count(out, "OK, dropped — nothing scheduled."); n != 2 {
		t.Errorf("%d of 2 deletes of “it” dropped the question:\n%s", n, out)
	}
	if !strings.Contains(out, "I'm still asking about “post hello every friday”: What time?") {
		t.Errorf("“pause it” did not ask the question again:\n%s", out)
	}
	if js := c.jobs(); len(js) != 1 || jobText(js[0]) != "standup" || js[0].State != store.JobEnabled {
		t.Fatalf("the standup was touched:\n%s", out)
	}
	// The question is about a change to a job: "it" is that job.
	c.chat("move it to 25:00", "pause it")
	if j := c.jobByText("standup"); j.State != store.JobPaused {
		t.Errorf("“pause it” while its update question waited: the standup is %s", j.State)
	}
}

// Words that single out no job ("delete the", "pause one", "delete the
// post" when every job is a post) ask "Which one?", listing the jobs:
// a delete, pause or update never falls back on the job last spoken of
// without "it" or "that".
func TestChat_VagueReferenceAsksWhichOne(t *testing.T) {
	c := newCLI(t)
	c.chat("post hello every monday at 9am", "post bye every friday at 5pm")
	out := c.chat("delete the", "cancel", "pause one", "cancel", "delete a", "cancel", "move the post to 10am")
	if n := strings.Count(out, "Which one?\n"); n != 3 {
		t.Errorf("%d of 3 vague references asked which one:\n%s", n, out)
	}
	for _, text := range []string{"hello", "bye"} {
		if j := c.jobByText(text); j.State != store.JobEnabled || !strings.Contains(j.Description, "9:00 AM") && !strings.Contains(j.Description, "5:00 PM") {
			t.Errorf("the %s job changed: %s, %s\n%s", text, j.State, j.Description, out)
		}
	}
	out = c.chat("delete the post", "the hello one")
	if js := c.jobs(); len(js) != 1 || jobText(js[0]) != "bye" {
		t.Errorf("“delete the post”, “the hello one” did not delete hello alone:\n%s", out)
	}
}

// The open question and "it" are kept in the store, so a restarted chat
// on the same data directory still has them.
func TestChat_RestartKeepsQuestionAndIt(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	chat := func(lines ...string) string {
		t.Helper()
		cmd := exec.Command(binary, "chat", "--data", data)
		cmd.Env = append(os.Environ(), "SCHEDBOT_CONFIG=", "TZ=UTC")
		cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("chat: %v\n%s", err, out)
		}
		return string(out)
	}
	chat("post hello every friday")
	if out := chat("9am"); !strings.Contains(out, "OK — I'll post “hello” every Friday at 9:00 AM (UTC).") {
		t.Fatalf("the question did not outlive chat:\n%s", out)
	}
	if out := chat("pause it"); !strings.Contains(out, "Paused job") {
		t.Errorf("“it” did not outlive chat:\n%s", out)
	}
}

// An answer that does not read is not glued onto the request: the
// question is asked again about the request as it was, and the next good
// answer completes it. "nine" and "afternoon" (as the am/pm question
// offers it) read.
func TestChat_UnreadAnswerKeepsTheRequest(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hello every friday", "nine",
		"post standup every monday at 3", "afternoon",
		"post tea every friday", "what timezone is that in?", "umm 9am i guess",
		"post coffee every monday", "ok 9am then")
	wantAll(t, out,
		"OK — I'll post “hello” every Friday at 9:00 AM (UTC).",
		"OK — I'll post “standup” every Monday at 3:00 PM (UTC).",
		"I'm still asking about “post tea every friday”: What time? For example 9am or 17:30.",
		"OK — I'll post “tea” every Friday at 9:00 AM (UTC).",
		"OK — I'll post “coffee” every Monday at 9:00 AM (UTC).",
	)
	if strings.Contains(out, "every friday what") || strings.Contains(out, "every friday umm") || strings.Contains(out, "ok 9am") {
		t.Errorf("an unread answer was glued onto the request:\n%s", out)
	}
}

// A line longer than chat reads (a pasted megabyte) is answered like any
// message too long, and the chat goes on.
func TestChat_OverlongLineIsAnsweredAndChatGoesOn(t *testing.T) {
	c := newCLI(t)
	out := c.chat(strings.Repeat("remind me ", 300_000), "post hi every monday at 9am")
	c.jobByText("hi") // the line after the 3 MB one was read
	if !strings.Contains(out, "too long") {
		t.Errorf("the 3 MB line got no answer saying it is too long:\n%.600s", out)
	}
}

// wantAll fails t for each of wants that chat's output lacks.
func wantAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("chat lacks %q:\n%s", want, out)
		}
	}
}

// What schedbot cannot send by (email, texts, calls) is said plainly, and
// "yes" makes the reminder it offers instead; "no" makes nothing.
func TestChat_EmailIsRefusedWithAReminderOffered(t *testing.T) {
	c := newCLI(t)
	out := c.chat("email bob tomorrow at 9am about the contract", "yes", "call mom at 5pm", "no")
	if !strings.Contains(out, "I can't send email") || !strings.Contains(out, "I can't make phone calls") || !strings.Contains(out, "nothing scheduled") {
		t.Errorf("the refusals or the no were not said:\n%s", out)
	}
	if js := c.jobs(); len(js) != 1 || jobText(js[0]) != "email bob about the contract" {
		t.Fatalf("jobs %+v, want only the reminder to email bob:\n%s", js, out)
	}
}

// "and …" goes on with the last call about the job: after a skip it
// skips, after a new job it makes one more like it.
func TestChat_AndGoesOnWithTheLastCall(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me every day at 7am to check alerts", "skip tomorrow", "and the day after tomorrow", "and at 7pm")
	js := c.jobs()
	if len(js) != 2 {
		t.Fatalf("jobs %+v, want the 7am job and one more at 7pm:\n%s", js, out)
	}
	skips := 0
	for _, j := range js {
		skips += len(j.Skip)
	}
	if skips != 2 {
		t.Errorf("%d runs skipped, want tomorrow's and the day after's:\n%s", skips, out)
	}
}

// "i need a reminder" asks what and when, and the answers that follow,
// when first and the message after, make a reminder; "of december"
// after "on the 3rd" is the date's month, not the message.
func TestChat_AReminderAskedForPieceByPiece(t *testing.T) {
	c := newCLI(t)
	out := c.chat("i need a reminder", "every wednesday at noon", "to order team lunch", "remind me on the 3rd", "of december", "to call the bank", "at 11")
	if !strings.Contains(out, "What should I remind you of, and when?") {
		t.Errorf("“i need a reminder” was not asked about as a reminder:\n%s", out)
	}
	js := c.jobs()
	if len(js) != 2 {
		t.Fatalf("jobs %+v, want the lunch and the bank reminders:\n%s", js, out)
	}
	for _, j := range js {
		switch jobText(j) {
		case "order team lunch":
			if j.Schedule.Cron != "0 12 * * 3" {
				t.Errorf("lunch: %+v, want every Wednesday at noon", j.Schedule)
			}
		case "call the bank":
			if j.Schedule.RunAt.Month() != time.December || j.Schedule.RunAt.Day() != 3 {
				t.Errorf("bank: %+v, want Dec 3", j.Schedule)
			}
		default:
			t.Errorf("job posts %q:\n%s", jobText(j), out)
		}
	}
}

// "What would you like me to schedule?" is about no request, so "it"
// stays the job spoken of before it: "skip the next 2" skips its runs.
func TestChat_AnOpenQuestionAboutNothingKeepsIt(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me every saturday at 8am to open the stall", "huh", "skip the next 2")
	c.onlyJob(out, jobWant{skips: 2})
}

// A channel given to "What would you like me to schedule?" is where the
// post goes: the complete request that follows posts there, and the
// channel is never the message.
func TestChat_AChannelFirstIsWhere(t *testing.T) {
	c := newCLI(t)
	out := c.chat("set up a daily standup reminder", "#eng", "'standup in 15 min' every weekday at 9:45am")
	c.onlyJob(out, jobWant{text: "standup in 15 min", channel: "#eng"})
}

// "only during business hours" of a job every 2 hours asks which hours,
// and "9 to 6" keeps its step within them.
func TestChat_BusinessHoursAskedOfAJob(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post 'check the pager queue' in #oncall every 2 hours", "only during business hours", "9 to 6")
	c.onlyJob(out, jobWant{cron: "0 9,11,13,15,17 * * *"})
}

// A time the clocks skip or repeat is confirmed with the time it will
// really run, and why: in New York 2:30 AM does not happen on the second
// Sunday of March, and 1:30 AM happens twice on the first of November.
func TestChat_ATimeTheClocksMoveIsSaid(t *testing.T) {
	c := newCLI(t)
	t.Setenv("TZ", "America/New_York")
	out := c.chat("every year on the second sunday of march at 2:30am post 'clocks' in #ops",
		"remind me every year on the first sunday of november at 1:30am to check the backup",
		"remind me every year on the second sunday of march at 3am to check the clocks")
	for _, want := range []string{"the clocks jump from 2:00 AM to 3:00 AM, so that day's run is at 3:00 AM", "1:30 AM comes twice (the clocks go back): that day's run is at the first 1:30 AM (EDT)"} {
		if n := strings.Count(out, want); n != 1 {
			t.Errorf("the confirmations say %q %d times, want once:\n%s", want, n, out)
		}
	}
}

// An end at a time of day bounds a job every hour, and a range of dates
// bounds a daily one.
func TestChat_EndsAtATimeAndRangesOfDates(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post 'sale ends soon!' in #promo every day at noon from dec 20 to dec 24")
	if !regexp.MustCompile(`starting \w+ 20 Dec \d+, until \w+ 24 Dec \d+`).MatchString(out) {
		t.Errorf("the range is not confirmed as Dec 20 to Dec 24:\n%s", out)
	}
	out = c.chat("remind me every hour to stretch until 11pm")
	if !strings.Contains(out, "every hour, until ") || !strings.Contains(out, "11:00 PM") {
		t.Errorf("the end at 11pm is not confirmed:\n%s", out)
	}
}

// "make it 3 weeks" of a job said to run for two is its new length.
func TestChat_ALengthSaidAgain(t *testing.T) {
	c := newCLI(t)
	c.chat("remind me every day at 8am to take vitamins for two weeks", "actually make it 3 weeks")
	jobs := c.jobs()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	if days := time.Until(jobs[0].EndAt).Hours() / 24; days < 20 || days > 22 {
		t.Errorf("the job ends in %.1f days, want 21", days)
	}
}

// "remind @dana …" on the terminal, which reaches no one but the sender,
// asks who instead and keeps the request for the answer.
func TestChat_APersonOnTheTerminalAsksWhoInstead(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind @dana to submit the report every friday at 4pm", "#team then")
	if !strings.Contains(out, "I can't reach @dana from the terminal") {
		t.Errorf("no question about @dana:\n%s", out)
	}
	c.onlyJob(out, jobWant{cron: "0 16 * * 5", text: "submit the report", channel: "#team"})
}

// "test it" of the job just made asks before it posts, and "yes" runs it.
func TestChat_TestItAsksThenRuns(t *testing.T) {
	c := newCLI(t)
	out := c.chat("post hi in #x every day at 9am", "test it", "yes")
	if !strings.Contains(out, "Run this job now: ") || !strings.Contains(out, "Running job ") {
		t.Errorf("\"test it\" then \"yes\" did not ask and run:\n%s", out)
	}
}

// A look at the schedules while a question waits is answered, and the
// question still waits for its answer.
func TestChat_AListWhileAskedKeepsTheQuestion(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me next week to renew my passport", "list my schedules", "monday at 10am")
	if !strings.Contains(out, "I'm still asking about “remind me next week to renew my passport”") {
		t.Errorf("the question was not asked again after the list:\n%s", out)
	}
	c.onlyJob(out, jobWant{text: "renew my passport"})
}

// A day said without "of the month" to a monthly job is a day of its
// month.
func TestChat_ADayOfAMonthlyJob(t *testing.T) {
	c := newCLI(t)
	out := c.chat("remind me on the last day of every month at 9am to pay rent", "actually make it the second to last day")
	c.onlyJob(out, jobWant{rrule: "FREQ=MONTHLY;BYMONTHDAY=-2;BYHOUR=9;BYMINUTE=0", text: "pay rent"})
}
