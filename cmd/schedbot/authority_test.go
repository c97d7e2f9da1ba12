package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scopedConfig has one orchestrator with a Slack profile on one channel
// and a terminal profile.
func scopedConfig(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "schedbot.yaml")
	yaml := "orchestrators:\n  ops:\n    runtime_root: " + filepath.Join(dir, "ops") + "\n    timezone: UTC\n    functions: [\"schedule.*\", message.post]\n" + extra +
		"channel_profiles:\n  team:\n    channel: slack\n    orchestrator_id: ops\n    slack: {team_id: T1, channels: [C0TEAM]}\n" +
		"  terminal:\n    channel: terminal\n    orchestrator_id: ops\nserver:\n  socket: " + filepath.Join(dir, "s.sock") + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestCall_TargetsOutsideTheOrchestratorAreRefused(t *testing.T) {
	c := newCLI(t)
	cfg := scopedConfig(t, "")
	create := func(ref string) string {
		return `{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"UTC"},
"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hi"}},"targetRef":` + ref + `}`
	}
	for ref, want := range map[string]string{
		`{"channel":"slack","channelProfileId":"nope","channelId":"C0TEAM"}`:      `targetRef.channelProfileId: "nope" is not a channel profile of orchestrator "ops" (its profiles: team, terminal)`,
		`{"channel":"slack","channelProfileId":"terminal","channelId":"C0TEAM"}`:  `targetRef.channel: is slack, but profile "terminal" is on terminal`,
		`{"channel":"slack","channelId":"C0ELSEWHERE"}`:                           `targetRef.channelId: C0ELSEWHERE is not a channel profile "team" serves (its channels: C0TEAM)`,
		`{"channel":"slack","channelProfileId":"team","channelId":"C0ELSEWHERE"}`: `is not a channel profile "team" serves`,
	} {
		_, errs, code := c.run("call", "schedule.create", "--config", cfg, "--args", create(ref))
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", ref, code, errs, want)
		}
	}
	// A job that runs a schedule function is refused too.
	_, errs, code := c.run("call", "schedule.create", "--config", cfg, "--args",
		strings.Replace(create(`{"channel":"terminal"}`), `"functionId":"message.post","functionArgs":{"text":"hi"}`, `"functionId":"schedule.delete","functionArgs":{"jobId":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5"}`, 1))
	if code != 1 || !strings.Contains(errs, "targetAction.functionId: schedule.delete is a schedule function; a job runs action functions only") {
		t.Errorf("job running schedule.delete: exit %d, stderr %q", code, errs)
	}
	if out, _, _ := c.run("call", "schedule.list", "--config", cfg, "--args", `{"state":"all"}`); !strings.Contains(out, "No jobs.") {
		t.Errorf("refused creates left jobs:\n%s", out)
	}
	if out, _, _ := c.run("audit", "--config", cfg); !strings.Contains(out, "No audit events.") {
		t.Errorf("refused creates were audited:\n%s", out)
	}
	if _, errs, code := c.run("call", "schedule.create", "--config", cfg, "--args", create(`{"channel":"slack","channelId":"C0TEAM"}`)); code != 0 {
		t.Errorf("create in the profile's channel: exit %d %s", code, errs)
	}
}

func TestCall_EmptyOrchestratorOrProfileIsAUsageError(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{
		{"call", "schedule.list", "--orchestrator", ""},
		{"call", "--orchestrator=", "schedule.list"},
		{"call", "schedule.list", "--profile", ""},
		{"audit", "--orchestrator", ""},
	} {
		flag := "--orchestrator"
		if strings.Contains(strings.Join(args, " "), "--profile") {
			flag = "--profile"
		}
		_, errs, code := c.run(args...)
		if code != 2 || !strings.Contains(errs, flag+": is empty") {
			t.Errorf("%q: exit %d, stderr %q, want a usage error naming %s", args, code, errs, flag)
		}
	}
}

func TestConfig_AWorkflowRunsActionFunctionsOnly(t *testing.T) {
	c := newCLI(t)
	cfg := scopedConfig(t, "    workflows:\n      purge:\n        steps:\n          - function: schedule.delete\n            args: {jobId: x}\n")
	_, errs, code := c.run("call", "schedule.list", "--config", cfg)
	if code != 1 || !strings.Contains(errs, "orchestrators.ops.workflows.purge.steps[0].function: schedule.delete is a schedule function; a workflow runs action functions only") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
