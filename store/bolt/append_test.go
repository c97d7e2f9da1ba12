package bolt

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	json2 "github.com/go-json-experiment/json"

	"github.com/schedbot/schedbot/store"
)

// appendTypes are the records encode writes by hand (append.go), and
// whether it does today (handEncoder).
var appendTypes = []struct {
	typ reflect.Type
	on  bool
}{
	{reflect.TypeFor[store.JobStatus](), fastJobStatus != nil},
	{reflect.TypeFor[store.Run](), fastRun != nil},
	{reflect.TypeFor[store.QueueItem](), fastQueueItem != nil},
	{reflect.TypeFor[store.AuditEvent](), fastAuditEvent != nil},
}

// eachAppended runs fn for each record encode writes by hand, and skips
// one whose encoder handEncoder turned off.
func eachAppended(t *testing.T, fn func(t *testing.T, typ reflect.Type)) {
	for _, a := range appendTypes {
		t.Run(a.typ.Name(), func(t *testing.T) {
			if !a.on {
				t.Skipf("store.%s has a field append.go does not write, so json.Marshal encodes it (slower): write the field there", a.typ.Name())
			}
			fn(t, a.typ)
		})
	}
}

// TestAppendMatchesMarshal: for records with every field set at random
// (strings with escapes and invalid UTF-8, instants in any zone or out of
// RFC 3339's range, raw JSON with spaces, duplicates or none), encode
// writes json.Marshal's bytes, or fails where it fails.
func TestAppendMatchesMarshal(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	eachAppended(t, func(t *testing.T, typ reflect.Type) {
		for range 3000 {
			v := reflect.New(typ)
			fill(t, rnd, v.Elem())
			sameAsMarshal(t, v.Interface())
		}
	})
}

// TestAppendCoversEveryField sets one field at a time, so that each
// exported field of each hand-encoded type is shown to be written, and
// written as json.Marshal writes it.
func TestAppendCoversEveryField(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	eachAppended(t, func(t *testing.T, typ reflect.Type) {
		zero, err := encode(reflect.New(typ).Interface())
		if err != nil {
			t.Fatal(err)
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			// A non-zero value Marshal accepts (not an instant past 9999).
			v := reflect.New(typ)
			for v.Elem().Field(i).IsZero() || !marshals(v.Interface()) {
				fill(t, rnd, v.Elem().Field(i))
			}
			if got := sameAsMarshal(t, v.Interface()); bytes.Equal(got, zero) {
				t.Errorf("%s.%s set: encoded as the zero record %s", typ.Name(), f.Name, got)
			}
		}
	})
}

// A hand-written encoder that leaves out a field (one added to its record
// later) is not used: the record goes to json.Marshal.
func TestHandEncoderOffWhenItMissesAField(t *testing.T) {
	type rec struct {
		A string            `json:"a"`
		B string            `json:"b,omitempty"`
		C map[string]string `json:"c,omitempty"`
	}
	writes := func(fields ...string) appender[rec] {
		return func(r *rec) ([]byte, bool) {
			w := newWriter()
			for _, f := range fields {
				switch f {
				case "a":
					w.str("a", r.A)
				case "b":
					w.strOmitEmpty("b", r.B)
				case "c":
					if len(r.C) > 0 {
						w.name("c")
						b, _ := json2.Marshal(r.C, encodeOpts)
						w.b = append(w.b, b...)
					}
				}
			}
			return w.end()
		}
	}
	if handEncoder(writes("a", "b")) != nil {
		t.Error("an encoder that leaves out an omitempty map is used")
	}
	if handEncoder(writes("a", "c")) != nil {
		t.Error("an encoder that leaves out an omitempty string is used")
	}
	if handEncoder(writes("a", "b", "c")) == nil {
		t.Error("an encoder that writes every field is not used")
	}
}

func marshals(v any) bool {
	_, err := json2.Marshal(v, encodeOpts)
	return err == nil
}

// sameAsMarshal checks encode(v) against json.Marshal and returns its bytes.
func sameAsMarshal(t *testing.T, v any) []byte {
	t.Helper()
	want, werr := json2.Marshal(v, encodeOpts)
	got, gerr := encode(v)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%T %+v: json.Marshal says %v, encode %v", v, v, werr, gerr)
	}
	if werr == nil && !bytes.Equal(got, want) {
		t.Fatalf("%T encoded as\n%s\njson.Marshal writes\n%s", v, got, want)
	}
	return got
}

var (
	fillStrings = []string{"", "a", "job.created", "01K00000000000000000000042@20261127T140000Z", "héllo wörld ✓",
		"quote \" back \\ slash", "ctl \x00\x01\n\r\t\b\f\x1f\x7f", "html <a>&amp;</a>", "js \u2028\u2029",
		"bad \xff\xfe utf-8 \xc3", "\xed\xa0\x80 surrogate", "emoji 😀"}
	fillRaw = []string{"{}", "[]", `{"text":"hello world"}`, ` { "a" : [1, 2.50, -3e2, true, null] } `, "null",
		`"esc\u0041\/\n"`, `{"a":1,"a":2}`, `{`, "", `"bad ` + "\xff" + `"`, `{"k":"v"} trailing`, `123`}
	fillZones = []*time.Location{time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("IST", 5*3600+1800),
		time.FixedZone("", -8*3600), time.FixedZone("", 3661), time.FixedZone("", 25*3600), time.FixedZone("", -59)}
)

// fill sets v to a random value; a kind it has no values for fails the
// test, so that a field of a new kind is not passed over.
func fill(t *testing.T, rnd *rand.Rand, v reflect.Value) {
	t.Helper()
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		if rnd.IntN(4) == 0 {
			v.Set(reflect.ValueOf(time.Time{}))
			return
		}
		sec := rnd.Int64N(4e9) // 1970–2096
		switch k := rnd.IntN(10); {
		case k == 0:
			sec = -62135596800 - rnd.Int64N(1e9) // before year 1
		case k == 1:
			sec = 253402300800 + rnd.Int64N(1e9) // past 9999
		}
		ns := int64(0)
		if rnd.IntN(2) == 0 {
			ns = rnd.Int64N(1e9)
		}
		v.Set(reflect.ValueOf(time.Unix(sec, ns).In(fillZones[rnd.IntN(len(fillZones))])))
		return
	case reflect.TypeFor[json.RawMessage]():
		switch {
		case rnd.IntN(3) == 0:
			v.SetZero()
		default:
			v.SetBytes([]byte(fillRaw[rnd.IntN(len(fillRaw))]))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		s := fillStrings[rnd.IntN(len(fillStrings))]
		if rnd.IntN(4) == 0 {
			b := make([]byte, rnd.IntN(40))
			for i := range b {
				b[i] = byte(rnd.UintN(256))
			}
			s = string(b)
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(rnd.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		switch rnd.IntN(3) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(rnd.Int64N(100) - 50)
		default:
			v.SetInt(int64(rnd.Uint64()))
		}
	case reflect.Uint64:
		v.SetUint(rnd.Uint64() >> rnd.UintN(64))
	case reflect.Pointer:
		if rnd.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, rnd, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("fill: %s has an unexported field %s", v.Type(), v.Type().Field(i).Name)
			}
			fill(t, rnd, v.Field(i))
		}
	case reflect.Map:
		if rnd.IntN(2) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.ValueOf(map[string]any{"text": "hi", "n": 2.5, "list": []any{true, nil}}))
	case reflect.Slice:
		if rnd.IntN(3) == 0 {
			v.SetZero()
			return
		}
		n := 1 + rnd.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range s.Len() {
			fill(t, rnd, s.Index(i))
		}
		v.Set(s)
	default:
		t.Fatalf("fill: no random values of %s: teach fill and append.go this field", v.Type())
	}
}
