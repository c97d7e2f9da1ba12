package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/selector"
)

// callArgs is every field of a call the table looks at, decoded generically.
type callArgs struct {
	JobID        string          `json:"jobId"`
	ScheduleType string          `json:"scheduleType"`
	Schedule     json.RawMessage `json:"schedule"`
	StartAt      time.Time       `json:"startAt"`
	EndAt        *time.Time      `json:"endAt"`
	Count        int             `json:"count"` // runs in all: the same fires as an end after the last
	TargetAction *struct {
		Type         string `json:"type"`
		WorkflowID   string `json:"workflowId"`
		FunctionID   string `json:"functionId"`
		FunctionArgs struct {
			Text string `json:"text"`
		} `json:"functionArgs"`
	} `json:"targetAction"`
	TargetRef *struct {
		ChannelID string `json:"channelId"`
	} `json:"targetRef"`
}

func (a *callArgs) schedule(into *sched) error {
	if a.ScheduleType != "" {
		into.Type = a.ScheduleType
	}
	if len(a.Schedule) > 0 {
		var raw struct {
			Cron         string    `json:"cron"`
			Timezone     string    `json:"timezone"`
			EverySeconds int64     `json:"everySeconds"`
			StartAt      time.Time `json:"startAt"`
			RunAt        time.Time `json:"runAt"`
			RRule        string    `json:"rrule"`
			Dtstart      string    `json:"dtstart"`
		}
		if err := json.Unmarshal(a.Schedule, &raw); err != nil {
			return err
		}
		into.Cron, into.Timezone, into.EverySeconds, into.StartAt = raw.Cron, raw.Timezone, raw.EverySeconds, raw.StartAt
		into.RunAt, into.RRule, into.Dtstart = raw.RunAt, raw.RRule, raw.Dtstart
	}
	if !a.StartAt.IsZero() {
		into.NotBefore = a.StartAt
	}
	if a.EndAt != nil {
		into.EndAt = *a.EndAt
	}
	if a.Count > 0 {
		next, err := compileSchedule(*into)
		if err != nil {
			return err
		}
		if fs := next(phrasingsNow, a.Count); len(fs) == a.Count {
			if end := fs[a.Count-1].Add(time.Second); into.EndAt.IsZero() || end.Before(into.EndAt) {
				into.EndAt = end
			}
		}
	}
	return nil
}

func (a *callArgs) action() string {
	switch {
	case a.TargetAction == nil:
		return ""
	case a.TargetAction.Type == "workflow_start":
		return "wf:" + a.TargetAction.WorkflowID
	case a.TargetAction.FunctionID != "" && a.TargetAction.FunctionID != "message.post":
		return "fn:" + a.TargetAction.FunctionID
	}
	return strings.TrimSpace(a.TargetAction.FunctionArgs.Text)
}

func (a *callArgs) channel() string {
	if a.TargetRef == nil || a.TargetRef.ChannelID == "" {
		return "-"
	}
	return a.TargetRef.ChannelID
}

// Outcomes of a row.
const (
	passed = "passed"
	failed = "failed"
	wrong  = "WRONG"
)

// decided is a decision reduced to what the table compares.
type decided struct {
	kind     string // call, clarify, unsupported, reply, none, panic
	function string
	missing  string
	args     json.RawMessage
	raw      string
}

// rowInput is what the selector is given for a row.
func rowInput(r phrasing) selector.Input {
	in := selector.Input{Text: r.text, SenderID: "U0ADA", Sender: "ada", ProfileID: "terminal", Channel: "terminal",
		Timezone: phrasingsZone, Now: phrasingsNow, Jobs: tableJobRefs(),
		Workflows: []string{"daily-report"}, Functions: []string{"message.post"}}
	if r.slack {
		in.Channel, in.ChannelID, in.ProfileID = "slack", "C0TEAM", "team"
	}
	if r.ctxJob != "" {
		in.ContextJobID = tableJobs[r.ctxJob].ref.JobID
	}
	return in
}

func decideRow(r phrasing) (d decided) {
	in := rowInput(r)
	defer func() {
		if p := recover(); p != nil {
			d = decided{kind: "panic", raw: fmt.Sprint(p)}
		}
	}()
	dec := Decide(in)
	b, _ := json.Marshal(dec)
	// Read generically: the reply field is not on every branch yet.
	var m struct {
		Function    string          `json:"function"`
		Args        json.RawMessage `json:"args"`
		Clarify     string          `json:"clarify"`
		Missing     string          `json:"missing"`
		Unsupported string          `json:"unsupported"`
		Reply       string          `json:"reply"`
	}
	json.Unmarshal(b, &m)
	d = decided{function: m.Function, missing: m.Missing, args: m.Args, raw: string(b)}
	switch {
	case m.Function != "":
		d.kind = "call"
	case m.Clarify != "":
		d.kind = "clarify"
	case m.Unsupported != "":
		d.kind = "unsupported"
	case m.Reply != "":
		d.kind = "reply"
	default:
		d.kind = "none"
	}
	return d
}

var callKinds = map[string]string{"create": "schedule.create", "update": "schedule.update", "list": "schedule.list", "show": "schedule.show",
	"pause": "schedule.pause", "resume": "schedule.resume", "delete": "schedule.delete", "run_now": "schedule.run_now",
	"skip": "schedule.skip", "unskip": "schedule.unskip", "snooze": "schedule.snooze", "complete": "schedule.complete",
	"history": "schedule.history", "agenda": "schedule.agenda"}

// score judges one row; why says what differed.
func score(r phrasing, d decided) (outcome, why string) {
	if d.kind == "panic" {
		return wrong, "panic: " + d.raw
	}
	fn, wantCall := callKinds[r.kind]
	if !wantCall {
		switch {
		case d.kind == "call":
			return wrong, "a call where " + r.kind + " was expected"
		case r.expect == "any" && d.kind != "none":
			return passed, "" // garbage and the past: any answer but a call
		case d.kind != r.kind:
			return failed, d.kind + " where " + r.kind + " was expected"
		case r.kind == "clarify" && d.missing != r.expect:
			return failed, "asked for " + d.missing + ", want " + r.expect
		}
		return passed, ""
	}
	if d.kind != "call" {
		return failed, d.kind
	}
	if d.function != fn {
		return wrong, d.function + ", want " + fn
	}
	if r.kind == "list" {
		return scoreList(r.expect, d.args)
	}
	if (r.kind == "agenda" || r.kind == "history") && r.expect == "-" {
		var a struct{ JobID string }
		if json.Unmarshal(d.args, &a) != nil || a.JobID != "" {
			return wrong, "a job named where none was: " + string(d.args)
		}
		return passed, ""
	}
	var a callArgs
	if err := json.Unmarshal(d.args, &a); err != nil {
		return wrong, "args: " + err.Error()
	}
	want, alias, err := parseExpect(r.expect)
	if err != nil {
		return wrong, "table: " + err.Error()
	}
	if alias != "" && a.JobID != tableJobs[alias].ref.JobID {
		return wrong, "jobId " + a.JobID + ", want " + alias
	}
	if r.kind != "create" && r.kind != "update" {
		return passed, "" // show, pause, resume, delete, run_now: the job is all
	}
	if r.kind == "update" && want.Type == "" {
		want = tableJobs[alias].sched // a change of text or target keeps the schedule
	}
	var got sched
	text, ch := a.action(), a.channel()
	if r.kind == "update" {
		j := tableJobs[alias]
		got, text, ch = j.sched, j.text, j.chanID
		if a.ScheduleType != "" && a.ScheduleType != got.Type || len(a.Schedule) > 0 {
			got = sched{Type: got.Type, EndAt: got.EndAt} // the patch's schedule replaces the job's
		}
		if a.TargetAction != nil {
			text = a.action()
		}
		if a.TargetRef != nil {
			ch = a.channel()
		}
	}
	if err := a.schedule(&got); err != nil {
		return wrong, "schedule: " + err.Error()
	}
	gotFires, err := fireSet(got)
	if err != nil {
		return wrong, "does not compile: " + err.Error()
	}
	wantFires, err := fireSet(want)
	if err != nil {
		return wrong, "table: " + err.Error()
	}
	switch {
	case gotFires != wantFires:
		return wrong, "fires " + gotFires + ", want " + wantFires
	case r.msg != "-" && text != strings.TrimSpace(r.msg):
		return wrong, fmt.Sprintf("text %q, want %q", text, r.msg)
	case r.kind == "create" && ch != r.channel, r.kind == "update" && r.channel != "-" && ch != r.channel:
		return wrong, fmt.Sprintf("channel %q, want %q", ch, r.channel)
	}
	return passed, ""
}

// scoreList compares a list call's filters: `-` none, `*` any, else
// key=value pairs that must be exactly the filters given.
func scoreList(expect string, args json.RawMessage) (string, string) {
	if expect == "*" {
		return passed, ""
	}
	var got map[string]any
	json.Unmarshal(args, &got)
	want := map[string]string{}
	if expect != "-" {
		for _, kv := range strings.Fields(expect) {
			k, v, _ := strings.Cut(kv, "=")
			want[k] = v
		}
	}
	gotS := map[string]string{}
	for k, v := range got {
		gotS[k] = fmt.Sprint(v)
	}
	if !maps.Equal(gotS, want) {
		return wrong, fmt.Sprintf("filters %v, want %v", gotS, want)
	}
	return passed, ""
}

// scoreTable decides and scores every row, logs each wrong row, the first
// maxFails failed rows and a breakdown, prints the summary line and
// returns the counts by outcome.
func scoreTable(t *testing.T, rows []phrasing, maxFails int) map[string]int {
	t.Helper()
	count := map[string]int{}
	byKind := map[string]map[string]int{}
	bySource := map[string]map[string]int{}
	var wrongs, fails []string
	for _, r := range rows {
		d := decideRow(r)
		out, why := score(r, d)
		count[out]++
		for _, m := range []struct {
			m map[string]map[string]int
			k string
		}{{byKind, r.kind}, {bySource, r.from}} {
			if m.m[m.k] == nil {
				m.m[m.k] = map[string]int{}
			}
			m.m[m.k][out]++
		}
		text := r.text
		if len(text) > 80 {
			text = text[:80] + "…"
		}
		got := d.raw
		if len(got) > 400 {
			got = got[:400] + "…"
		}
		line := fmt.Sprintf("%s:%d %q want %s %s: %s\n\tgot %s", r.file, r.line, text, r.kind, r.expect, why, got)
		switch out {
		case wrong:
			wrongs = append(wrongs, line)
		case failed:
			fails = append(fails, line)
		}
	}
	for _, w := range wrongs {
		t.Log("WRONG " + w)
	}
	for i, f := range fails {
		if i == maxFails {
			t.Logf("… and %d more failed", len(fails)-maxFails)
			break
		}
		t.Log("failed " + f)
	}
	breakdown := func(name string, m map[string]map[string]int) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			c := m[k]
			t.Logf("%s %-14s %4d passed, %3d failed, %3d wrong", name, k, c[passed], c[failed], c[wrong])
		}
	}
	breakdown("kind", byKind)
	breakdown("source", bySource)
	summary := fmt.Sprintf("%d passed, %d failed, %d wrong", count[passed], count[failed], count[wrong])
	if len(rows) > 0 {
		summary = rows[0].file + ": " + summary
	}
	t.Log(summary)
	fmt.Println(summary)
	return count
}

// TestPhrasingsScoring checks the judge itself on made-up decisions, so a
// row's outcome depends on what the selector said and nothing else.
func TestPhrasingsScoring(t *testing.T) {
	create := func(typ, sched, extra string) decided {
		args := `{"scheduleType":"` + typ + `","schedule":` + sched + extra +
			`,"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}}}`
		return decided{kind: "call", function: "schedule.create", args: json.RawMessage(args)}
	}
	row := func(kind, expect string) phrasing {
		return phrasing{kind: kind, expect: expect, msg: "hi", channel: "-"}
	}
	update := func(args string) decided {
		return decided{kind: "call", function: "schedule.update", args: json.RawMessage(args)}
	}
	cases := []struct {
		name string
		r    phrasing
		d    decided
		want string
	}{
		{"same cron", row("create", "cron:0 9 * * 1-5"), create("cron", `{"cron":"0 9 * * 1-5","timezone":"America/New_York"}`, ""), passed},
		{"same fires, other spelling", row("create", "cron:0 9 * * 1-5"), create("cron", `{"cron":"0 9 * * MON-FRI","timezone":"America/New_York"}`, ""), passed},
		{"hourly cron is an hourly interval from 10:00", row("create", "interval:3600"), create("cron", `{"cron":"0 * * * *","timezone":"UTC"}`, ""), passed},
		{"other hour", row("create", "cron:0 9 * * 1-5"), create("cron", `{"cron":"0 10 * * 1-5","timezone":"America/New_York"}`, ""), wrong},
		{"other zone", row("create", "cron:0 9 * * 1-5"), create("cron", `{"cron":"0 9 * * 1-5","timezone":"Europe/Berlin"}`, ""), wrong},
		{"a one-time post for a recurrence", row("create", "cron:0 9 * * 1"), create("once", `{"runAt":"2026-11-23T14:00:00Z"}`, ""), wrong},
		{"end bound cuts the later fires", row("create", "cron:0 9 * * 1"), create("cron", `{"cron":"0 9 * * 1","timezone":"America/New_York"}`, `,"endAt":"2027-01-01T00:00:00Z"`), wrong},
		{"once in the sender's zone", row("create", "once:2026-11-21T09:00"), create("once", `{"runAt":"2026-11-21T14:00:00Z"}`, ""), passed},
		{"other text", phrasing{kind: "create", expect: "once:2026-11-21T09:00", msg: "hi!", channel: "-"}, create("once", `{"runAt":"2026-11-21T14:00:00Z"}`, ""), wrong},
		{"other channel", phrasing{kind: "create", expect: "once:2026-11-21T09:00", msg: "hi", channel: "#team"}, create("once", `{"runAt":"2026-11-21T14:00:00Z"}`, ""), wrong},
		{"same rrule", row("create", "rrule:FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0"), create("rrule", `{"rrule":"FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0","timezone":"America/New_York"}`, ""), passed},
		{"first monday is not every monday", row("create", "rrule:FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0"), create("cron", `{"cron":"0 9 * * 1","timezone":"America/New_York"}`, ""), wrong},
		{"every other tuesday starts next tuesday", row("create", "rrule:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0"), create("once", `{"runAt":"2026-11-24T15:00:00Z"}`, `,"endAt":"2026-11-25T00:00:00Z"`), wrong},
		{"every other tuesday anchored a week late", row("create", "rrule:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0"), create("rrule", `{"rrule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0","timezone":"America/New_York","dtstart":"2026-12-01T10:00:00"}`, ""), wrong},
		{"a job's startAt", row("create", "cron:0 9 * * * startAt=2026-12-01T05:00:00Z"), create("cron", `{"cron":"0 9 * * *","timezone":"America/New_York"}`, `,"startAt":"2026-12-01T05:00:00Z"`), passed},
		{"startAt dropped", row("create", "cron:0 9 * * * startAt=2026-12-01T05:00:00Z"), create("cron", `{"cron":"0 9 * * *","timezone":"America/New_York"}`, ""), wrong},
		{"asked where a call was wanted", row("create", "cron:0 9 * * 1"), decided{kind: "clarify", missing: "time"}, failed},
		{"a call where a question was wanted", row("clarify", "time"), create("once", `{"runAt":"2026-11-21T14:00:00Z"}`, ""), wrong},
		{"the question wanted", row("clarify", "time"), decided{kind: "clarify", missing: "time"}, passed},
		{"another question", row("clarify", "time"), decided{kind: "clarify", missing: "action"}, failed},
		{"refused where help was wanted", row("reply", "-"), decided{kind: "unsupported"}, failed},
		{"any answer but a call", row("unsupported", "any"), decided{kind: "clarify", missing: "action"}, passed},
		{"a panic", row("unsupported", "any"), decided{kind: "panic"}, wrong},
		{"the job named", row("pause", "jobid=J1"), decided{kind: "call", function: "schedule.pause", args: json.RawMessage(`{"jobId":"` + ulid("J1") + `"}`)}, passed},
		{"another job", row("pause", "jobid=J1"), decided{kind: "call", function: "schedule.pause", args: json.RawMessage(`{"jobId":"` + ulid("J3") + `"}`)}, wrong},
		{"delete for pause", row("pause", "jobid=J1"), decided{kind: "call", function: "schedule.delete", args: json.RawMessage(`{"jobId":"` + ulid("J1") + `"}`)}, wrong},
		{"list filters", row("list", "createdBy=U0ADA"), decided{kind: "call", function: "schedule.list", args: json.RawMessage(`{"createdBy":"U0ADA"}`)}, passed},
		{"list filter missing", row("list", "createdBy=U0ADA"), decided{kind: "call", function: "schedule.list", args: json.RawMessage(`{}`)}, wrong},
		{"update keeps the days", phrasing{kind: "update", expect: "jobid=J1 cron:0 10 * * 1-5", msg: "-", channel: "-"},
			update(`{"jobId":"` + ulid("J1") + `","scheduleType":"cron","schedule":{"cron":"0 10 * * 1-5","timezone":"America/New_York"}}`), passed},
		{"update made it one-time", phrasing{kind: "update", expect: "jobid=J1 cron:0 10 * * 1-5", msg: "-", channel: "-"},
			update(`{"jobId":"` + ulid("J1") + `","scheduleType":"once","schedule":{"runAt":"2026-11-23T15:00:00Z"}}`), wrong},
		{"update of the end only keeps the schedule", phrasing{kind: "update", expect: "jobid=J3 cron:0 16 * * 5 endAt=2027-01-01T05:00:00Z", msg: "-", channel: "-"},
			update(`{"jobId":"` + ulid("J3") + `","endAt":"2027-01-01T05:00:00Z"}`), passed},
	}
	for _, c := range cases {
		if got, why := score(c.r, c.d); got != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, got, why, c.want)
		}
	}
}
