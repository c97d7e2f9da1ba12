package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runNoData runs schedbot in-process in dir with no --data.
func runNoData(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	if err := Run(t.Context(), args, &out, &errb); err != nil {
		t.Fatalf("schedbot %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// TestDataDir_UserDataDirectory: with no --data, the embedded default keeps
// its data in the user's data directory whatever the current directory,
// so a job made in one directory is listed from another, and chat says
// where the data is.
func TestDataDir_UserDataDirectory(t *testing.T) {
	t.Setenv("SCHEDBOT_CONFIG", "")
	t.Setenv("TZ", "UTC")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Run("XDG_DATA_HOME", func(t *testing.T) {
		xdg := t.TempDir()
		t.Setenv("XDG_DATA_HOME", xdg)
		out, _ := runNoData(t, t.TempDir(), "call", "schedule.create", "--args", createArgs)
		id := jobIDRe.FindString(out)
		if out, _ := runNoData(t, t.TempDir(), "call", "schedule.list"); id == "" || !strings.Contains(out, id) {
			t.Errorf("a job made in one directory (%q) is not listed from another:\n%s", id, out)
		}
		if _, err := os.Stat(filepath.Join(xdg, "schedbot", "default", "automation", "automation.db")); err != nil {
			t.Errorf("store not under $XDG_DATA_HOME/schedbot: %v", err)
		}
	})
	t.Run("home", func(t *testing.T) {
		t.Setenv("XDG_DATA_HOME", "")
		cwd := t.TempDir()
		stdin = strings.NewReader("")
		defer func() { stdin = strings.NewReader("") }()
		out, _ := runNoData(t, cwd, "chat")
		want := filepath.Join(home, ".local", "share", "schedbot", "default", "automation", "automation.db")
		if !strings.Contains(out, "Data: "+want) {
			t.Errorf("chat does not say where the data is (%s):\n%s", want, out)
		}
		if _, err := os.Stat(want); err != nil {
			t.Errorf("store not under ~/.local/share/schedbot: %v", err)
		}
		if _, err := os.Stat(filepath.Join(cwd, ".schedbot")); err == nil {
			t.Error("chat made ./.schedbot in the current directory")
		}
	})
	t.Run("an older ./.schedbot is pointed at", func(t *testing.T) {
		t.Setenv("XDG_DATA_HOME", t.TempDir())
		cwd := t.TempDir()
		runNoData(t, cwd, "call", "schedule.list", "--data", ".schedbot") // makes ./.schedbot's store
		stdin = strings.NewReader("")
		defer func() { stdin = strings.NewReader("") }()
		_, errs := runNoData(t, cwd, "chat")
		if !strings.Contains(errs, "--data "+filepath.Join(cwd, ".schedbot")) {
			t.Errorf("chat in a directory holding an older ./.schedbot does not say how to use it:\n%s", errs)
		}
	})
}
