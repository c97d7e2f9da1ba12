package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store/bolt"
)

// cli runs schedbot in-process against a data directory of its own.
type cli struct {
	t    *testing.T
	data string
}

func newCLI(t *testing.T) *cli {
	t.Chdir(t.TempDir()) // no ./schedbot.yaml is found by accident
	t.Setenv("SCHEDBOT_CONFIG", "")
	t.Setenv("TZ", "UTC") // the embedded default takes the machine's zone
	return &cli{t: t, data: filepath.Join(t.TempDir(), "data")}
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	full := append(append([]string{}, args...), "--data", c.data)
	if args[0] == "parse" { // its text must stay the last argument
		full = append([]string{"parse", "--data", c.data}, args[1:]...)
	}
	if args[0] == "cron" || args[0] == "version" || strings.Contains(strings.Join(args, " "), "--config") {
		full = args
	}
	err := Run(c.t.Context(), full, &out, &errb)
	if err != nil {
		code = exitCode(err)
		errb.WriteString("schedbot: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), code
}

func (c *cli) mustRun(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("schedbot %v: exit %d\n%s", args, code, errs)
	}
	return out
}

const createArgs = `{"name":"friday post","scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"America/New_York"},
"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello world"}},
"targetRef":{"channel":"terminal"}}`

var jobIDRe = regexp.MustCompile(`[0-9A-HJKMNP-TV-Z]{26}`)

func TestCall_JobLifecycle(t *testing.T) {
	c := newCLI(t)
	out := c.mustRun("call", "schedule.create", "--args", createArgs)
	for _, want := range []string{"Created job", "“friday post”", "Every Friday at 9:00 AM (America/New_York)", `post "hello world"`, "Target:  terminal", "Next:"} {
		if !strings.Contains(out, want) {
			t.Errorf("create output lacks %q:\n%s", want, out)
		}
	}
	id := jobIDRe.FindString(out)
	if id == "" {
		t.Fatalf("no job id in:\n%s", out)
	}
	out = c.mustRun("call", "schedule.list")
	if !strings.Contains(out, id) || !strings.Contains(out, "NEXT RUN") {
		t.Errorf("list:\n%s", out)
	}
	// --json is machine-readable; flags may come before the function.
	out = c.mustRun("call", "--json", "schedule.show", "--args", `{"jobId":"`+id+`"}`)
	var shown functions.JobResult
	if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.Job.JobID != id || len(shown.NextRuns) != 3 {
		t.Fatalf("show --json = %v / %+v", err, shown)
	}
	args := filepath.Join(t.TempDir(), "args.json")
	os.WriteFile(args, []byte(`{"jobId":"`+id+`"}`), 0o600)
	if out := c.mustRun("call", "schedule.pause", "--args-file", args); !strings.Contains(out, "Paused job") || !strings.Contains(out, "paused") {
		t.Errorf("pause:\n%s", out)
	}
	c.mustRun("call", "schedule.resume", "--args-file", args)
	c.mustRun("call", "schedule.run_now", "--args-file", args)
	c.mustRun("call", "schedule.delete", "--args-file", args)
	if out := c.mustRun("call", "schedule.list"); !strings.Contains(out, "No jobs.") {
		t.Errorf("list after delete:\n%s", out)
	}
	// Every mutation is audited with via cli and the OS user.
	out = c.mustRun("audit", "--json")
	var actions []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Action string
			Actor  struct{ Via, Sender, SenderID string }
		}
		json.Unmarshal([]byte(line), &ev)
		if ev.Actor.Via != "cli" || ev.Actor.SenderID == "" {
			t.Errorf("event actor = %+v", ev.Actor)
		}
		actions = append(actions, ev.Action)
	}
	want := "job.created job.paused job.resumed job.triggered job.deleted"
	if strings.Join(actions, " ") != want {
		t.Errorf("audit actions = %v, want %s", actions, want)
	}
	if out := c.mustRun("audit", "--job", id, "--since", "1h"); strings.Count(out, id) != 5 {
		t.Errorf("audit --job:\n%s", out)
	}
	if out := c.mustRun("audit", "--actor", "nobody-at-all"); !strings.Contains(out, "No audit events.") {
		t.Errorf("audit --actor nobody:\n%s", out)
	}
	if out := c.mustRun("audit", "verify"); !strings.Contains(out, "default: 5 records, hash chain intact") {
		t.Errorf("verify:\n%s", out)
	}
}

func TestCall_ExitCodesAndMessages(t *testing.T) {
	c := newCLI(t)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"call", "schedule.create", "--args", `{"scheduleType":"cron","schedule":{"cron":"0 0 9 * * 5","timezone":"UTC"},"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"x"}}}`}, 1, "schedule.cron: 6 fields given, 5 expected"},
		{[]string{"call", "schedule.create", "--args", `{not json`}, 1, "args: not valid JSON"},
		{[]string{"call", "schedule.show", "--args", `{"jobId":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5"}`}, 1, "not found"},
		{[]string{"call", "schedule.explode"}, 1, `unknown function "schedule.explode"`},
		{[]string{"call", "schedule.list", "--orchestrator", "ops"}, 1, `unknown orchestrator "ops"`},
		{[]string{"call", "schedule.list", "--profile", "nope"}, 2, `unknown channel profile "nope"`},
		{[]string{"call"}, 2, "call takes one FUNCTION"},
		{[]string{"call", "schedule.list", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"call", "schedule.list", "--args", "{}", "--args-file", "x"}, 2, "cannot both"},
		{[]string{"audit", "--since", "yesterday"}, 2, "--since"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
	}
	for _, tc := range cases {
		_, errs, code := c.run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("schedbot %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	if _, _, code := c.run("cron", "next", "--tz", "UTC", "0", "0", "31", "2", "*"); code != 1 {
		t.Errorf("cron next of a never-firing expression: exit %d", code)
	}
}

func TestCall_StoreHeldByAnotherProcess(t *testing.T) {
	c := newCLI(t)
	st, err := bolt.Open(filepath.Join(c.data, "default", "automation", "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	_, errs, code := c.run("call", "schedule.list")
	if code != 1 || !strings.Contains(errs, "held by a running schedbot (pid") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if time.Since(start) > 10*time.Second {
		t.Error("waited far too long for the lock")
	}
}

func TestAuditVerify_ReportsTampering(t *testing.T) {
	c := newCLI(t)
	c.mustRun("call", "schedule.create", "--args", createArgs)
	c.mustRun("call", "schedule.list") // reads are not audited
	path := filepath.Join(c.data, "default", "automation", "automation.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		k, v := b.Cursor().First()
		return b.Put(k, bytes.Replace(v, []byte("cli"), []byte("api"), 1))
	})
	db.Close()
	out, errs, code := c.run("audit", "verify")
	if code != 1 || !strings.Contains(out, "BROKEN at record 1") || !strings.Contains(errs, "broken") {
		t.Errorf("verify after tampering: exit %d\n%s%s", code, out, errs)
	}
}

func TestCron_NextAndDescribe(t *testing.T) {
	c := newCLI(t)
	out := c.mustRun("cron", "next", "--tz", "America/New_York", "--after", "2026-03-07T12:00:00Z", "--count", "2", "30 2 * * *")
	if out != "2026-03-08T07:00:00Z\n2026-03-09T06:30:00Z\n" {
		t.Errorf("cron next:\n%s", out)
	}
	// The five fields may also come unquoted.
	out = c.mustRun("cron", "next", "--tz", "UTC", "--after", "2026-11-22T00:00:00Z", "--count", "1", "0", "9", "*", "*", "5")
	if out != "2026-11-27T09:00:00Z\n" {
		t.Errorf("unquoted fields:\n%s", out)
	}
	out = c.mustRun("cron", "describe", "--tz", "America/New_York", "30 8 * * 1-5")
	if out != "Every weekday at 8:30 AM (America/New_York)\n" {
		t.Errorf("describe: %q", out)
	}
	for _, bad := range [][]string{
		{"cron", "next", "0 9 * * 5"},
		{"cron", "next", "--tz", "UTC", "--count", "0", "0 9 * * 5"},
		{"cron", "next", "--tz", "UTC", "--after", "friday", "0 9 * * 5"},
		{"cron", "wobble"},
	} {
		if _, _, code := c.run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if _, errs, code := c.run("cron", "next", "--tz", "UTC", "@every 5m"); code != 1 || !strings.Contains(errs, "@every is not supported") {
		t.Errorf("@every: exit %d %s", code, errs)
	}
}

func TestConfig_ErrorsNameTheField(t *testing.T) {
	c := newCLI(t)
	cfg := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(cfg, []byte("orchestrators: {ops: {}}\nchannel_profiles: {team: {channel: terminal, orchestrator_id: opz}}\n"), 0o600)
	_, errs, code := c.run("call", "schedule.list", "--config", cfg)
	if code != 1 || !strings.Contains(errs, `channel_profiles.team.orchestrator_id: unknown orchestrator "opz"`) {
		t.Errorf("exit %d: %s", code, errs)
	}
	os.WriteFile(cfg, []byte("orchestrators: {ops: {functions: [schedule.*, shell.exec]}}\n"), 0o600)
	if _, errs, _ := c.run("call", "schedule.list", "--config", cfg); !strings.Contains(errs, `orchestrators.ops.functions[1]: "shell.exec" matches no function`) {
		t.Errorf("unknown function in config: %s", errs)
	}
}

func TestChat_ConversationThroughThePipeline(t *testing.T) {
	c := newCLI(t)
	stdin = strings.NewReader(strings.Join([]string{
		"post hello world every friday",
		"9am",
		"list my schedules",
		"pause it",
		"post it at sunset every day",
		"post ping every 2 days at 9am",
		"remind me to stretch in 1 minute",
	}, "\n") + "\n")
	t.Cleanup(func() { stdin = strings.NewReader("") })
	out := c.mustRun("chat")
	for _, want := range []string{
		"What time? For example 9am or 17:30.",
		"OK — I'll post “hello world” every Friday at 9:00 AM (UTC). Next: Fri ",
		"1 schedule(s):",
		"Paused job ",
		"sunrise or sunset",
		"OK — I'll post “ping” every 2 days at 9:00 AM (UTC). Next: ",
		"OK — I'll post “stretch” once on ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("chat output lacks %q:\n%s", want, out)
		}
	}
	// What chat did is stored and audited like any other change.
	audit := c.mustRun("audit", "--json")
	if strings.Count(audit, `"job.created"`) != 3 || !strings.Contains(audit, `"job.paused"`) || !strings.Contains(audit, `"scheduleType":"rrule"`) {
		t.Errorf("audit after chat:\n%s", audit)
	}
}

// parse resolves "the friday post" against the orchestrator's jobs, as
// chat does, and an update keeps what its words don't change.
func TestParse_ResolvesJobReferences(t *testing.T) {
	c := newCLI(t)
	id := jobIDRe.FindString(c.mustRun("call", "schedule.create", "--args", createArgs))
	if id == "" {
		t.Fatal("no job created")
	}
	path := filepath.Join(c.data, "default", "automation", "automation.db")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	out := c.mustRun("parse", "--now", now, "--tz", "Europe/London", "pause the friday post")
	if want := `{"function":"schedule.pause","args":{"jobId":"` + id + `"}}` + "\n"; out != want {
		t.Errorf("pause:\n got %s\nwant %s", out, want)
	}
	// Only a time was said: the days and the job's zone stay.
	out = c.mustRun("parse", "--now", now, "--tz", "Europe/London", "move the friday post to 10am")
	want := `{"function":"schedule.update","args":{"jobId":"` + id + `","schedule":{"cron":"0 10 * * 5","timezone":"America/New_York"},"scheduleType":"cron"}}` + "\n"
	if out != want {
		t.Errorf("update:\n got %s\nwant %s", out, want)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("parse changed the store")
	}
}

func TestParse_PrintsTheDecisionAndChangesNothing(t *testing.T) {
	c := newCLI(t)
	out := c.mustRun("parse", "--now", "2026-11-20T15:00:00Z", "--tz", "America/New_York", "post hello world in #team every Friday at 9AM")
	want := `{"function":"schedule.create","args":{"schedule":{"cron":"0 9 * * 5","timezone":"America/New_York"},"scheduleType":"cron","targetAction":{"functionArgs":{"text":"hello world"},"functionId":"message.post","type":"command_invoke"},"targetRef":{"channel":"slack","channelId":"#team"}}}` + "\n"
	if out != want {
		t.Errorf("parse:\n got %s\nwant %s", out, want)
	}
	// The text is the last argument, even when it looks like a flag.
	out = c.mustRun("parse", "--now", "2026-11-20T15:00:00Z", "--help")
	if !strings.Contains(out, `"clarify"`) {
		t.Errorf("parse --help as text: %s", out)
	}
	out = c.mustRun("parse", "--now", "2026-11-20T15:00:00Z", "post hi every first monday of the month at 9")
	if !strings.Contains(out, `"rrule":"FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0"`) {
		t.Errorf("the first Monday as an rrule: %s", out)
	}
	out = c.mustRun("parse", "--now", "2026-11-20T15:00:00Z", "post hi every day at sunrise")
	if !strings.Contains(out, `"unsupported"`) {
		t.Errorf("unsupported: %s", out)
	}
	if _, err := os.Stat(filepath.Join(c.data, "default")); !os.IsNotExist(err) {
		t.Errorf("parse created a store: %v", err)
	}
	if _, _, code := c.run("parse", "--tz", "Mars/Base", "post hi at 9"); code != 2 {
		t.Errorf("bad --tz: exit %d", code)
	}
}
