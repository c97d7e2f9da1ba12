package rules

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

func TestSelect_Manage(t *testing.T) {
	cases := []struct{ text, fn, args string }{
		{"list my schedules", "schedule.list", `{"createdBy":"U0ADA"}`},
		{"what's scheduled", "schedule.list", `{}`},
		{"what jobs do I have", "schedule.list", `{}`},
		{"what's scheduled in #ops", "schedule.list", `{"channelId":"#ops"}`},
		{"what's scheduled in <#C024BE91L|ops>", "schedule.list", `{"channelId":"C024BE91L"}`},
		{"show me all the jobs", "schedule.list", `{}`},
		{"pause the backup reminder", "schedule.pause", `{"jobId":"01KAAAAAAAAAAAAAAAAAAAAAAA"}`},
		{"stop the backup reminder", "schedule.pause", `{"jobId":"01KAAAAAAAAAAAAAAAAAAAAAAA"}`},
		{"resume the backup reminder", "schedule.resume", `{"jobId":"01KAAAAAAAAAAAAAAAAAAAAAAA"}`},
		{"delete job 01KBBBBBBBBBBBBBBBBBBBBBBB", "schedule.delete", `{"jobId":"01KBBBBBBBBBBBBBBBBBBBBBBB"}`},
		{"run the standup job now", "schedule.run_now", `{"jobId":"01KCCCCCCCCCCCCCCCCCCCCCCC"}`},
		{"cancel the hello world post", "schedule.delete", `{"jobId":"01KBBBBBBBBBBBBBBBBBBBBBBB"}`},
		{"show the standup", "schedule.show", `{"jobId":"01KCCCCCCCCCCCCCCCCCCCCCCC"}`},
		{"change the friday post to 10am every friday", "schedule.update",
			`{"jobId":"01KBBBBBBBBBBBBBBBBBBBBBBB","schedule":{"cron":"0 10 * * 5","timezone":"America/New_York"},"scheduleType":"cron"}`},
		// renames keep the name as written (NL_SPEC 23)
		{"rename the standup job to Daily Sync", "schedule.update", `{"jobId":"01KCCCCCCCCCCCCCCCCCCCCCCC","name":"Daily Sync"}`},
		{"give the backup reminder the name “backups”", "schedule.update", `{"jobId":"01KAAAAAAAAAAAAAAAAAAAAAAA","name":"backups"}`},
		{"change the name of the friday post to fri-hello", "schedule.update", `{"jobId":"01KBBBBBBBBBBBBBBBBBBBBBBB","name":"fri-hello"}`},
	}
	for _, c := range cases {
		in := input(c.text)
		in.Jobs = jobs
		d := Decide(in)
		if d.Function != c.fn || string(d.Args) != c.args {
			t.Errorf("%q: %s %s, want %s %s (%+v)", c.text, d.Function, d.Args, c.fn, c.args, d)
		}
	}
	in := input("pause the team post")
	in.Jobs = jobs
	if d := Decide(in); d.Missing != "job" || !strings.Contains(d.Clarify, "01KBBBBBBBBBBBBBBBBBBBBBBB") || !strings.Contains(d.Clarify, "01KCCCCCCCCCCCCCCCCCCCCCCC") {
		t.Errorf("two matches: %+v, want a question listing both", d)
	}
	in = input("pause the payroll reminder")
	in.Jobs = jobs
	if d := Decide(in); d.Unsupported == "" || !strings.Contains(d.Unsupported, "payroll") {
		t.Errorf("no match: %+v", d)
	}
	in = input("stop it")
	in.ContextJobID = "01KCCCCCCCCCCCCCCCCCCCCCCC"
	if d := Decide(in); d.Function != "schedule.pause" || !strings.Contains(string(d.Args), "01KCCC") {
		t.Errorf("stop it with a job in context: %+v", d)
	}
	in = input("call it morning standup")
	in.Jobs, in.ContextJobID = jobs, "01KCCCCCCCCCCCCCCCCCCCCCCC"
	if d := Decide(in); d.Function != "schedule.update" || string(d.Args) != `{"jobId":"01KCCCCCCCCCCCCCCCCCCCCCCC","name":"morning standup"}` {
		t.Errorf("call it … with a job in context: %+v", d)
	}
	// a run posts at once: words that are not the job's name ask first
	in = input("trigger the backup reminder")
	in.Jobs = jobs
	d := Decide(in)
	if d.Pending == nil || d.Pending.Yes == "" || d.Function != "" {
		t.Fatalf("trigger by words: %+v, want a yes/no question", d)
	}
	in = input(d.Pending.Yes)
	in.Jobs = jobs
	if d := Decide(in); d.Function != "schedule.run_now" || !strings.Contains(string(d.Args), "01KAAAAAAAAAAAAAAAAAAAAAAA") {
		t.Errorf("yes to “trigger the backup reminder”: %+v", d)
	}
	in = input("call mom at 5pm")
	in.Jobs, in.ContextJobID = jobs, "01KCCCCCCCCCCCCCCCCCCCCCCC"
	if d := Decide(in); d.Function == "schedule.update" {
		t.Errorf("“call mom at 5pm” renamed a job: %+v", d)
	}
}

// A model's question is marked as the rules mark theirs about the same
// words: about a new job, "delete it" then drops it (conversation).
func TestCheckProposal_MarksAModelsQuestion(t *testing.T) {
	ask := func(text string) selector.Decision {
		in := input(text)
		in.Jobs = jobs
		return CheckProposal(in, selector.Decision{Clarify: "What time?", Missing: selector.MissingTime,
			Pending: &selector.Pending{Text: text, Missing: selector.MissingTime}})
	}
	if d := ask("post hello every friday"); d.Pending == nil || !d.Pending.Create {
		t.Errorf("a question about a new job: %+v, want Pending.Create", d.Pending)
	}
	if d := ask("move the backup reminder"); d.Pending == nil || d.Pending.Create {
		t.Errorf("a question about a change: %+v, want no Pending.Create", d.Pending)
	}
}

// A new message with a time in it asks, and "yes" makes those words the
// message (NL_SPEC 23, 24).
func TestSelect_MessageWithATimeAsksThenTakesYes(t *testing.T) {
	in := input("make it say see you at 5")
	in.Jobs, in.ContextJobID = jobs, "01KCCCCCCCCCCCCCCCCCCCCCCC"
	d := Decide(in)
	if d.Function != "" || d.Pending == nil || d.Pending.Yes == "" {
		t.Fatalf("%+v, want a yes/no question", d)
	}
	pending := d.Pending
	in.Text = d.Pending.Yes
	if d := Decide(in); d.Function != "schedule.update" || !strings.Contains(string(d.Args), `"text":"see you at 5"`) {
		t.Errorf("yes: %s %s (%+v), want the message changed", d.Function, d.Args, d)
	}
	// a message in quotes answers it too, in those words' place
	in.Text, in.Pending = "“see you soon”", pending
	in.Pending.Expires = in.Now.Add(time.Minute)
	if d := Decide(in); d.Function != "schedule.update" || !strings.Contains(string(d.Args), `"text":"see you soon"`) {
		t.Errorf("a quoted answer: %s %s (%+v), want the message changed", d.Function, d.Args, d)
	}
}

// A job is named by another form of its words ("the meditation one" for
// "meditate"), but not by a word that only starts the same way.
func TestMatchJobs_OtherFormsOfAWord(t *testing.T) {
	js := []selector.JobRef{{JobID: "01KMEDITATE0000000000000000", Text: "meditate"}, {JobID: "01KSTANDUP00000000000000000", Text: "standup"}}
	for words, want := range map[string]string{"the meditation one": "01KMEDITATE0000000000000000", "meditating": "01KMEDITATE0000000000000000", "the standard one": ""} {
		ids, _, _ := matchJobs(js, words)
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("%q matched %q, want %q", words, got, want)
		}
	}
}

// A job named by its place in a list ("the second one", "#1") is asked
// about with the jobs numbered, unless there is one; the number picks
// it. "standup" names a job whose words are "stand-up"; "the noon one"
// names the job at noon.
func TestPickJob_ByPlaceByTimeByJoinedWords(t *testing.T) {
	a, b := "01KAAAAAAAAAAAAAAAAAAAAAAA", "01KBBBBBBBBBBBBBBBBBBBBBBB"
	two := []selector.JobRef{
		{JobID: a, Text: "eat lunch", State: "enabled", ScheduleType: "cron", Schedule: store.Schedule{Cron: "0 12 * * 3", Timezone: "America/New_York"}},
		{JobID: b, Text: "stand-up", State: "enabled", ScheduleType: "cron", Schedule: store.Schedule{Cron: "30 9 * * 1-5", Timezone: "America/New_York"}},
	}
	for _, text := range []string{"delete the second one", "pause #1", "the first one should be 10am", "push the last one to 10:30"} {
		in := input(text)
		in.Jobs = two
		if d := Decide(in); d.Pending == nil || len(d.Pending.Candidates) != 2 {
			t.Errorf("%q of two jobs: %+v, want them numbered to pick from", text, d)
		}
		in.PickedJobID = b // the answer "2"
		if d := Decide(in); !d.IsCall() || !strings.Contains(string(d.Args), b) {
			t.Errorf("%q, picked 2: %s %s, want a call on %s", text, d.Function, d.Args, b)
		}
	}
	in := input("pause #1")
	in.Jobs = two[:1]
	if d := Decide(in); d.Function != "schedule.pause" || !strings.Contains(string(d.Args), a) {
		t.Errorf("“pause #1” of one job: %+v, want it paused", d)
	}
	tue := selector.JobRef{JobID: "01KCCCCCCCCCCCCCCCCCCCCCCC", Text: "call the bank", State: "enabled", ScheduleType: "once",
		Description: "Once on Tue 1 Dec 2026 at 9:00 AM (America/New_York)"}
	for text, want := range map[string]string{"pause the standup": b, "pause the noon one": a, "pause the tuesday one": tue.JobID} {
		in := input(text)
		in.Jobs = append(slices.Clone(two), tue)
		if d := Decide(in); d.Function != "schedule.pause" || !strings.Contains(string(d.Args), want) {
			t.Errorf("%q: %s %s %s, want %s paused", text, d.Function, d.Args, d.Clarify+d.Unsupported, want)
		}
	}
}
