package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// holding runs fn in an Update of s that stays open until release is
// called, so another process's claim can run beside it.
func holding(t *testing.T, s store.Store, fn func(store.Tx) error) (release func()) {
	t.Helper()
	held, stop := make(chan error, 1), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = s.Update(context.Background(), func(tx store.Tx) error {
			err := fn(tx)
			held <- err
			<-stop
			return err
		})
	}()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	return func() { close(stop); wg.Wait() }
}

// TestClaimsSkipWhatAnotherProcessHolds: while one process's transaction
// holds a due job or a claimed item, another's claim passes over it at
// once instead of waiting for it or taking it too.
func TestClaimsSkipWhatAnotherProcessHolds(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	mustUpdate(t, a, func(tx store.Tx) error {
		for i := range 4 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%d", i), t0.Add(time.Duration(i)*time.Second))); err != nil {
				return err
			}
			if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops"}); err != nil {
				return err
			}
		}
		return nil
	})
	var heldJobs []string
	var heldItems []*store.QueueItem
	release := holding(t, a, func(tx store.Tx) (err error) {
		if err := ops.RowsOf(tx).JobsDue(t0.Add(time.Hour), 2, func(j *store.Job) error { heldJobs = append(heldJobs, j.JobID); return nil }); err != nil {
			return err
		}
		heldItems, err = ops.RowsOf(tx).QueueClaim(t0.Add(time.Hour), 2)
		return err
	})
	defer release()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var otherJobs []string
	var otherItems []*store.QueueItem
	err := b.Update(ctx, func(tx store.Tx) (err error) {
		if err := ops.RowsOf(tx).JobsDue(t0.Add(time.Hour), 10, func(j *store.Job) error { otherJobs = append(otherJobs, j.JobID); return nil }); err != nil {
			return err
		}
		otherItems, err = ops.RowsOf(tx).QueueClaim(t0.Add(time.Hour), 10)
		return err
	})
	if err != nil {
		t.Fatalf("the second process's claim waited for the first: %v", err)
	}
	if fmt.Sprint(heldJobs) != "[J0 J1]" || fmt.Sprint(otherJobs) != "[J2 J3]" {
		t.Errorf("due jobs: first %v, second %v; want [J0 J1] and [J2 J3]", heldJobs, otherJobs)
	}
	if len(heldItems) != 2 || len(otherItems) != 2 || heldItems[1].ItemID >= otherItems[0].ItemID {
		t.Errorf("items: first %d, second %d; want the oldest two and the next two", len(heldItems), len(otherItems))
	}
}

// TestAuditChainUnderConcurrentWriters: processes appending to one
// orchestrator's log at once leave one chain that verifies, with no seq
// used twice.
func TestAuditChainUnderConcurrentWriters(t *testing.T) {
	dsn := pgtest.DSN(t)
	const writers, rounds, per = 4, 10, 3
	var stores []*postgres.Store
	for range writers {
		stores = append(stores, mustOpen(t, dsn, "ops"))
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				err := s.Update(context.Background(), func(tx store.Tx) error {
					for range per {
						if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "ops", Action: store.AuditTriggerDispatched,
							JobID: fmt.Sprintf("w%d-r%d", w, r)}); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustView(t, stores[0], func(tx store.Tx) error {
		n, err := ops.RowsOf(tx).AuditVerify()
		if err != nil || n != writers*rounds*per {
			t.Errorf("AuditVerify = %d, %v; want %d", n, err, writers*rounds*per)
		}
		return nil
	})
}

// TestDeadProcessesItemsAndLanesComeBackAtOnce: while a process lives,
// its claimed items and its lanes are its own, however long; once its
// session ends they are another's at once, not when the lease runs out.
func TestDeadProcessesItemsAndLanesComeBackAtOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	open := func() *postgres.Store {
		s, err := postgres.Open(t.Context(), dsn, "ops", &postgres.Options{Lease: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b, other := open(), open(), mustOpen(t, dsn, "sales")
	mustUpdate(t, a, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops"})
	})
	claim := func(s *postgres.Store) (items []*store.QueueItem) {
		t.Helper()
		mustUpdate(t, s, func(tx store.Tx) (err error) { items, err = ops.RowsOf(tx).QueueClaim(t0, 10); return })
		return items
	}
	take := func(s *postgres.Store) (ok bool) {
		t.Helper()
		mustUpdate(t, s, func(tx store.Tx) (err error) {
			ok, _, err = ops.RowsOf(tx).LaneTake("slack|p|C1", t0, t0.Add(time.Hour))
			return
		})
		return ok
	}
	if got := claim(a); len(got) != 1 {
		t.Fatalf("first claim took %d items", len(got))
	}
	if !take(a) {
		t.Fatal("the first LaneTake failed")
	}
	if n, err := b.Served(t.Context()); err != nil || n != 1 {
		t.Errorf("Served = %d, %v; want the one other live process", n, err)
	}
	if n, err := other.Served(t.Context()); err != nil || n != 0 {
		t.Errorf("another orchestrator's Served = %d, %v; want 0", n, err)
	}
	if got := claim(b); len(got) != 0 {
		t.Fatalf("claimed %d items a live process holds", len(got))
	}
	if take(b) {
		t.Fatal("took a lane a live process holds")
	}
	a.Close()
	deadline := time.Now().Add(10 * time.Second)
	var got []*store.QueueItem
	for len(got) == 0 && time.Now().Before(deadline) {
		got = claim(b) // the server ends the session a moment after the close
	}
	if len(got) != 1 {
		t.Fatalf("after the holder's session ended: claimed %d items, want its one", len(got))
	}
	if !take(b) {
		t.Error("the lane of a process that is gone was not free")
	}
	var n int
	mustUpdate(t, b, func(tx store.Tx) (err error) { n, err = ops.RowsOf(tx).QueueRecover(t0, time.Time{}); return })
	if n != 1 {
		t.Errorf("QueueRecover by the new holder = %d, want its own item", n)
	}
}

// TestLaneReleaseKeepsThePaceForTheNext: a lane let go says when it last
// delivered to the next process that takes it.
func TestLaneReleaseKeepsThePaceForTheNext(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	delivered := t0.Add(700 * time.Millisecond)
	mustUpdate(t, a, func(tx store.Tx) error {
		if ok, _, err := ops.RowsOf(tx).LaneTake("L", t0, t0.Add(time.Minute)); err != nil || !ok {
			return fmt.Errorf("take: %v %v", ok, err)
		}
		return ops.RowsOf(tx).LaneRelease("L", delivered)
	})
	var ok bool
	var last time.Time
	mustUpdate(t, b, func(tx store.Tx) (err error) {
		ok, last, err = ops.RowsOf(tx).LaneTake("L", t0.Add(time.Second), t0.Add(time.Minute))
		return
	})
	if !ok || !last.Equal(delivered) {
		t.Errorf("b's LaneTake = %v, last %v; want ok, %v", ok, last, delivered)
	}
	// The process that let it go does not keep it; the one that took it does.
	mustUpdate(t, a, func(tx store.Tx) (err error) { ok, err = ops.RowsOf(tx).LaneKeep("L", t0.Add(time.Hour)); return })
	if ok {
		t.Error("LaneKeep by the process that let the lane go succeeded")
	}
	mustUpdate(t, b, func(tx store.Tx) (err error) { ok, err = ops.RowsOf(tx).LaneKeep("L", t0.Add(time.Hour)); return })
	if !ok {
		t.Error("LaneKeep by the lane's holder failed")
	}
	// A release by a process that does not hold the lane changes nothing.
	mustUpdate(t, a, func(tx store.Tx) error { return ops.RowsOf(tx).LaneRelease("L", t0.Add(time.Hour)) })
	mustUpdate(t, a, func(tx store.Tx) (err error) {
		ok, _, err = ops.RowsOf(tx).LaneTake("L", t0.Add(2*time.Second), t0.Add(time.Minute))
		return
	})
	if ok {
		t.Error("a took the lane b holds after a stray release")
	}
}

// TestExpiredLeasesComeBack: an item claimed by a process that then stops
// is claimed again by another once its lease has run out, not before.
func TestExpiredLeasesComeBack(t *testing.T) {
	dsn := pgtest.DSN(t)
	dead, alive := openOwner(t, dsn, "dead"), openOwner(t, dsn, "alive")
	mustUpdate(t, dead, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops"})
	})
	claim := func(s *postgres.Store, at time.Time) (items []*store.QueueItem) {
		t.Helper()
		mustUpdate(t, s, func(tx store.Tx) (err error) { items, err = ops.RowsOf(tx).QueueClaim(at, 10); return })
		return items
	}
	if got := claim(dead, t0); len(got) != 1 {
		t.Fatalf("first claim took %d items", len(got))
	}
	if got := claim(alive, t0.Add(59*time.Second)); len(got) != 0 {
		t.Fatalf("claimed %d items while their lease held", len(got))
	}
	got := claim(alive, t0.Add(61*time.Second))
	if len(got) != 1 || got[0].Queue != store.QueueProcessing {
		t.Fatalf("after the lease ran out: %+v, want the item again", got)
	}
	if st := alive.Stats(); st.LeasesTaken != 1 || st.ItemsClaimed != 1 {
		t.Errorf("Stats = %+v, want one claim, of an expired lease", st)
	}
	// The first process lives on and comes back to it: fenced, its
	// writes to the item fail and change nothing, whichever way they go.
	for _, read := range []func(tx store.Tx) (*store.QueueItem, error){
		func(tx store.Tx) (*store.QueueItem, error) { return tx.QueueGet(got[0].ItemID) },
		func(tx store.Tx) (*store.QueueItem, error) {
			items, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueProcessing})
			if err != nil || len(items) != 1 {
				return nil, fmt.Errorf("list: %d, %v", len(items), err)
			}
			return items[0], nil
		},
	} {
		err := dead.Update(t.Context(), func(tx store.Tx) error {
			it, err := read(tx)
			if err != nil {
				return err
			}
			it.Queue = store.QueueDone
			return tx.QueuePut(it)
		})
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("completing an item another process took over = %v, want ErrLeaseLost", err)
		}
	}
	// Moved on (to outgoing), it is nobody's: no lease to run out.
	mustUpdate(t, alive, func(tx store.Tx) error {
		got[0].Queue = store.QueueOutgoing
		return tx.QueuePut(got[0])
	})
	if got := claim(dead, t0.Add(time.Hour)); len(got) != 0 {
		t.Errorf("an outgoing item was claimed: %+v", got)
	}
	// Moved on by its new holder, the item is still not the first
	// process's to write: its claim was taken over (a put back to incoming
	// would run it again).
	err := dead.Update(t.Context(), func(tx store.Tx) error {
		stale := *got[0]
		stale.Queue = store.QueueIncoming
		return tx.QueuePut(&stale)
	})
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("putting back an item another process took over and moved on = %v, want ErrLeaseLost", err)
	}
}
