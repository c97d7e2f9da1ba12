package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// Strings that need care: quotes, escapes, control characters, HTML, the
// JavaScript line separators and multi-byte runes (invalid UTF-8 is not
// kept as written: testInvalidUTF8).
var nasty = []string{"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\x00\x1f", "<a href='x'>&amp;</a>",
	"\u2028\u2029", "héllo wörld 🎉", "emoji \U0001F600 and \u00e9"}

// rawValues are JSON values held as bytes, compact as a store keeps them;
// nil means none.
var rawValues = []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`[]`), json.RawMessage(`{"manual":true}`),
	json.RawMessage(`{"text":"hi","n":[1,2.5,{}]}`), json.RawMessage(`"s"`), json.RawMessage(`0`)}

// randomJSON returns a value as encoding/json decodes one into an any,
// empty maps and slices included.
func randomJSON(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(8); {
	case k == 0 || depth > 2 && k < 4:
		return nasty[rng.IntN(len(nasty))]
	case k == 1:
		return float64(rng.IntN(2000)-1000) / 8
	case k == 2:
		return rng.IntN(2) == 0
	case k == 3:
		return nil
	case k < 6:
		m := map[string]any{}
		for range rng.IntN(3) {
			m[nasty[rng.IntN(len(nasty))]] = randomJSON(rng, depth+1)
		}
		return m
	default:
		s := []any{}
		for range rng.IntN(3) {
			s = append(s, randomJSON(rng, depth+1))
		}
		return s
	}
}

// fill sets every field of the struct v points to at random, zero about
// a third of the time; a field of a type it does not know fails the test,
// so that a field added to a record is covered here or noticed.
func fill(t *testing.T, rng *rand.Rand, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		if rng.IntN(3) == 0 {
			f.SetZero()
			continue
		}
		switch x := f.Addr().Interface().(type) {
		case *time.Time:
			*x = time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)*int64(rng.IntN(2))).UTC()
		case *json.RawMessage:
			*x = rawValues[rng.IntN(len(rawValues))]
		case *[]time.Time:
			*x = nil // none a third of the time
			for range rng.IntN(4) {
				*x = append(*x, time.Unix(rng.Int64N(4e9), 0).UTC())
			}
		case *map[string]any:
			*x = map[string]any{} // empty a third of the time
			for range rng.IntN(4) {
				(*x)[nasty[rng.IntN(len(nasty))]] = randomJSON(rng, 0)
			}
		default:
			switch f.Kind() {
			case reflect.String:
				f.SetString(nasty[rng.IntN(len(nasty))])
			case reflect.Int, reflect.Int64:
				f.SetInt(rng.Int64N(1e12) - 5e11)
			case reflect.Uint64:
				f.SetUint(rng.Uint64N(1 << 62))
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Struct:
				fill(t, rng, f)
			case reflect.Pointer:
				f.Set(reflect.New(f.Type().Elem()))
				fill(t, rng, f.Elem())
			default:
				t.Fatalf("fill: a %s field; teach this test about it", f.Type())
			}
		}
	}
}

// testRecordsRoundTrip: random records of every kind, every field set or
// zero, empty maps and JSON values ({} and []) included, come back as they
// were put (instants as the same instants); so do jobs given a random
// status with JobStatusPut.
func testRecordsRoundTrip(t *testing.T, s store.Store) {
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 200
	type pair[T any] struct{ put, got *T }
	var jobs []pair[store.Job]
	var runs []pair[store.Run]
	var items []pair[store.QueueItem]
	var events []pair[store.AuditEvent]
	var requests []pair[store.Request]
	var convs []pair[store.Conversation]
	for i := range n {
		j := &store.Job{}
		fill(t, rng, reflect.ValueOf(j).Elem())
		j.JobID = fmt.Sprintf("J%03d", i)
		if j.Name != "" {
			j.Name = fmt.Sprintf("%s %d", j.Name, i) // unique
		}
		j.State = store.JobStates[rng.IntN(len(store.JobStates))]
		if j.State == store.JobEnabled && j.NextRunAt.IsZero() {
			j.NextRunAt = t0
		}
		jobs = append(jobs, pair[store.Job]{put: j})

		r := &store.Run{}
		fill(t, rng, reflect.ValueOf(r).Elem())
		r.JobID, r.ExecutionID = j.JobID, store.ExecutionID(j.JobID, t0.Add(time.Duration(i)*time.Minute))
		runs = append(runs, pair[store.Run]{put: r})

		it := &store.QueueItem{}
		fill(t, rng, reflect.ValueOf(it).Elem())
		it.ItemID, it.Queue = fmt.Sprintf("item-%03d", i), store.QueueNames[rng.IntN(len(store.QueueNames))]
		it.CreatedAt, it.UpdatedAt = t0.Add(time.Duration(i)*time.Second), t0.Add(time.Duration(i)*time.Minute)
		items = append(items, pair[store.QueueItem]{put: it})

		ev := &store.AuditEvent{}
		fill(t, rng, reflect.ValueOf(ev).Elem())
		ev.At = t0.Add(time.Duration(i) * time.Second)
		events = append(events, pair[store.AuditEvent]{put: ev})

		req := &store.Request{}
		fill(t, rng, reflect.ValueOf(req).Elem())
		req.Key = fmt.Sprintf("request-%03d", i)
		requests = append(requests, pair[store.Request]{put: req})

		cv := &store.Conversation{}
		fill(t, rng, reflect.ValueOf(cv).Elem())
		cv.Key = fmt.Sprintf("conversation-%03d", i)
		convs = append(convs, pair[store.Conversation]{put: cv})
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range n {
			for _, err := range []error{tx.JobPut(jobs[i].put), tx.RunPut(runs[i].put), tx.QueueAdd(items[i].put),
				tx.AuditAppend(events[i].put), tx.RequestPut(requests[i].put), tx.ConversationPut(convs[i].put)} {
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	mustView(t, s, func(tx store.Tx) error {
		evs, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		if len(evs) != n {
			return fmt.Errorf("AuditList = %d events, want %d", len(evs), n)
		}
		for i := range n {
			var errs [5]error
			jobs[i].got, errs[0] = tx.JobGet(jobs[i].put.JobID)
			runs[i].got, errs[1] = tx.RunGet(runs[i].put.ExecutionID)
			items[i].got, errs[2] = tx.QueueGet(items[i].put.ItemID)
			requests[i].got, errs[3] = tx.RequestGet(requests[i].put.Key)
			convs[i].got, errs[4] = tx.ConversationGet(convs[i].put.Key)
			events[i].got = evs[i]
			if err := errors.Join(errs[:]...); err != nil {
				return err
			}
		}
		return nil
	})
	for i := range n {
		for _, d := range []string{cmp.Diff(jobs[i].put, jobs[i].got), cmp.Diff(runs[i].put, runs[i].got),
			cmp.Diff(items[i].put, items[i].got), cmp.Diff(events[i].put, events[i].got), cmp.Diff(requests[i].put, requests[i].got),
			cmp.Diff(convs[i].put, convs[i].got)} {
			if d != "" {
				t.Fatalf("record %d after a round trip (-put +got):\n%s", i, d)
			}
		}
	}
	// JobStatusPut of a random job onto each: it comes back as stored,
	// with the status (Job.SetStatus) of the random one and nothing else.
	want := make([]store.Job, n)
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range n {
			st := &store.Job{}
			fill(t, rng, reflect.ValueOf(st).Elem())
			st.JobID, st.State = jobs[i].put.JobID, store.JobStates[rng.IntN(len(store.JobStates))]
			if st.State == store.JobEnabled && st.NextRunAt.IsZero() {
				st.NextRunAt = t0
			}
			want[i] = *jobs[i].put
			want[i].SetStatus(st)
			if err := ops.RowsOf(tx).JobStatusPut(st); err != nil {
				return err
			}
		}
		return nil
	})
	mustView(t, s, func(tx store.Tx) error {
		for i := range n {
			got, err := tx.JobGet(want[i].JobID)
			if err != nil {
				return err
			}
			if d := cmp.Diff(&want[i], got); d != "" {
				t.Fatalf("job %d after JobStatusPut (-want +got):\n%s", i, d)
			}
		}
		return nil
	})
}

// testInvalidUTF8: a string with invalid UTF-8 (a raw byte from a
// terminal, say) is stored with U+FFFD in its place, not refused.
func testInvalidUTF8(t *testing.T, s store.Store) {
	j := NewJob("UTF8", t0)
	j.Description = "bad \xff byte"
	mustPut(t, s, j)
	mustView(t, s, func(tx store.Tx) error {
		got, err := tx.JobGet("UTF8")
		if err != nil {
			return err
		}
		if got.Description != "bad \uFFFD byte" {
			t.Errorf("description = %q, want U+FFFD for the bad byte", got.Description)
		}
		return nil
	})
}

// testJobsDueSeesEarlierWrites: a job changed in the transaction before
// JobsDue, or by the callback for an earlier job, is handed out as
// changed, and one the callback paused is not handed out at all, in a
// batch big enough for a store to read ahead.
func testJobsDueSeesEarlierWrites(t *testing.T, s store.Store) {
	const n = 1000
	var jobs []*store.Job
	for i := range n {
		jobs = append(jobs, NewJob(fmt.Sprintf("D%04d", i), t0.Add(-time.Duration(n-i)*time.Second)))
	}
	mustPut(t, s, jobs...)
	var got []*store.Job
	mustUpdate(t, s, func(tx store.Tx) error {
		early, err := tx.JobGet("D0500")
		if err != nil {
			return err
		}
		early.Description = "changed before JobsDue"
		if err := tx.JobPut(early); err != nil {
			return err
		}
		return ops.RowsOf(tx).JobsDue(t0, n, func(j *store.Job) error {
			got = append(got, j)
			if j.JobID != "D0000" {
				return nil
			}
			for _, id := range []string{"D0001", "D0900"} {
				later, err := tx.JobGet(id)
				if err != nil {
					return err
				}
				later.Description = "changed while D0000 fired"
				if err := tx.JobPut(later); err != nil {
					return err
				}
			}
			paused, err := tx.JobGet("D0950")
			if err != nil {
				return err
			}
			paused.State, paused.NextRunAt = store.JobPaused, time.Time{}
			return tx.JobPut(paused)
		})
	})
	if len(got) != n-1 || slices.ContainsFunc(got, func(j *store.Job) bool { return j.JobID == "D0950" }) {
		t.Fatalf("JobsDue handed out %d jobs (D0950 among them: %v), want %d without the one paused meanwhile",
			len(got), slices.ContainsFunc(got, func(j *store.Job) bool { return j.JobID == "D0950" }), n-1)
	}
	for _, j := range got {
		if (j.JobID == "D0001" || j.JobID == "D0900") && j.Description != "changed while D0000 fired" ||
			j.JobID == "D0500" && j.Description != "changed before JobsDue" {
			t.Errorf("%s handed out as %q, not as the transaction had it", j.JobID, j.Description)
		}
	}
}

// testPanicGoesToTheCaller: a panic in the caller's function is the
// caller's: it comes out of Update and View as it was, the transaction is
// rolled back, and the store goes on working.
func testPanicGoesToTheCaller(t *testing.T, s store.Store) {
	type boom struct{ msg string }
	for _, write := range []bool{true, false} {
		got := func() (r any) {
			defer func() { r = recover() }()
			fn := func(tx store.Tx) error {
				if write {
					if err := tx.JobPut(NewJob("PANIC", t0)); err != nil {
						return err
					}
				}
				panic(boom{"caller's own"})
			}
			var err error
			if write {
				err = s.Update(t.Context(), fn)
			} else {
				err = s.View(t.Context(), fn)
			}
			t.Errorf("a panicking function returned %v", err)
			return nil
		}()
		if got != (boom{"caller's own"}) {
			t.Errorf("recovered %v (write %v), want the caller's panic value", got, write)
		}
	}
	mustPut(t, s, NewJob("AFTER", t0))
	mustView(t, s, func(tx store.Tx) error {
		if _, err := tx.JobGet("PANIC"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the panicking transaction's job = %v, want rolled back", err)
		}
		_, err := tx.JobGet("AFTER")
		return err
	})
}

// testQueuePrune: done items last updated before the cutoff go, wherever
// their ids sort; newer ones and other queues stay.
func testQueuePrune(t *testing.T, s store.Store) {
	cutoff := t0
	mustUpdate(t, s, func(tx store.Tx) error {
		add := func(id string, q store.QueueName, updated time.Time) error {
			return tx.QueueAdd(&store.QueueItem{ItemID: id, Queue: q, Kind: store.KindMessage, OrchestratorID: "default",
				CreatedAt: updated, UpdatedAt: updated})
		}
		for i := range 20 { // recent, sorting first
			if err := add(fmt.Sprintf("a-new-%02d", i), store.QueueDone, cutoff.Add(time.Minute)); err != nil {
				return err
			}
		}
		for i := range 5 { // old, sorting last: not ULIDs
			if err := add(fmt.Sprintf("z-old-%02d", i), store.QueueDone, cutoff.Add(-time.Hour)); err != nil {
				return err
			}
		}
		return add("m-old-incoming", store.QueueIncoming, cutoff.Add(-time.Hour))
	})
	var pruned []int
	for range 3 {
		mustUpdate(t, s, func(tx store.Tx) error {
			n, err := ops.RowsOf(tx).QueuePrune(cutoff, 3)
			pruned = append(pruned, n)
			return err
		})
	}
	if d := cmp.Diff([]int{3, 2, 0}, pruned); d != "" {
		t.Errorf("QueuePrune(limit 3) three times (-want +got):\n%s", d)
	}
	mustView(t, s, func(tx store.Tx) error {
		if n, _ := ops.RowsOf(tx).QueueCount(store.QueueDone); n != 20 {
			t.Errorf("done after pruning = %d, want the 20 recent ones", n)
		}
		if n, _ := ops.RowsOf(tx).QueueCount(store.QueueIncoming); n != 1 {
			t.Errorf("incoming after pruning = %d, want 1 (only done is pruned)", n)
		}
		return nil
	})
}
