package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// stores are the stores a round is measured on.
var stores = map[string]func(tb testing.TB) store.Store{
	"bolt": func(tb testing.TB) store.Store {
		st, err := bolt.Open(filepath.Join(tb.TempDir(), "automation.db"), nil)
		if err != nil {
			tb.Fatal(err)
		}
		return st
	},
	"postgres": func(tb testing.TB) store.Store {
		dsn := pgtest.DSN(tb)
		st, err := postgres.Open(context.Background(), dsn, "default", nil)
		if err != nil {
			tb.Fatal(err)
		}
		return analyzed{st, dsn}
	},
}

// analyzed is a postgres store whose tables' statistics are brought up to
// date before a round is measured, as autovacuum does on a live database.
type analyzed struct {
	store.Store
	dsn string
}

func (a analyzed) analyze(tb testing.TB) {
	conn, err := pgx.Connect(context.Background(), a.dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "ANALYZE schedbot_queue"); err != nil {
		tb.Fatal(err)
	}
}

// backlogged is a store whose outgoing queue holds backlog items for
// channel CBUSY and one for CIDLE.
func backlogged(tb testing.TB, kind string, backlog int) (store.Store, string) {
	tb.Helper()
	st := stores[kind](tb)
	tb.Cleanup(func() { st.Close() })
	item := func(channel string) *store.QueueItem {
		payload, _ := json.Marshal(map[string]any{"text": "hi", "targetRef": map[string]any{"channel": "slack", "channelProfileId": "team", "channelId": channel}})
		return &store.QueueItem{Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: "default", ChannelProfileID: "team", Payload: payload}
	}
	for done := 0; done < backlog; {
		err := st.Update(context.Background(), func(tx store.Tx) error {
			for i := 0; i < 5000 && done < backlog; i++ {
				if err := tx.QueueAdd(item("CBUSY")); err != nil {
					return err
				}
				done++
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	busyLane := store.LaneOf(item("CBUSY"))
	if err := st.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.QueueAdd(item("CIDLE")); err != nil {
			return err
		}
		_, err := ops.DueLanes(tx, ops.RowsOf(tx), &store.LaneClaim{Now: time.Now(), Limit: 256}) // a write transaction makes the index
		return err
	}); err != nil {
		tb.Fatal(err)
	}
	if a, ok := st.(analyzed); ok {
		a.analyze(tb)
	}
	return st, busyLane
}

// round is one delivery round's read while CBUSY has a delivery in flight.
func round(tb testing.TB, st store.Store, busyLane string) {
	var lanes []*store.Lane
	err := st.View(context.Background(), func(tx store.Tx) (err error) {
		lanes, err = ops.DueLanes(tx, ops.RowsOf(tx), &store.LaneClaim{Now: time.Now(), Limit: 256, Busy: map[string]bool{busyLane: true}})
		return err
	})
	if err != nil || len(lanes) != 1 || len(lanes[0].Items) != 1 {
		tb.Fatalf("round: %d lanes, %v; want CIDLE's one item", len(lanes), err)
	}
}

// TestDueLanes_ABusyChannelsBacklogCostsOtherRoundsNothing: while one
// channel's backlog waits behind its delivery in flight, a round that
// picks another channel's item reads as much with 20,000 items in that
// backlog as with none.
func TestDueLanes_ABusyChannelsBacklogCostsOtherRoundsNothing(t *testing.T) {
	for _, kind := range []string{"bolt", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			if kind == "postgres" && testing.Short() {
				t.Skip("postgres: not in -short")
			}
			allocs := map[int]float64{}
			for _, n := range []int{0, 20000} {
				st, busy := backlogged(t, kind, n)
				allocs[n] = testing.AllocsPerRun(20, func() { round(t, st, busy) })
			}
			if allocs[20000] > 2*allocs[0]+20 {
				t.Errorf("a round allocates %.0f times beside a 20,000-item backlog, %.0f beside none: its cost grows with another channel's backlog",
					allocs[20000], allocs[0])
			}
		})
	}
}

// BenchmarkDeliveryRound: one delivery round beside a busy channel's
// backlog of 0, 10,000 and 100,000 items; flat with the lane index.
func BenchmarkDeliveryRound(b *testing.B) {
	for _, kind := range []string{"bolt", "postgres"} {
		for _, n := range []int{0, 10000, 100000} {
			b.Run(fmt.Sprintf("%s/backlog=%d", kind, n), func(b *testing.B) {
				st, busy := backlogged(b, kind, n)
				b.ResetTimer()
				for range b.N {
					round(b, st, busy)
				}
			})
		}
	}
}
