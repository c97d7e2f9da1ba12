package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/schedbot/schedbot/store"
)

// A job's status is rewritten every time the job fires, 10,000 of them in
// a burst, and no one reads it but this package; it is stored in a compact
// binary form, a third of its JSON (pages written and decoding time
// alike). The first byte is the format: statusV1, or '{' for JSON.
//
// statusV1: state, nextRunAt, nextRunAtLocal, lastRunAt, a flag byte (1 when
// lastResult is set) then its executionId, status and error, runCount,
// updatedAt. Strings are a uvarint length and bytes; instants are varint
// seconds and uvarint nanoseconds since 1970, in UTC (zero: the zero time).
const statusV1 = 1

func appendStatusBinary(b []byte, s *jobStatus) []byte {
	b = append(b, statusV1)
	b = appendString(b, string(s.State))
	b = appendTime(b, s.NextRunAt)
	b = appendString(b, s.NextRunAtLocal)
	b = appendTime(b, s.LastRunAt)
	if r := s.LastResult; r != nil {
		b = append(b, 1)
		b = appendString(b, r.ExecutionID)
		b = appendString(b, r.Status)
		b = appendString(b, r.Error)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, s.RunCount)
	return appendTime(b, s.UpdatedAt)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0) // a zero-length marker: no instant
	}
	var tmp [binary.MaxVarintLen64 + binary.MaxVarintLen32]byte
	n := binary.PutVarint(tmp[:], t.Unix())
	n += binary.PutUvarint(tmp[n:], uint64(t.Nanosecond()))
	b = append(b, byte(n))
	return append(b, tmp[:n]...)
}

var errShortStatus = errors.New("truncated")

// statusReader reads a statusV1 record; the first error sticks.
type statusReader struct {
	b   []byte
	err error
}

func (r *statusReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShortStatus
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *statusReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShortStatus
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *statusReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShortStatus
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *statusReader) string() string {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b)) < n {
		r.err = errShortStatus
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *statusReader) time() time.Time {
	n := int(r.byte())
	if r.err != nil || n == 0 {
		return time.Time{}
	}
	if len(r.b) < n {
		r.err = errShortStatus
		return time.Time{}
	}
	sub := statusReader{b: r.b[:n]}
	sec, nsec := sub.varint(), sub.uvarint()
	if sub.err != nil || len(sub.b) != 0 || nsec >= 1e9 {
		r.err = errors.New("bad instant")
		return time.Time{}
	}
	r.b = r.b[n:]
	return time.Unix(sec, int64(nsec)).UTC()
}

// decodeStatus reads a status record in either format.
func decodeStatus(id, v []byte) (*jobStatus, error) {
	if len(v) > 0 && v[0] == '{' {
		return decode[jobStatus]("job status", id, v)
	}
	if len(v) == 0 || v[0] != statusV1 {
		return nil, fmt.Errorf("decode job status %q: %w: unknown format", id, store.ErrCorrupt)
	}
	r := statusReader{b: v[1:]}
	s := &jobStatus{State: store.JobState(r.string()), NextRunAt: r.time(), NextRunAtLocal: r.string(), LastRunAt: r.time()}
	if r.byte() == 1 {
		s.LastResult = &store.Result{ExecutionID: r.string(), Status: r.string(), Error: r.string()}
	}
	s.RunCount, s.UpdatedAt = r.varint(), r.time()
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode job status %q: %w: %v", id, store.ErrCorrupt, r.err)
	}
	return s, nil
}
