package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
)

func loadConfig(c commonFlags) (*config.Config, error) {
	cfg, err := config.Find(c.config, c.data)
	if err != nil {
		return nil, err
	}
	if err := app.CheckFunctions(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// oldDataNote points at ./.schedbot when it holds a store of an older
// schedbot, which kept its data in the current directory, and the
// embedded default now looks elsewhere ("" otherwise).
func oldDataNote(c commonFlags, cfg *config.Config) string {
	if c.data != "" || cfg.Source != "embedded default" {
		return ""
	}
	old, err := filepath.Abs(".schedbot")
	if err != nil || old == config.DefaultDataDir() {
		return ""
	}
	if _, err := os.Stat(filepath.Join(old, "default", "automation", "automation.db")); err != nil {
		return ""
	}
	return fmt.Sprintf("note: %s holds the data of an older schedbot, which kept it in the current directory; "+
		"run with --data %s to use it", old, old)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
