package postgres_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// openOwner opens orchestrator ops on dsn as a process named owner whose
// leases last a minute, closed when the test ends.
func openOwner(t *testing.T, dsn, owner string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dsn, "ops", &postgres.Options{Owner: owner, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAPutAmongSeveralNamesTheItemLost: of two items the first process
// completes in one transaction, the second was taken over by another
// process: the transaction fails with ErrLeaseLost naming that item, not
// the first, and writes neither.
func TestAPutAmongSeveralNamesTheItemLost(t *testing.T) {
	dsn := pgtest.DSN(t)
	first, second := openOwner(t, dsn, "first"), openOwner(t, dsn, "second")
	add := func() {
		mustUpdate(t, first, func(tx store.Tx) error {
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops", CreatedAt: t0})
		})
	}
	claim := func(s *postgres.Store, at time.Time) (items []*store.QueueItem) {
		t.Helper()
		mustUpdate(t, s, func(tx store.Tx) (err error) { items, err = ops.RowsOf(tx).QueueClaim(at, 10); return })
		return items
	}
	// X is claimed first and taken over when its lease runs out; Y is
	// claimed later, its lease still the first process's.
	add()
	x := claim(first, t0)
	if got := claim(second, t0.Add(61*time.Second)); len(got) != 1 || got[0].ItemID != x[0].ItemID {
		t.Fatalf("the second process took over %+v, want X", got)
	}
	add()
	y := claim(first, t0.Add(61*time.Second))
	if len(x) != 1 || len(y) != 1 {
		t.Fatalf("claims: %d and %d items, want one each", len(x), len(y))
	}
	for _, order := range [][]*store.QueueItem{{y[0], x[0]}, {x[0], y[0]}} {
		err := first.Update(t.Context(), func(tx store.Tx) error {
			for _, it := range order {
				done := *it
				done.Queue, done.UpdatedAt = store.QueueDone, t0.Add(2*time.Minute)
				if err := tx.QueuePut(&done); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, store.ErrLeaseLost) || !strings.Contains(err.Error(), x[0].ItemID) {
			t.Errorf("completing Y and X (taken over) = %v, want ErrLeaseLost naming X %s", err, x[0].ItemID)
		}
	}
	mustView(t, first, func(tx store.Tx) error {
		for _, it := range []*store.QueueItem{x[0], y[0]} {
			got, err := tx.QueueGet(it.ItemID)
			if err != nil || got.Queue != store.QueueProcessing {
				t.Errorf("item %s after the failed transaction: %+v, %v; want it in processing, unwritten", it.ItemID, got, err)
			}
		}
		return nil
	})
}

// TestAGoneItemAmongClaimedOnesIsNotFound: a transaction completing an
// item it holds and rewriting one that is gone fails with ErrNotFound,
// not ErrLeaseLost: nobody took anything over.
func TestAGoneItemAmongClaimedOnesIsNotFound(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	var out store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops", CreatedAt: t0}); err != nil {
			return err
		}
		out = store.QueueItem{Queue: store.QueueOutgoing, Kind: store.KindReply, OrchestratorID: "ops", CreatedAt: t0}
		return tx.QueueAdd(&out)
	})
	var held []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { held, err = ops.RowsOf(tx).QueueClaim(t0, 10); return })
	if len(held) != 1 {
		t.Fatalf("claimed %d items, want 1", len(held))
	}
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).QueueDelete(out.ItemID) })
	err := s.Update(t.Context(), func(tx store.Tx) error {
		done := *held[0]
		done.Queue = store.QueueDone
		if err := tx.QueuePut(&done); err != nil {
			return err
		}
		out.Queue = store.QueueDone
		return tx.QueuePut(&out)
	})
	if !errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("completing a held item and rewriting a gone one = %v, want ErrNotFound", err)
	}
}

// TestDeletingAnItemAfterPuttingItKeepsThePutsFence: a transaction that
// rewrites an item another live process took over, then deletes it,
// fails with ErrLeaseLost as the rewrite alone does, and the other
// process's item stays.
func TestDeletingAnItemAfterPuttingItKeepsThePutsFence(t *testing.T) {
	dsn := pgtest.DSN(t)
	first, second := openOwner(t, dsn, "first"), openOwner(t, dsn, "second")
	mustUpdate(t, first, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops", CreatedAt: t0})
	})
	var mine, theirs []*store.QueueItem
	mustUpdate(t, first, func(tx store.Tx) (err error) { mine, err = ops.RowsOf(tx).QueueClaim(t0, 10); return })
	mustUpdate(t, second, func(tx store.Tx) (err error) {
		theirs, err = ops.RowsOf(tx).QueueClaim(t0.Add(61*time.Second), 10)
		return
	})
	if len(mine) != 1 || len(theirs) != 1 {
		t.Fatalf("claims: %d and %d items, want the one each", len(mine), len(theirs))
	}
	err := first.Update(t.Context(), func(tx store.Tx) error {
		done := *mine[0]
		done.Queue = store.QueueDone
		if err := tx.QueuePut(&done); err != nil {
			return err
		}
		return ops.RowsOf(tx).QueueDelete(done.ItemID)
	})
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("rewriting, then deleting, an item another process took over = %v, want ErrLeaseLost", err)
	}
	mustView(t, second, func(tx store.Tx) error {
		got, err := tx.QueueGet(theirs[0].ItemID)
		if err != nil || got.Queue != store.QueueProcessing {
			t.Errorf("the other process's item: %+v, %v; want it still in processing", got, err)
		}
		return nil
	})
}

// TestAClaimedItemRewrittenInProcessingStaysTheWritersClaim: an item its
// holder rewrites in processing (a new stamp), put twice in one
// transaction and again in the next, stays its holder's: each put is
// fenced by the stamp the one before wrote, never refused as lost.
func TestAClaimedItemRewrittenInProcessingStaysTheWritersClaim(t *testing.T) {
	s := mustOpen(t, pgtest.DSN(t), "ops")
	mustUpdate(t, s, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops", CreatedAt: t0})
	})
	var held []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { held, err = ops.RowsOf(tx).QueueClaim(t0, 10); return })
	if len(held) != 1 {
		t.Fatalf("claimed %d items, want 1", len(held))
	}
	it := *held[0]
	put := func(tx store.Tx, q store.QueueName, at time.Time) error {
		it.Queue, it.UpdatedAt = q, at
		return tx.QueuePut(&it)
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := put(tx, store.QueueProcessing, t0.Add(time.Second)); err != nil {
			return err
		}
		if err := put(tx, store.QueueProcessing, t0.Add(2*time.Second)); err != nil {
			return err
		}
		if _, err := ops.RowsOf(tx).QueueCount(store.QueueProcessing); err != nil { // a flush
			return err
		}
		return put(tx, store.QueueProcessing, t0.Add(3*time.Second))
	})
	mustUpdate(t, s, func(tx store.Tx) error { return put(tx, store.QueueDone, t0.Add(4*time.Second)) })
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.QueueGet(it.ItemID)
		if err != nil || got.Queue != store.QueueDone {
			t.Errorf("item after its holder's puts: %+v, %v; want done", got, err)
		}
		return nil
	})
}

// TestAnItemReadForARewriteIsNotClaimedMeanwhile: a write transaction
// reads an incoming item to rewrite it where it is (a held Slack message
// completed, as Amend does) while this same process's worker claims
// items. The claim passes the item over until the rewrite commits, and
// then takes it once, rewritten; it is never claimed twice.
func TestAnItemReadForARewriteIsNotClaimedMeanwhile(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	it := &store.QueueItem{ItemID: "M", Kind: store.KindMessage, OrchestratorID: "ops", CreatedAt: t0}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.QueueAdd(it) })
	claim := func() (items []*store.QueueItem) {
		t.Helper()
		mustUpdate(t, s, func(tx store.Tx) (err error) { items, err = ops.RowsOf(tx).QueueClaim(time.Now(), 10); return })
		return items
	}
	var meanwhile []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) error {
		got, err := tx.QueueGet("M")
		if err != nil || got.Queue != store.QueueIncoming {
			return errors.Join(err, errors.New("M is not incoming"))
		}
		meanwhile = claim()
		got.Payload = []byte(`{"text":"completed"}`)
		return tx.QueuePut(got)
	})
	after := claim()
	if len(meanwhile) != 0 {
		t.Errorf("claimed while being rewritten: %d items", len(meanwhile))
	}
	if len(after) != 1 || string(after[0].Payload) != `{"text":"completed"}` {
		t.Errorf("claimed after the rewrite: %+v; want M once, rewritten", after)
	}
	if again := claim(); len(again) != 0 {
		t.Errorf("claimed again: %d items; want none (M is being handled)", len(again))
	}
}

// TestRecoveringAnItemTakenOverFromThisProcess: an item this process
// claimed, lost to another process when its lease ran out, and left
// behind when that process died, is recovered by this one: its own old
// claim does not fence it out.
func TestRecoveringAnItemTakenOverFromThisProcess(t *testing.T) {
	dsn := pgtest.DSN(t)
	first, second := openOwner(t, dsn, "first"), openOwner(t, dsn, "second")
	mustUpdate(t, first, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{ItemID: "X", Kind: store.KindMessage, OrchestratorID: "ops", CreatedAt: t0})
	})
	for _, c := range []struct {
		s  *postgres.Store
		at time.Time
	}{{first, t0}, {second, t0.Add(61 * time.Second)}} {
		mustUpdate(t, c.s, func(tx store.Tx) error {
			got, err := ops.RowsOf(tx).QueueClaim(c.at, 10)
			if err == nil && len(got) != 1 {
				err = errors.New("X not claimed")
			}
			return err
		})
	}
	second.Close() // it dies with X in hand
	// The server ends its session a moment after the close; till then it
	// is live, and its claim on X rightly fences a recovery out.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if others, err := first.Served(t.Context()); err == nil && others == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("second still live after its close: %d, %v", others, err)
		}
	}
	var n int
	err := first.Update(t.Context(), func(tx store.Tx) (err error) {
		n, err = ops.RowsOf(tx).QueueRecover(t0.Add(3*time.Minute), time.Time{})
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("QueueRecover = %d, %v; want X recovered", n, err)
	}
	mustView(t, first, func(tx store.Tx) error {
		if got, err := tx.QueueGet("X"); err != nil || got.Queue != store.QueueIncoming {
			t.Errorf("X after recovery: %+v, %v; want it incoming", got, err)
		}
		return nil
	})
}
