package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecords_DefaultsAndRules: the runs, retention and audit sections
// have defaults, and a bad value is refused naming its key and the rule.
func TestRecords_DefaultsAndRules(t *testing.T) {
	c, err := Parse([]byte("orchestrators: {a: {}}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs.Timeout != Duration(time.Hour) || c.Runs.KeepPerJob != 100 || c.Runs.MaxAge != Duration(90*24*time.Hour) ||
		c.Retention.DeletedJobs != Duration(30*24*time.Hour) || c.Audit.KeyEnv != "SCHEDBOT_AUDIT_KEY" || c.Audit.PublishEvery != Duration(time.Hour) {
		t.Errorf("defaults = %+v %+v %+v", c.Runs, c.Retention, c.Audit)
	}
	for src, want := range map[string]string{
		"runs: {timeout: 10s}":           "runs.timeout: must be at least 1m, got 10s",
		"runs: {keep_per_job: -1}":       "runs.keep_per_job: must be at least 1, got -1",
		"runs: {max_age: 5m}":            "runs.max_age: must be at least 1h, got 5m0s",
		"retention: {deleted_jobs: -1h}": "retention.deleted_jobs: must be at least 1h, got -1h0m0s",
		"audit: {key_env: 'secret key'}": "audit.key_env: must name an environment variable",
		"audit: {publish_every: 1s}":     "audit.publish_every: must be at least 1m, got 1s",
		"audit: {key: x}":                "audit.key: unknown key",
		"retention: {runs_per_job: 3}":   "retention.runs_per_job: unknown key",
	} {
		_, err := Parse([]byte("orchestrators: {a: {}}\n"+src+"\n"), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to contain %q", src, err, want)
		}
	}
}

// TestAudit_Key: the key comes from the file when one is named, else from
// the variable; none is no key, and a short one is refused.
func TestAudit_Key(t *testing.T) {
	t.Setenv("TEST_AUDIT_KEY", "")
	a := Audit{KeyEnv: "TEST_AUDIT_KEY"}
	if k, err := a.AuditKey(); k != nil || err != nil {
		t.Errorf("no key set: %q, %v", k, err)
	}
	t.Setenv("TEST_AUDIT_KEY", "short")
	if _, err := a.AuditKey(); err == nil || !strings.Contains(err.Error(), "$TEST_AUDIT_KEY: the audit key must be at least 16 bytes") {
		t.Errorf("short key: %v", err)
	}
	t.Setenv("TEST_AUDIT_KEY", "0123456789abcdef-env")
	if k, err := a.AuditKey(); string(k) != "0123456789abcdef-env" || err != nil {
		t.Errorf("key from the environment = %q, %v", k, err)
	}
	a.KeyFile = filepath.Join(t.TempDir(), "audit.key")
	if err := os.WriteFile(a.KeyFile, []byte("0123456789abcdef-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := a.AuditKey(); string(k) != "0123456789abcdef-file" || err != nil {
		t.Errorf("key from the file = %q, %v", k, err)
	}
}
