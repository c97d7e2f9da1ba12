package daemon

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
)

type metrics struct {
	reg              *prometheus.Registry
	runs             *prometheus.CounterVec
	lateness         *prometheus.HistogramVec
	deliveriesFailed *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "schedbot_runs_total", Help: "Run records written, by status.",
		}, []string{"orchestrator", "status"}),
		lateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "schedbot_fire_lateness_seconds", Help: "How long after its scheduled instant a window was dispatched.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 30, 60, 300, 3600},
		}, []string{"orchestrator"}),
		deliveriesFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "schedbot_deliveries_failed_total", Help: "Failed delivery attempts, by channel and whether the item was dead-lettered.",
		}, []string{"orchestrator", "channel", "dead"}),
	}
	m.reg.MustRegister(m.runs, m.lateness, m.deliveriesFailed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

var (
	jobsDesc  = prometheus.NewDesc("schedbot_jobs", "Jobs by state.", []string{"orchestrator", "state"}, nil)
	queueDesc = prometheus.NewDesc("schedbot_queue_depth", "Items in each queue.", []string{"orchestrator", "queue"}, nil)
	// The audit chain's head, for an external copy to compare with
	// `schedbot audit verify --head`.
	auditHeadDesc = prometheus.NewDesc("schedbot_audit_head_seq", "The audit chain's last record; its hash is the hash label.", []string{"orchestrator", "hash"}, nil)

	// This process's work on a shared database (postgres stores only).
	dueClaimedDesc = prometheus.NewDesc("schedbot_db_due_claimed_total", "Due jobs this instance locked for dispatch.", []string{"orchestrator"}, nil)
	itemsDesc      = prometheus.NewDesc("schedbot_db_items_claimed_total", "Queue items this instance claimed.", []string{"orchestrator"}, nil)
	leasesDesc     = prometheus.NewDesc("schedbot_db_leases_expired_total", "Claimed items whose lease had run out (another claimer stopped).", []string{"orchestrator"}, nil)
	wakeupsDesc    = prometheus.NewDesc("schedbot_db_notify_wakeups_total", "Wake-ups by NOTIFY from other instances.", []string{"orchestrator"}, nil)
)

// storeCollector reads job and queue counts from the stores at scrape time.
type storeCollector struct{ d *Daemon }

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobsDesc, queueDesc, auditHeadDesc, dueClaimedDesc, itemsDesc, leasesDesc, wakeupsDesc} {
		ch <- d
	}
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for id, oc := range c.d.orchs {
		if pg, ok := oc.Store.(*postgres.Store); ok {
			st := pg.Stats()
			for d, v := range map[*prometheus.Desc]int64{dueClaimedDesc: st.DueClaimed, itemsDesc: st.ItemsClaimed,
				leasesDesc: st.LeasesTaken, wakeupsDesc: st.Wakeups} {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), id)
			}
		}
		c, err := oc.Store.Count(ctx)
		if err != nil {
			continue // a store that cannot be read reports no gauges; /healthz says why
		}
		for _, st := range store.JobStates {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(c.Jobs[st]), id, string(st))
		}
		for _, q := range store.QueueNames {
			ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(c.Queues[q]), id, string(q))
		}
		ch <- prometheus.MustNewConstMetric(auditHeadDesc, prometheus.GaugeValue, float64(c.AuditSeq), id, c.AuditHash)
	}
}

// MetricsHandler serves /metrics and /healthz (server.metrics_listen). It
// registers the collector that reads the stores, so call it once.
func (d *Daemon) MetricsHandler() http.Handler {
	d.metrics.reg.MustRegister(storeCollector{d})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.metrics.reg, promhttp.HandlerOpts{}))
	want := int32(2 * len(d.orchs))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if n := d.alive.Load(); n < want {
			http.Error(w, "not all loops are running", http.StatusServiceUnavailable)
			return
		}
		if d.slack != nil && !d.slack.Connected() {
			http.Error(w, "slack: not connected", http.StatusServiceUnavailable)
			return
		}
		db, err := d.pingDatabases(r.Context())
		if err == nil {
			err = d.probeWrites(r.Context())
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n" + db))
	})
	return mux
}

// metricsTimeouts bound what one client of the metrics endpoint may hold:
// a slow sender, a slow reader, a connection left open. Tests shorten them.
var metricsTimeouts = struct{ readHeader, read, write, idle time.Duration }{
	readHeader: 10 * time.Second, read: 30 * time.Second, write: 30 * time.Second, idle: 2 * time.Minute,
}

// newMetricsServer serves /metrics and /healthz with every timeout set, so
// that clients which stop reading or sending cannot pile up connections.
func newMetricsServer(h http.Handler) *http.Server {
	t := metricsTimeouts
	return &http.Server{Handler: h, ReadHeaderTimeout: t.readHeader, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle}
}

// writeProbe is the outcome of /healthz's last write to the stores, kept
// for probeEvery so that a health check polled often costs one small
// transaction per store every few seconds.
type writeProbe struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

const probeEvery = 5 * time.Second

// probeKey is the conversation record the probe writes and deletes again.
const probeKey = "schedbot:healthz-probe"

// probeWrites checks that every store can still commit a write (a full
// disk, a read-only file system, a database in recovery say no): a
// record written and deleted in one transaction.
func (d *Daemon) probeWrites(ctx context.Context) error {
	d.probe.mu.Lock()
	defer d.probe.mu.Unlock()
	if !d.probe.at.IsZero() && time.Since(d.probe.at) < probeEvery {
		return d.probe.err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var err error
	for _, id := range slices.Sorted(maps.Keys(d.orchs)) {
		werr := d.orchs[id].Store.Update(ctx, func(tx store.Tx) error {
			if err := tx.ConversationPut(&store.Conversation{Key: probeKey, UpdatedAt: time.Now().UTC()}); err != nil {
				return err
			}
			return tx.ConversationDelete(probeKey)
		})
		if werr != nil {
			err = fmt.Errorf("store not writable (orchestrator %s): %v", id, werr)
			break
		}
	}
	d.probe.at, d.probe.err = time.Now(), err
	return err
}

// pinger is a store behind a network connection (postgres), which /healthz asks.
type pinger interface {
	Ping(ctx context.Context) error
}

// pingDatabases asks every database-backed store whether its database
// answers; it says "database: reachable" when one was asked and all did.
func (d *Daemon) pingDatabases(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	asked := false
	for _, id := range slices.Sorted(maps.Keys(d.orchs)) {
		p, ok := d.orchs[id].Store.(pinger)
		if !ok {
			continue
		}
		asked = true
		if err := p.Ping(ctx); err != nil {
			return "", fmt.Errorf("database unreachable (orchestrator %s): %v", id, err)
		}
	}
	if asked {
		return "database: reachable\n", nil
	}
	return "", nil
}
