// Package daemon is what `schedbot serve` runs, and `schedbot chat` when
// no serve does: each orchestrator's scheduler, queue worker and
// housekeeping over its store, the deliverers (terminal, Slack), the
// local API the CLI talks to, the HTTP API and console, and /metrics and
// /healthz. Start builds and starts them; Wait waits for them to stop.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	termcli "github.com/schedbot/schedbot/adapters/cli"
	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
)

// Daemon is what `schedbot serve` runs: every orchestrator's scheduler and
// worker, the local API and the metrics endpoint, under one owner.
type Daemon struct {
	cfg     *config.Config
	log     *slog.Logger
	orchs   map[string]*app.Orch
	metrics *metrics
	alive   atomic.Int32 // loops running
	probe   writeProbe   // /healthz's last write to the stores
	chat    *chatHub     // replies awaited by chats through the local API
	slack   *slackad.Adapter
	stdout  io.Writer // serve's own output: the console's sign-in links
	wait    func() error
}

// Options are what Start takes besides the config.
type Options struct {
	Logger *slog.Logger
	// Stdout is serve's own output: the terminal profiles' deliveries and
	// the console's sign-in links.
	Stdout io.Writer
	// DeliveryLog, when set, is a file terminal deliveries are also
	// appended to, so that no item is printed twice (adapters/cli).
	DeliveryLog string
}

// Orchestrator is the served orchestrator id (its store, registry and
// worker), nil when it is not served.
func (d *Daemon) Orchestrator(id string) *app.Orch { return d.orchs[id] }

// Wait blocks until everything Start started has stopped (after its ctx
// is done, or one part failed) and the stores are closed, and returns the
// first failure.
func (d *Daemon) Wait() error { return d.wait() }

func (d *Daemon) view(ctx context.Context, o *config.Orchestrator, fn func(store.Store) error) error {
	oc := d.orchs[o.ID]
	if oc == nil {
		return fmt.Errorf("orchestrator %q is not served", o.ID)
	}
	return fn(oc.Store)
}

// Start opens every orchestrator and starts its scheduler and worker,
// the local API, the Slack and HTTP listeners and (when configured) the
// metrics endpoint, all stopped by ctx. Nothing is left running when it
// fails.
func Start(ctx context.Context, cfg *config.Config, opts Options) (d *Daemon, err error) {
	log, stdout, deliveryLog := opts.Logger, opts.Stdout, opts.DeliveryLog
	if cfg.Server.MetricsListen == "off" {
		cfg.Server.MetricsListen = ""
	}
	dm := &Daemon{cfg: cfg, log: log, orchs: map[string]*app.Orch{}, metrics: newMetrics(), chat: newChatHub(), stdout: stdout}
	var term *termcli.Terminal
	cleanup := func() {
		for _, oc := range dm.orchs {
			if err := oc.Close(); err != nil {
				log.Error("close store", slog.String("orchestrator", oc.Cfg.ID), slog.Any("error", err))
			}
		}
		if term != nil {
			term.Close()
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	g, gctx := errgroup.WithContext(ctx)
	slackAd, err := newSlackAdapter(cfg, dm, log)
	if err != nil {
		cancel()
		return nil, err
	}
	dm.slack = slackAd
	defer func() {
		if err != nil { // stop what started before closing what it uses
			cancel()
			g.Wait()
			cleanup()
		}
	}()
	d = dm
	// Every store is opened first (and, on a database, this process
	// marked live), so that a failure starts nothing.
	type loops struct {
		sched  *scheduler.Scheduler
		worker *orchestrator.Worker
	}
	orchLoops := map[string]*loops{}
	for _, id := range cfg.OrchestratorIDs() {
		l := &loops{}
		orchLoops[id] = l
		oc, err := app.OpenOrch(cfg, cfg.Orchestrators[id], log, func() {
			l.sched.Wake()
			l.worker.Wake()
			if slackAd != nil {
				slackAd.HomeChanged()
			}
		})
		if err != nil {
			return nil, fmt.Errorf("orchestrator %s: %w", id, err)
		}
		d.orchs[id] = oc
		if err := app.JoinLoops(ctx, oc.Store); err != nil {
			return nil, fmt.Errorf("orchestrator %s: %w", id, err)
		}
	}
	if term, err = termcli.NewTerminal(stdout, deliveryLog); err != nil {
		return nil, err
	}
	for _, id := range cfg.OrchestratorIDs() {
		o, oc, l := cfg.Orchestrators[id], d.orchs[id], orchLoops[id]
		var sched *scheduler.Scheduler
		var worker *orchestrator.Worker
		m := d.metrics
		sched = scheduler.New(oc.Store, &scheduler.Options{
			OrchestratorID: id, Logger: log, RunTimeout: time.Duration(cfg.Runs.Timeout),
			DispatchedFunc: func(_ *store.Job, _ *store.Run, late time.Duration) {
				m.lateness.WithLabelValues(id).Observe(late.Seconds())
				worker.Wake()
			},
			RecordedFunc: func(r *store.Run) { m.runs.WithLabelValues(id, string(r.Status)).Inc() },
		})
		conv := conversations(cfg, o, oc, log)
		deliverers := map[string]orchestrator.Deliverer{config.ChannelTerminal: dm.chat.before(term)}
		oc.Conv = conv
		var dead func(*store.QueueItem, error)
		if slackAd != nil {
			deliverers[config.ChannelSlack] = slackAd
			conv.ResolveTarget = slackAd.Resolve
			dead = func(it *store.QueueItem, cause error) {
				// On the lane that failed, after its outcome is recorded.
				tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer cancel()
				d.tellOwner(tctx, oc, slackAd, it, cause)
			}
		}
		worker = orchestrator.NewWorker(orchestrator.Options{
			OrchestratorID: id, Store: oc.Store, Registry: oc.Reg, Workflows: o.Workflows,
			Deliverers:      deliverers,
			ProfileChannels: profileChannels(cfg),
			DefaultTarget:   app.DefaultTarget(cfg, id),
			Messages:        conv.Decide,
			Logger:          log,
			RunFunc:         func(r *store.Run) { m.runs.WithLabelValues(id, string(r.Status)).Inc() },
			DeliveryFailedFunc: func(ch string, dead bool) {
				m.deliveriesFailed.WithLabelValues(id, ch, fmt.Sprint(dead)).Inc()
			},
			DeadFunc: dead,
		})
		oc.Worker = worker
		l.sched, l.worker = sched, worker
		d.loop(g, gctx, "scheduler "+id, sched.Run)
		d.loop(g, gctx, "worker "+id, worker.Run)
		d.loop(g, gctx, "housekeeping "+id, (&housekeeper{id: id, st: oc.Store, cfg: cfg, log: log}).Run)
		if pg, ok := oc.Store.(*postgres.Store); ok {
			// Stop everything if the connection that marks this process
			// live breaks: the other processes are taking its work over.
			// A process that died leaves its claims to the others: look.
			d.loop(g, gctx, "live "+id, func(ctx context.Context) error { return pg.Watch(ctx, worker.Wake) })
			// A change committed by another process (a CLI on another host)
			// wakes the loops at once, not at the next safety wake.
			d.loop(g, gctx, "listen "+id, func(ctx context.Context) error {
				return pg.Listen(ctx, func(w postgres.Wake) {
					if w.Jobs {
						sched.Wake()
					}
					if w.Queue {
						worker.Wake()
					}
				})
			})
		}
	}
	if slackAd != nil {
		if cfg.Slack.Mode == "http" {
			dm.loop(g, gctx, "slack", func(ctx context.Context) error { return slackAd.RunHTTP(ctx, cfg.Slack.HTTPListen) })
		} else {
			dm.loop(g, gctx, "slack", slackAd.RunSocketMode)
		}
	}
	ln, err := localapi.Listen(cfg.Server.Socket)
	if err != nil {
		return nil, err
	}
	api := &http.Server{Handler: d.apiHandler(), ConnContext: localapi.ConnContext, ReadHeaderTimeout: 10 * time.Second}
	d.serveHTTP(g, gctx, "local API", api, ln)
	if addr := cfg.Server.MetricsListen; addr != "" {
		mln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("metrics listen on %s: %w", addr, err)
		}
		srv := newMetricsServer(d.MetricsHandler())
		d.serveHTTP(g, gctx, "metrics", srv, mln)
		log.Info("metrics listening", slog.String("addr", mln.Addr().String()))
	}
	if err := d.serveHTTPAPI(g, gctx); err != nil {
		return nil, err
	}
	dm.wait = func() error {
		err := g.Wait()
		cancel()
		os.Remove(cfg.Server.Socket)
		cleanup()
		return err
	}
	return dm, nil
}

// conversations is the message handling of one orchestrator: the rules
// selector over its profiles, workflows and functions.
func conversations(cfg *config.Config, o *config.Orchestrator, oc *app.Orch, log *slog.Logger) *conversation.Conversations {
	c := &conversation.Conversations{Selector: newSelector(cfg, oc.Reg, log), Registry: oc.Reg, Store: oc.Store,
		Profiles: map[string]conversation.Profile{}, Timezone: o.Timezone, Logger: log}
	for id, p := range cfg.ChannelProfiles {
		if p.OrchestratorID == o.ID {
			c.Profiles[id] = conversation.Profile{ID: id, Channel: p.Channel, Timezone: p.Timezone}
		}
	}
	for id := range o.Workflows {
		c.Workflows = append(c.Workflows, id)
	}
	return c
}

// loop runs one long-lived part; it counts as alive for /healthz while it runs.
func (d *Daemon) loop(g *errgroup.Group, ctx context.Context, name string, run func(context.Context) error) {
	g.Go(func() error {
		d.alive.Add(1)
		defer d.alive.Add(-1)
		if err := run(ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
}

func (d *Daemon) serveHTTP(g *errgroup.Group, ctx context.Context, name string, srv *http.Server, ln net.Listener) {
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	g.Go(func() error {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
}

func profileChannels(cfg *config.Config) map[string]string {
	m := map[string]string{}
	for id, p := range cfg.ChannelProfiles {
		m[id] = p.Channel
	}
	return m
}
