package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChat_TalksToARunningServe: while serve runs, chat talks to it
// through the local API instead of refusing; the job it makes lives in
// the daemon, whose output shows its post after chat has ended.
func TestChat_TalksToARunningServe(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startServe(t, data, "--metrics", "off")
	d.waitReady(t, data)

	chat := exec.Command(binary, "chat", "--data", data)
	chat.Env = append(os.Environ(), "SCHEDBOT_CONFIG=", "TZ=UTC")
	chat.Stdin = strings.NewReader("post hello from chat every day at 9am\nrun it now\n")
	out, err := chat.CombinedOutput()
	if err != nil {
		t.Fatalf("chat beside a running serve: %v\n%s", err, out)
	}
	for _, want := range []string{"through the running schedbot serve", "keep firing after chat ends",
		"OK — I'll post “hello from chat” every day at 9:00 AM"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("chat output lacks %q:\n%s", want, out)
		}
	}
	// chat has ended; the daemon posts the job's run.
	waitFor(t, 20*time.Second, "serve to print the job's post", func() bool {
		return strings.Contains(d.stdout.String(), "]: hello from chat")
	})
	if strings.Contains(d.stdout.String(), "OK — I'll post") {
		t.Errorf("serve printed chat's reply as well:\n%s", d.stdout.String())
	}
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("serve: %v\n%s", err, d.stderr.String())
	}
}

// TestChat_AloneSaysRemindersStopWithIt: with no serve running, chat says
// at start that its reminders fire only while it runs.
func TestChat_AloneSaysRemindersStopWithIt(t *testing.T) {
	c := newCLI(t)
	out := c.mustRun("chat")
	if !strings.Contains(out, "reminders fire only while this chat runs") || !strings.Contains(out, "schedbot serve") {
		t.Errorf("chat alone does not say its reminders stop with it:\n%s", out)
	}
}
