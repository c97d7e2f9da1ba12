package bolt

import (
	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/schedbot/schedbot/store"
)

// Every record is stored as the JSON of its store type (a job as two
// parts, tx.go): a field added to a record is stored and read back with
// no change here.
// encoding/json/v2 (its mirror module until the standard library has it)
// writes and reads them: it decodes a job in a third of encoding/json's
// time, most of reading a burst. Invalid UTF-8 in a string becomes U+FFFD,
// as encoding/json does, instead of failing the write.
var (
	encodeOpts = json.JoinOptions(json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	decodeOpts = jsontext.AllowInvalidUTF8(true)
)

func encode(v any) ([]byte, error) { return json.Marshal(v, encodeOpts) }

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
