package bolt

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"time"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/schedbot/schedbot/store"
)

// Every record is stored as the JSON of its store type (a job as two
// parts, tx.go): a field added to a record is stored and read back with
// no change here.
// encoding/json/v2 (its mirror module until the standard library has it)
// writes and reads them: it decodes a job in a third of encoding/json's
// time. Invalid UTF-8 in a string becomes U+FFFD, as encoding/json does,
// instead of failing the write. The four records a burst writes are
// written by hand to the same bytes (append.go).
var (
	encodeOpts = json.JoinOptions(json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	decodeOpts = jsontext.AllowInvalidUTF8(true)
)

// The hand-written encoders of append.go, each nil when it does not write
// every field of its record as json.Marshal does (handEncoder).
var (
	fastJobStatus  = handEncoder(appendJobStatus)
	fastRun        = handEncoder(appendRun)
	fastQueueItem  = handEncoder(appendQueueItem)
	fastAuditEvent = handEncoder(appendAuditEvent)
)

func encode(v any) ([]byte, error) {
	var b []byte
	ok := false
	switch r := v.(type) {
	case *store.JobStatus:
		b, ok = fastJobStatus.encode(r)
	case *store.Run:
		b, ok = fastRun.encode(r)
	case *store.QueueItem:
		b, ok = fastQueueItem.encode(r)
	case *store.AuditEvent:
		b, ok = fastAuditEvent.encode(r)
	}
	if ok {
		return b, nil
	}
	return json.Marshal(v, encodeOpts)
}

// Encode returns the bytes the store writes for a record (*store.Job,
// *store.Run, *store.QueueItem; an audit event's body is this too):
// benchmarks use it to write the same records as the store.
func Encode(v any) ([]byte, error) { return encode(v) }

// decode reads a stored record; what and key name it in the error.
func decode[T any](what string, key, v []byte) (*T, error) {
	var x T
	if err := json.Unmarshal(v, &x, decodeOpts); err != nil {
		return nil, &store.RecordError{Kind: what, ID: string(key), Err: err}
	}
	return &x, nil
}

// decodeInto decodes b onto what v points to: members b has set their
// fields, the others keep theirs.
func decodeInto(b []byte, v any) error { return json.Unmarshal(b, v, decodeOpts) }

// appender is a hand-written encoder of a T; nil is none.
type appender[T any] func(*T) ([]byte, bool)

func (f appender[T]) encode(v *T) ([]byte, bool) {
	if f == nil {
		return nil, false
	}
	return f(v)
}

// handEncoder is f when it writes json.Marshal's bytes for a T with no
// field set and for one with every field set; otherwise (a field added to
// T and not to f) nil, and T is left to json.Marshal.
func handEncoder[T any](f appender[T]) appender[T] {
	var zero, full T
	if !fillEvery(reflect.ValueOf(&full).Elem()) {
		return nil
	}
	for _, v := range []*T{&zero, &full} {
		want, err := json.Marshal(v, encodeOpts)
		got, ok := f(v)
		if err != nil || !ok || !bytes.Equal(got, want) {
			return nil
		}
	}
	return f
}

// fillEvery sets every field of v, at any depth, to a value that is not
// zero; false when v has a kind it has no value for (or an unexported
// field), which a hand-written encoder is then not trusted with.
func fillEvery(v reflect.Value) bool {
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 11, 27, 9, 30, 15, 123456789, time.UTC)))
		return true
	case reflect.TypeFor[stdjson.RawMessage]():
		v.SetBytes([]byte(`{"k":[1,"v"]}`))
		return true
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(`s "é" <\>`)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return fillEvery(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() || !fillEvery(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		return fillEvery(v.Index(0))
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return false
		}
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		k.SetString("k")
		if !fillEvery(e) {
			return false
		}
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	default:
		return false
	}
	return true
}
