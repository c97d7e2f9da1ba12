package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/internal/ops"
)

// BenchmarkAuditVerify1M checks a hash chain of one million events.
func BenchmarkAuditVerify1M(b *testing.B) {
	st, err := bolt.Open(filepath.Join(b.TempDir(), "audit.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const total, batch = 1_000_000, 50_000
	for range total / batch {
		err := st.Update(b.Context(), func(tx store.Tx) error {
			for i := range batch {
				ev := &store.AuditEvent{At: t0, OrchestratorID: "default", Action: store.AuditTriggerDispatched,
					JobID: "01K00000000000000000000000", ExecutionID: "01K00000000000000000000000@20261127T140000Z",
					Actor: store.Actor{Via: store.ViaScheduler}, Detail: "window " + string(rune('a'+i%26))}
				if err := tx.AuditAppend(ev); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		err := st.View(b.Context(), func(tx store.Tx) error {
			n, err := ops.RowsOf(tx).AuditVerify()
			if n != total {
				b.Fatalf("verified %d", n)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
