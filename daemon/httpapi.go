package daemon

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/schedbot/schedbot/adapters/console"
	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// serveHTTPAPI starts the HTTP API and the web console on
// server.http_listen, when set, over TLS when server.tls_cert is set, and
// prints a one-time console sign-in link for each terminal profile.
func (d *Daemon) serveHTTPAPI(g *errgroup.Group, ctx context.Context) error {
	cfg := d.cfg
	addr := cfg.Server.HTTPListen
	if addr == "" {
		return nil
	}
	if err := cfg.Server.CheckHTTP(); err != nil {
		return err
	}
	opts := httpapi.Options{Orchestrators: map[string]*httpapi.Orchestrator{}, Profiles: map[string]httpapi.Profile{}, Logger: d.log}
	copts := console.Options{Stores: map[string]store.Store{}, Profiles: map[string]console.Profile{}, Logger: d.log,
		PublicURL: cfg.Server.PublicURL, Secure: cfg.Server.TLSCert != "" || strings.HasPrefix(cfg.Server.PublicURL, "https:")}
	for id, oc := range d.orchs {
		o := &httpapi.Orchestrator{ID: id, Registry: oc.Reg, Store: oc.Store, Selector: newSelector(cfg, oc.Reg, d.log),
			Timezone: oc.Cfg.Timezone}
		for wid := range oc.Cfg.Workflows {
			o.Workflows = append(o.Workflows, wid)
		}
		opts.Orchestrators[id] = o
		copts.Stores[id] = oc.Store
	}
	for id, p := range cfg.ChannelProfiles {
		opts.Profiles[id] = httpapi.Profile{ID: id, OrchestratorID: p.OrchestratorID, Channel: p.Channel, Timezone: p.Timezone}
		cp := console.Profile{ID: id, OrchestratorID: p.OrchestratorID, Channel: p.Channel, Timezone: p.Timezone}
		if cp.Timezone == "" {
			if o := cfg.Orchestrators[p.OrchestratorID]; o != nil {
				cp.Timezone = o.Timezone
			}
		}
		if p.Slack != nil {
			cp.SlackTeamID = p.Slack.TeamID
		}
		copts.Profiles[id] = cp
	}
	if id, secret := os.Getenv(config.EnvSlackClientID), os.Getenv(config.EnvSlackClientSecret); id != "" && secret != "" {
		apiURL := cfg.Slack.APIURL
		if v := os.Getenv(config.EnvSlackAPIURL); v != "" {
			apiURL = v
		}
		copts.Slack = &console.SlackSignIn{ClientID: id, ClientSecret: secret, APIURL: apiURL}
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
	copts.API = httpapi.New(opts)
	con := console.New(copts)
	srv := &http.Server{Handler: con, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(d.log.Handler(), slog.LevelWarn)}
	d.serveHTTP(g, ctx, "http api", srv, ln)
	base := consoleBase(cfg.Server.PublicURL, scheme, ln.Addr())
	d.log.Info("http api listening", slog.String("addr", ln.Addr().String()), slog.String("scheme", scheme),
		slog.String("console", base+"/console/"))
	d.printSignInLinks(ctx, con, base)
	return nil
}

// printSignInLinks prints a one-time console sign-in link for each
// terminal profile, acting as the OS user at the terminal (its admin), on
// serve's stdout: a link is a secret, so it never goes to the log.
func (d *Daemon) printSignInLinks(ctx context.Context, con *console.Console, base string) {
	var ids []string
	for id, p := range d.cfg.ChannelProfiles {
		if p.Channel == "terminal" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		d.log.Info("console: no terminal profile, so no sign-in link; sign in with Slack or an API token (docs/CONSOLE.md)")
	}
	for _, id := range ids {
		a := app.CLIActor(id)
		sender := a.Sender
		if sender == "" {
			sender = a.SenderID
		}
		link, err := con.SignInLink(ctx, id, sender)
		if err != nil {
			d.log.Warn("console sign-in link", slog.String("profile", id), slog.Any("error", err))
			continue
		}
		fmt.Fprintf(d.stdout, "Console (%s, as %s; the link works once, within %s):\n    %s%s\n", id, sender,
			console.SignInTTL, base, link)
		d.log.Info("console sign-in link printed on stdout", slog.String("profile", id))
	}
}

// consoleBase is the console's address for links: server.public_url, or
// the listener's, with a wildcard host read as localhost.
func consoleBase(public, scheme string, addr net.Addr) string {
	if public != "" {
		return strings.TrimSuffix(public, "/")
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
