package main

import (
	"log/slog"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/selector/rules"
)

// newSelector is the selector the config asks for.
func newSelector(cfg *config.Config, log *slog.Logger) selector.Selector {
	return rules.New()
}
