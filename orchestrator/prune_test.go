package orchestrator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/internal/testkit"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// TestWorker_PruneReachesEveryDoneItem: done items older than KeepDone are
// pruned whatever their ids, even behind more recent items than one pass
// reads (ids a caller chose need not sort by time, as ULIDs do).
func TestWorker_PruneReachesEveryDoneItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "q.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		now := time.Now().UTC()
		err = st.Update(t.Context(), func(tx store.Tx) error {
			add := func(id string, updated time.Time) error {
				return tx.QueueAdd(&store.QueueItem{ItemID: id, Queue: store.QueueDone, Kind: store.KindMessage,
					OrchestratorID: "default", CreatedAt: updated, UpdatedAt: updated})
			}
			for i := range 5001 { // recent, sorting first
				if err := add(fmt.Sprintf("a-%05d", i), now.Add(-time.Minute)); err != nil {
					return err
				}
			}
			return add("z-old", now.Add(-48*time.Hour))
		})
		if err != nil {
			t.Fatal(err)
		}
		w := orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: st, KeepDone: 24 * time.Hour})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- w.Run(ctx) }()
		synctest.Wait() // Run prunes at once, then idles
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		err = st.View(t.Context(), func(tx store.Tx) error {
			if _, err := tx.QueueGet("z-old"); err == nil {
				t.Error("a done item two days old, behind 5001 newer ones, was not pruned")
			}
			return nil
		})
		if n := testkit.QueueLen(t, st, store.QueueDone); n != 5001 {
			t.Errorf("done items = %d, want the 5001 recent ones", n)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
}
