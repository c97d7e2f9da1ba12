package rules

import (
	"bufio"
	"cmp"
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
		ref.Action = store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post", FunctionArgs: json.RawMessage(`{"text":` + strconv.Quote(j.text) + `}`)}
		if wf, ok := strings.CutPrefix(j.text, "wf:"); ok {
			ref.Action = store.TargetAction{Type: store.ActionWorkflowStart, WorkflowID: wf}
		}
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
// `rrule[@Zone]:RULE`, then optional `endAt=RFC3339` and `startAt=RFC3339`,
// and an interval's `anchor=RFC3339` (now when not said).
// jobid=ALIAS, when present, is returned apart.
func parseExpect(expect string) (s sched, jobAlias string, err error) {
	var rest []string
	var anchor time.Time
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
		case strings.HasPrefix(f, "anchor="):
			if anchor, err = time.Parse(time.RFC3339, strings.TrimPrefix(f, "anchor=")); err != nil {
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
		s.StartAt = cmp.Or(anchor, phrasingsNow)
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
