package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schedbot/schedbot/store"
)

// runAuditExport writes the audit records older than --until as JSON
// lines and, with --prune, deletes them from the store in the same
// transaction, appending a checkpoint that names the last one, so that
// `audit verify` still passes on what is left.
func runAuditExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("audit export", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "the orchestrator whose log to export (default: the only one, or default)")
	until := fs.String("until", "", "export records before this instant: RFC 3339, a date (2026-01-31, UTC midnight), or an age (90d)")
	out := fs.String("out", "", "write to this file (created, never overwritten) rather than standard output")
	prune := fs.Bool("prune", false, "then delete the records exported, leaving a checkpoint (serve stopped, for a bolt store)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("audit export takes no arguments, got %q", pos[0])
	}
	if *until == "" {
		return usagef("--until is required: the records before it are exported")
	}
	end, err := parseUntil(*until, time.Now())
	if err != nil {
		return usagef("--until: %v", err)
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	o, err := cfg.DefaultOrchestrator()
	if *orchID != "" {
		o, err = cfg.Orchestrator(*orchID)
	}
	if err != nil {
		return err
	}
	if !storeExists(o) {
		return fmt.Errorf("orchestrator %s has no store yet: nothing to export", o.ID)
	}
	w := stdout
	var f *os.File
	if *out != "" {
		if f, err = os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer f.Close()
		w = f
	}
	st, err := openStore(o)
	if err != nil {
		return err
	}
	defer st.Close()
	var n, pruned int
	var through uint64
	run := st.View
	if *prune {
		run = st.Update
	}
	err = run(ctx, func(tx store.Tx) error {
		n, pruned, through = 0, 0, 0
		if _, err := tx.AuditVerify(); err != nil {
			return fmt.Errorf("the log does not verify, so it is not archived: %w", err)
		}
		evs, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		head, _, err := tx.AuditHead()
		if err != nil {
			return err
		}
		enc := json.NewEncoder(w)
		var last *store.AuditEvent
		for _, ev := range evs {
			// The records before until, in order; the head stays, for the
			// chain to go on from.
			if !ev.At.Before(end) || ev.Seq >= head {
				break
			}
			if err := enc.Encode(ev); err != nil {
				return fmt.Errorf("write the archive: %w", err)
			}
			last, n = ev, n+1
		}
		if f != nil {
			if err := f.Sync(); err != nil {
				return fmt.Errorf("write the archive: %w", err)
			}
		}
		if !*prune || last == nil {
			return nil
		}
		through = last.Seq
		if pruned, err = tx.AuditPrune(through); err != nil {
			return err
		}
		cp, _ := json.Marshal(store.AuditCheckpoint{Through: through, Hash: last.Hash})
		return tx.AuditAppend(&store.AuditEvent{OrchestratorID: o.ID, Actor: cliActor(""), Action: store.AuditPruned, After: cp,
			Detail: fmt.Sprintf("records %d to %d archived (audit export --until %s) and pruned; record %d's hash is %s",
				evs[0].Seq, through, end.Format(time.RFC3339), through, last.Hash)})
	})
	if err != nil {
		if f != nil {
			os.Remove(*out) // an archive of a transaction that did not commit
		}
		return err
	}
	switch {
	case *prune && pruned > 0:
		fmt.Fprintf(stderr, "%s: %d records exported; records up to %d pruned, a checkpoint appended\n", o.ID, n, through)
	default:
		fmt.Fprintf(stderr, "%s: %d records exported\n", o.ID, n)
	}
	return nil
}

// parseUntil reads an RFC 3339 instant, a date (midnight UTC) or an age
// before now ("90d", "48h").
func parseUntil(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return parseSince(s, now)
}
