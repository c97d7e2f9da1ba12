package postgres_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/internal/ops"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// TestAuditRewriteIsCaughtOnlyWithTheKey: on PostgreSQL as on bolt,
// editing a record and re-hashing it, the records after it and the head
// passes AuditVerify without an audit key and fails it with one.
func TestAuditRewriteIsCaughtOnlyWithTheKey(t *testing.T) {
	dsn := pgtest.DSN(t)
	key := []byte("0123456789abcdef0123456789abcdef")
	for _, keyed := range []bool{false, true} {
		orch := "plain"
		var opts *postgres.Options
		if keyed {
			orch, opts = "keyed", &postgres.Options{AuditKey: key}
		}
		s, err := postgres.Open(t.Context(), dsn, orch, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		mustUpdate(t, s, func(tx store.Tx) error {
			for _, job := range []string{"A", "B", "C"} {
				if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: orch, Action: store.AuditJobCreated, JobID: job}); err != nil {
					return err
				}
			}
			return nil
		})
		// Rewrite record 2 (its detail) and re-chain 2 and 3 and the head,
		// keeping whatever MAC each body carries.
		conn := mustConnect(t, dsn)
		rows, err := conn.Query(t.Context(), `SELECT seq, body FROM schedbot_audit WHERE orchestrator_id = $1 ORDER BY seq`, orch)
		if err != nil {
			t.Fatal(err)
		}
		var bodies [][]byte
		for rows.Next() {
			var seq int64
			var body []byte
			if err := rows.Scan(&seq, &body); err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, body)
		}
		rows.Close()
		var prev []byte
		for i, body := range bodies {
			if i == 1 {
				body = []byte(strings.Replace(string(body), `"jobId":"B"`, `"jobId":"B","detail":"nothing happened"`, 1))
			}
			if i > 0 {
				// prevHash names the previous record's new hash.
				old := string(body)
				j := strings.Index(old, `"prevHash":"`) + len(`"prevHash":"`)
				body = []byte(old[:j] + hex.EncodeToString(prev) + old[j+64:])
			}
			hash := store.AuditHash(prev, body)
			if _, err := conn.Exec(t.Context(), `UPDATE schedbot_audit SET body = $3, hash = $4 WHERE orchestrator_id = $1 AND seq = $2`, orch, i+1, body, hash); err != nil {
				t.Fatal(err)
			}
			prev = hash
		}
		if _, err := conn.Exec(t.Context(), `UPDATE schedbot_audit_head SET hash = $2 WHERE orchestrator_id = $1`, orch, prev); err != nil {
			t.Fatal(err)
		}
		var n int
		var verr error
		mustView(t, s, func(tx store.Tx) error { n, verr = ops.RowsOf(tx).AuditVerify(); return nil })
		var ce *store.ChainError
		switch {
		case !keyed && (verr != nil || n != 3):
			t.Errorf("AuditVerify without a key after the rewrite = %d, %v; want it to pass", n, verr)
		case keyed && (!errors.As(verr, &ce) || ce.Seq != 2 || !strings.Contains(ce.Reason, "MAC does not match")):
			t.Errorf("AuditVerify with the key after the rewrite = %d, %v; want record 2's MAC refused", n, verr)
		}
	}
}
