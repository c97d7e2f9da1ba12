package bolt

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/store"
)

// Strings that need care: quotes, escapes, control characters, HTML, the
// JavaScript line separators, multi-byte runes and invalid UTF-8.
var nasty = []string{"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\x00\x1f", "<a href='x'>&amp;</a>",
	"\u2028\u2029", "héllo wörld 🎉", "bad \xff\xfe utf8", "\xc3", "emoji \U0001F600 and \u00e9"}

var zones = []*time.Location{time.UTC, time.FixedZone("X", 5*3600+30*60), time.FixedZone("Y", -7*3600), time.FixedZone("odd", 37)}

// fill sets every field of the struct v points to: zero half the time
// when zeros is true (the omit rules), random otherwise.
func fill(rng *rand.Rand, v reflect.Value, zeros bool) {
	for i := range v.NumField() {
		f := v.Field(i)
		if zeros && rng.IntN(2) == 0 {
			f.SetZero()
			continue
		}
		switch x := f.Addr().Interface().(type) {
		case *time.Time:
			t := time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)*int64(rng.IntN(2))).In(zones[rng.IntN(len(zones))])
			if rng.IntN(20) == 0 {
				t = time.Date(10000+rng.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC) // not RFC 3339
			}
			*x = t
		case *json.RawMessage:
			*x = []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"manual":true}`), json.RawMessage(`{ "a" : [1, 2] }`)}[rng.IntN(3)]
		case **store.Result:
			*x = &store.Result{}
			fill(rng, reflect.ValueOf(*x).Elem(), zeros)
		case *store.Actor:
			fill(rng, f, zeros)
		default:
			switch f.Kind() {
			case reflect.String:
				f.SetString(nasty[rng.IntN(len(nasty))])
			case reflect.Int, reflect.Int64:
				f.SetInt(rng.Int64N(1e12) - 5e11)
			case reflect.Uint64:
				f.SetUint(rng.Uint64())
			case reflect.Bool:
				f.SetBool(true)
			default:
				panic("fill: teach me " + f.Type().String())
			}
		}
	}
}

// TestAppendersMatchTheLibrary: for the records encode writes by hand, the
// bytes are json.Marshal's (or encode falls back to it), with every field
// set (a field added to a record and not to its appender fails here) and
// with random values and zeros.
func TestAppendersMatchTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []reflect.Type{reflect.TypeFor[store.Run](), reflect.TypeFor[store.QueueItem](),
		reflect.TypeFor[store.AuditEvent]()} {
		fast := 0
		for i := range 3000 {
			v := reflect.New(typ)
			fill(rng, v.Elem(), i > 0)
			got, err := encode(v.Interface())
			want, werr := jsonv2.Marshal(v.Interface(), encodeOpts)
			if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
				t.Fatalf("%s: encode =\n%s (%v)\njson.Marshal =\n%s (%v)", typ, got, err, want, werr)
			}
			if _, ok := map[reflect.Type]func() ([]byte, bool){
				reflect.TypeFor[store.Run]():        func() ([]byte, bool) { return appendRun(nil, v.Interface().(*store.Run)) },
				reflect.TypeFor[store.QueueItem]():  func() ([]byte, bool) { return appendItem(nil, v.Interface().(*store.QueueItem)) },
				reflect.TypeFor[store.AuditEvent](): func() ([]byte, bool) { return appendAudit(nil, v.Interface().(*store.AuditEvent)) },
			}[typ](); ok {
				fast++
			}
		}
		// The appenders must be the usual path, not the fallback.
		if fast < 600 {
			t.Errorf("%s: appended by hand %d of 3000 times", typ, fast)
		}
	}
}

// TestInvalidUTF8IsStoredReplaced: a string with invalid UTF-8 (a raw byte
// from a terminal, say) is stored with U+FFFD, not refused.
func TestInvalidUTF8IsStoredReplaced(t *testing.T) {
	for _, v := range []any{&store.Run{ExecutionID: "J@1", JobID: "J", Error: "bad \xff"}, &store.Job{JobID: "J", Description: "bad \xff"}} {
		b, err := encode(v)
		if err != nil || !bytes.Contains(b, []byte("bad \ufffd")) {
			t.Errorf("encode(%T) = %s, %v; want U+FFFD in place of the bad byte", v, b, err)
		}
	}
}

// TestStatusRoundTrips: every field of a status, at random and zero,
// comes back from its binary form (instants as instants, in UTC); a
// status stored as JSON still reads; a damaged one is ErrCorrupt, never
// a panic, wherever it is cut.
func TestStatusRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		var want jobStatus
		fill(rng, reflect.ValueOf(&want).Elem(), i > 0)
		if y := want.NextRunAt.Year(); y > 9999 { // JSON cannot hold it; binary can
			want.NextRunAt = want.NextRunAt.AddDate(-8000, 0, 0)
		}
		b, err := encode(&want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeStatus([]byte("J"), b)
		if err != nil {
			t.Fatalf("decode(encode(%+v)) = %v", want, err)
		}
		if d := cmp.Diff(&want, got); d != "" {
			t.Fatalf("status round trip (-want +got):\n%s", d)
		}
		for cut := range len(b) {
			if _, err := decodeStatus([]byte("J"), b[:cut]); !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("status cut at %d of %d = %v, want ErrCorrupt", cut, len(b), err)
			}
		}
	}
	old := []byte(`{"state":"paused","runCount":4,"lastResult":{"executionId":"J@1","status":"completed"},"updatedAt":"2026-11-27T14:00:00Z"}`)
	got, err := decodeStatus([]byte("J"), old)
	if err != nil || got.State != store.JobPaused || got.RunCount != 4 || got.LastResult.Status != "completed" {
		t.Errorf("JSON status = %+v, %v", got, err)
	}
}

// FuzzStoredRecords: whatever bytes a damaged file holds where a job
// status or an audit block should be, reading them returns an error or a
// value, never a panic; a status that decodes encodes back to the same
// bytes it was read from when those were binary.
func FuzzStoredRecords(f *testing.F) {
	st, _ := encode(&jobStatus{State: store.JobEnabled, NextRunAt: time.Unix(1e9, 5), RunCount: 3,
		LastResult: &store.Result{ExecutionID: "J@1", Status: "completed"}})
	f.Add(st)
	f.Add([]byte(`{"state":"paused"}`))
	f.Add(append(make([]byte, 32), 0, 0, 0, 2, '{', '}'))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := decodeStatus([]byte("J"), b); err == nil && len(b) > 0 && b[0] == statusV1 {
			again, _ := encode(s)
			if s2, err := decodeStatus([]byte("J"), again); err != nil || !reflect.DeepEqual(s, s2) {
				t.Errorf("status %x decodes to %+v, which does not round-trip (%v)", b, s, err)
			}
		}
		auditEntries(seqKey(1), b, func(seq uint64, hash, body []byte) error {
			if len(hash) != 32 {
				t.Errorf("entry %d has a %d-byte hash", seq, len(hash))
			}
			return nil
		})
	})
}
