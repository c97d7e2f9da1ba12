package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeTest_WithoutACCompiler: on a machine with Go and no C compiler
// (so no cgo, which -race needs), `make test` runs the tests without
// -race and says why; with one, and always in CI, with -race.
func TestMakeTest_WithoutACCompiler(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on this machine")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	// A PATH holding go and make only: no gcc, no cc.
	bin := t.TempDir()
	for name, target := range map[string]string{"go": goBin, "make": makeBin} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	dryRun := func(t *testing.T, path string, env ...string) string {
		t.Helper()
		cmd := exec.Command(makeBin, "-n", "test")
		cmd.Dir = filepath.Join("..", "..")
		// go may leave a process behind that writes under HOME (its
		// telemetry) after make ends: a home whose removal may fail.
		home, err := os.MkdirTemp("", "schedbot-make-home-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(home) })
		cmd.Env = append([]string{"PATH=" + path, "HOME=" + home, "GOCACHE=" + t.TempDir()}, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n test: %v\n%s", err, out)
		}
		return string(out)
	}
	out := dryRun(t, bin)
	if strings.Contains(out, "test -race") || !strings.Contains(out, "test  ./...") || !strings.Contains(out, "no C compiler") {
		t.Errorf("without a C compiler, make test runs:\n%s\nwant go test without -race, and a note saying why", out)
	}
	if out := dryRun(t, bin, "CI=true"); !strings.Contains(out, "test -race ./...") {
		t.Errorf("in CI, make test runs:\n%s\nwant go test -race", out)
	}
	if _, err := exec.LookPath("gcc"); err == nil {
		if out := dryRun(t, os.Getenv("PATH")); !strings.Contains(out, "test -race ./...") {
			t.Errorf("with gcc on PATH, make test runs:\n%s\nwant go test -race", out)
		}
	}
}

// TestVersion_MakeBuildStampsIt: `make build` makes a binary whose
// `schedbot version` names the commit it was built from, not "(devel)".
func TestVersion_MakeBuildStampsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds schedbot")
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on this machine")
	}
	rev, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	bin := filepath.Join(t.TempDir(), "schedbot")
	cmd := exec.Command(makeBin, "build", "BIN="+bin)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("schedbot version: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "schedbot ") || !strings.Contains(string(out), strings.TrimSpace(string(rev))) || strings.Contains(string(out), "(devel)") {
		t.Errorf("schedbot version = %q, want the commit %s", out, strings.TrimSpace(string(rev)))
	}
}
