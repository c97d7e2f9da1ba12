package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/daemon"
)

// runServe is `schedbot serve`: the daemon, until ctx is done.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	var common commonFlags
	common.register(fs)
	deliveryLog := fs.String("delivery-log", "", "also append terminal deliveries to FILE, and never print one item twice")
	metricsAddr := fs.String("metrics", "", "listen address of /metrics and /healthz (overrides server.metrics_listen; \"off\" disables)")
	httpAddr := fs.String("http", "", "listen address of the HTTP API (overrides server.http_listen; \"off\" disables)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments")
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	if *metricsAddr != "" {
		cfg.Server.MetricsListen = *metricsAddr
	}
	if *httpAddr != "" {
		cfg.Server.HTTPListen = *httpAddr
		if *httpAddr == "off" {
			cfg.Server.HTTPListen = ""
		}
		if err := cfg.Server.CheckHTTP(); err != nil {
			return usagef("--http: %v", err)
		}
	}
	if err := daemon.RequireSlackEnv(cfg); err != nil {
		return err
	}
	log := newLogger(stderr, slog.LevelInfo)
	d, err := daemon.Start(ctx, cfg, daemon.Options{Logger: log, Stdout: stdout, DeliveryLog: *deliveryLog})
	if err != nil {
		return err
	}
	if note := oldDataNote(common, cfg); note != "" {
		log.Warn(note)
	}
	log.Info("schedbot serving", slog.String("config", cfg.Source), slog.String("data", app.DataWhere(cfg)), slog.String("socket", cfg.Server.Socket),
		slog.String("orchestrators", strings.Join(cfg.OrchestratorIDs(), ",")))
	err = d.Wait()
	log.Info("schedbot stopped")
	return err
}

// newLogger writes text to a terminal and JSON otherwise; the level comes
// from $SCHEDBOT_LOG_LEVEL (debug, info, warn, error).
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	if v := os.Getenv("SCHEDBOT_LOG_LEVEL"); v != "" {
		level.UnmarshalText([]byte(v))
	}
	opts := &slog.HandlerOptions{Level: level}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return slog.New(slog.NewTextHandler(w, opts))
		}
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
