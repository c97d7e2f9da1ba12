package config

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Runs says when a run with no result is given up and how many runs are kept.
type Runs struct {
	// Timeout fails a run that stays dispatched or running this long with
	// no progress (a crashed or hung worker), whatever its job's schedule.
	Timeout Duration `yaml:"timeout"`
	// KeepPerJob is how many of a job's newest runs are kept; older ones
	// are pruned.
	KeepPerJob int `yaml:"keep_per_job"`
	// MaxAge prunes finished runs older than this, the newest KeepPerJob
	// included.
	MaxAge Duration `yaml:"max_age"`
}

// Retention says how long deleted jobs are kept.
type Retention struct {
	// DeletedJobs is how long a deleted job (and its runs) is kept after
	// its deletion.
	DeletedJobs Duration `yaml:"deleted_jobs"`
}

// Audit configures the audit log's anchoring outside the store.
type Audit struct {
	// KeyEnv names the environment variable holding the key that signs
	// each audit record (HMAC-SHA256); KeyFile is a file holding it
	// instead. Neither set: records carry no MAC.
	KeyEnv  string `yaml:"key_env"`
	KeyFile string `yaml:"key_file"`
	// PublishEvery is how often serve logs each chain's head and sets it
	// on the metrics, for an external copy to compare with.
	PublishEvery Duration `yaml:"publish_every"`
}

// Defaults of the runs, retention and audit sections.
const (
	DefaultRunTimeout      = time.Hour
	DefaultRunsKeepPerJob  = 100
	DefaultRunsMaxAge      = 90 * 24 * time.Hour
	DefaultDeletedJobsKept = 30 * 24 * time.Hour
	DefaultAuditKeyEnv     = "SCHEDBOT_AUDIT_KEY"
	DefaultAuditPublish    = time.Hour
)

func (c *Config) fillRecords(abs func(string) string) {
	if c.Runs.Timeout == 0 {
		c.Runs.Timeout = Duration(DefaultRunTimeout)
	}
	if c.Runs.KeepPerJob == 0 {
		c.Runs.KeepPerJob = DefaultRunsKeepPerJob
	}
	if c.Runs.MaxAge == 0 {
		c.Runs.MaxAge = Duration(DefaultRunsMaxAge)
	}
	if c.Retention.DeletedJobs == 0 {
		c.Retention.DeletedJobs = Duration(DefaultDeletedJobsKept)
	}
	if c.Audit.KeyEnv == "" {
		c.Audit.KeyEnv = DefaultAuditKeyEnv
	}
	c.Audit.KeyFile = abs(c.Audit.KeyFile)
	if c.Audit.PublishEvery == 0 {
		c.Audit.PublishEvery = Duration(DefaultAuditPublish)
	}
	for _, o := range c.Orchestrators {
		o.Audit = &c.Audit
	}
}

func (c *Config) validateRecords(bad func(path, format string, args ...any)) {
	if d := time.Duration(c.Runs.Timeout); d < time.Minute {
		bad("runs.timeout", "must be at least 1m, got %s", d)
	}
	if c.Runs.KeepPerJob < 1 {
		bad("runs.keep_per_job", "must be at least 1, got %d", c.Runs.KeepPerJob)
	}
	if d := time.Duration(c.Runs.MaxAge); d < time.Hour {
		bad("runs.max_age", "must be at least 1h, got %s", d)
	}
	if d := time.Duration(c.Retention.DeletedJobs); d < time.Hour {
		bad("retention.deleted_jobs", "must be at least 1h, got %s", d)
	}
	if !envPattern.MatchString(c.Audit.KeyEnv) {
		bad("audit.key_env", "must name an environment variable (letters, digits, _), not hold the key itself")
	}
	if d := time.Duration(c.Audit.PublishEvery); d < time.Minute {
		bad("audit.publish_every", "must be at least 1m, got %s", d)
	}
}

// AuditKey reads the audit key: from audit.key_file when set, else from
// the variable audit.key_env names. None set is no key (nil, nil); a key
// file that cannot be read, or a key shorter than 16 bytes, is an error.
func (a *Audit) AuditKey() ([]byte, error) {
	if a == nil {
		return nil, nil
	}
	var key, from string
	if a.KeyFile != "" {
		b, err := os.ReadFile(a.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("audit.key_file: %w", err)
		}
		key, from = strings.TrimSpace(string(b)), "audit.key_file "+a.KeyFile
	} else {
		key, from = os.Getenv(a.KeyEnv), "$"+a.KeyEnv
		if key == "" {
			return nil, nil
		}
	}
	if len(key) < 16 {
		return nil, fmt.Errorf("%s: the audit key must be at least 16 bytes, got %d", from, len(key))
	}
	return []byte(key), nil
}
