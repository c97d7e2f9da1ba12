package bolt

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/store"
)

// FuzzStoredRecords: whatever bytes a damaged file holds where a job, its
// status, a run, a queue item or an audit event should be, reading them
// returns an error or a record, never a panic; a job that reads, written
// back, reads as the same job (JSON it holds as bytes is compacted once).
func FuzzStoredRecords(f *testing.F) {
	f.Add([]byte(`{"jobId":"J","state":"enabled","targetAction":{"type":"command_invoke","functionArgs":{}},"createdAt":"2026-11-27T14:00:00Z"}`))
	f.Add([]byte(`{"state":"paused","runCount":4,"lastResult":{"executionId":"J@1","status":"completed"}}`))
	f.Add(append(make([]byte, 32), `{"seq":1,"at":"2026-11-27T14:00:00Z","actor":{"via":"cli"},"action":"job.created","prevHash":""}`...))
	f.Add([]byte{1, 7, 'e', 'n', 'a', 'b', 'l', 'e', 'd', 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if j, err := decode[store.Job]("job", []byte("J"), b); err == nil {
			again, err := encode(j)
			if err != nil {
				return // an instant JSON cannot hold (a year past 9999) is refused at the write
			}
			j2, err := decode[store.Job]("job", []byte("J"), again)
			if err != nil {
				t.Fatalf("job %s re-encoded as %s does not read: %v", b, again, err)
			}
			j3, err := decode[store.Job]("job", []byte("J"), must(encode(j2)))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(j2, j3); d != "" {
				t.Fatalf("job %s does not round-trip (-first +second):\n%s", again, d)
			}
		}
		decodeInto(b, &store.Job{})
		decode[store.Run]("run", []byte("R"), b)
		decode[store.QueueItem]("queue item", []byte("Q"), b)
		decodeAudit(seqKey(1), b)
		decodeStatusV2([]byte("J"), b)
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
