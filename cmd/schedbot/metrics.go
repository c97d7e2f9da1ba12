package main

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/schedbot/schedbot/store"
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
)

// storeCollector reads job and queue counts from the stores at scrape time.
type storeCollector struct{ d *daemon }

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc; ch <- queueDesc }

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for id, oc := range c.d.orchs {
		oc.store.View(ctx, func(tx store.Tx) error {
			for _, st := range store.JobStates {
				if n, err := tx.JobCount(st); err == nil {
					ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), id, string(st))
				}
			}
			for _, q := range store.QueueNames {
				if n, err := tx.QueueCount(q); err == nil {
					ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(n), id, string(q))
				}
			}
			return nil
		})
	}
}

func (d *daemon) metricsHandler() http.Handler {
	d.metrics.reg.MustRegister(storeCollector{d})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.metrics.reg, promhttp.HandlerOpts{}))
	want := int32(2 * len(d.orchs))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if n := d.alive.Load(); n < want {
			http.Error(w, "not all loops are running", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	return mux
}
