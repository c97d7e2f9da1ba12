package rules

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// The phrasings table (testdata/phrasings.tsv) scores the selector by
// meaning: a call is right when it fires at the same instants as the
// expected schedule, posts the same text and goes to the same channel; how
// its cron reads does not matter. The header of the TSV gives its format.

// phrasingsNow is Friday 20 Nov 2026, 10:00 in New York; later is six
// months on, so a row is also checked past DST and past any month limit.
var (
	phrasingsNow   = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	phrasingsLater = time.Date(2027, 5, 20, 15, 0, 0, 0, time.UTC)
)

const phrasingsZone = "America/New_York"

// tableJob is a job the management rows speak of: what the selector sees
// (ref) and its full schedule, so an update's patch can be applied.
type tableJob struct {
	ref    selector.JobRef
	sched  sched
	text   string // message.post text, or wf:ID
	chanID string
}

func ulid(alias string) string { return "01K" + alias + strings.Repeat("0", 26-3-len(alias)) }

// tableJobs are the orchestrator's jobs for every row. The aliases J1…J6
// are what the TSV writes; the texts use the real ids.
var tableJobs = map[string]tableJob{
	"J1": {ref: selector.JobRef{JobID: ulid("J1"), Name: "standup", Description: "Every weekday at 9:30 AM (America/New_York)",
		Text: "standup in 5", ChannelID: "#team", CreatedBy: "U0ADA", State: "enabled"},
		sched: sched{Type: "cron", Cron: "30 9 * * 1-5", Timezone: phrasingsZone}, text: "standup in 5", chanID: "#team"},
	"J2": {ref: selector.JobRef{JobID: ulid("J2"), Name: "dentist", Description: "Once on Tuesday, November 24, 2026 at 9:00 AM (America/New_York)",
		Text: "call the dentist", CreatedBy: "U0ADA", State: "enabled"},
		sched: sched{Type: "once", RunAt: time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), Timezone: phrasingsZone}, text: "call the dentist"},
	"J3": {ref: selector.JobRef{JobID: ulid("J3"), Name: "weekly report", Description: "Every Friday at 4:00 PM (America/New_York)",
		Text: "weekly numbers are due", ChannelID: "#finance", CreatedBy: "U0BOB", State: "enabled"},
		sched: sched{Type: "cron", Cron: "0 16 * * 5", Timezone: phrasingsZone}, text: "weekly numbers are due", chanID: "#finance"},
	"J4": {ref: selector.JobRef{JobID: ulid("J4"), Name: "health check", Description: "Every hour",
		Text: "ping the health check", ChannelID: "#ops", CreatedBy: "U0ADA", State: "enabled"},
		sched: sched{Type: "interval", EverySeconds: 3600, StartAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, text: "ping the health check", chanID: "#ops"},
	"J5": {ref: selector.JobRef{JobID: ulid("J5"), Name: "backup reminder", Description: "Every day at 2:00 AM (Europe/London)",
		Text: "check the backups", ChannelID: "#ops", CreatedBy: "U0ADA", State: "paused"},
		sched: sched{Type: "cron", Cron: "0 2 * * *", Timezone: "Europe/London"}, text: "check the backups", chanID: "#ops"},
	"J6": {ref: selector.JobRef{JobID: ulid("J6"), Name: "daily report", Description: "Every weekday at 8:00 AM (America/New_York)",
		Text: "daily-report", ChannelID: "#exec", CreatedBy: "U0ADA", State: "enabled"},
		sched: sched{Type: "cron", Cron: "0 8 * * 1-5", Timezone: phrasingsZone}, text: "wf:daily-report", chanID: "#exec"},
}

func tableJobRefs() []selector.JobRef {
	var refs []selector.JobRef
	for _, k := range slices.Sorted(maps.Keys(tableJobs)) {
		j := tableJobs[k]
		ref := j.ref
		ref.ScheduleType = j.sched.Type
		ref.Schedule = store.Schedule{Cron: j.sched.Cron, Timezone: j.sched.Timezone, EverySeconds: j.sched.EverySeconds,
			StartAt: j.sched.StartAt, RunAt: j.sched.RunAt}
		refs = append(refs, ref)
	}
	return refs
}

// sched is any schedule, decoded from a call's JSON or from the table's
// compact form.
type sched struct {
	Type         string
	Cron         string
	Timezone     string
	EverySeconds int64
	StartAt      time.Time // an interval's anchor
	RunAt        time.Time
	RRule        string
	Dtstart      string    // local wall time anchoring an rrule's INTERVAL
	NotBefore    time.Time // the job's startAt: no fire before it
	EndAt        time.Time // exclusive
}

// compileSchedule computes a schedule's fires as the create handler would:
// an interval with no anchor starts now, an rrule with no dtstart is
// anchored at its first occurrence after now (scheduler.AnchorRRule), and a
// job's startAt is the Spec's NotBefore.
func compileSchedule(s sched) (func(after time.Time, n int) []time.Time, error) {
	st := store.Schedule{Cron: s.Cron, Timezone: s.Timezone, EverySeconds: s.EverySeconds, StartAt: s.StartAt, RunAt: s.RunAt,
		RRule: s.RRule, Dtstart: s.Dtstart}
	if s.Type == store.ScheduleInterval && st.StartAt.IsZero() {
		st.StartAt = phrasingsNow
	}
	if s.Type == store.ScheduleRRule && st.Dtstart == "" {
		loc, err := scheduler.LoadLocation(s.Timezone)
		if err != nil {
			return nil, err
		}
		if st.Dtstart, err = scheduler.AnchorRRule(s.RRule, loc, phrasingsNow); err != nil {
			return nil, err
		}
	}
	sp, err := scheduler.NewSpec(s.Type, st, s.EndAt)
	if err != nil {
		return nil, err
	}
	sp.NotBefore = s.NotBefore
	return sp.NextN, nil
}

// fireSet is the fires that decide a row: the next 3 after now and the next
// 3 after six months later.
func fireSet(s sched) (string, error) {
	next, err := compileSchedule(s)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, from := range []time.Time{phrasingsNow, phrasingsLater} {
		var fs []string
		for _, f := range next(from, 3) {
			fs = append(fs, f.UTC().Format(time.RFC3339))
		}
		parts = append(parts, "["+strings.Join(fs, " ")+"]")
	}
	return strings.Join(parts, " "), nil
}

// phrasing is one row of the table.
type phrasing struct {
	file                                   string // base name, for messages
	line                                   int
	text, kind, expect, msg, channel, from string
	slack                                  bool
	ctxJob                                 string // alias of the job in context ("pause it")
}

// The tables: the first the selector was built against, and held-out ones
// each written apart from the code (and the others) to measure how the
// rules generalize, then kept so what they found stays fixed.
const (
	mainTable = "phrasings.tsv"
)

func loadPhrasings(t *testing.T, file string) []phrasing {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []phrasing
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) != 6 && len(col) != 7 {
			t.Fatalf("%s:%d: %d columns, want 6 or 7", file, n, len(col))
		}
		r := phrasing{file: file, line: n, text: unescapeText(col[0]), kind: col[1], expect: strings.TrimSpace(col[2]), msg: col[3], channel: col[4], from: col[5]}
		if len(col) == 7 {
			for _, opt := range strings.Split(col[6], ",") {
				switch {
				case opt == "slack":
					r.slack = true
				case strings.HasPrefix(opt, "ctx="):
					r.ctxJob = strings.TrimPrefix(opt, "ctx=")
				default:
					t.Fatalf("%s:%d: unknown option %q", file, n, opt)
				}
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// unescapeText reads the few forms a TSV cell cannot hold as written:
// <empty>, REPEAT:n:s (s n times) and \t \n \\.
func unescapeText(s string) string {
	if s == "<empty>" {
		return ""
	}
	if rest, ok := strings.CutPrefix(s, "REPEAT:"); ok {
		n, body, _ := strings.Cut(rest, ":")
		k, _ := strconv.Atoi(n)
		s = strings.Repeat(body, k)
	}
	return strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\\`, `\`).Replace(s)
}

// parseExpect reads a row's expected schedule: `cron[@Zone]:EXPR`,
// `interval:SECONDS`, `once[@Zone]:LOCAL`, `onceZ:RFC3339`,
// `rrule[@Zone]:RULE`, then optional `endAt=RFC3339` and `startAt=RFC3339`.
// jobid=ALIAS, when present, is returned apart.
func parseExpect(expect string) (s sched, jobAlias string, err error) {
	var rest []string
	for _, f := range strings.Fields(expect) {
		switch {
		case strings.HasPrefix(f, "jobid="):
			jobAlias = strings.TrimPrefix(f, "jobid=")
		case strings.HasPrefix(f, "endAt="):
			if s.EndAt, err = time.Parse(time.RFC3339, strings.TrimPrefix(f, "endAt=")); err != nil {
				return s, "", err
			}
		case strings.HasPrefix(f, "startAt="):
			if s.NotBefore, err = time.Parse(time.RFC3339, strings.TrimPrefix(f, "startAt=")); err != nil {
				return s, "", err
			}
		default:
			rest = append(rest, f)
		}
	}
	spec := strings.Join(rest, " ")
	if spec == "" {
		return s, jobAlias, nil
	}
	head, body, ok := strings.Cut(spec, ":")
	if !ok {
		return s, "", fmt.Errorf("schedule %q: want kind:value", spec)
	}
	kind, zone, _ := strings.Cut(head, "@")
	if zone == "" {
		zone = phrasingsZone
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return s, "", err
	}
	switch kind {
	case "cron":
		s.Type, s.Cron, s.Timezone = "cron", body, zone
	case "interval":
		s.Type = "interval"
		if s.EverySeconds, err = strconv.ParseInt(body, 10, 64); err != nil {
			return s, "", err
		}
		s.StartAt = phrasingsNow
	case "once":
		s.Type, s.Timezone = "once", zone
		t, err := time.ParseInLocation("2006-01-02T15:04", body, loc)
		if err != nil {
			return s, "", err
		}
		s.RunAt = t.UTC()
	case "onceZ":
		s.Type = "once"
		if s.RunAt, err = time.Parse(time.RFC3339, body); err != nil {
			return s, "", err
		}
	case "rrule":
		// No dtstart: anchored as a new job is, at its first occurrence
		// after now (every other Tuesday said on a Friday starts next Tuesday).
		s.Type, s.RRule, s.Timezone = "rrule", body, zone
	default:
		return s, "", fmt.Errorf("schedule kind %q", kind)
	}
	return s, jobAlias, nil
}

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

// TestPhrasingsTable checks the table itself: every expected schedule
// compiles, fires at least once after now, and names a job that exists.
func TestPhrasingsTable(t *testing.T) {
	rows, questions := checkTable(t, mainTable)
	if len(rows) < 700 || questions < 200 {
		t.Errorf("%d rows, %d questions or refusals; want at least 700 and 200", len(rows), questions)
	}
}

// checkTable checks one table's rows and counts its questions and refusals.
func checkTable(t *testing.T, file string) (rows []phrasing, questions int) {
	t.Helper()
	rows = loadPhrasings(t, file)
	for _, r := range rows {
		at := fmt.Sprintf("%s:%d %q", file, r.line, r.text)
		if len(at) > 90 {
			at = at[:90] + "…"
		}
		if _, call := callKinds[r.kind]; !call {
			switch r.kind {
			case "clarify":
				if !slices.Contains([]string{"time", "action", "target", "job", "any"}, r.expect) {
					t.Errorf("%s: clarify wants time|action|target|job, got %q", at, r.expect)
				}
				questions++
			case "unsupported", "reply":
				if r.expect != "-" && !(r.kind == "unsupported" && r.expect == "any") {
					t.Errorf("%s: expect must be -", at)
				}
				if r.kind == "unsupported" {
					questions++
				}
			default:
				t.Errorf("%s: unknown kind %q", at, r.kind)
			}
			continue
		}
		if r.kind == "list" || (r.kind == "agenda" || r.kind == "history") && r.expect == "-" {
			continue
		}
		s, alias, err := parseExpect(r.expect)
		if err != nil {
			t.Errorf("%s: %v", at, err)
			continue
		}
		if alias != "" {
			if _, ok := tableJobs[alias]; !ok {
				t.Errorf("%s: no job %q", at, alias)
			}
		} else if r.kind != "create" {
			t.Errorf("%s: %s needs jobid=", at, r.kind)
		}
		if r.kind != "create" && !(r.kind == "update" && s.Type != "") {
			continue
		}
		if r.kind == "create" && (r.msg == "" || r.channel == "") {
			t.Errorf("%s: create needs msg and channel", at)
		}
		fs, err := fireSet(s)
		switch {
		case err != nil:
			t.Errorf("%s: %v", at, err)
		case strings.HasPrefix(fs, "[]"):
			t.Errorf("%s: expected schedule never fires after now", at)
		}
	}
	return rows, questions
}

// TestPhrasings scores the rules selector against the table. It fails on
// any wrong row (a call where none was wanted, or a call that fires, posts
// or targets differently) and when fewer than 90% of rows pass.
func TestPhrasings(t *testing.T) {
	rows := loadPhrasings(t, mainTable)
	count := scoreTable(t, rows, 40)
	if count[wrong] > 0 {
		t.Errorf("%d rows got a wrong schedule or change", count[wrong])
	}
	if count[passed]*10 < len(rows)*9 {
		t.Errorf("%d of %d rows passed, want at least 90%%", count[passed], len(rows))
	}
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

// heldOut are tables each written apart from the code and from the other
// tables, by someone who read only docs/NL_SPEC.md, to measure how the rules
// generalize; then the rules were fixed against what they found, and they
// are kept so it stays fixed. firstContact is what each found.
var heldOut = []struct{ file, firstContact string }{
	{"phrasings_holdout.tsv", "10 wrong, 13 failed of 480"},
	{"phrasings_holdout2.tsv", "43 wrong, 28 failed of 657 (decision 24 read strictly)"},
	{"phrasings_holdout3.tsv", "26 wrong, 8 failed of 780"},
	{"phrasings_holdout4.tsv", "26 wrong, 42 failed of 895"},
	{"phrasings_holdout5.tsv", "39 wrong, 12 failed of 920"},
	{"phrasings_holdout6.tsv", "35 wrong, 27 failed of 808 (3 in its first 583 rows)"},
	{"phrasings_holdout7.tsv", "29 wrong, 8 failed of 741 (4 in its first 616 rows)"},
	{"phrasings_holdout8.tsv", "22 wrong, 49 failed of 696"},
	{"phrasings_holdout9.tsv", "0 wrong, 3 failed of 489"},
	{"phrasings_holdout10.tsv", "4 wrong, 12 failed of 507"},
	{"phrasings_holdout11.tsv", "6 wrong, 3 failed of 636"},
	{"phrasings_holdout12.tsv", "5 wrong, 13 failed of 522"},
	{"phrasings_holdout13.tsv", "12 wrong (one cause: \"please\" in the text), 6 failed of 524"},
	{"phrasings_holdout14.tsv", "4 wrong, 25 failed of 495"},
	{"phrasings_holdout15.tsv", "0 wrong, 7 failed of 494"},
	{"phrasings_holdout16.tsv", "20 wrong (one cause: a closing emoji or aside cut from the text), 58 failed of 464"},
	{"phrasings_holdout17.tsv", "0 wrong, 0 failed of 593 (with 61 messages that are not requests)"},
}

// TestPhrasingsHeldOut scores the selector on every held-out table; any
// wrong row (a call nobody asked for) fails.
func TestPhrasingsHeldOut(t *testing.T) {
	for _, h := range heldOut {
		t.Run(strings.TrimSuffix(h.file, ".tsv"), func(t *testing.T) {
			rows, questions := checkTable(t, h.file)
			if len(rows) < 450 || questions*100 < len(rows)*30 {
				t.Errorf("%d rows, %d questions or refusals; want at least 450 and 30%%", len(rows), questions)
			}
			if count := scoreTable(t, rows, len(rows)); count[wrong] > 0 {
				t.Errorf("%d rows got a wrong schedule or change (on first contact: %s)", count[wrong], h.firstContact)
			}
		})
	}
}

// familyTables are held-out tables written for the reading families of one
// issue, smaller than heldOut's: each was written before the rules were
// changed for them. firstContact is what each found.
var familyTables = []struct{ file, firstContact string }{
	{"phrasings_holdout18.tsv", "110 passed, 75 failed, 45 wrong of 230 (issue 19's families; 7 rows corrected against NL_SPEC 20 and 24)"},
	{"phrasings_holdout19.tsv", "80 passed, 3 failed, 2 wrong of 85 (5 rows corrected against NL_SPEC 2, 10 and 20)"},
}

// TestPhrasingsFamilies scores the selector on the family tables; any wrong
// row fails, and at least 97% must pass.
func TestPhrasingsFamilies(t *testing.T) {
	for _, h := range familyTables {
		t.Run(strings.TrimSuffix(h.file, ".tsv"), func(t *testing.T) {
			rows, _ := checkTable(t, h.file)
			if len(rows) < 80 {
				t.Errorf("%d rows, want at least 80", len(rows))
			}
			count := scoreTable(t, rows, len(rows))
			if count[wrong] > 0 {
				t.Errorf("%d rows got a wrong schedule or change (on first contact: %s)", count[wrong], h.firstContact)
			}
			if count[passed]*100 < len(rows)*97 {
				t.Errorf("%d of %d rows passed, want at least 97%%", count[passed], len(rows))
			}
		})
	}
}

// TestPhrasingsManagementHeldOut scores held-out table 20: management and
// questions about existing jobs (lists, shows, history, agendas, picks),
// written apart from the code for issue 19. It is smaller than the
// tables above, which are mostly creates.
func TestPhrasingsManagementHeldOut(t *testing.T) {
	const file, firstContact = "phrasings_holdout20.tsv", "6 wrong, 59 failed of 227"
	rows, _ := checkTable(t, file)
	if len(rows) < 200 {
		t.Errorf("%d rows, want at least 200", len(rows))
	}
	if count := scoreTable(t, rows, len(rows)); count[wrong] > 0 {
		t.Errorf("%d rows got a wrong call (on first contact: %s)", count[wrong], firstContact)
	}
}

// TestPhrasingsLifeHeldOut scores held-out table 21: skip, unskip, snooze
// and done said where a careful bot asks or refuses (the table has no kind
// for those calls, so it holds the rules to no wrong call), written apart
// from the code for issue 19.
func TestPhrasingsLifeHeldOut(t *testing.T) {
	const file, firstContact = "phrasings_holdout21.tsv", "0 wrong, 7 failed of 72"
	rows, _ := checkTable(t, file)
	if count := scoreTable(t, rows, len(rows)); count[wrong] > 0 {
		t.Errorf("%d rows got a wrong call (on first contact: %s)", count[wrong], firstContact)
	}
}
