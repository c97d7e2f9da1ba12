package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	httpapi "github.com/schedbot/schedbot/adapters/http"
)

// serveHTTPAPI starts the HTTP API on server.http_listen, when set, over
// TLS when server.tls_cert is set.
func (d *daemon) serveHTTPAPI(g *errgroup.Group, ctx context.Context) error {
	cfg := d.cfg
	addr := cfg.Server.HTTPListen
	if addr == "" {
		return nil
	}
	if err := cfg.Server.CheckHTTP(); err != nil {
		return err
	}
	opts := httpapi.Options{Orchestrators: map[string]*httpapi.Orchestrator{}, Profiles: map[string]httpapi.Profile{}, Logger: d.log}
	for id, oc := range d.orchs {
		o := &httpapi.Orchestrator{ID: id, Registry: oc.reg, Store: oc.store, Selector: newSelector(cfg, oc.reg, d.log),
			Timezone: oc.cfg.Timezone}
		for wid := range oc.cfg.Workflows {
			o.Workflows = append(o.Workflows, wid)
		}
		opts.Orchestrators[id] = o
	}
	for id, p := range cfg.ChannelProfiles {
		opts.Profiles[id] = httpapi.Profile{ID: id, OrchestratorID: p.OrchestratorID, Channel: p.Channel, Timezone: p.Timezone}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("http api: listen on %s: %w", addr, err)
	}
	scheme := "http"
	if cfg.Server.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.Server.TLSCert, cfg.Server.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("server.tls_cert, server.tls_key: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	srv := &http.Server{Handler: httpapi.New(opts), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(d.log.Handler(), slog.LevelWarn)}
	d.serveHTTP(g, ctx, "http api", srv, ln)
	d.log.Info("http api listening", slog.String("addr", ln.Addr().String()), slog.String("scheme", scheme))
	return nil
}
