package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

func benchJob(i int, at time.Time) *store.Job {
	id := fmt.Sprintf("01K%023d", i)
	return &store.Job{JobID: id, OrchestratorID: "default", ScheduleType: store.ScheduleCron,
		CreatedBy: store.Actor{Via: store.ViaCLI, Sender: "ada", SenderID: "1000"},
		Schedule:  store.Schedule{Cron: fmt.Sprintf("%d %d * * *", at.Minute(), at.Hour()), Timezone: "UTC"},
		State:     store.JobEnabled, NextRunAt: at, NextRunAtLocal: at.Format("2006-01-02T15:04:05"),
		Description: "Every day at 9:00 AM (UTC)",
		TargetAction: store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post",
			FunctionArgs: json.RawMessage(`{"text":"hello world"}`)},
		MisfirePolicy: store.MisfireFireOnce, OverlapPolicy: store.OverlapSkip,
		LastRunAt: at.Add(-24 * time.Hour), RunCount: 41,
		LastResult: &store.Result{ExecutionID: store.ExecutionID(id, at.Add(-24*time.Hour)), Status: string(store.RunCompleted)},
		CreatedAt:  at.Add(-48 * time.Hour), UpdatedAt: at.Add(-24 * time.Hour)}
}

func benchOpen(b *testing.B, dsn, orch string) *postgres.Store {
	b.Helper()
	return benchOpenAs(b, dsn, orch, nil)
}

func benchOpenAs(b *testing.B, dsn, orch string, opts *postgres.Options) *postgres.Store {
	b.Helper()
	s, err := postgres.Open(context.Background(), dsn, orch, opts)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func join(b *testing.B, st *postgres.Store) {
	b.Helper()
	if err := st.Join(context.Background()); err != nil {
		b.Fatal(err)
	}
}

func putJobs(b *testing.B, st store.Store, n int, at time.Time) {
	b.Helper()
	err := st.Update(context.Background(), func(tx store.Tx) error {
		for i := range n {
			if err := tx.JobPut(benchJob(i, at)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// copyLimit is the physical limit of a burst of n on this server: one
// transaction COPYing in the run and trigger rows of n windows, encoded as
// the store encodes them.
func copyLimit(b *testing.B, dsn, orch string, n int) time.Duration {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		at := time.Now().UTC()
		runs := make([][]any, 0, n)
		items := make([][]any, 0, n)
		for i := range n {
			jobID := fmt.Sprintf("01K%023d", i)
			execID := store.ExecutionID(jobID, at)
			itemID := fmt.Sprintf("%s-%08d", orch, i)
			r, _ := json.Marshal(&store.Run{ExecutionID: execID, JobID: jobID, ScheduledAt: at, DispatchedAt: at, Status: store.RunDispatched})
			it, _ := json.Marshal(&store.QueueItem{ItemID: itemID, Kind: store.KindTrigger, Queue: store.QueueIncoming, OrchestratorID: "default",
				JobID: jobID, ExecutionID: execID, ScheduledAt: at, TriggerAt: at, Payload: json.RawMessage(`{}`), CreatedAt: at, UpdatedAt: at})
			runs = append(runs, []any{orch, []byte(execID), []byte(jobID), r})
			items = append(items, []any{orch, []byte(itemID), "incoming", at.UnixNano(), it})
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"schedbot_runs"}, []string{"orchestrator_id", "execution_id", "job_id", "body"}, pgx.CopyFromRows(runs)); err != nil {
			return err
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"schedbot_queue"}, []string{"orchestrator_id", "item_id", "queue", "updated_ns", "body"}, pgx.CopyFromRows(items))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func medianDur(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

func medianF(f []float64) float64 {
	f = slices.Clone(f)
	slices.Sort(f)
	return f[len(f)/2]
}

// burst puts n jobs due at due in a fresh orchestrator, opened by k
// joined stores (k processes), and returns fire, which fires them from the
// k stores' schedulers at once and returns how long that took (the
// benchmark's timer runs for that alone): one store fires with two
// transactions, several with one each.
func burst(b *testing.B, dsn, orch string, k, n int, due time.Time) (fire func() time.Duration) {
	b.Helper()
	var stores []*postgres.Store
	for i := range k {
		st := benchOpenAs(b, dsn, orch, &postgres.Options{Owner: fmt.Sprintf("instance%d", i)})
		join(b, st) // as serve does
		stores = append(stores, st)
	}
	putJobs(b, stores[0], n, due)
	return func() time.Duration { return fireAll(b, stores, orch, n, due) }
}

func fireAll(b *testing.B, stores []*postgres.Store, orch string, n int, due time.Time) time.Duration {
	b.StartTimer()
	start := time.Now()
	var total atomic.Int64
	var wg sync.WaitGroup
	for _, st := range stores {
		wg.Go(func() {
			fired, err := scheduler.New(st, &scheduler.Options{OrchestratorID: orch}).FireDue(context.Background(), due)
			if err != nil {
				b.Error(err)
			}
			total.Add(int64(fired))
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if total.Load() != int64(n) {
		b.Fatalf("%d instances fired %d, want %d", len(stores), total.Load(), n)
	}
	for _, st := range stores {
		st.Close()
	}
	return elapsed
}

// BenchmarkBurst10k: 10,000 jobs due in one minute, dispatched by the
// scheduler on postgres (run, trigger, job status and audit event of each,
// in transactions of the scheduler's batch), against the COPY limit
// measured in the same round; then the same burst fired by three processes
// at once against one process in the same round. Each pair is measured in
// turn, in alternating order, so both see the same drift of a shared
// machine; the figures are medians of the rounds' ratios.
func BenchmarkBurst10k(b *testing.B) {
	const n = 10000
	dsn := pgtest.DSN(b)
	due := time.Now().Add(time.Hour).Truncate(time.Minute)
	var seq atomic.Int64
	orch := func() string { return fmt.Sprintf("burst%d", seq.Add(1)) }
	b.Run("one-instance-vs-copy-limit", func(b *testing.B) {
		var ours, limits []time.Duration
		var ratios []float64
		for b.Loop() {
			b.StopTimer()
			var limit time.Duration
			fire := burst(b, dsn, orch(), 1, n, due)
			if len(ours)%2 == 0 {
				limit = copyLimit(b, dsn, orch(), n)
			}
			elapsed := fire()
			if len(ours)%2 == 1 {
				limit = copyLimit(b, dsn, orch(), n)
			}
			ours, limits = append(ours, elapsed), append(limits, limit)
			ratios = append(ratios, float64(elapsed)/float64(limit))
			b.StartTimer()
		}
		b.ReportMetric(float64(medianDur(ours).Microseconds())/1000, "ms/burst")
		b.ReportMetric(float64(medianDur(limits).Microseconds())/1000, "ms/copy-limit")
		b.ReportMetric(medianF(ratios), "x-copy-limit")
	})
	b.Run("three-instances", func(b *testing.B) {
		var ours []time.Duration
		var ratios []float64
		for b.Loop() {
			b.StopTimer()
			var three, one time.Duration
			if len(ours)%2 == 0 {
				one = burst(b, dsn, orch(), 1, n, due)()
			}
			three = burst(b, dsn, orch(), 3, n, due)()
			if len(ours)%2 == 1 {
				one = burst(b, dsn, orch(), 1, n, due)()
			}
			ours, ratios = append(ours, three), append(ratios, float64(three)/float64(one))
			b.StartTimer()
		}
		b.ReportMetric(float64(medianDur(ours).Microseconds())/1000, "ms/burst")
		b.ReportMetric(medianF(ratios), "x-one-instance")
	})
}

// BenchmarkCreate: schedule.create through the function registry on postgres.
func BenchmarkCreate(b *testing.B) {
	st := benchOpen(b, pgtest.DSN(b), "default")
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 1 << 30, Functions: []string{"schedule.*", "message.post"}}})
	args := []byte(`{"scheduleType":"cron","schedule":{"cron":"0 9 * * 5","timezone":"America/New_York"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello"}}}`)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := reg.Call(context.Background(), functions.Request{Function: "schedule.create", Args: args,
			Actor: store.Actor{Via: store.ViaCLI, SenderID: "U1"}}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.ReportMetric(float64(medianDur(times).Microseconds())/1000, "ms-median")
}

type countDeliverer struct{ n atomic.Int64 }

func (c *countDeliverer) Deliver(context.Context, *orchestrator.Delivery) error {
	c.n.Add(1)
	return nil
}

// BenchmarkQueueThroughput: triggers through all three stages (claim and
// run, reply out, delivered and done) by one worker on postgres.
func BenchmarkQueueThroughput(b *testing.B) {
	const n = 5000
	dsn := pgtest.DSN(b)
	st := benchOpen(b, dsn, "default")
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 1 << 30, Functions: []string{"schedule.*", "message.post"}}})
	sink := &countDeliverer{}
	w := orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: st, Registry: reg,
		Deliverers: map[string]orchestrator.Deliverer{"terminal": sink}})
	ctx := context.Background()
	var total time.Duration
	round := 0
	for b.Loop() {
		b.StopTimer()
		err := st.Update(ctx, func(tx store.Tx) error {
			at := time.Now().UTC()
			for i := range n {
				id := fmt.Sprintf("01K%08d%015d", round, i)
				j := &store.Job{JobID: id, OrchestratorID: "default", ScheduleType: "cron",
					Schedule: store.Schedule{Cron: "0 9 * * *", Timezone: "UTC"}, State: store.JobPaused,
					TargetAction: store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post",
						FunctionArgs: json.RawMessage(`{"text":"hello world"}`)},
					MisfirePolicy: store.MisfireFireOnce, OverlapPolicy: store.OverlapSkip}
				exec := store.ExecutionID(id, at)
				j.LastResult = &store.Result{ExecutionID: exec, Status: "dispatched"}
				if err := tx.JobPut(j); err != nil {
					return err
				}
				if err := tx.RunPut(&store.Run{ExecutionID: exec, JobID: id, ScheduledAt: at, Status: store.RunDispatched}); err != nil {
					return err
				}
				if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: id, ExecutionID: exec}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		before := sink.n.Load()
		b.StartTimer()
		start := time.Now()
		for sink.n.Load()-before < n {
			if _, err := w.Step(ctx); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(start)
		round++
	}
	b.ReportMetric(float64(n*round)/total.Seconds(), "items/s")
}

// BenchmarkAuditConcurrentWriters: transactions of one audit event each
// (as schedule.create writes them), from one writer and from four at once
// on one orchestrator, whose appends queue on the chain's head row.
func BenchmarkAuditConcurrentWriters(b *testing.B) {
	dsn := pgtest.DSN(b)
	for _, writers := range []int{1, 4} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			var stores []*postgres.Store
			for range writers {
				stores = append(stores, benchOpen(b, dsn, fmt.Sprintf("audit%d", writers)))
			}
			defer func() {
				for _, s := range stores {
					s.Close()
				}
			}()
			const per = 200
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				var wg sync.WaitGroup
				for _, s := range stores {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range per / writers {
							err := s.Update(context.Background(), func(tx store.Tx) error {
								return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "o", Action: store.AuditJobCreated})
							})
							if err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				total += time.Since(start)
			}
			b.ReportMetric(float64(per*b.N)/total.Seconds(), "events/s")
		})
	}
}
