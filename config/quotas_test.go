package config

import (
	"strings"
	"testing"
	"time"
)

func TestOrchestrator_SenderQuotaAndFloor(t *testing.T) {
	c, err := Parse([]byte("orchestrators: {a: {}, b: {max_jobs_per_sender: 7, min_interval: 15m}}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Orchestrators["a"], c.Orchestrators["b"]
	if a.MaxJobsPerSender != DefaultMaxJobsPerSender || time.Duration(a.MinInterval) != time.Minute {
		t.Errorf("defaults: max_jobs_per_sender %d, min_interval %s; want 100 and 1m", a.MaxJobsPerSender, a.MinInterval)
	}
	if b.MaxJobsPerSender != 7 || time.Duration(b.MinInterval) != 15*time.Minute {
		t.Errorf("set: max_jobs_per_sender %d, min_interval %s; want 7 and 15m", b.MaxJobsPerSender, b.MinInterval)
	}
	if c, err := Parse([]byte("orchestrators: {a: {min_interval: 30s}}\n"), t.TempDir()); err != nil || time.Duration(c.Orchestrators["a"].MinInterval) != 30*time.Second {
		t.Errorf("a floor set below a minute: %v", err)
	}
	for src, want := range map[string]string{
		"orchestrators: {a: {max_jobs_per_sender: -1}}\n": "orchestrators.a.max_jobs_per_sender: must be positive, got -1",
		"orchestrators: {a: {min_interval: -1m}}\n":       "orchestrators.a.min_interval: must be whole seconds from 1s to 24h, got -1m0s",
		"orchestrators: {a: {min_interval: 500ms}}\n":     "orchestrators.a.min_interval: must be whole seconds from 1s to 24h, got 500ms",
		"orchestrators: {a: {min_interval: 25h}}\n":       "orchestrators.a.min_interval: must be whole seconds from 1s to 24h, got 25h0m0s",
		"orchestrators: {a: {min_interval: often}}\n":     "not a duration",
		// a 0 would be read as "left out", the default: refused, named
		"orchestrators: {a: {min_interval: 0s}}\n":          "orchestrators.a.min_interval: must not be 0s (line 1); leave it out for the default",
		"orchestrators: {a: {max_jobs: 0}}\n":               "orchestrators.a.max_jobs: must not be 0",
		"runs: {keep_per_job: 0}\norchestrators: {a: {}}\n": "runs.keep_per_job: must not be 0",
	} {
		if _, err := Parse([]byte(src), t.TempDir()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", strings.TrimSpace(src), err, want)
		}
	}
}
