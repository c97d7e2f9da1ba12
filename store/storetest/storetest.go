// Package storetest is the conformance suite every store.Store
// implementation must pass. A backend's tests call Exercise with a
// constructor that returns a fresh, empty store.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// Exercise runs the whole suite against stores made by newStore.
func Exercise(t *testing.T, newStore func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"JobPutGetRoundTrip", testJobRoundTrip},
		{"JobGetMissingIsNotFound", testJobMissing},
		{"JobNamesAreUniqueUntilDeleted", testJobNames},
		{"EnabledJobNeedsNextRunAt", testEnabledNeedsNext},
		{"JobStatusPutWritesOnlyTheStatus", testJobStatusPut},
		{"JobsDueFromIndexInOrder", testJobsDue},
		{"JobsDueCallbackWritesAndStops", testJobsDueWrites},
		{"JobListSortsByNextRunThenState", testJobList},
		{"JobListPagesWithCursor", testJobListPages},
		{"JobListFiltersCreatorAndChannel", testJobListCreator},
		{"JobCountByState", testJobCount},
		{"RunsPutGetListNewestFirst", testRuns},
		{"QueueLifecycle", testQueue},
		{"QueueClaimHonoursNotBefore", testQueueNotBefore},
		{"QueueRecoverReturnsWhatNobodyHolds", testQueueRecover},
		{"QueueNextAtIsTheEarliestWaitingItem", testQueueNextAt},
		{"LanesKeepTheirLastDelivery", testLanes},
		{"QueueDueLanesSkipsABusyLaneWhole", testQueueDueLanes},
		{"AuditAppendChainsAndLists", testAudit},
		{"AuditListPagesAcrossBigTransactions", testAuditPaging},
		{"UpdateErrorRollsBackEverything", testRollback},
		{"ReadsInATransactionSeeItsWrites", testReadYourWrites},
		{"ChangingARecordAfterPutChangesNothing", testPutCopies},
		{"ViewRejectsWrites", testViewRejectsWrites},
		{"CanceledContextDoesNothing", testCanceled},
		{"RequestsRecordOnceAndPrune", testRequests},
		{"ConversationsPutReplaceDeleteAndPrune", testConversations},
		{"TokensPutGetListByHash", testTokens},
		{"RecordsRoundTripExactly", testRecordsRoundTrip},
		{"InvalidUTF8IsStoredReplaced", testInvalidUTF8},
		{"JobsDueSeesEarlierWritesInItsTransaction", testJobsDueSeesEarlierWrites},
		{"PanicInTransactionGoesToTheCaller", testPanicGoesToTheCaller},
		{"QueuePruneReachesEveryItem", testQueuePrune},
		{"AuditPruneLeavesACheckpointedChain", testAuditPrune},
		{"RunAndJobPruneKeepWhatTheySay", testRetention},
	}
	tests = append(tests, wholeOpsTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newStore(t))
		})
	}
}

var t0 = time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)

// NewJob returns a valid enabled job for tests.
func NewJob(id string, next time.Time) *store.Job {
	return &store.Job{
		JobID:          id,
		OrchestratorID: "default",
		CreatedBy:      store.Actor{SenderID: "U1", Sender: "ada", Via: store.ViaCLI},
		ScheduleType:   store.ScheduleCron,
		Schedule:       store.Schedule{Cron: "0 9 * * 5", Timezone: "America/New_York"},
		TargetAction: store.TargetAction{Type: store.ActionCommandInvoke, FunctionID: "message.post",
			FunctionArgs: json.RawMessage(`{"text":"hello"}`)},
		State:         store.JobEnabled,
		MisfirePolicy: store.MisfireFireOnce,
		OverlapPolicy: store.OverlapSkip,
		NextRunAt:     next,
		Description:   "Every Friday at 9:00 AM (America/New_York)",
		CreatedAt:     t0.Add(-time.Hour),
		UpdatedAt:     t0.Add(-time.Hour),
	}
}

// jobsDue collects what JobsDue passes to its callback.
func jobsDue(tx store.Tx, at time.Time, limit int) ([]*store.Job, error) {
	var out []*store.Job
	err := ops.RowsOf(tx).JobsDue(at, limit, func(j *store.Job) error { out = append(out, j); return nil })
	return out, err
}

func mustUpdate(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

func mustView(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.View(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

func mustPut(t *testing.T, s store.Store, jobs ...*store.Job) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, j := range jobs {
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		return nil
	})
}

func ids(jobs []*store.Job) []string {
	out := []string{}
	for _, j := range jobs {
		out = append(out, j.JobID)
	}
	return out
}

func testJobRoundTrip(t *testing.T, s store.Store) {
	want := NewJob("J1", t0)
	want.Name = "standup"
	want.EndAt = t0.Add(48 * time.Hour)
	want.TargetRef = &store.TargetRef{Channel: "slack", ChannelID: "C1", PostingMode: store.PostChannel}
	want.LastResult = &store.Result{ExecutionID: "J1@x", Status: "completed"}
	mustPut(t, s, want)
	var got *store.Job
	mustView(t, s, func(tx store.Tx) (err error) { got, err = tx.JobGet("J1"); return })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("JobGet (-want +got):\n%s", d)
	}
	mustView(t, s, func(tx store.Tx) (err error) { got, err = ops.RowsOf(tx).JobGetByName("standup"); return })
	if got.JobID != "J1" {
		t.Errorf("JobGetByName = %s, want J1", got.JobID)
	}
}

func testJobMissing(t *testing.T, s store.Store) {
	err := s.View(t.Context(), func(tx store.Tx) error { _, err := tx.JobGet("nope"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobGet(missing) = %v, want ErrNotFound", err)
	}
	err = s.View(t.Context(), func(tx store.Tx) error { _, err := ops.RowsOf(tx).JobGetByName("nope"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobGetByName(missing) = %v, want ErrNotFound", err)
	}
}

func testJobNames(t *testing.T, s store.Store) {
	a := NewJob("A", t0)
	a.Name = "backup"
	mustPut(t, s, a)
	b := NewJob("B", t0)
	b.Name = "backup"
	err := s.Update(t.Context(), func(tx store.Tx) error { return tx.JobPut(b) })
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("second job named backup: %v, want ErrExists", err)
	}
	// Renaming frees the old name.
	a.Name = "nightly"
	mustPut(t, s, a)
	mustPut(t, s, b)
	// A deleted job gives its name up.
	b.State, b.NextRunAt = store.JobDeleted, time.Time{}
	mustPut(t, s, b)
	c := NewJob("C", t0)
	c.Name = "backup"
	mustPut(t, s, c)
	mustView(t, s, func(tx store.Tx) error {
		j, err := ops.RowsOf(tx).JobGetByName("backup")
		if err != nil || j.JobID != "C" {
			return fmt.Errorf("backup -> %v, %v; want C", j, err)
		}
		if _, err := ops.RowsOf(tx).JobGetByName("nightly"); err != nil {
			return err
		}
		return nil
	})
	// Two jobs swap names in one transaction, by way of a third name: in
	// either order of the jobs, both read by id; then with one of them
	// found by its name (twice, so that each of A and C is that one).
	byID := func(first, second string) func(store.Tx) (*store.Job, *store.Job, error) {
		return func(tx store.Tx) (*store.Job, *store.Job, error) {
			x, err := tx.JobGet(first)
			if err != nil {
				return nil, nil, err
			}
			y, err := tx.JobGet(second)
			return x, y, err
		}
	}
	nightlyByName := func(tx store.Tx) (*store.Job, *store.Job, error) {
		x, err := ops.RowsOf(tx).JobGetByName("nightly")
		if err != nil {
			return nil, nil, err
		}
		other := "A"
		if x.JobID == "A" {
			other = "C"
		}
		y, err := tx.JobGet(other)
		return x, y, err
	}
	for _, read := range []func(store.Tx) (*store.Job, *store.Job, error){byID("A", "C"), byID("C", "A"), nightlyByName, nightlyByName} {
		mustUpdate(t, s, func(tx store.Tx) error {
			x, y, err := read(tx)
			if err != nil {
				return err
			}
			xName, yName := x.Name, y.Name
			x.Name = "swapping"
			if err := tx.JobPut(x); err != nil {
				return err
			}
			y.Name = xName
			if err := tx.JobPut(y); err != nil {
				return err
			}
			x.Name = yName
			return tx.JobPut(x)
		})
	}
	mustView(t, s, func(tx store.Tx) error {
		for name, id := range map[string]string{"backup": "C", "nightly": "A"} {
			if j, err := ops.RowsOf(tx).JobGetByName(name); err != nil || j.JobID != id {
				t.Errorf("after four swaps %s -> %v, %v; want %s", name, j, err, id)
			}
		}
		return nil
	})
}

func testEnabledNeedsNext(t *testing.T, s store.Store) {
	j := NewJob("J", time.Time{})
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.JobPut(j) }); err == nil {
		t.Fatal("enabled job without nextRunAt was stored")
	}
	j.State = "weird"
	j.NextRunAt = t0
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.JobPut(j) }); err == nil {
		t.Fatal("job with unknown state was stored")
	}
}

// testJobStatusPut: JobStatusPut writes the status fields and keeps the
// indexes in step; the definition (name included) stays as stored.
func testJobStatusPut(t *testing.T, s store.Store) {
	stored := NewJob("J", t0)
	stored.Name = "standup"
	mustPut(t, s, stored)
	j := stored.Clone()
	j.Description, j.Name, j.Schedule.Cron = "changed", "other", "0 10 * * 5"
	j.NextRunAt, j.NextRunAtLocal, j.LastRunAt, j.RunCount = t0.Add(time.Hour), "2026-11-27T10:00:00", t0, 7
	j.LastResult, j.UpdatedAt = &store.Result{ExecutionID: "J@x", Status: "dispatched"}, t0
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(j) })
	want := stored.Clone()
	want.NextRunAt, want.NextRunAtLocal, want.LastRunAt, want.RunCount = j.NextRunAt, j.NextRunAtLocal, j.LastRunAt, j.RunCount
	want.LastResult, want.UpdatedAt = j.LastResult, j.UpdatedAt
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.JobGet("J")
		if err != nil {
			return err
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("JobGet after JobStatusPut (-want +got):\n%s", d)
		}
		if due, err := jobsDue(tx, t0, 10); err != nil || len(due) != 0 {
			t.Errorf("due at the old nextRunAt: %v, %v; want none", ids(due), err)
		}
		if due, err := jobsDue(tx, t0.Add(time.Hour), 10); err != nil || len(due) != 1 {
			t.Errorf("due at the new nextRunAt: %v, %v; want J", ids(due), err)
		}
		if got, err := ops.RowsOf(tx).JobGetByName("standup"); err != nil || got.JobID != "J" {
			t.Errorf("JobGetByName(standup) = %v, %v; want J kept its name", got, err)
		}
		if _, err := ops.RowsOf(tx).JobGetByName("other"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("JobGetByName(other) = %v, want ErrNotFound", err)
		}
		return nil
	})
	// Fired as a scheduler does: JobsDue hands the job out, JobStatusPut
	// moves it on; a definition changed earlier in the transaction is kept,
	// one changed only in memory is not.
	mustUpdate(t, s, func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0.Add(time.Hour), 10, func(due *store.Job) error {
			def := due.Clone()
			def.Description = "put in this transaction"
			if err := tx.JobPut(def); err != nil {
				return err
			}
			due.Description, due.NextRunAt, due.RunCount = "in memory only", t0.Add(2*time.Hour), 8
			return ops.RowsOf(tx).JobStatusPut(due)
		})
	})
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.JobGet("J")
		if err != nil || got.Description != "put in this transaction" || got.RunCount != 8 || !got.NextRunAt.Equal(t0.Add(2*time.Hour)) {
			t.Errorf("after JobsDue, JobPut and JobStatusPut: %+v, %v; want the description put and the status", got, err)
		}
		return nil
	})
	mustUpdate(t, s, func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0.Add(2*time.Hour), 10, func(due *store.Job) error {
			due.Description, due.RunCount = "in memory only", 9
			return ops.RowsOf(tx).JobStatusPut(due)
		})
	})
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.JobGet("J")
		if err != nil || got.Description != "put in this transaction" || got.RunCount != 9 {
			t.Errorf("after JobsDue and JobStatusPut: %+v, %v; want the stored description and the status", got, err)
		}
		return nil
	})
	j.NextRunAt, j.RunCount = t0.Add(2*time.Hour), 9
	// Paused: out of the next-run index, counted as paused.
	j.State = store.JobPaused
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(j) })
	mustView(t, s, func(tx store.Tx) error {
		if due, err := jobsDue(tx, t0.Add(time.Hour), 10); err != nil || len(due) != 0 {
			t.Errorf("a paused job is due: %v, %v", ids(due), err)
		}
		if n, err := tx.JobCount(store.JobPaused); err != nil || n != 1 {
			t.Errorf("JobCount(paused) = %d, %v; want 1", n, err)
		}
		return nil
	})
	// Deleted: its name is free for another job; brought back while
	// another holds it, it is refused.
	j.State, j.NextRunAt = store.JobDeleted, time.Time{}
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(j) })
	other := NewJob("K", t0)
	other.Name = "standup"
	mustPut(t, s, other)
	j.State = store.JobPaused
	if err := s.Update(t.Context(), func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(j) }); !errors.Is(err, store.ErrExists) {
		t.Errorf("undeleting a job whose name is taken: %v, want ErrExists", err)
	}
	for name, bad := range map[string]*store.Job{
		"a job not stored":          NewJob("nope", t0),
		"an unknown state":          func() *store.Job { b := NewJob("J", t0); b.State = "weird"; return b }(),
		"enabled with no nextRunAt": NewJob("J", time.Time{}),
	} {
		if err := s.Update(t.Context(), func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(bad) }); err == nil {
			t.Errorf("JobStatusPut of %s succeeded", name)
		}
	}
	err := s.Update(t.Context(), func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(NewJob("nope", t0)) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobStatusPut of a job not stored = %v, want ErrNotFound", err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGet("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("JobStatusPut of a job not stored stored it: %v", err)
		}
		if got, err := tx.JobGet("J"); err != nil || got.State != store.JobDeleted {
			t.Errorf("a refused JobStatusPut changed the job: %v, %v", got, err)
		}
		return nil
	})
}

func testJobsDue(t *testing.T, s store.Store) {
	mustPut(t, s,
		NewJob("late", t0.Add(2*time.Hour)),
		NewJob("early", t0.Add(-time.Hour)),
		NewJob("now", t0),
	)
	// Moving a job moves its index entry; pausing removes it.
	moved := NewJob("moved", t0.Add(-2*time.Hour))
	mustPut(t, s, moved)
	moved.NextRunAt = t0.Add(3 * time.Hour)
	mustPut(t, s, moved)
	paused := NewJob("paused", t0.Add(-3*time.Hour))
	mustPut(t, s, paused)
	paused.State, paused.NextRunAt = store.JobPaused, time.Time{}
	mustPut(t, s, paused)

	mustView(t, s, func(tx store.Tx) error {
		due, err := jobsDue(tx, t0, 10)
		if err != nil {
			return err
		}
		if d := cmp.Diff([]string{"early", "now"}, ids(due)); d != "" {
			t.Errorf("JobsDue(t0) (-want +got):\n%s", d)
		}
		due, _ = jobsDue(tx, t0.Add(24*time.Hour), 1)
		if d := cmp.Diff([]string{"early"}, ids(due)); d != "" {
			t.Errorf("JobsDue limit 1 (-want +got):\n%s", d)
		}
		next, ok, err := ops.RowsOf(tx).JobNextRunAt()
		if err != nil || !ok || !next.Equal(t0.Add(-time.Hour)) {
			t.Errorf("JobNextRunAt = %v %v %v, want %v", next, ok, err, t0.Add(-time.Hour))
		}
		return nil
	})
}

func testJobList(t *testing.T, s store.Store) {
	p := NewJob("P", time.Time{})
	p.State = store.JobPaused
	d := NewJob("D", time.Time{})
	d.State = store.JobDisabled
	x := NewJob("X", time.Time{})
	x.State = store.JobDeleted
	mustPut(t, s, NewJob("B", t0.Add(time.Hour)), p, d, x, NewJob("A", t0.Add(2*time.Hour)), NewJob("C", t0))
	cases := []struct {
		states []store.JobState
		want   []string
	}{
		{nil, []string{"C", "B", "A", "P", "D"}},
		{[]store.JobState{store.JobDeleted}, []string{"X"}},
		{[]store.JobState{store.JobPaused, store.JobEnabled}, []string{"C", "B", "A", "P"}},
		{store.JobStates, []string{"C", "B", "A", "P", "D", "X"}},
	}
	for _, c := range cases {
		mustView(t, s, func(tx store.Tx) error {
			page, err := tx.JobList(&store.JobListParams{States: c.states})
			if err != nil {
				return err
			}
			if diff := cmp.Diff(c.want, ids(page.Jobs)); diff != "" {
				t.Errorf("JobList(%v) (-want +got):\n%s", c.states, diff)
			}
			if page.NextCursor != "" {
				t.Errorf("JobList(%v) has a next cursor on the only page", c.states)
			}
			return nil
		})
	}
}

func testJobListPages(t *testing.T, s store.Store) {
	var jobs []*store.Job
	var want []string
	for i := range 7 {
		j := NewJob(fmt.Sprintf("E%d", i), t0.Add(time.Duration(i)*time.Minute))
		jobs = append(jobs, j)
		want = append(want, j.JobID)
	}
	for i := range 4 {
		j := NewJob(fmt.Sprintf("P%d", i), time.Time{})
		j.State = store.JobPaused
		jobs = append(jobs, j)
		want = append(want, j.JobID)
	}
	mustPut(t, s, jobs...)
	var got []string
	cursor := ""
	pages := 0
	for {
		var page *store.JobPage
		mustView(t, s, func(tx store.Tx) (err error) {
			page, err = tx.JobList(&store.JobListParams{Limit: 3, Cursor: cursor})
			return
		})
		pages++
		if len(page.Jobs) > 3 {
			t.Fatalf("page of %d, limit 3", len(page.Jobs))
		}
		got = append(got, ids(page.Jobs)...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
		if pages > 10 {
			t.Fatal("paging does not end")
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pages joined (-want +got):\n%s", d)
	}
	err := s.View(t.Context(), func(tx store.Tx) error {
		_, err := tx.JobList(&store.JobListParams{Cursor: "garbage"})
		return err
	})
	if err == nil {
		t.Error("JobList with a garbage cursor succeeded")
	}
}

func testJobListCreator(t *testing.T, s store.Store) {
	a := NewJob("A", t0)
	b := NewJob("B", t0.Add(time.Minute))
	b.CreatedBy.SenderID = "U2"
	b.TargetRef = &store.TargetRef{Channel: "slack", ChannelID: "C0OPS"}
	mustPut(t, s, a, b)
	mustView(t, s, func(tx store.Tx) error {
		page, err := tx.JobList(&store.JobListParams{CreatedBy: "U2"})
		if err != nil {
			return err
		}
		if d := cmp.Diff([]string{"B"}, ids(page.Jobs)); d != "" {
			t.Errorf("CreatedBy U2 (-want +got):\n%s", d)
		}
		page, err = tx.JobList(&store.JobListParams{ChannelID: "C0OPS"})
		if err != nil {
			return err
		}
		if d := cmp.Diff([]string{"B"}, ids(page.Jobs)); d != "" {
			t.Errorf("ChannelID C0OPS (-want +got):\n%s", d)
		}
		return nil
	})
}

func testJobCount(t *testing.T, s store.Store) {
	p := NewJob("P", time.Time{})
	p.State = store.JobPaused
	x := NewJob("X", time.Time{})
	x.State = store.JobDeleted
	mustPut(t, s, NewJob("A", t0), NewJob("B", t0), p, x)
	mustView(t, s, func(tx store.Tx) error {
		for _, c := range []struct {
			states []store.JobState
			want   int
		}{
			{nil, 4},
			{[]store.JobState{store.JobEnabled}, 2},
			{[]store.JobState{store.JobEnabled, store.JobPaused, store.JobDisabled}, 3},
		} {
			n, err := tx.JobCount(c.states...)
			if err != nil {
				return err
			}
			if n != c.want {
				t.Errorf("JobCount(%v) = %d, want %d", c.states, n, c.want)
			}
		}
		return nil
	})
}

func testRuns(t *testing.T, s store.Store) {
	var want []string
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range 5 {
			at := t0.Add(time.Duration(i) * time.Hour)
			r := &store.Run{ExecutionID: store.ExecutionID("J", at), JobID: "J", ScheduledAt: at, Status: store.RunDispatched}
			want = append([]string{r.ExecutionID}, want...)
			if err := tx.RunPut(r); err != nil {
				return err
			}
		}
		// A manual run sorts by its time among the scheduled ones.
		m := &store.Run{ExecutionID: store.ManualExecutionID("J", t0.Add(90*time.Minute), "X1"), JobID: "J",
			ScheduledAt: t0.Add(90 * time.Minute), Status: store.RunDispatched, Manual: true}
		want = slices.Insert(want, 3, m.ExecutionID)
		if err := tx.RunPut(m); err != nil {
			return err
		}
		if err := tx.RunPut(&store.Run{ExecutionID: "other", JobID: "J"}); err == nil {
			t.Error("a run whose id does not start with its job was stored")
		}
		// Another job's runs never show up.
		return tx.RunPut(&store.Run{ExecutionID: "K@1", JobID: "K", ScheduledAt: t0, Status: store.RunCompleted})
	})
	// Rewriting a run changes it in place.
	mustUpdate(t, s, func(tx store.Tx) error {
		r, err := tx.RunGet(store.ExecutionID("J", t0))
		if err != nil {
			return err
		}
		r.Status, r.Error = store.RunFailed, "boom"
		return tx.RunPut(r)
	})
	mustView(t, s, func(tx store.Tx) error {
		runs, err := tx.RunList("J", 10)
		if err != nil {
			return err
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.ExecutionID)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("RunList (-want +got):\n%s", d)
		}
		if last := runs[len(runs)-1]; last.Status != store.RunFailed || last.Error != "boom" {
			t.Errorf("rewritten run = %+v", last)
		}
		runs, _ = tx.RunList("J", 2)
		if len(runs) != 2 {
			t.Errorf("RunList limit 2 gave %d", len(runs))
		}
		if _, err := tx.RunGet("missing"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RunGet(missing) = %v", err)
		}
		return nil
	})
}

func testQueue(t *testing.T, s store.Store) {
	var first, second store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) error {
		first = store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: "J", ExecutionID: "J@1"}
		if err := tx.QueueAdd(&first); err != nil {
			return err
		}
		second = store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", Payload: json.RawMessage(`{"text":"hi"}`)}
		return tx.QueueAdd(&second)
	})
	if first.ItemID == "" || first.Queue != store.QueueIncoming || first.CreatedAt.IsZero() {
		t.Fatalf("QueueAdd did not fill id, queue and time: %+v", first)
	}
	if err := s.Update(t.Context(), func(tx store.Tx) error { return tx.QueueAdd(&first) }); !errors.Is(err, store.ErrExists) {
		t.Errorf("QueueAdd of an existing id = %v, want ErrExists", err)
	}
	counts := func() map[store.QueueName]int {
		m := map[store.QueueName]int{}
		mustView(t, s, func(tx store.Tx) error {
			for _, q := range store.QueueNames {
				n, err := ops.RowsOf(tx).QueueCount(q)
				if err != nil {
					return err
				}
				if n > 0 {
					m[q] = n
				}
			}
			return nil
		})
		return m
	}
	if d := cmp.Diff(map[store.QueueName]int{store.QueueIncoming: 2}, counts()); d != "" {
		t.Errorf("after add (-want +got):\n%s", d)
	}
	var claimed []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { claimed, err = ops.RowsOf(tx).QueueClaim(t0, 1); return })
	if len(claimed) != 1 || claimed[0].ItemID != first.ItemID || claimed[0].Queue != store.QueueProcessing {
		t.Fatalf("QueueClaim = %+v, want the oldest item in processing", claimed)
	}
	if d := cmp.Diff(map[store.QueueName]int{store.QueueIncoming: 1, store.QueueProcessing: 1}, counts()); d != "" {
		t.Errorf("after claim (-want +got):\n%s", d)
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		it, err := tx.QueueGet(first.ItemID)
		if err != nil {
			return err
		}
		it.Queue, it.Attempts = store.QueueOutgoing, 2
		return tx.QueuePut(it)
	})
	mustView(t, s, func(tx store.Tx) error {
		items, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueOutgoing})
		if err != nil {
			return err
		}
		if len(items) != 1 || items[0].ItemID != first.ItemID || items[0].Attempts != 2 {
			t.Errorf("outgoing = %+v", items)
		}
		got, err := tx.QueueGet(second.ItemID)
		if err != nil {
			return err
		}
		if string(got.Payload) != `{"text":"hi"}` {
			t.Errorf("payload = %s", got.Payload)
		}
		return nil
	})
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).QueueDelete(first.ItemID) })
	if d := cmp.Diff(map[store.QueueName]int{store.QueueIncoming: 1}, counts()); d != "" {
		t.Errorf("after delete (-want +got):\n%s", d)
	}
	err := s.Update(t.Context(), func(tx store.Tx) error { return ops.RowsOf(tx).QueueDelete(first.ItemID) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("QueueDelete twice = %v, want ErrNotFound", err)
	}
	err = s.Update(t.Context(), func(tx store.Tx) error {
		return tx.QueuePut(&store.QueueItem{ItemID: "ghost", Queue: store.QueueDone})
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("QueuePut of an unknown item = %v, want ErrNotFound", err)
	}
	// Paging through a queue.
	mustUpdate(t, s, func(tx store.Tx) error {
		for range 4 {
			if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default"}); err != nil {
				return err
			}
		}
		return nil
	})
	mustView(t, s, func(tx store.Tx) error {
		p1, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming, Limit: 3})
		if err != nil {
			return err
		}
		p2, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueIncoming, Limit: 3, After: p1[2].ItemID})
		if err != nil {
			return err
		}
		if len(p1) != 3 || len(p2) != 2 || p1[0].ItemID != second.ItemID {
			t.Errorf("pages of 3: %d then %d, first %s", len(p1), len(p2), p1[0].ItemID)
		}
		return nil
	})
}

func testQueueRecover(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for range 3 {
			if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default"}); err != nil {
				return err
			}
		}
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", Queue: store.QueueOutgoing})
	})
	var claimed []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { claimed, err = ops.RowsOf(tx).QueueClaim(t0, 2); return })
	if len(claimed) != 2 {
		t.Fatalf("claimed %d, want 2", len(claimed))
	}
	var n int
	later := t0.Add(time.Minute)
	mustUpdate(t, s, func(tx store.Tx) (err error) {
		n, err = ops.RowsOf(tx).QueueRecover(t0.Add(time.Second), later)
		return
	})
	if n != 2 {
		t.Fatalf("QueueRecover = %d, want the 2 claimed items", n)
	}
	mustView(t, s, func(tx store.Tx) error {
		for _, c := range claimed {
			it, err := tx.QueueGet(c.ItemID)
			if err != nil {
				return err
			}
			if it.Queue != store.QueueIncoming || !it.NotBefore.Equal(later) || !it.UpdatedAt.Equal(t0.Add(time.Second)) {
				t.Errorf("recovered item = queue %s, notBefore %v, updated %v; want incoming, due %v", it.Queue, it.NotBefore, it.UpdatedAt, later)
			}
		}
		for q, want := range map[store.QueueName]int{store.QueueProcessing: 0, store.QueueIncoming: 3, store.QueueOutgoing: 1} {
			if got, err := ops.RowsOf(tx).QueueCount(q); err != nil || got != want {
				t.Errorf("%s holds %d, %v; want %d", q, got, err, want)
			}
		}
		return nil
	})
	var got []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { got, err = ops.RowsOf(tx).QueueClaim(t0.Add(time.Second), 10); return })
	if len(got) != 1 {
		t.Errorf("claimed %d before the recovered items are due, want only the untouched one", len(got))
	}
	if err := s.View(t.Context(), func(tx store.Tx) error { _, err := ops.RowsOf(tx).QueueRecover(t0, time.Time{}); return err }); err == nil {
		t.Error("QueueRecover in a View succeeded")
	}
}

func testQueueNextAt(t *testing.T, s store.Store) {
	next := func(q store.QueueName, now time.Time) (at time.Time, ok bool) {
		mustView(t, s, func(tx store.Tx) (err error) { at, ok, err = ops.RowsOf(tx).QueueNextAt(q, now); return })
		return
	}
	if _, ok := next(store.QueueIncoming, t0); ok {
		t.Error("an empty queue has a next item")
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, it := range []*store.QueueItem{
			{Kind: store.KindMessage, OrchestratorID: "default"}, // due now
			{Kind: store.KindMessage, OrchestratorID: "default", NotBefore: t0.Add(-time.Minute)},
			{Kind: store.KindMessage, OrchestratorID: "default", NotBefore: t0.Add(3 * time.Minute)},
			{Kind: store.KindMessage, OrchestratorID: "default", NotBefore: t0.Add(2 * time.Minute)},
			{Kind: store.KindMessage, OrchestratorID: "default", NotBefore: t0.Add(time.Minute), Queue: store.QueueOutgoing},
			{Kind: store.KindMessage, OrchestratorID: "default", NotBefore: t0.Add(time.Second), Queue: store.QueueDead},
		} {
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
		}
		return nil
	})
	for _, c := range []struct {
		q    store.QueueName
		now  time.Time
		want time.Time
	}{
		{store.QueueIncoming, t0, t0.Add(2 * time.Minute)},
		{store.QueueIncoming, t0.Add(2 * time.Minute), t0.Add(3 * time.Minute)},
		{store.QueueOutgoing, t0, t0.Add(time.Minute)},
	} {
		if at, ok := next(c.q, c.now); !ok || !at.Equal(c.want) {
			t.Errorf("QueueNextAt(%s, %v) = %v, %v; want %v", c.q, c.now, at, ok, c.want)
		}
	}
	if at, ok := next(store.QueueIncoming, t0.Add(3*time.Minute)); ok {
		t.Errorf("QueueNextAt after every item is due = %v, want none", at)
	}
}

func testLanes(t *testing.T, s store.Store) {
	take := func(key string, now time.Time) (ok bool, last time.Time) {
		mustUpdate(t, s, func(tx store.Tx) (err error) {
			ok, last, err = ops.RowsOf(tx).LaneTake(key, now, now.Add(time.Minute))
			return
		})
		return
	}
	if ok, last := take("slack|p|C1", t0); !ok || !last.IsZero() {
		t.Fatalf("first LaneTake = %v, %v; want ok, never delivered", ok, last)
	}
	delivered := t0.Add(1500 * time.Millisecond)
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).LaneRelease("slack|p|C1", delivered) })
	if ok, last := take("slack|p|C1", t0.Add(2*time.Second)); !ok || !last.Equal(delivered) {
		t.Errorf("LaneTake after a delivery = %v, %v; want ok, last %v", ok, last, delivered)
	}
	// Released with no delivery (nothing left to send): the pace stays.
	mustUpdate(t, s, func(tx store.Tx) error { return ops.RowsOf(tx).LaneRelease("slack|p|C1", time.Time{}) })
	if _, last := take("slack|p|C1", t0.Add(3*time.Second)); !last.Equal(delivered) {
		t.Errorf("last after an empty release = %v, want %v", last, delivered)
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		if ok, err := ops.RowsOf(tx).LaneKeep("slack|p|C1", t0.Add(time.Hour)); err != nil || !ok {
			t.Errorf("LaneKeep of a lane this process took = %v, %v", ok, err)
		}
		return nil
	})
	if _, last := take("slack|p|C2", t0); !last.IsZero() {
		t.Errorf("another lane's last = %v, want zero", last)
	}
	if err := s.View(t.Context(), func(tx store.Tx) error { _, _, err := ops.RowsOf(tx).LaneTake("x", t0, t0); return err }); err == nil {
		t.Error("LaneTake in a View succeeded")
	}
}

func testQueueNotBefore(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", NotBefore: t0.Add(time.Minute)})
	})
	var got []*store.QueueItem
	mustUpdate(t, s, func(tx store.Tx) (err error) { got, err = ops.RowsOf(tx).QueueClaim(t0, 10); return })
	if len(got) != 0 {
		t.Fatalf("claimed %d items before their NotBefore", len(got))
	}
	mustUpdate(t, s, func(tx store.Tx) (err error) { got, err = ops.RowsOf(tx).QueueClaim(t0.Add(time.Minute), 10); return })
	if len(got) != 1 {
		t.Fatalf("claimed %d items at NotBefore, want 1", len(got))
	}
}

func testAudit(t *testing.T, s store.Store) {
	var appended []*store.AuditEvent
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, a := range []string{store.AuditJobCreated, store.AuditJobPaused, store.AuditJobCreated} {
			ev := &store.AuditEvent{
				At:             t0.Add(time.Duration(i) * time.Hour),
				OrchestratorID: "default",
				Actor:          store.Actor{SenderID: fmt.Sprintf("U%d", i%2), Sender: "ada", Via: store.ViaCLI},
				Action:         a,
				JobID:          fmt.Sprintf("J%d", i%2),
			}
			if err := tx.AuditAppend(ev); err != nil {
				return err
			}
			appended = append(appended, ev)
		}
		return nil
	})
	for i, ev := range appended { // told by the time the transaction commits
		if ev.Seq != uint64(i+1) {
			t.Errorf("event %d: seq %d", i, ev.Seq)
		}
	}
	// By the commit every event has its hash, chained to the previous one.
	for i, ev := range appended {
		if len(ev.Hash) != 64 || i == 0 && ev.PrevHash != "" || i > 0 && ev.PrevHash != appended[i-1].Hash {
			t.Errorf("event %d after commit: prevHash %q hash %q", i+1, ev.PrevHash, ev.Hash)
		}
	}
	mustView(t, s, func(tx store.Tx) error {
		all, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		if len(all) != 3 {
			t.Fatalf("AuditList = %d events, want 3", len(all))
		}
		for i := 1; i < 3; i++ {
			if all[i].PrevHash != all[i-1].Hash {
				t.Errorf("event %d prevHash %s, previous hash %s", i+1, all[i].PrevHash, all[i-1].Hash)
			}
		}
		for _, c := range []struct {
			p    store.AuditListParams
			want []uint64
		}{
			{store.AuditListParams{JobID: "J0"}, []uint64{1, 3}},
			{store.AuditListParams{Actor: "U1"}, []uint64{2}},
			{store.AuditListParams{Actor: "ada", Limit: 2}, []uint64{1, 2}},
			{store.AuditListParams{Since: t0.Add(90 * time.Minute)}, []uint64{3}},
			{store.AuditListParams{AfterSeq: 1}, []uint64{2, 3}},
		} {
			evs, err := tx.AuditList(&c.p)
			if err != nil {
				return err
			}
			var got []uint64
			for _, ev := range evs {
				got = append(got, ev.Seq)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("AuditList(%+v) (-want +got):\n%s", c.p, d)
			}
		}
		n, err := ops.RowsOf(tx).AuditVerify()
		if err != nil || n != 3 {
			t.Errorf("AuditVerify = %d, %v; want 3, nil", n, err)
		}
		return nil
	})
}

func testRollback(t *testing.T, s store.Store) {
	boom := errors.New("boom")
	err := s.Update(t.Context(), func(tx store.Tx) error {
		if err := tx.JobPut(NewJob("J", t0)); err != nil {
			return err
		}
		if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobCreated, JobID: "J"}); err != nil {
			return err
		}
		// Enough records for a store to batch them.
		for i := range 600 {
			if err := tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: fmt.Sprint(i)}); err != nil {
				return err
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGet("J"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("job survived a rolled-back transaction: %v", err)
		}
		if evs, _ := tx.AuditList(nil); len(evs) != 0 {
			t.Errorf("%d audit events survived a rollback", len(evs))
		}
		if n, _ := ops.RowsOf(tx).QueueCount(store.QueueIncoming); n != 0 {
			t.Errorf("%d queue items survived a rollback", n)
		}
		if _, ok, _ := ops.RowsOf(tx).JobNextRunAt(); ok {
			t.Error("next-run index entry survived a rollback")
		}
		return nil
	})
	// The chain continues from the last committed event.
	ev := &store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobCreated}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.AuditAppend(ev) })
	if ev.Seq != 1 {
		t.Errorf("seq after rollback = %d, want 1", ev.Seq)
	}
}

func testViewRejectsWrites(t *testing.T, s store.Store) {
	for name, write := range map[string]func(tx store.Tx) error{
		"JobPut":       func(tx store.Tx) error { return tx.JobPut(NewJob("J", t0)) },
		"JobStatusPut": func(tx store.Tx) error { return ops.RowsOf(tx).JobStatusPut(NewJob("J", t0)) },
		"RunPut": func(tx store.Tx) error {
			return tx.RunPut(&store.Run{ExecutionID: "J@x", JobID: "J", ScheduledAt: t0, Status: store.RunDispatched})
		},
		"QueueAdd": func(tx store.Tx) error {
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default"})
		},
		"AuditAppend": func(tx store.Tx) error {
			return tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: "x"})
		},
		"ConversationPut": func(tx store.Tx) error {
			return tx.ConversationPut(&store.Conversation{Key: "c", JobID: "J", UpdatedAt: t0})
		},
		"ConversationDelete": func(tx store.Tx) error { return tx.ConversationDelete("c") },
		"TokenPut": func(tx store.Tx) error {
			return tx.TokenPut(&store.Token{Hash: "h", ID: "T", CreatedAt: t0})
		},
		"ConversationPrune": func(tx store.Tx) error {
			_, err := ops.RowsOf(tx).ConversationPrune(t0.Add(time.Hour), 10)
			return err
		},
	} {
		if err := s.View(t.Context(), write); err == nil {
			t.Errorf("%s in a View succeeded", name)
		}
	}
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGet("J"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("write in a View is visible: %v", err)
		}
		if _, err := tx.ConversationGet("c"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("conversation written in a View is visible: %v", err)
		}
		return nil
	})
}

func testCanceled(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	err := s.Update(ctx, func(tx store.Tx) error { called = true; return tx.JobPut(NewJob("J", t0)) })
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("Update with a canceled context = %v (fn called: %v)", err, called)
	}
}

// testReadYourWrites: every read in a writing transaction sees what the
// transaction wrote before it, in small transactions and in ones big
// enough for a store to batch its writes.
func testReadYourWrites(t *testing.T, s store.Store) {
	total, outgoing := 0, 0
	for _, n := range []int{3, 700} {
		total += n
		outgoing += n / 2 // every other item is deleted
		mustUpdate(t, s, func(tx store.Tx) error {
			var items []*store.QueueItem
			for i := range n {
				id := fmt.Sprintf("RYW%d-%04d", n, i)
				j := NewJob(id, t0.Add(time.Duration(i)*time.Second))
				if err := tx.JobPut(j); err != nil {
					return err
				}
				if err := tx.RunPut(&store.Run{ExecutionID: store.ExecutionID(id, t0), JobID: id, ScheduledAt: t0, Status: store.RunDispatched}); err != nil {
					return err
				}
				it := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: id, CreatedAt: t0}
				if err := tx.QueueAdd(it); err != nil {
					return err
				}
				items = append(items, it)
				if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: "default", Action: store.AuditJobCreated, JobID: id}); err != nil {
					return err
				}
				// Point reads of what was just written.
				got, err := tx.JobGet(id)
				if err != nil || got.Description != j.Description || !got.NextRunAt.Equal(j.NextRunAt) {
					t.Fatalf("JobGet(%s) after put = %+v, %v", id, got, err)
				}
				if r, err := tx.RunGet(store.ExecutionID(id, t0)); err != nil || r.Status != store.RunDispatched {
					t.Fatalf("RunGet after put = %+v, %v", r, err)
				}
				if q, err := tx.QueueGet(it.ItemID); err != nil || q.JobID != id {
					t.Fatalf("QueueGet after add = %+v, %v", q, err)
				}
			}
			// Cursor reads see every write so far.
			due, err := jobsDue(tx, t0.Add(time.Hour), total+10)
			if err != nil || len(due) != total {
				t.Fatalf("JobsDue = %d jobs, %v; want %d", len(due), err, total)
			}
			if c, _ := ops.RowsOf(tx).QueueCount(store.QueueIncoming); c != n {
				t.Fatalf("QueueCount(incoming) = %d, want %d", c, n)
			}
			if c, err := ops.RowsOf(tx).AuditVerify(); c != total || err != nil {
				t.Fatalf("AuditVerify in the transaction = %d, %v; want %d events", c, err, total)
			}
			if evs, _ := tx.AuditList(&store.AuditListParams{JobID: items[n-1].JobID}); len(evs) != 1 {
				t.Fatalf("AuditList(last job) = %d events, want 1", len(evs))
			}
			// Then rewrite after the cursor reads: move, update, delete.
			for i, it := range items {
				it.Queue = store.QueueOutgoing
				if err := tx.QueuePut(it); err != nil {
					return err
				}
				if i%2 == 0 {
					if err := ops.RowsOf(tx).QueueDelete(it.ItemID); err != nil {
						return err
					}
				}
				j, err := tx.JobGet(it.JobID)
				if err != nil {
					return err
				}
				j.RunCount, j.Description = 7, "changed "+it.JobID
				if err := tx.JobPut(j); err != nil {
					return err
				}
			}
			if c, _ := ops.RowsOf(tx).QueueCount(store.QueueIncoming); c != 0 {
				t.Errorf("incoming after moving every item = %d", c)
			}
			if c, _ := ops.RowsOf(tx).QueueCount(store.QueueOutgoing); c != outgoing {
				t.Errorf("outgoing = %d, want %d (half deleted)", c, outgoing)
			}
			if _, err := tx.QueueGet(items[0].ItemID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("QueueGet of a deleted item = %v, want not found", err)
			}
			runs, err := tx.RunList(items[0].JobID, 5)
			if err != nil || len(runs) != 1 {
				t.Errorf("RunList = %d runs, %v", len(runs), err)
			}
			return nil
		})
		mustView(t, s, func(tx store.Tx) error {
			if c, err := ops.RowsOf(tx).AuditVerify(); c != total || err != nil {
				t.Errorf("AuditVerify after commit = %d, %v; want %d events", c, err, total)
			}
			for i := range n {
				id := fmt.Sprintf("RYW%d-%04d", n, i)
				j, err := tx.JobGet(id)
				if err != nil || j.RunCount != 7 || j.Description != "changed "+id {
					t.Fatalf("committed job %s = %+v, %v", id, j, err)
				}
			}
			return nil
		})
	}
}

// testPutCopies: a record changed by its caller after a put, or a job
// changed in place after a read, is stored as it was at the put.
func testPutCopies(t *testing.T, s store.Store) {
	j := NewJob("COPY", t0)
	j.TargetAction = store.TargetAction{Type: store.ActionWorkflowStart, WorkflowID: "w",
		Inputs: map[string]any{"who": "ada", "nested": map[string]any{"n": 1.0}}}
	j.LastResult = &store.Result{ExecutionID: "COPY@x", Status: "completed"}
	r := &store.Run{ExecutionID: store.ExecutionID("COPY", t0), JobID: "COPY", ScheduledAt: t0, Status: store.RunDispatched}
	it := &store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", Payload: json.RawMessage(`{"a":1}`)}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, err := range []error{tx.JobPut(j), tx.RunPut(r), tx.QueueAdd(it)} {
			if err != nil {
				return err
			}
		}
		j.Description, j.LastResult.Status = "scribbled", "scribbled"
		j.TargetAction.Inputs["who"] = "scribbled"
		j.TargetAction.Inputs["nested"].(map[string]any)["n"] = 2.0
		r.Status = store.RunFailed
		it.Payload[2] = 'b'
		return nil
	})
	mustUpdate(t, s, func(tx store.Tx) error {
		got, err := tx.JobGet("COPY")
		if err != nil {
			return err
		}
		if got.Description == "scribbled" || got.LastResult.Status != "completed" || got.TargetAction.Inputs["who"] != "ada" ||
			got.TargetAction.Inputs["nested"].(map[string]any)["n"] != 1.0 {
			t.Errorf("a change after JobPut reached the store: %+v %+v", got, got.TargetAction.Inputs)
		}
		if rr, _ := tx.RunGet(r.ExecutionID); rr.Status != store.RunDispatched {
			t.Errorf("a change after RunPut reached the store: %s", rr.Status)
		}
		if q, _ := tx.QueueGet(it.ItemID); string(q.Payload) != `{"a":1}` {
			t.Errorf("a change after QueueAdd reached the store: %s", q.Payload)
		}
		// A job changed in place after a read (nested input included) and
		// put again is stored changed.
		got.TargetAction.Inputs["nested"].(map[string]any)["n"] = 3.0
		return tx.JobPut(got)
	})
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.JobGet("COPY")
		if err != nil {
			return err
		}
		if n := got.TargetAction.Inputs["nested"].(map[string]any)["n"]; n != 3.0 {
			t.Errorf("nested input after an in-place change and a put = %v, want 3", n)
		}
		return nil
	})
}

// testJobsDueWrites: the JobsDue callback moves each job on and queues a
// trigger, as the scheduler does, over a batch big enough to be read ahead;
// an error from the callback stops the walk and comes back.
func testJobsDueWrites(t *testing.T, s store.Store) {
	const n = 1000
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range n {
			if err := tx.JobPut(NewJob(fmt.Sprintf("D%04d", i), t0.Add(-time.Duration(n-i)*time.Second))); err != nil {
				return err
			}
		}
		return nil
	})
	boom := errors.New("boom")
	calls := 0
	err := s.Update(t.Context(), func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0, n, func(j *store.Job) error {
			if calls++; calls == n/2 {
				return boom
			}
			return nil
		})
	})
	if !errors.Is(err, boom) || calls != n/2 {
		t.Fatalf("JobsDue with a failing callback = %v after %d calls, want boom after %d", err, calls, n/2)
	}
	var order []string
	mustUpdate(t, s, func(tx store.Tx) error {
		return ops.RowsOf(tx).JobsDue(t0, n, func(j *store.Job) error {
			order = append(order, j.JobID)
			j.NextRunAt, j.RunCount = j.NextRunAt.Add(24*time.Hour), j.RunCount+1
			if err := tx.JobPut(j); err != nil {
				return err
			}
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindTrigger, OrchestratorID: "default", JobID: j.JobID})
		})
	})
	if len(order) != n || !slices.IsSorted(order) {
		t.Fatalf("JobsDue called back %d jobs (sorted: %v), want %d earliest first", len(order), slices.IsSorted(order), n)
	}
	mustView(t, s, func(tx store.Tx) error {
		if due, _ := jobsDue(tx, t0, n); len(due) != 0 {
			t.Errorf("%d jobs still due after the callback moved them on", len(due))
		}
		if c, _ := ops.RowsOf(tx).QueueCount(store.QueueIncoming); c != n {
			t.Errorf("%d triggers queued, want %d", c, n)
		}
		j, err := tx.JobGet("D0999")
		if err != nil || j.RunCount != 1 || !j.NextRunAt.Equal(t0.Add(-time.Second+24*time.Hour)) {
			t.Errorf("moved job = %+v, %v", j, err)
		}
		return nil
	})
}

// testAuditPaging: events appended by transactions of different sizes
// (a store may group them) list from any seq, in order, and by time.
func testAuditPaging(t *testing.T, s store.Store) {
	total := 0
	for i, n := range []int{2, 1500, 3} {
		mustUpdate(t, s, func(tx store.Tx) error {
			for range n {
				total++
				ev := &store.AuditEvent{At: t0.Add(time.Duration(total) * time.Second), OrchestratorID: "default",
					Action: store.AuditTriggerDispatched, JobID: fmt.Sprintf("J%d", i)}
				if err := tx.AuditAppend(ev); err != nil {
					return err
				}
			}
			return nil
		})
	}
	mustView(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).AuditVerify(); n != total || err != nil {
			t.Errorf("AuditVerify = %d, %v; want %d", n, err, total)
		}
		for _, after := range []uint64{0, 1, 2, 3, 500, 1025, 1026, 1027, 1501, 1502, 1503, 1504, 1505} {
			evs, err := tx.AuditList(&store.AuditListParams{AfterSeq: after, Limit: 10})
			if err != nil {
				return err
			}
			want := min(10, total-int(after))
			if len(evs) != want {
				t.Errorf("AuditList(after %d) = %d events, want %d", after, len(evs), want)
				continue
			}
			for i, ev := range evs {
				if ev.Seq != after+uint64(i)+1 || len(ev.Hash) != 64 || (ev.Seq > 1 && len(ev.PrevHash) != 64) {
					t.Errorf("AuditList(after %d)[%d] = seq %d hash %q prev %q", after, i, ev.Seq, ev.Hash, ev.PrevHash)
				}
			}
		}
		// By time: the last 20 seconds are the last 20 events.
		evs, err := tx.AuditList(&store.AuditListParams{Since: t0.Add(time.Duration(total-19) * time.Second)})
		if err != nil || len(evs) != 20 || evs[0].Seq != uint64(total-19) || evs[19].Seq != uint64(total) {
			t.Errorf("AuditList(since) = %d events (%v), want seqs %d..%d", len(evs), err, total-19, total)
		}
		if evs, _ := tx.AuditList(&store.AuditListParams{JobID: "J1"}); len(evs) != 1500 {
			t.Errorf("AuditList(job J1) = %d events, want 1500", len(evs))
		}
		return nil
	})
}

var errRollback = errors.New("roll back")

func testRequests(t *testing.T, s store.Store) {
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.RequestGet("k1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get a key never recorded = %v, want ErrNotFound", err)
		}
		return nil
	})
	reqs := []*store.Request{
		{Key: "k1", Digest: "d1", Function: "schedule.create", Result: json.RawMessage(`{"job":{"jobId":"J1","inputs":{}}}`), CreatedAt: t0},
		{Key: "k2", Digest: "d2", Function: "schedule.pause", Result: json.RawMessage(`{}`), CreatedAt: t0.Add(time.Hour)},
		{Key: "k3", Digest: "d3", Function: "message.post", Result: json.RawMessage(`[]`), CreatedAt: t0.Add(2 * time.Hour)},
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, r := range reqs {
			if err := tx.RequestPut(r); err != nil {
				return err
			}
		}
		return nil
	})
	// A key is recorded once; a failed transaction records nothing.
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.RequestPut(&store.Request{Key: "k1", Digest: "other", CreatedAt: t0}); !errors.Is(err, store.ErrExists) {
			t.Errorf("put k1 again = %v, want ErrExists", err)
		}
		if err := tx.RequestPut(&store.Request{Key: "k4", CreatedAt: t0}); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	mustView(t, s, func(tx store.Tx) error {
		for _, want := range reqs {
			got, err := tx.RequestGet(want.Key)
			if err != nil {
				return err
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("request %s (-put +got):\n%s", want.Key, d)
			}
		}
		if _, err := tx.RequestGet("k4"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("k4 of a rolled-back transaction: %v", err)
		}
		return nil
	})
	// Pruning removes the oldest first, at most limit, and only before t.
	mustUpdate(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).RequestPrune(t0.Add(90*time.Minute), 1); n != 1 || err != nil {
			t.Errorf("prune limit 1 = %d, %v", n, err)
		}
		if n, err := ops.RowsOf(tx).RequestPrune(t0.Add(90*time.Minute), 10); n != 1 || err != nil {
			t.Errorf("prune the rest before t0+90m = %d, %v", n, err)
		}
		return nil
	})
	mustView(t, s, func(tx store.Tx) error {
		for key, kept := range map[string]bool{"k1": false, "k2": false, "k3": true} {
			if _, err := tx.RequestGet(key); (err == nil) != kept {
				t.Errorf("after pruning, %s: %v (want kept %v)", key, err, kept)
			}
		}
		return nil
	})
}

// testConversations: a conversation is recorded under its key, replaced
// whole by the next put (its place in the pruning order with it), deleted,
// and pruned oldest first; a rolled-back put records nothing.
func testConversations(t *testing.T, s store.Store) {
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.ConversationGet("q|team|C1|1.1|U1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get a key never recorded = %v, want ErrNotFound", err)
		}
		return nil
	})
	convs := []*store.Conversation{
		{Key: "q|team|C1|1.1|U1", Pending: json.RawMessage(`{"text":"post hello every friday","missing":"time","expires":"2026-11-27T14:15:00Z"}`), UpdatedAt: t0},
		{Key: "it|team|C1|U1", JobID: "J1", UpdatedAt: t0.Add(time.Hour)},
		{Key: "it|team|C1|U2", JobID: "J2", UpdatedAt: t0.Add(2 * time.Hour)},
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, c := range convs {
			if err := tx.ConversationPut(c); err != nil {
				return err
			}
		}
		if err := tx.ConversationPut(&store.Conversation{UpdatedAt: t0}); err == nil {
			t.Error("put with an empty key succeeded")
		}
		return nil
	})
	requireConversations := func(want ...*store.Conversation) {
		t.Helper()
		mustView(t, s, func(tx store.Tx) error {
			for _, w := range want {
				got, err := tx.ConversationGet(w.Key)
				if err != nil {
					return err
				}
				if d := cmp.Diff(w, got); d != "" {
					t.Errorf("conversation %s (-want +got):\n%s", w.Key, d)
				}
			}
			return nil
		})
	}
	requireGone := func(keys ...string) {
		t.Helper()
		mustView(t, s, func(tx store.Tx) error {
			for _, k := range keys {
				if _, err := tx.ConversationGet(k); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("conversation %s = %v, want ErrNotFound", k, err)
				}
			}
			return nil
		})
	}
	requireConversations(convs...)
	// A failed transaction records nothing and replaces nothing.
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.ConversationPut(&store.Conversation{Key: "it|team|C1|U1", JobID: "JX", UpdatedAt: t0.Add(3 * time.Hour)}); err != nil {
			return err
		}
		if err := tx.ConversationPut(&store.Conversation{Key: "k4", UpdatedAt: t0}); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	requireConversations(convs...)
	requireGone("k4")
	// A put replaces the whole record: the question is answered, "it" set.
	// The replaced record is newer now, so pruning passes it over.
	answered := &store.Conversation{Key: "q|team|C1|1.1|U1", JobID: "J3", UpdatedAt: t0.Add(3 * time.Hour)}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.ConversationPut(answered) })
	requireConversations(answered, convs[1], convs[2])
	// Deleting forgets one, once; what is not there is ErrNotFound.
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.ConversationDelete("it|team|C1|U2"); err != nil {
			return err
		}
		for _, key := range []string{"it|team|C1|U2", "never", ""} {
			if err := tx.ConversationDelete(key); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("delete %q = %v, want ErrNotFound", key, err)
			}
		}
		return nil
	})
	requireGone("it|team|C1|U2")
	mustUpdate(t, s, func(tx store.Tx) error {
		return tx.ConversationPut(&store.Conversation{Key: "it|team|C2|U1", JobID: "J4", UpdatedAt: t0.Add(30 * time.Minute)})
	})
	// Pruning removes the oldest first, at most limit, and only before t;
	// neither the replaced nor the deleted record is counted again.
	mustUpdate(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).ConversationPrune(t0.Add(90*time.Minute), 1); n != 1 || err != nil {
			t.Errorf("prune limit 1 = %d, %v", n, err)
		}
		return nil
	})
	requireGone("it|team|C2|U1") // at t0+30m, the oldest left
	mustUpdate(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).ConversationPrune(t0.Add(150*time.Minute), 10); n != 1 || err != nil {
			t.Errorf("prune the rest before t0+150m = %d, %v", n, err)
		}
		return nil
	})
	requireGone("it|team|C1|U1")
	requireConversations(answered)
	mustUpdate(t, s, func(tx store.Tx) error {
		if n, err := ops.RowsOf(tx).ConversationPrune(t0.Add(24*time.Hour), 10); n != 1 || err != nil {
			t.Errorf("prune the replaced record = %d, %v", n, err)
		}
		return nil
	})
	requireGone("q|team|C1|1.1|U1")
}

func testTokens(t *testing.T, s store.Store) {
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.TokenGet("ab12"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get a token never recorded = %v, want ErrNotFound", err)
		}
		if got, err := tx.TokenList(); err != nil || len(got) != 0 {
			t.Errorf("list of no tokens = %v, %v", got, err)
		}
		return nil
	})
	toks := []*store.Token{
		{Hash: "ff01", ID: "T2", Name: "ci", ChannelProfileID: "team", SenderID: "U1", CreatedAt: t0,
			ExpiresAt: t0.Add(90 * 24 * time.Hour)},
		{Hash: "0a02", ID: "T1", Name: "calendar", ChannelProfileID: "team", SenderID: "U2", Feed: true, CreatedAt: t0},
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, tok := range toks {
			if err := tx.TokenPut(tok); err != nil {
				return err
			}
		}
		if err := tx.TokenPut(&store.Token{ID: "T3", CreatedAt: t0}); err == nil {
			t.Error("put a token without a hash succeeded")
		}
		return nil
	})
	used := *toks[0]
	used.LastUsedAt, used.RevokedAt = t0.Add(time.Hour), t0.Add(2*time.Hour)
	mustUpdate(t, s, func(tx store.Tx) error { return tx.TokenPut(&used) })
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.TokenGet("ff01")
		if err != nil {
			return err
		}
		if d := cmp.Diff(&used, got); d != "" {
			t.Errorf("token after a second put (-want +got):\n%s", d)
		}
		list, err := tx.TokenList()
		if err != nil {
			return err
		}
		if d := cmp.Diff([]*store.Token{toks[1], &used}, list); d != "" {
			t.Errorf("token list, by id (-want +got):\n%s", d)
		}
		return nil
	})
}
