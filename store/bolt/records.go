package bolt

import (
	"fmt"
	"strconv"
	"time"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/schedbot/schedbot/store"
)

// Records are encoded with encoding/json/v2 (its mirror module until Go
// 1.27): it decodes them 2.7x faster than encoding/json. Invalid UTF-8 in a
// string becomes U+FFFD, as encoding/json did, instead of failing the write.
var (
	encodeOpts = json.JoinOptions(json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	decodeOpts = jsontext.AllowInvalidUTF8(true)
)

// encode returns the stored form of a record. A burst writes four records
// per job (status, run, trigger item, audit event), 40,000 for 10,000 jobs,
// and json.Marshal spends about 3 µs on each; for three the JSON is
// appended directly, a tenth of that (TestAppendersMatchTheLibrary holds it
// to json.Marshal's output, byte for byte, field by field), and the status
// is binary (status.go).
func encode(v any) ([]byte, error) {
	var b []byte
	ok := false
	switch r := v.(type) {
	case *store.Run:
		b, ok = appendRun(make([]byte, 0, 256), r)
	case *store.QueueItem:
		b, ok = appendItem(make([]byte, 0, 512), r)
	case *jobStatus:
		return appendStatusBinary(make([]byte, 0, 128), r), nil
	case *store.AuditEvent:
		b, ok = appendAudit(make([]byte, 0, 512), r)
	}
	if ok {
		return b, nil
	}
	return json.Marshal(v, encodeOpts)
}

// Encode returns the bytes the store writes for a *store.Run or a
// *store.QueueItem (an audit event's body is this too, before chaining):
// benchmarks use it to write the same records as the store, as fast.
func Encode(v any) ([]byte, error) { return encode(v) }

func decode[T any](what string, key, v []byte) (*T, error) {
	var x T
	if err := json.Unmarshal(v, &x, decodeOpts); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w: %v", what, key, store.ErrCorrupt, err)
	}
	return &x, nil
}

// rec appends one JSON object's members. ok turns false on anything it
// does not write exactly as json.Marshal would (the caller then uses it).
type rec struct {
	b  []byte
	ok bool
}

func (r *rec) name(n string) {
	if len(r.b) > 0 && r.b[len(r.b)-1] != '{' {
		r.b = append(r.b, ',')
	}
	r.b = append(r.b, '"')
	r.b = append(r.b, n...)
	r.b = append(r.b, '"', ':')
}

func (r *rec) str(n, s string) {
	r.name(n)
	r.b, _ = jsontext.AppendQuote(r.b, s) // invalid UTF-8 is replaced, as the library does with AllowInvalidUTF8
}

func (r *rec) strOmit(n, s string) {
	if s != "" {
		r.str(n, s)
	}
}

func (r *rec) int(n string, i int64) {
	r.name(n)
	r.b = strconv.AppendInt(r.b, i, 10)
}

func (r *rec) intOmit(n string, i int64) {
	if i != 0 {
		r.int(n, i)
	}
}

func (r *rec) time(n string, t time.Time) {
	// The library refuses what RFC 3339 cannot say; leave those to it.
	if y := t.Year(); y < 0 || y > 9999 {
		r.ok = false
		return
	}
	if _, off := t.Zone(); off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		r.ok = false
		return
	}
	r.name(n)
	r.b = append(r.b, '"')
	r.b = t.AppendFormat(r.b, time.RFC3339Nano)
	r.b = append(r.b, '"')
}

func (r *rec) timeOmit(n string, t time.Time) {
	if !t.IsZero() {
		r.time(n, t)
	}
}

// rawOmit writes a JSON value held as bytes with omitempty: the library
// omits empty ones ({} included, a trigger's payload); any other it
// validates and reformats, so it is left to the library.
func (r *rec) rawOmit(n string, v []byte) {
	switch string(v) {
	case "", "{}", "[]", `""`, "null":
	default:
		r.ok = false
	}
}

func appendRun(b []byte, x *store.Run) ([]byte, bool) {
	r := rec{append(b, '{'), true}
	r.str("executionId", x.ExecutionID)
	r.str("jobId", x.JobID)
	r.time("scheduledAt", x.ScheduledAt)
	r.timeOmit("dispatchedAt", x.DispatchedAt)
	r.timeOmit("startedAt", x.StartedAt)
	r.timeOmit("completedAt", x.CompletedAt)
	r.str("status", string(x.Status))
	r.strOmit("reason", x.Reason)
	r.strOmit("error", x.Error)
	if x.Manual {
		r.name("manual")
		r.b = append(r.b, "true"...)
	}
	r.intOmit("missed", int64(x.Missed))
	return append(r.b, '}'), r.ok
}

func appendItem(b []byte, x *store.QueueItem) ([]byte, bool) {
	r := rec{append(b, '{'), true}
	r.str("itemId", x.ItemID)
	r.str("queue", string(x.Queue))
	r.str("kind", x.Kind)
	r.str("orchestratorId", x.OrchestratorID)
	r.strOmit("channelProfileId", x.ChannelProfileID)
	r.strOmit("jobId", x.JobID)
	r.strOmit("executionId", x.ExecutionID)
	r.timeOmit("scheduledAt", x.ScheduledAt)
	r.timeOmit("triggerAt", x.TriggerAt)
	r.strOmit("inReplyTo", x.InReplyTo)
	r.rawOmit("payload", x.Payload)
	r.int("attempts", int64(x.Attempts))
	r.timeOmit("notBefore", x.NotBefore)
	r.strOmit("lastError", x.LastError)
	r.time("createdAt", x.CreatedAt)
	r.time("updatedAt", x.UpdatedAt)
	return append(r.b, '}'), r.ok
}

func appendAudit(b []byte, x *store.AuditEvent) ([]byte, bool) {
	r := rec{append(b, '{'), true}
	r.name("seq")
	r.b = strconv.AppendUint(r.b, x.Seq, 10)
	r.time("at", x.At)
	r.str("orchestratorId", x.OrchestratorID)
	r.name("actor")
	r.b = append(r.b, '{')
	r.strOmit("channelProfileId", x.Actor.ChannelProfileID)
	r.strOmit("senderId", x.Actor.SenderID)
	r.strOmit("sender", x.Actor.Sender)
	r.strOmit("messageId", x.Actor.MessageID)
	r.str("via", x.Actor.Via)
	r.b = append(r.b, '}')
	r.str("action", x.Action)
	r.strOmit("jobId", x.JobID)
	r.strOmit("executionId", x.ExecutionID)
	r.strOmit("detail", x.Detail)
	r.rawOmit("before", x.Before)
	r.rawOmit("after", x.After)
	r.str("prevHash", x.PrevHash)
	r.strOmit("hash", x.Hash)
	return append(r.b, '}'), r.ok
}
