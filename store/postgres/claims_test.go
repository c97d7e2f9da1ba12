package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
	"github.com/schedbot/schedbot/store/storetest"
)

// TestMigrations: an empty database ends at this build's version, and a
// second open finds nothing to do; a database newer than this build is
// refused.
func TestMigrations(t *testing.T) {
	ctx := t.Context()
	t.Run("FromEmpty", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		mustOpen(t, dsn, "a")
		mustOpen(t, dsn, "b") // a second open finds nothing to do
		var want []string
		for v := range postgres.SchemaVersion() {
			want = append(want, fmt.Sprint(v+1))
		}
		if got := versions(t, dsn); got != strings.Join(want, ",") {
			t.Errorf("applied versions = %s, want %s", got, strings.Join(want, ","))
		}
	})
	t.Run("NewerIsRefused", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		mustOpen(t, dsn, "a")
		if _, err := mustConnect(t, dsn).Exec(ctx, `INSERT INTO schedbot_schema_migrations (version, name) VALUES (99, 'future')`); err != nil {
			t.Fatal(err)
		}
		_, err := postgres.Open(ctx, dsn, "a", nil)
		if err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("Open on a newer schema = %v, want a refusal", err)
		}
	})
}

func mustConnect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func versions(t *testing.T, dsn string) string {
	t.Helper()
	var v string
	err := mustConnect(t, dsn).QueryRow(t.Context(), `SELECT string_agg(version::text, ',' ORDER BY version) FROM schedbot_schema_migrations`).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

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
		if err := tx.JobsDue(t0.Add(time.Hour), 2, func(j *store.Job) error { heldJobs = append(heldJobs, j.JobID); return nil }); err != nil {
			return err
		}
		heldItems, err = tx.QueueClaim(t0.Add(time.Hour), 2)
		return err
	})
	defer release()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var otherJobs []string
	var otherItems []*store.QueueItem
	err := b.Update(ctx, func(tx store.Tx) (err error) {
		if err := tx.JobsDue(t0.Add(time.Hour), 10, func(j *store.Job) error { otherJobs = append(otherJobs, j.JobID); return nil }); err != nil {
			return err
		}
		otherItems, err = tx.QueueClaim(t0.Add(time.Hour), 10)
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
		n, err := tx.AuditVerify()
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
		mustUpdate(t, s, func(tx store.Tx) (err error) { items, err = tx.QueueClaim(t0, 10); return })
		return items
	}
	take := func(s *postgres.Store) (ok bool) {
		t.Helper()
		mustUpdate(t, s, func(tx store.Tx) (err error) { ok, _, err = tx.LaneTake("slack|p|C1", t0, t0.Add(time.Hour)); return })
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
	mustUpdate(t, b, func(tx store.Tx) (err error) { n, err = tx.QueueRecover(t0, time.Time{}); return })
	if n != 1 {
		t.Errorf("QueueRecover by the new holder = %d, want its own item", n)
	}
}

// TestWatchSaysWhenAProcessIsGoneAndWhenItsOwnConnectionIs: Watch calls
// gone when a process of the orchestrator ends (its claims are free), and
// fails when the connection that marks its own process live is cut.
func TestWatchSaysWhenAProcessIsGoneAndWhenItsOwnConnectionIs(t *testing.T) {
	defer postgres.SetWatchEvery(20 * time.Millisecond)()
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	for _, s := range []*postgres.Store{a, b} {
		if err := s.Join(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	gone := make(chan struct{}, 10)
	looked := make(chan struct{}, 1)
	postgres.OnWatchLook(b, func() {
		select {
		case looked <- struct{}{}:
		default: // the test reads the first few only
		}
	})
	done := make(chan error, 1)
	go func() { done <- b.Watch(context.Background(), func() { gone <- struct{}{} }) }()
	for range 3 { // a few looks with both alive
		select {
		case <-looked:
		case <-time.After(10 * time.Second):
			t.Fatal("Watch does not look")
		}
	}
	select {
	case <-gone:
		t.Fatal("gone called while every process lives")
	default:
	}
	a.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("gone not called after a process ended")
	}
	// Cut b's own session: Watch must fail, as b is no longer live.
	conn := mustConnect(t, dsn)
	if _, err := conn.Exec(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted`); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "lost the connection") {
			t.Errorf("Watch after its connection was cut = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch went on after its connection was cut")
	}
}

// TestLaneReleaseKeepsThePaceForTheNext: a lane let go says when it last
// delivered to the next process that takes it.
func TestLaneReleaseKeepsThePaceForTheNext(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	delivered := t0.Add(700 * time.Millisecond)
	mustUpdate(t, a, func(tx store.Tx) error {
		if ok, _, err := tx.LaneTake("L", t0, t0.Add(time.Minute)); err != nil || !ok {
			return fmt.Errorf("take: %v %v", ok, err)
		}
		return tx.LaneRelease("L", delivered)
	})
	var ok bool
	var last time.Time
	mustUpdate(t, b, func(tx store.Tx) (err error) {
		ok, last, err = tx.LaneTake("L", t0.Add(time.Second), t0.Add(time.Minute))
		return
	})
	if !ok || !last.Equal(delivered) {
		t.Errorf("b's LaneTake = %v, last %v; want ok, %v", ok, last, delivered)
	}
	// The process that let it go does not keep it; the one that took it does.
	mustUpdate(t, a, func(tx store.Tx) (err error) { ok, err = tx.LaneKeep("L", t0.Add(time.Hour)); return })
	if ok {
		t.Error("LaneKeep by the process that let the lane go succeeded")
	}
	mustUpdate(t, b, func(tx store.Tx) (err error) { ok, err = tx.LaneKeep("L", t0.Add(time.Hour)); return })
	if !ok {
		t.Error("LaneKeep by the lane's holder failed")
	}
	// A release by a process that does not hold the lane changes nothing.
	mustUpdate(t, a, func(tx store.Tx) error { return tx.LaneRelease("L", t0.Add(time.Hour)) })
	mustUpdate(t, a, func(tx store.Tx) (err error) {
		ok, _, err = tx.LaneTake("L", t0.Add(2*time.Second), t0.Add(time.Minute))
		return
	})
	if ok {
		t.Error("a took the lane b holds after a stray release")
	}
}

// TestReadAheadSeesLaterWrites: the runs read ahead for due jobs (none
// yet) do not hide a run written later in the same transaction, before or
// after what was kept has been sent.
func TestReadAheadSeesLaterWrites(t *testing.T) {
	s := mustOpen(t, pgtest.DSN(t), "ops")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J", t0)) })
	mustUpdate(t, s, func(tx store.Tx) error {
		exec := store.ExecutionID("J", t0)
		return tx.JobsDue(t0, 10, func(j *store.Job) error {
			if _, err := tx.RunGet(exec); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("RunGet before the put = %v, want not found", err)
			}
			if err := tx.RunPut(&store.Run{ExecutionID: exec, JobID: "J", ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
				return err
			}
			if r, err := tx.RunGet(exec); err != nil || r.Status != store.RunDispatched {
				t.Errorf("RunGet of the kept put = %+v, %v", r, err)
			}
			if _, err := tx.QueueCount(store.QueueIncoming); err != nil { // sends what was kept
				return err
			}
			if r, err := tx.RunGet(exec); err != nil || r.Status != store.RunDispatched {
				t.Errorf("RunGet after the flush = %+v, %v", r, err)
			}
			return nil
		})
	})
}

// TestListenWakesOnOtherProcessesChanges: a store listening hears the jobs
// and queue items another process commits for its orchestrator, and not
// its own changes, another orchestrator's, or a rolled-back transaction's.
func TestListenWakesOnOtherProcessesChanges(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b, other := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "sales")
	wakes := make(chan postgres.Wake, 10)
	ready := make(chan struct{}, 1)
	postgres.OnListening(a, func() { ready <- struct{}{} })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- a.Listen(ctx, func(w postgres.Wake) { wakes <- w }) }()
	defer func() { cancel(); <-done }()
	next := func(what string) postgres.Wake {
		t.Helper()
		select {
		case w := <-wakes:
			return w
		case <-time.After(10 * time.Second):
			t.Fatalf("no wake-up for %s", what)
			return postgres.Wake{}
		}
	}
	<-ready
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("MINE", t0)) })
	mustUpdate(t, other, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("THEIRS", t0)) })
	_ = b.Update(t.Context(), func(tx store.Tx) error {
		tx.JobPut(storetest.NewJob("ROLLEDBACK", t0))
		return errors.New("no")
	})
	mustUpdate(t, b, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "ops"})
	})
	if w := next("b's queue item"); w != (postgres.Wake{Queue: true}) {
		t.Errorf("first wake-up after the others = %+v, want b's queue item alone", w)
	}
	mustUpdate(t, b, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("B", t0)) })
	if w := next("b's job"); w != (postgres.Wake{Jobs: true}) {
		t.Errorf("wake-up = %+v, want jobs", w)
	}
	if a.Stats().Wakeups < 2 {
		t.Errorf("Stats().Wakeups = %d", a.Stats().Wakeups)
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
		mustUpdate(t, s, func(tx store.Tx) (err error) { items, err = tx.QueueClaim(at, 10); return })
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

// TestUnreadableDueJobIsPassedOverAndQuarantined: a due job whose stored
// record does not decode does not stop the others; JobsDue names it, and
// JobQuarantine takes it out of the due index as disabled, keeping its bytes
// and its name (as bolt does): no other job takes the name meanwhile, and
// once repaired the job is found by it again.
func TestUnreadableDueJobIsPassedOverAndQuarantined(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C"} {
			j := storetest.NewJob(id, t0)
			j.Name = "name-" + id
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := mustConnect(t, dsn).Exec(t.Context(), `UPDATE schedbot_jobs SET body = 'not json' WHERE job_id = 'BAD'`); err != nil {
		t.Fatal(err)
	}
	var fired []string
	err := s.Update(t.Context(), func(tx store.Tx) error {
		err := tx.JobsDue(t0, 10, func(j *store.Job) error { fired = append(fired, j.JobID); return nil })
		var ue *store.UnreadableJobsError
		if !errors.As(err, &ue) || len(ue.Jobs) != 1 || ue.Jobs[0].ID != "BAD" || !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("JobsDue = %v, want an UnreadableJobsError naming BAD", err)
		}
		if err := tx.JobQuarantine("A"); err == nil {
			t.Error("JobQuarantine of a job that reads succeeded")
		}
		return tx.JobQuarantine("BAD")
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(fired) != "[A C]" {
		t.Errorf("fired %v, want [A C]", fired)
	}
	mustView(t, s, func(tx store.Tx) error {
		if err := tx.JobsDue(t0, 10, func(*store.Job) error { return nil }); err != nil {
			t.Errorf("JobsDue after the quarantine = %v", err)
		}
		if n, _ := tx.JobCount(store.JobDisabled); n != 1 {
			t.Errorf("disabled jobs = %d, want the quarantined one", n)
		}
		return nil
	})
	var body string
	if err := mustConnect(t, dsn).QueryRow(t.Context(), `SELECT convert_from(body, 'UTF8') FROM schedbot_jobs WHERE job_id = 'BAD'`).Scan(&body); err != nil || body != "not json" {
		t.Errorf("quarantined record = %q, %v; want its bytes kept", body, err)
	}
	other := storetest.NewJob("D", t0)
	other.Name = "name-BAD"
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.JobPut(other) }); !errors.Is(err, store.ErrExists) {
		t.Errorf("another job named as the quarantined one: %v, want ErrExists", err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGetByName("name-BAD"); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("JobGetByName(name-BAD) = %v, want the quarantined record named corrupt", err)
		}
		return nil
	})
}

// TestAnUnreadableJobDoesNotEndTheBurst: a batch whose rows include a job
// that does not decode is full all the same (the scheduler quarantines
// that one), so the due jobs after it fire in the same pass.
func TestAnUnreadableJobDoesNotEndTheBurst(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, id := range []string{"A", "BAD", "C", "D"} {
			if err := tx.JobPut(storetest.NewJob(id, t0)); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := mustConnect(t, dsn).Exec(t.Context(), `UPDATE schedbot_job_status SET status = 'not json' WHERE job_id = 'BAD'`); err != nil {
		t.Fatal(err)
	}
	n, err := scheduler.New(s, &scheduler.Options{OrchestratorID: "ops", Batch: 2, Dispatchers: 1}).FireDue(t.Context(), t0)
	if err != nil || n != 3 {
		t.Fatalf("FireDue = %d, %v; want the 3 readable jobs fired in one pass", n, err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if k, _ := tx.JobCount(store.JobDisabled); k != 1 {
			t.Errorf("disabled jobs = %d, want the unreadable one", k)
		}
		return nil
	})
}

// TestChangingAJobWhileAnotherProcessDispatchesIt: one process changes a
// due job (read, written, audited) while another dispatches due jobs. The
// dispatch neither waits for the change nor deadlocks with it, and neither
// write is lost: the job is passed over while it is being changed, then
// dispatched as changed.
func TestChangingAJobWhileAnotherProcessDispatchesIt(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J", now.Add(-time.Minute))) })
	read, release := make(chan struct{}), make(chan struct{})
	errA := make(chan error, 1)
	go func() {
		errA <- a.Update(t.Context(), func(tx store.Tx) error {
			j, err := tx.JobGet("J")
			if err != nil {
				return err
			}
			close(read)
			j.Description = "changed"
			if err := tx.JobPut(j); err != nil {
				return err
			}
			if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "ops", Action: store.AuditJobUpdated, JobID: "J"}); err != nil {
				return err
			}
			<-release
			return nil
		})
	}()
	<-read
	dispatch := func() (fired []string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		err := b.Update(ctx, func(tx store.Tx) error {
			fired = nil
			return tx.JobsDue(now, 10, func(j *store.Job) error {
				fired = append(fired, j.Description)
				j.NextRunAt, j.RunCount = now.Add(time.Hour), j.RunCount+1
				if err := tx.JobStatusPut(j); err != nil {
					return err
				}
				return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "ops", Action: store.AuditTriggerDispatched, JobID: j.JobID})
			})
		})
		if err != nil {
			t.Fatalf("dispatch: %v", err)
		}
		return fired
	}
	if got := dispatch(); len(got) != 0 {
		t.Errorf("dispatched %q while another process was changing it", got)
	}
	close(release)
	if err := <-errA; err != nil {
		t.Fatalf("the change: %v", err)
	}
	if got := dispatch(); len(got) != 1 || got[0] != "changed" {
		t.Errorf("dispatched %q after the change, want the job as changed", got)
	}
	mustView(t, a, func(tx store.Tx) error {
		j, err := tx.JobGet("J")
		if err != nil {
			return err
		}
		if j.Description != "changed" || j.RunCount != 1 || !j.NextRunAt.Equal(now.Add(time.Hour)) {
			t.Errorf("job = %q, %d runs, next %v; want the change and the dispatch both kept", j.Description, j.RunCount, j.NextRunAt)
		}
		return nil
	})
}

// TestReadAheadLocksTheJobsAndSeesLaterWrites: jobs read ahead (the
// worker's batch of triggers) are locked as JobGet locks them, so another
// process's dispatch passes them over, and a job written after it was read
// ahead reads as written.
func TestReadAheadLocksTheJobsAndSeesLaterWrites(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	mustUpdate(t, a, func(tx store.Tx) error {
		for _, id := range []string{"J1", "J2"} {
			if err := tx.JobPut(storetest.NewJob(id, now.Add(-time.Minute))); err != nil {
				return err
			}
		}
		return nil
	})
	release := holding(t, a, func(tx store.Tx) error {
		return tx.(store.ReadAheader).ReadAhead([]string{"J1", "nope"}, []string{"J1@x"})
	})
	var due []string
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := b.Update(ctx, func(tx store.Tx) error {
		return tx.JobsDue(now, 10, func(j *store.Job) error { due = append(due, j.JobID); return nil })
	})
	release()
	if err != nil || fmt.Sprint(due) != "[J2]" {
		t.Errorf("another process's dispatch = %v, %v; want J2 only (J1 is read ahead and held)", due, err)
	}
	mustUpdate(t, a, func(tx store.Tx) error {
		if err := tx.(store.ReadAheader).ReadAhead([]string{"J1", "nope"}, nil); err != nil {
			return err
		}
		j, err := tx.JobGet("J1")
		if err != nil {
			return err
		}
		j.Description = "changed"
		if err := tx.JobPut(j); err != nil {
			return err
		}
		if _, err := tx.JobCount(); err != nil { // a range read: sends the write
			return err
		}
		if again, err := tx.JobGet("J1"); err != nil || again.Description != "changed" {
			t.Errorf("J1 after its write reads %q, %v; want it as written", again.Description, err)
		}
		if _, err := tx.JobGet("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a job read ahead and absent: %v", err)
		}
		return nil
	})
}

// TestAWindowWrittenMeanwhileFailsTheDispatch: a run read ahead as absent
// is written by COPY, with no upsert; should another process have written
// that window meanwhile (which the job's row lock rules out in schedbot,
// but not in a database someone else writes to), the unique execution id
// fails the dispatch instead of overwriting the other's run.
func TestAWindowWrittenMeanwhileFailsTheDispatch(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	window := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J1", window)) })
	execID := store.ExecutionID("J1", window)
	err := a.Update(t.Context(), func(tx store.Tx) error {
		return tx.JobsDue(time.Now(), 10, func(j *store.Job) error {
			if _, err := tx.RunGet(execID); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the window's run before dispatch: %v, want none", err)
			}
			mustUpdate(t, b, func(tx store.Tx) error { // committed meanwhile
				return tx.RunPut(&store.Run{ExecutionID: execID, JobID: "J1", ScheduledAt: window, Status: store.RunSkipped, Reason: "theirs"})
			})
			return tx.RunPut(&store.Run{ExecutionID: execID, JobID: "J1", ScheduledAt: window, Status: store.RunDispatched})
		})
	})
	if err == nil {
		t.Fatal("the dispatch of a window another process wrote meanwhile committed")
	}
	mustView(t, a, func(tx store.Tx) error {
		r, err := tx.RunGet(execID)
		if err != nil || r.Reason != "theirs" {
			t.Errorf("the window's run after the failed dispatch = %+v, %v; want the other process's", r, err)
		}
		return nil
	})
}

// TestABurstIsFiredByTwoTransactionsWhileAlone: a process alone on its
// orchestrator fires a burst with two transactions, which take the due
// rows the other has not locked: each window once. With another process
// joined, one.
func TestABurstIsFiredByTwoTransactionsWhileAlone(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := mustOpen(t, dsn, "ops")
	if err := a.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	if all, mine := a.ParallelWrites(t.Context()); all != 2 || mine != 2 {
		t.Errorf("alone: %d of %d transactions, want 2 of 2", mine, all)
	}
	at := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	mustUpdate(t, a, func(tx store.Tx) error {
		for i := range 300 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%03d", i), at)); err != nil {
				return err
			}
		}
		return nil
	})
	var mu sync.Mutex
	fired := map[string]int{}
	s := scheduler.New(a, &scheduler.Options{OrchestratorID: "ops", Batch: 10,
		DispatchedFunc: func(j *store.Job, _ *store.Run, _ time.Duration) { mu.Lock(); fired[j.JobID]++; mu.Unlock() }})
	n, err := s.FireDue(t.Context(), time.Now())
	if err != nil || n != 300 || len(fired) != 300 {
		t.Fatalf("FireDue = %d, %v; %d jobs fired; want 300", n, err, len(fired))
	}
	for id, k := range fired {
		if k != 1 {
			t.Errorf("job %s fired %d times", id, k)
		}
	}
	mustView(t, a, func(tx store.Tx) error {
		if k, err := tx.QueueCount(store.QueueIncoming); err != nil || k != 300 {
			t.Errorf("%d triggers, %v; want 300", k, err)
		}
		return nil
	})

	b := mustOpen(t, dsn, "ops")
	if err := b.Join(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, na := a.ParallelWrites(t.Context())
	if all, nb := b.ParallelWrites(t.Context()); na != 1 || nb != 1 || all != 2 {
		t.Errorf("two processes: %d and %d of %d transactions, want 1 each of 2", na, nb, all)
	}
}

// TestEveryDispatchSlotTakenHandsOutNoDueJob: two transactions firing
// hold the orchestrator's two dispatch slots; a third, of another
// process, is handed none of the due jobs, though only two are locked
// (it would contend with the two for the rest), while a read still sees
// them all. Once the two have ended, their slots are free again.
func TestEveryDispatchSlotTakenHandsOutNoDueJob(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	mustUpdate(t, a, func(tx store.Tx) error {
		for i := range 10 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%d", i), t0)); err != nil {
				return err
			}
		}
		return nil
	})
	due := func(s store.Store, write bool) int {
		t.Helper()
		n := 0
		do := s.View
		if write {
			do = s.Update
		}
		err := do(t.Context(), func(tx store.Tx) error {
			return tx.JobsDue(t0, 10, func(*store.Job) error { n++; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	held, release := make(chan error), make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			err := a.Update(t.Context(), func(tx store.Tx) error {
				err := tx.JobsDue(t0, 1, func(*store.Job) error { return nil })
				held <- err
				<-release
				return err
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	if err1, err2 := <-held, <-held; err1 != nil || err2 != nil {
		close(release)
		wg.Wait()
		t.Fatalf("the two holding dispatches: %v, %v", err1, err2)
	}
	if n := due(b, true); n != 0 {
		t.Errorf("with both slots taken, a dispatch was handed %d due jobs, want none", n)
	}
	if n := due(b, false); n != 10 {
		t.Errorf("a read saw %d due jobs, want all 10", n)
	}
	close(release)
	wg.Wait()
	if n := due(b, true); n != 10 {
		t.Errorf("with the slots free again, a dispatch was handed %d due jobs, want 10", n)
	}
}

// TestStatusWritesLeaveTheDefinitionRow: firing a job (JobsDue, then
// JobStatusPut) and a worker's JobPut of the job it read with a new
// lastResult write the status row alone; the definition row is not
// rewritten (its xmin, the transaction that wrote it, stays). A changed
// definition is written.
func TestStatusWritesLeaveTheDefinitionRow(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := mustOpen(t, dsn, "ops")
	conn := mustConnect(t, dsn)
	xmins := func() (def, status string) {
		t.Helper()
		err := conn.QueryRow(t.Context(), `SELECT j.xmin::text, s.xmin::text FROM schedbot_jobs j JOIN schedbot_job_status s USING (orchestrator_id, job_id)
			WHERE j.orchestrator_id = 'ops' AND j.job_id = 'J1'`).Scan(&def, &status)
		if err != nil {
			t.Fatal(err)
		}
		return def, status
	}
	now := time.Now().UTC()
	j1 := storetest.NewJob("J1", now.Add(-time.Minute))
	j1.TargetAction.Inputs = map[string]any{} // a map: encoded in one order each time, or the definition looks changed
	for i := range 20 {
		j1.TargetAction.Inputs[fmt.Sprintf("k%02d", i)] = map[string]any{"a": i, "b": "x", "c": true}
	}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.JobPut(j1) })
	def0, st0 := xmins()

	mustUpdate(t, s, func(tx store.Tx) error {
		return tx.JobsDue(now, 10, func(j *store.Job) error {
			j.NextRunAt, j.RunCount = now.Add(time.Hour), j.RunCount+1
			return tx.JobStatusPut(j)
		})
	})
	def1, st1 := xmins()
	if def1 != def0 || st1 == st0 {
		t.Errorf("after a dispatch: definition xmin %s -> %s, status %s -> %s; want the status alone rewritten", def0, def1, st0, st1)
	}

	for _, ahead := range []bool{false, true} {
		mustUpdate(t, s, func(tx store.Tx) error {
			if ahead {
				if err := tx.(store.ReadAheader).ReadAhead([]string{"J1"}, nil); err != nil {
					return err
				}
			}
			j, err := tx.JobGet("J1")
			if err != nil {
				return err
			}
			j.LastResult = &store.Result{ExecutionID: "J1@x", Status: "completed"}
			return tx.JobPut(j)
		})
		def2, st2 := xmins()
		if def2 != def0 || st2 == st1 {
			t.Errorf("after a worker's JobPut (read ahead %v): definition xmin %s -> %s, status %s -> %s; want the status alone rewritten",
				ahead, def0, def2, st1, st2)
		}
		st1 = st2
	}

	mustUpdate(t, s, func(tx store.Tx) error {
		j, err := tx.JobGet("J1")
		if err != nil {
			return err
		}
		j.Description = "changed"
		return tx.JobPut(j)
	})
	if def3, _ := xmins(); def3 == def0 {
		t.Errorf("after a definition change the definition row was not rewritten (xmin %s)", def3)
	}
	mustView(t, s, func(tx store.Tx) error {
		j, err := tx.JobGet("J1")
		if err != nil || j.Description != "changed" || j.RunCount != 1 || j.LastResult == nil || j.LastResult.Status != "completed" {
			t.Errorf("J1 = %+v, %v; want the description, the run count and the lastResult all kept", j, err)
		}
		return nil
	})
}

// gatedStore opens a store on dsn as a role whose first read of either of
// job J's rows (status or definition) waits while the returned conn holds
// advisory lock 7 (row-level security policies; the tests' own role, a
// superuser, bypasses them). It lets a test commit a change between the
// moment that store's statement takes its snapshot and the moment it
// locks J's rows.
func gatedStore(t *testing.T, dsn string) (s *postgres.Store, wait func(), open func()) {
	t.Helper()
	admin := mustConnect(t, dsn)
	for _, q := range []string{
		`CREATE ROLE gated LOGIN`,
		`GRANT ALL ON ALL TABLES IN SCHEMA public TO gated`,
		`GRANT ALL ON SCHEMA public TO gated`,
		`CREATE FUNCTION gate(id bytea) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
			BEGIN
				IF id = 'J' THEN
					PERFORM pg_advisory_lock_shared(7);
					PERFORM pg_advisory_unlock_shared(7);
				END IF;
				RETURN true;
			END $$`,
		`ALTER TABLE schedbot_jobs ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY gate ON schedbot_jobs USING (gate(job_id))`,
		`ALTER TABLE schedbot_job_status ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY gate ON schedbot_job_status USING (gate(job_id))`,
	} {
		if _, err := admin.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { // the role is the cluster's, not the test database's
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP OWNED BY gated; DROP ROLE gated`); err != nil {
			t.Error(err)
		}
	})
	s = mustOpen(t, strings.Replace(dsn, "user=schedbot", "user=gated", 1), "ops")
	lock := mustConnect(t, dsn)
	if _, err := lock.Exec(t.Context(), `SELECT pg_advisory_lock(7)`); err != nil {
		t.Fatal(err)
	}
	wait = func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			if err := admin.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7 AND objsubid = 1 AND NOT granted
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the gated store never read J's rows")
			}
			time.Sleep(time.Millisecond) // polls pg_locks: nothing to be told by
		}
	}
	open = func() {
		if _, err := lock.Exec(context.Background(), `SELECT pg_advisory_unlock(7)`); err != nil {
			t.Error(err)
		}
	}
	return s, wait, open
}

// TestADispatchHandsOutTheDefinitionCommittedBeforeItsLock: a job changed
// (definition and status, one transaction) and committed after a
// dispatcher's JobsDue took its snapshot, but before it locked the job's
// status row, is handed out as changed: the status row it locks is the
// changed one, and so must the definition be. Handed out as it was, the
// dispatch computes the next window from the old schedule and writes it
// over the new one.
func TestADispatchHandsOutTheDefinitionCommittedBeforeItsLock(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("J", now.Add(-time.Minute))) })
	b, wait, open := gatedStore(t, dsn)

	got := make(chan []string, 1)
	errB := make(chan error, 1)
	go func() {
		var seen []string
		errB <- b.Update(context.Background(), func(tx store.Tx) error {
			seen = nil
			return tx.JobsDue(now, 10, func(j *store.Job) error {
				seen = append(seen, j.Description)
				return nil
			})
		})
		got <- seen
	}()
	wait() // b's JobsDue has its snapshot and is reading J's rows
	mustUpdate(t, a, func(tx store.Tx) error {
		j, err := tx.JobGet("J")
		if err != nil {
			return err
		}
		j.Description = "changed"
		return tx.JobPut(j)
	})
	open()
	if err := <-errB; err != nil {
		t.Fatal(err)
	}
	if seen := <-got; len(seen) != 1 || seen[0] != "changed" {
		t.Errorf("dispatch handed out %q, want the job as changed before its status row was locked", seen)
	}
}

// TestQuarantiningAJobWhileAnotherProcessTouchesIt: while a dispatch
// holds a due job whose record does not decode, another process's write
// transaction reads that job (a change a user asks for), or writes it
// without reading it first (store copy). The dispatch quarantines it and
// commits; the reader waits for it and is told the record is corrupt, the
// writer waits and then writes. Neither deadlocks with the dispatch: each
// waits for the status row the dispatch holds without holding the
// definition row the quarantine writes.
func TestQuarantiningAJobWhileAnotherProcessTouchesIt(t *testing.T) {
	for _, c := range []struct {
		name  string
		touch func(store.Tx) error
		want  error
	}{
		{"reads it", func(tx store.Tx) error { _, err := tx.JobGet("BAD"); return err }, store.ErrCorrupt},
		{"writes it unread", func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("BAD", t0)) }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := pgtest.DSN(t)
			a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
			now := time.Now().UTC()
			mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("BAD", now.Add(-time.Minute))) })
			conn := mustConnect(t, dsn)
			if _, err := conn.Exec(t.Context(), `UPDATE schedbot_job_status SET status = 'not json' WHERE job_id = 'BAD'`); err != nil {
				t.Fatal(err)
			}
			errB := make(chan error, 1)
			errA := a.Update(t.Context(), func(tx store.Tx) error {
				err := tx.JobsDue(now, 10, func(*store.Job) error { return nil })
				var ue *store.UnreadableJobsError
				if !errors.As(err, &ue) {
					return fmt.Errorf("JobsDue = %v, want BAD named unreadable", err)
				}
				go func() { errB <- b.Update(context.Background(), c.touch) }()
				// Until b waits for a lock this transaction holds.
				deadline := time.Now().Add(10 * time.Second)
				for {
					var n int
					err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
					if err != nil {
						return err
					}
					if n > 0 {
						break
					}
					if time.Now().After(deadline) {
						return errors.New("the other process never waited for the dispatch")
					}
					time.Sleep(time.Millisecond) // polls pg_stat_activity: nothing to be told by
				}
				return tx.JobQuarantine("BAD")
			})
			if err := <-errB; !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("the other process's transaction = %v, want %v", err, c.want)
			}
			if errA != nil {
				t.Errorf("the dispatch = %v, want it quarantined and committed", errA)
			}
		})
	}
}

// TestANameTakenMeanwhileFailsTheFlush: a transaction that writes a job it
// read and one it did not (two statements, the name checked once both
// ran) still fails with ErrExists when another process took the new job's
// name after it was asked about.
func TestANameTakenMeanwhileFailsTheFlush(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := mustOpen(t, dsn, "ops"), mustOpen(t, dsn, "ops")
	mustUpdate(t, a, func(tx store.Tx) error { return tx.JobPut(storetest.NewJob("A", t0)) })
	err := a.Update(t.Context(), func(tx store.Tx) error {
		j, err := tx.JobGet("A")
		if err != nil {
			return err
		}
		j.Description = "changed"
		if err := tx.JobPut(j); err != nil {
			return err
		}
		n := storetest.NewJob("N", t0)
		n.Name = "dup"
		if err := tx.JobPut(n); err != nil {
			return err
		}
		other := storetest.NewJob("O", t0)
		other.Name = "dup"
		mustUpdate(t, b, func(tx store.Tx) error { return tx.JobPut(other) }) // committed meanwhile
		return nil
	})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("the flush after the name was taken = %v, want ErrExists", err)
	}
	mustView(t, a, func(tx store.Tx) error {
		if j, err := tx.JobGetByName("dup"); err != nil || j.JobID != "O" {
			t.Errorf("dup -> %v, %v; want O", j, err)
		}
		return nil
	})
}

// TestDispatchesAgainstConcurrentChanges: three processes dispatch 20 due
// jobs over and over (two at a time: one finding both dispatch slots
// taken is handed nothing and tries again) while others change them: definition and status
// together (each change writes one mark into both), the status alone (a
// worker's result, read ahead), names swapped between two jobs read, and
// between a job read and one put as an earlier read had it. Every job a
// dispatch hands out carries the definition that goes with its status,
// no window (job and run count) is dispatched twice, and no dispatch is
// lost (the run count is the number of dispatches committed); every name
// column matches its definition. Definitions read before the status rows
// are locked fail it (mismatches), and so do status rows read unlocked
// (mismatches, windows dispatched twice).
func TestDispatchesAgainstConcurrentChanges(t *testing.T) {
	dsn := pgtest.DSN(t)
	const jobs, blind, rounds = 20, 18, 150 // J18 and J19 are put blind: their run counts are not kept
	setup := mustOpen(t, dsn, "ops")
	now := time.Now().UTC()
	id := func(i int) string { return fmt.Sprintf("J%02d", i) }
	mustUpdate(t, setup, func(tx store.Tx) error {
		for i := range jobs {
			j := storetest.NewJob(id(i), now.Add(-time.Minute))
			j.Name, j.Description, j.NextRunAtLocal = "name-"+id(i), "v0", "v0"
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background() // not cancelled: a commit cut short would leave its outcome unknown
	var mu sync.Mutex
	dispatched := map[string]int{} // "J03@7": dispatches committed of J03 at run count 7
	var stop atomic.Bool
	var dispatchers, writers sync.WaitGroup
	for d := range 3 {
		s := mustOpen(t, dsn, "ops")
		dispatchers.Go(func() {
			for !stop.Load() {
				var got []string
				err := s.Update(ctx, func(tx store.Tx) error {
					got = got[:0]
					return tx.JobsDue(now, 3+d, func(j *store.Job) error {
						if j.Description != j.NextRunAtLocal {
							t.Errorf("dispatch handed out %s's definition %q with the status %q", j.JobID, j.Description, j.NextRunAtLocal)
						}
						got = append(got, fmt.Sprintf("%s@%d", j.JobID, j.RunCount))
						j.RunCount++
						if d == 0 {
							return tx.JobPut(j) // as storetest fires: the definition written too
						}
						return tx.JobStatusPut(j)
					})
				})
				if err != nil {
					t.Errorf("dispatch: %v", err)
					return
				}
				mu.Lock()
				for _, k := range got {
					dispatched[k]++
				}
				mu.Unlock()
			}
		})
	}
	for w := range 4 {
		s := mustOpen(t, dsn, "ops")
		writers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for k := range rounds {
				mark := fmt.Sprintf("w%d-%d", w, k)
				err := s.Update(ctx, func(tx store.Tx) error {
					a, b := r.IntN(blind), r.IntN(blind)
					switch w {
					case 0: // definition and status
						j, err := tx.JobGet(id(a))
						if err != nil {
							return err
						}
						j.Description, j.NextRunAtLocal = mark, mark
						return tx.JobPut(j)
					case 1: // status alone, as the worker records a result
						if err := tx.(store.ReadAheader).ReadAhead([]string{id(min(a, b)), id(max(a, b))}, nil); err != nil {
							return err
						}
						for _, i := range []int{a, b} {
							j, err := tx.JobGet(id(i))
							if err != nil {
								return err
							}
							j.LastResult = &store.Result{ExecutionID: mark}
							if err := tx.JobPut(j); err != nil {
								return err
							}
						}
						return nil
					}
					var x, y *store.Job
					var err error
					if w == 2 { // two jobs read, in id order, swap names
						if a == b {
							return nil
						}
						if x, err = tx.JobGet(id(min(a, b))); err != nil {
							return err
						}
						y, err = tx.JobGet(id(max(a, b)))
					} else { // a job put as a read before had it swaps names with one read
						if err := s.View(ctx, func(v store.Tx) (err error) { x, err = v.JobGet(id(blind + a%2)); return }); err != nil {
							return err
						}
						y, err = tx.JobGet(id(a))
					}
					if err != nil {
						return err
					}
					xName, yName := x.Name, y.Name
					x.Name = mark
					if err := tx.JobPut(x); err != nil {
						return err
					}
					y.Name = xName
					if err := tx.JobPut(y); err != nil {
						return err
					}
					x.Name, x.Description, x.NextRunAtLocal = yName, mark, mark
					return tx.JobPut(x)
				})
				if err != nil && !(w == 3 && errors.Is(err, store.ErrExists)) { // a name read before may be gone
					t.Errorf("change %s: %v", mark, err)
				}
			}
		})
	}
	writers.Wait()
	stop.Store(true)
	dispatchers.Wait()
	mustView(t, setup, func(tx store.Tx) error {
		for i := range jobs {
			j, err := tx.JobGet(id(i))
			if err != nil {
				return err
			}
			if j.Description != j.NextRunAtLocal {
				t.Errorf("%s: definition %q, status %q", j.JobID, j.Description, j.NextRunAtLocal)
			}
			if i >= blind {
				continue
			}
			for n := range j.RunCount {
				if k := dispatched[fmt.Sprintf("%s@%d", j.JobID, n)]; k != 1 {
					t.Errorf("%s at run count %d: dispatched %d times, want once", j.JobID, n, k)
				}
			}
			if k := dispatched[fmt.Sprintf("%s@%d", j.JobID, j.RunCount)]; k != 0 {
				t.Errorf("%s: a dispatch at run count %d committed and is not counted", j.JobID, j.RunCount)
			}
		}
		return nil
	})
	var differ int
	err := mustConnect(t, dsn).QueryRow(t.Context(), `SELECT count(*) FROM schedbot_jobs
		WHERE name IS DISTINCT FROM convert_to(convert_from(body, 'UTF8')::jsonb->>'name', 'UTF8')`).Scan(&differ)
	if err != nil || differ != 0 {
		t.Errorf("%d name columns differ from their definitions, %v", differ, err)
	}
}
