package conversation_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
)

// env is what a conversation needs: a real store and the functions over
// it, for an orchestrator in New York with a terminal and a Slack profile
// (every channel, admin UADMIN).
type env struct {
	st  store.Store
	reg *functions.Registry
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st := testkit.Store(t, "bolt")
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 1000, Functions: []string{"schedule.*", "message.post"}},
		Profiles: map[string]functions.Profile{
			"terminal": {Channel: "terminal"},
			"team":     {Channel: "slack", Channels: []string{"*"}, Admins: []string{"UADMIN"}},
		}})
	return &env{st: st, reg: reg}
}

func conv(e *env, now *time.Time) *conversation.Conversations {
	return &conversation.Conversations{Selector: rules.New(), Registry: e.reg, Store: e.st, Timezone: "America/New_York",
		Profiles: map[string]conversation.Profile{"team": {ID: "team", Channel: "slack"}, "terminal": {ID: "terminal", Channel: "terminal"}},
		Now:      func() time.Time { return *now }}
}

func say(c *conversation.Conversations, sender, text string) string {
	return c.Handle(context.Background(), &store.QueueItem{ChannelProfileID: "team"},
		&orchestrator.Message{Text: text, SenderID: sender, Sender: strings.ToLower(sender), ChannelID: "C0TEAM", Timezone: "America/New_York"}).Text
}

func TestConversation_AsksRemembersAndEchoes(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	if got := say(c, "UANA", "post hello world every Friday"); got != "What time? For example 9am or 17:30." {
		t.Fatalf("question = %q", got)
	}
	// Someone else in the channel does not answer Ana's question.
	if got := say(c, "UBOB", "9am"); strings.HasPrefix(got, "OK") {
		t.Errorf("another sender answered the question: %q", got)
	}
	got := say(c, "UANA", "9am")
	if !strings.HasPrefix(got, "OK — I'll post “hello world” in <#C0TEAM> every Friday at 9:00 AM (America/New_York). Next: Fri ") ||
		!strings.Contains(got, " Job ") {
		t.Errorf("echo = %q", got)
	}
	// The answered question is closed: another time makes no second job;
	// said alone right after the job, it is that job's time (NL_SPEC 23).
	if got := say(c, "UANA", "10am"); !strings.HasPrefix(got, "Updated — I'll post “hello world” in <#C0TEAM> every Friday at 10:00 AM") {
		t.Errorf("10am after the job = %q, want it moved", got)
	}
	// "post hi" asks when: "it" is that request, not yet a job, and
	// "stop it" drops its question.
	say(c, "UANA", "post hi")
	if got := say(c, "UANA", "stop it"); got != "OK, dropped — nothing scheduled." {
		t.Errorf("stop it, while “post hi” waits = %q", got)
	}
	// With no question open, "stop it" refers to the job just made.
	if got := say(c, "UANA", "stop it"); !strings.HasPrefix(got, "Paused job") {
		t.Errorf("stop it = %q", got)
	}
	// An expired question is forgotten.
	say(c, "UANA", "post bye every monday")
	now = now.Add(time.Hour)
	if got := say(c, "UANA", "10am"); strings.HasPrefix(got, "OK") {
		t.Errorf("an expired question was answered: %q", got)
	}
}

func TestConversation_AnswerInTheThreadOfTheQuestion(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	ask := func(text, ts, thread string) string {
		return c.Handle(context.Background(), &store.QueueItem{ChannelProfileID: "team"},
			&orchestrator.Message{Text: text, SenderID: "UANA", Sender: "ana", ChannelID: "C0TEAM", MessageTS: ts, ThreadTS: thread}).Text
	}
	// A request made at the top level is asked about in its thread, and
	// answered there, or by the sender's next message at the top level.
	if got := ask("post hello every friday", "1700000000.000100", ""); !strings.HasPrefix(got, "What time?") {
		t.Fatalf("question = %q", got)
	}
	if got := ask("9am", "1700000000.000200", "1700000000.000100"); !strings.HasPrefix(got, "OK — I'll post “hello”") {
		t.Errorf("answer in the thread = %q", got)
	}
	if got := ask("post bye every monday", "1700000000.000300", ""); !strings.HasPrefix(got, "What time?") {
		t.Fatalf("question = %q", got)
	}
	if got := ask("10am", "1700000000.000400", ""); !strings.HasPrefix(got, "OK — I'll post “bye”") {
		t.Errorf("answer at the top level = %q", got)
	}
	// A question asked in another thread is another conversation: neither
	// the top level nor a third thread answers it.
	if got := ask("post hi every tuesday", "1700000000.000600", "1700000000.000500"); !strings.HasPrefix(got, "What time?") {
		t.Fatalf("question in a thread = %q", got)
	}
	for _, thread := range []string{"", "1700000000.000100"} {
		if got := ask("11am", "1700000000.000700", thread); strings.HasPrefix(got, "OK") {
			t.Errorf("a message in thread %q answered another thread's question: %q", thread, got)
		}
	}
	if got := ask("11am", "1700000000.000800", "1700000000.000500"); !strings.HasPrefix(got, "OK — I'll post “hi”") {
		t.Errorf("answer in the question's thread = %q", got)
	}
	// In a direct message the whole channel is one conversation.
	dm := func(text, ts string) string {
		return c.Handle(context.Background(), &store.QueueItem{ChannelProfileID: "team"},
			&orchestrator.Message{Text: text, SenderID: "UANA", Sender: "ana", ChannelID: "D0ANA", MessageTS: ts}).Text
	}
	dm("post bye every monday", "1700000001.000100")
	if got := dm("10am", "1700000001.000200"); !strings.HasPrefix(got, "OK — I'll post “bye”") {
		t.Errorf("DM answer = %q", got)
	}
}

func TestConversation_OnlyTheCreatorOrAnAdminChangesAJob(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	if got := say(c, "UANA", "post standup notes every weekday at 9:30am"); !strings.HasPrefix(got, "OK") {
		t.Fatalf("create = %q", got)
	}
	for _, text := range []string{"delete the standup notes", "pause the standup notes", "change the standup notes to 10am every weekday"} {
		got := say(c, "UBOB", text)
		if !strings.HasPrefix(got, "Sorry — only its creator (uana) or an admin of the channel profile may") {
			t.Errorf("stranger %q: %q", text, got)
		}
	}
	var j *store.Job
	e.st.View(t.Context(), func(tx store.Tx) error {
		p, err := tx.JobList(nil)
		j = p.Jobs[0]
		return err
	})
	if j.State != store.JobEnabled || j.Schedule.Cron != "30 9 * * 1-5" {
		t.Fatalf("a stranger changed the job: %+v", j)
	}
	// Reading is for anyone; an admin may delete.
	if got := say(c, "UBOB", "list schedules"); !strings.Contains(got, "standup notes") {
		t.Errorf("list by a stranger: %q", got)
	}
	if got := say(c, "UADMIN", "delete the standup notes"); !strings.HasPrefix(got, "Deleted job") {
		t.Errorf("admin delete: %q", got)
	}
}

// "help" is answered with examples, and nothing is called or stored.
func TestConversation_HelpIsAReplyNeverACall(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	for _, text := range []string{"help", "what can you do?", "?"} {
		got := say(c, "UANA", text)
		if !strings.Contains(got, "post “standup in 5” in #team every weekday") || !strings.Contains(got, "pause the standup") {
			t.Errorf("%q: %q, want the help text", text, got)
		}
	}
	if got := say(c, "UANA", "list my schedules"); !strings.HasPrefix(got, "No schedules yet") {
		t.Errorf("help created something: %q", got)
	}
}

// actions are the audit log's actions, oldest first.
func (e *env) actions(t *testing.T) string {
	t.Helper()
	var evs []*store.AuditEvent
	e.st.View(t.Context(), func(tx store.Tx) (err error) { evs, err = tx.AuditList(nil); return })
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Action)
	}
	return strings.Join(out, " ")
}

// count is how many items are in queue q.
func (e *env) count(t *testing.T, q store.QueueName) int {
	t.Helper()
	return testkit.QueueLen(t, e.st, q)
}

// A job in another zone than the sender's says its first run on the
// sender's clock too; one in the sender's zone does not. (The functions
// read the real clock: the day named is three days ahead.)
func TestConversation_OtherZoneSaysYourTime(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	ny, _ := time.LoadLocation("America/New_York")
	day := now.In(tokyo).AddDate(0, 0, 3)
	at := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, tokyo)
	got := say(c, "UANA", "post hi in #team on "+at.Format("January 2")+" at 9am JST")
	if want := " That's " + at.In(ny).Format("Mon 2 Jan 3:04 PM") + " your time (America/New_York). Job "; !strings.Contains(got, want) {
		t.Errorf("9am JST = %q, want it to contain %q", got, want)
	}
	got = say(c, "UANA", "post standup in #team every weekday at 9am London time")
	if !regexp.MustCompile(`\. The first is \w{3} \d+ \w{3} [45]:00 AM your time \(America/New_York\)\. Job `).MatchString(got) {
		t.Errorf("every weekday at 9am London time = %q, want the first run on the sender's clock", got)
	}
	if got := say(c, "UANA", "post lunch in #team every day at noon"); strings.Contains(got, "your time") {
		t.Errorf("a job in the sender's zone = %q, want no second clock", got)
	}
}

// After a colon that follows a when, words about time are asked about,
// and "message" makes them the message's: never a bound or a zone of the
// job.
func TestConversation_ColonTextIsTheMessage(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	for _, tc := range []struct{ request, want string }{
		{"post in #team every monday at 10: office closed from dec 24 to jan 2", "OK — I'll post “office closed from dec 24 to jan 2” in #team every Monday at 10:00 AM (America/New_York). Next: "},
		{"post in #team every friday at 9am: our call is at 6pm GMT+1", "OK — I'll post “our call is at 6pm GMT+1” in #team every Friday at 9:00 AM (America/New_York). Next: "},
	} {
		if got := say(c, "UANA", tc.request); !strings.Contains(got, "part of the message or of the schedule?") {
			t.Errorf("%q = %q, want a question", tc.request, got)
		}
		if got := say(c, "UANA", "message"); !strings.HasPrefix(got, tc.want) || strings.Contains(got, "your time") {
			t.Errorf("%q, then “message” = %q, want %q…", tc.request, got, tc.want)
		}
	}
}

// "remindme" run together is asked about; yes makes the reminder with its
// whole text (read as it stood, "send" was the action and the text cut).
func TestConversation_RunTogetherRemindIsAsked(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	if got := say(c, "UANA", "remindme to send the invoice tomorrow at 9am"); got != "Did you mean “remind me to send the invoice tomorrow at 9am”? (yes or no)" {
		t.Errorf("remindme = %q", got)
	}
	if got := say(c, "UANA", "yes"); !strings.HasPrefix(got, "OK — I'll post “send the invoice” in a direct message to <@UANA> once on ") {
		t.Errorf("yes = %q", got)
	}
}

// A monthly job on the 29th to 31st says which months have no such day
// and how to run in all of them; the 28th and the last day say nothing.
func TestConversation_ShortMonthsAreSaid(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	for _, tc := range []struct{ request, want string }{
		{"remind me every month on the 31st at 9am to back up my photos", "February, April, June, September and November have no 31st: no run then on the 31st; say “the last day of every month” for a run in every month."},
		{"remind me on the 15th and 30th of every month at 9am to invoice", "February has no 30th: no run then on the 30th;"},
		{"remind me on the 28th of every month at 9am to pay", ""},
		{"remind me on the last day of every month at 9am to pay rent", ""},
	} {
		got := say(c, "UANA", tc.request)
		if tc.want == "" && strings.Contains(got, " have no ") || tc.want == "" && strings.Contains(got, " has no ") || !strings.Contains(got, tc.want) {
			t.Errorf("%q = %q, want %q", tc.request, got, tc.want)
		}
	}
}
