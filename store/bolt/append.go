package bolt

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/schedbot/schedbot/store"
)

// The records a burst writes ten thousand of (a job's status, a run, a
// queue item, an audit event) are encoded by hand: the same bytes as
// json.Marshal with encodeOpts, member for member in field order, in a
// fifth of its time. Each appendX reports false where it leaves the
// common path (an instant past year 9999, an empty non-nil raw JSON
// value); encode then lets json.Marshal write the record, or refuse it.
//
// A field added to one of these types needs nothing here: handEncoder
// finds at start that the appendX no longer writes every field and
// leaves the type to json.Marshal. Writing it in appendX too makes the
// type fast again (TestAppendMatchesMarshal then checks it, and
// BenchmarkBurst10k shows the difference).

// jsonWriter appends members of one JSON object.
type jsonWriter struct {
	b  []byte
	ok bool
}

func (w *jsonWriter) name(n string) {
	if w.b[len(w.b)-1] != '{' {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, n...)
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) str(n, s string) {
	w.name(n)
	// Invalid UTF-8 becomes U+FFFD, as jsontext.AllowInvalidUTF8 has it.
	w.b, _ = jsontext.AppendQuote(w.b, s)
}

func (w *jsonWriter) strOmitEmpty(n, s string) {
	if s != "" {
		w.str(n, s)
	}
}

func (w *jsonWriter) int(n string, i int64) {
	w.name(n)
	w.b = strconv.AppendInt(w.b, i, 10)
}

func (w *jsonWriter) intOmitZero(n string, i int64) {
	if i != 0 {
		w.int(n, i)
	}
}

// time writes t as RFC 3339 with nanoseconds, as JSON v2 does; an instant
// RFC 3339 cannot hold leaves the common path.
func (w *jsonWriter) time(n string, t time.Time) {
	w.name(n)
	w.b = append(w.b, '"')
	if y := t.Year(); t.Location() == time.UTC && 0 <= y && y <= 9999 {
		w.b = appendUTC(w.b, t)
		w.b = append(w.b, '"')
		return
	}
	start := len(w.b)
	w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	f := w.b[start:]
	if f[4] != '-' { // a year of other than four digits
		w.ok = false
	} else if z := f[len(f)-6:]; f[len(f)-1] != 'Z' && ('0' <= z[0] && z[0] <= '9' || 10*(z[1]-'0')+(z[2]-'0') >= 24) {
		w.ok = false // an offset of seconds, or of a day or more
	}
	w.b = append(w.b, '"')
}

// appendUTC appends t, in UTC and a year of four digits, as
// t.AppendFormat(b, time.RFC3339Nano) does, in a fifth of its time.
func appendUTC(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, min, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	if ns := t.Nanosecond(); ns != 0 {
		b = append(b, '.')
		n := 9
		for ns%10 == 0 { // trailing zeros are left out
			ns /= 10
			n--
		}
		b = appendDigits(b, ns, n)
	}
	return append(b, 'Z')
}

// appendDigits appends v, at most n digits, padded with zeros to n.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, "000000000"[:n]...)
	for i := len(b) - 1; n > 0; i, n = i-1, n-1 {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

func (w *jsonWriter) timeOmitZero(n string, t time.Time) {
	if !t.IsZero() {
		w.time(n, t)
	}
}

// raw writes a raw JSON value as JSON v2 writes the json.RawMessage a
// MarshalJSON method returns: compacted, invalid UTF-8 replaced.
func (w *jsonWriter) rawOmitZero(n string, v json.RawMessage) {
	if v == nil {
		return
	}
	w.name(n)
	if string(v) == "{}" {
		w.b = append(w.b, "{}"...)
		return
	}
	b, err := jsontext.AppendFormat(w.b, v, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		w.ok = false
		return
	}
	w.b = b
}

func (w *jsonWriter) actor(n string, a *store.Actor) {
	w.name(n)
	w.b = append(w.b, '{')
	w.strOmitEmpty("channelProfileId", a.ChannelProfileID)
	w.strOmitEmpty("senderId", a.SenderID)
	w.strOmitEmpty("sender", a.Sender)
	w.strOmitEmpty("messageId", a.MessageID)
	w.strOmitEmpty("channelId", a.ChannelID)
	w.str("via", a.Via)
	w.strOmitEmpty("token", a.Token)
	w.b = append(w.b, '}')
}

// writers holds the buffers records are written in, so that each record
// costs one allocation of its own size.
var writers = sync.Pool{New: func() any { return &jsonWriter{b: make([]byte, 0, 1024)} }}

func newWriter() *jsonWriter {
	w := writers.Get().(*jsonWriter)
	w.b, w.ok = append(w.b[:0], '{'), true
	return w
}

// end returns a copy of the record written, and puts w back.
func (w *jsonWriter) end() ([]byte, bool) {
	w.b = append(w.b, '}')
	b, ok := bytes.Clone(w.b), w.ok
	if cap(w.b) <= 64<<10 {
		writers.Put(w)
	}
	return b, ok
}

func appendJobStatus(s *store.JobStatus) ([]byte, bool) {
	w := newWriter()
	w.str("state", string(s.State))
	w.timeOmitZero("nextRunAt", s.NextRunAt)
	w.strOmitEmpty("nextRunAtLocal", s.NextRunAtLocal)
	w.timeOmitZero("lastRunAt", s.LastRunAt)
	if r := s.LastResult; r != nil {
		w.name("lastResult")
		w.b = append(w.b, '{')
		w.str("executionId", r.ExecutionID)
		w.str("status", r.Status)
		w.strOmitEmpty("error", r.Error)
		w.b = append(w.b, '}')
	}
	w.int("runCount", s.RunCount)
	w.time("updatedAt", s.UpdatedAt)
	w.intOmitZero("remaining", s.Remaining)
	w.timeOmitZero("snoozeAt", s.SnoozeAt)
	return w.end()
}

func appendRun(r *store.Run) ([]byte, bool) {
	w := newWriter()
	w.str("executionId", r.ExecutionID)
	w.str("jobId", r.JobID)
	w.time("scheduledAt", r.ScheduledAt)
	w.timeOmitZero("dispatchedAt", r.DispatchedAt)
	w.timeOmitZero("startedAt", r.StartedAt)
	w.timeOmitZero("completedAt", r.CompletedAt)
	w.str("status", string(r.Status))
	w.strOmitEmpty("reason", r.Reason)
	w.strOmitEmpty("error", r.Error)
	if r.Manual {
		w.name("manual")
		w.b = append(w.b, "true"...)
	}
	w.intOmitZero("missed", int64(r.Missed))
	if r.DoneBy != nil {
		w.actor("doneBy", r.DoneBy)
	}
	w.timeOmitZero("doneAt", r.DoneAt)
	return w.end()
}

func appendQueueItem(it *store.QueueItem) ([]byte, bool) {
	w := newWriter()
	w.str("itemId", it.ItemID)
	w.str("queue", string(it.Queue))
	w.str("kind", it.Kind)
	w.str("orchestratorId", it.OrchestratorID)
	w.strOmitEmpty("channelProfileId", it.ChannelProfileID)
	w.strOmitEmpty("jobId", it.JobID)
	w.strOmitEmpty("executionId", it.ExecutionID)
	w.timeOmitZero("scheduledAt", it.ScheduledAt)
	w.timeOmitZero("triggerAt", it.TriggerAt)
	w.strOmitEmpty("inReplyTo", it.InReplyTo)
	w.rawOmitZero("payload", it.Payload)
	w.int("attempts", int64(it.Attempts))
	w.timeOmitZero("notBefore", it.NotBefore)
	w.strOmitEmpty("lastError", it.LastError)
	w.time("createdAt", it.CreatedAt)
	w.time("updatedAt", it.UpdatedAt)
	w.timeOmitZero("firstAttemptAt", it.FirstAttemptAt)
	return w.end()
}

func appendAuditEvent(ev *store.AuditEvent) ([]byte, bool) {
	w := newWriter()
	w.name("seq")
	w.b = strconv.AppendUint(w.b, ev.Seq, 10)
	w.time("at", ev.At)
	w.str("orchestratorId", ev.OrchestratorID)
	w.actor("actor", &ev.Actor)
	w.str("action", ev.Action)
	w.strOmitEmpty("jobId", ev.JobID)
	w.strOmitEmpty("executionId", ev.ExecutionID)
	w.strOmitEmpty("detail", ev.Detail)
	w.rawOmitZero("before", ev.Before)
	w.rawOmitZero("after", ev.After)
	w.str("prevHash", ev.PrevHash)
	w.strOmitEmpty("hash", ev.Hash)
	w.strOmitEmpty("mac", ev.MAC)
	return w.end()
}
