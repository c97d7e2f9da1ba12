package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
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
	if !app.StoreExists(o) {
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
	evs, sealed, err := archiveAudit(ctx, o, w, f, end)
	if err != nil {
		if f != nil {
			os.Remove(*out) // an archive of a log that did not verify
		}
		return err
	}
	n, pruned := len(evs), 0
	var through uint64
	if *prune && n > 0 {
		last := evs[n-1]
		through = last.Seq
		st, err := app.OpenStore(o)
		if err != nil {
			return err
		}
		defer st.Close()
		err = st.Update(ctx, func(tx store.Tx) error {
			// What was archived is what is pruned: the last record's hash
			// chains all before it.
			got, err := tx.AuditList(&store.AuditListParams{AfterSeq: through - 1, Limit: 1})
			if err != nil {
				return err
			}
			if len(got) != 1 || got[0].Hash != last.Hash {
				return fmt.Errorf("record %d changed since it was archived; nothing pruned", through)
			}
			if pruned, err = tx.AuditPrune(through); err != nil {
				return err
			}
			cp, _ := json.Marshal(store.AuditCheckpoint{Through: through, Hash: last.Hash})
			return tx.AuditAppend(&store.AuditEvent{OrchestratorID: o.ID, Actor: app.CLIActor(""), Action: store.AuditPruned, After: cp,
				Detail: fmt.Sprintf("records %d to %d archived (audit export --until %s) and pruned; record %d's hash is %s",
					evs[0].Seq, through, end.Format(time.RFC3339), through, last.Hash)})
		})
		if err != nil {
			return fmt.Errorf("prune: %w (the archive is written)", err)
		}
	}
	if !sealed {
		fmt.Fprintf(stderr, "%s: records were written without the audit key; the archive holds the first of them on, checked by their hashes alone\n", o.ID)
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

// archiveAudit writes the records before end as JSON lines to w (syncing
// f when it is a file), once the log verifies, and returns them. A log
// with records written before the audit key was set does not verify with
// it; it is then checked without it (sealed is false; true with no key), so that those
// records can be archived and pruned, leaving a log sealed throughout.
func archiveAudit(ctx context.Context, o *config.Orchestrator, w io.Writer, f *os.File, end time.Time) (evs []*store.AuditEvent, sealed bool, err error) {
	open := func(keyed bool) (store.Store, error) {
		if keyed {
			return app.OpenStore(o)
		}
		bare := *o
		bare.Audit = nil
		return app.OpenStore(&bare)
	}
	key, err := o.Audit.AuditKey()
	if err != nil {
		return nil, false, err
	}
	sealed = key != nil
	for {
		st, err := open(sealed)
		if err != nil {
			return nil, false, err
		}
		evs, err = exportFrom(ctx, st, w, end)
		st.Close()
		var ce *store.ChainError
		if sealed && errors.As(err, &ce) && strings.HasPrefix(ce.Reason, "carries no MAC") {
			sealed = false
			continue
		}
		if err == nil && f != nil {
			err = f.Sync()
		}
		return evs, sealed || key == nil, err
	}
}

func exportFrom(ctx context.Context, st store.Store, w io.Writer, end time.Time) (out []*store.AuditEvent, err error) {
	err = st.View(ctx, func(tx store.Tx) error {
		if _, err := tx.AuditVerify(); err != nil {
			return fmt.Errorf("the log does not verify, so it is not archived: %w", err)
		}
		evs, err := tx.AuditList(nil)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if !ev.At.Before(end) {
				break
			}
			out = append(out, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	enc := json.NewEncoder(w)
	for _, ev := range out {
		if err := enc.Encode(ev); err != nil {
			return nil, fmt.Errorf("write the archive: %w", err)
		}
	}
	return out, nil
}
