package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestSystem_MatchesGolden(t *testing.T) {
	got, err := System(SystemData{Channel: "Slack", Now: "2026-11-20T10:00:00-05:00", Weekday: "Friday",
		Timezone: "America/New_York", Workflows: "daily-report"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "system.golden")
	if *update {
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./prompts -update)", err)
	}
	if got != string(want) {
		t.Errorf("system prompt differs from %s:\n%s", path, got)
	}
}
