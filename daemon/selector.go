package daemon

import (
	"log/slog"
	"os"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/selector/llm"
	"github.com/schedbot/schedbot/selector/rules"
)

// newSelector is the selector selector.mode asks for: the rules alone
// (default, no network); the LLM with the rules behind it when it cannot be
// reached; or hybrid, the LLM only for what the rules cannot read. With no
// API key in the environment nothing tries the network.
func newSelector(cfg *config.Config, reg *functions.Registry, log *slog.Logger) selector.Selector {
	r := rules.New()
	if cfg.Selector.Mode == "rules" {
		return r
	}
	c := cfg.Selector.LLM
	model := llm.New(llm.Config{BaseURL: c.BaseURL, Model: c.Model, APIKey: os.Getenv(c.APIKeyEnv),
		Timeout: time.Duration(c.Timeout)}, reg, log)
	if model == nil {
		log.Warn("selector.mode needs an API key; using the rules", slog.String("mode", cfg.Selector.Mode),
			slog.String("api_key_env", c.APIKeyEnv))
		return r
	}
	// every model proposal passes the rules' checks before it is acted on
	checked := &selector.Checked{Inner: model, Check: rules.CheckProposal}
	if cfg.Selector.Mode == "hybrid" {
		return &selector.Hybrid{First: r, Second: checked, Logger: log}
	}
	return &selector.Fallback{Primary: checked, Backup: r, Logger: log}
}
