package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

type countDeliverer struct{ n atomic.Int64 }

func (c *countDeliverer) Deliver(context.Context, *orchestrator.Delivery) error {
	c.n.Add(1)
	return nil
}

// BenchmarkQueueThroughput: trigger items through incoming -> processing ->
// outgoing -> delivered, fsync on, each a message.post job's run.
func BenchmarkQueueThroughput(b *testing.B) {
	const n = 10000
	st, err := bolt.Open(filepath.Join(b.TempDir(), "q.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
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
		// n jobs, each with a dispatched run and its trigger in incoming.
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
