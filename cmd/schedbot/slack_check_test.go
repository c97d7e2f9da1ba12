package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedbot/schedbot/adapters/slack/slacktest"
	"github.com/schedbot/schedbot/config"
)

// slack check lists what is missing, each with its fix.
func TestSlackCheck_ListsWhatIsMissingWithTheFix(t *testing.T) {
	f := slacktest.New(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "schedbot.yaml")
	os.WriteFile(path, []byte(slacktest.Config), 0o600)
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	t.Setenv("SLACK_APP_TOKEN", "xapp-test")
	t.Setenv(config.EnvSlackAPIURL, f.Server.URL+"/api/")
	var out, errb bytes.Buffer
	if err := Run(t.Context(), []string{"slack", "check", "--config", path}, &out, &errb); err != nil || !strings.Contains(out.String(), "all set") {
		t.Fatalf("all granted: %v\n%s", err, out.String())
	}
	f.Mu.Lock()
	f.Scopes = []string{"app_mentions:read", "chat:write", "commands"}
	f.TeamID = "T9"
	f.Mu.Unlock()
	t.Setenv("SLACK_APP_TOKEN", "")
	out.Reset()
	err := Run(t.Context(), []string{"slack", "check", "--config", path}, &out, &errb)
	for _, want := range []string{"scope users:read is not granted — add it", "scope channels:history", "profile team has team_id \"T1\" but the token is for team T9 — set",
		"SLACK_APP_TOKEN is not set (Socket Mode) — enable Socket Mode"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}
	if err == nil {
		t.Error("check with problems succeeded")
	}
}

func TestServe_RefusesASlackProfileWithoutItsToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schedbot.yaml")
	os.WriteFile(path, []byte(slacktest.Config), 0o600)
	t.Setenv("SLACK_BOT_TOKEN", "")
	t.Setenv("SLACK_APP_TOKEN", "xapp-test")
	var out, errb bytes.Buffer
	err := Run(t.Context(), []string{"serve", "--config", path}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "Slack profile team is configured but SLACK_BOT_TOKEN not set") {
		t.Fatalf("serve with a Slack profile and no token: %v", err)
	}
}
