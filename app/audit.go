package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// ArchiveAudit writes the records before end as JSON lines to w (syncing
// f when it is a file), once the log verifies, and returns them. A log
// with records written before the audit key was set does not verify with
// it; it is then checked without it (sealed is false; true with no key), so that those
// records can be archived and pruned, leaving a log sealed throughout.
func ArchiveAudit(ctx context.Context, o *config.Orchestrator, w io.Writer, f *os.File, end time.Time) (evs []*store.AuditEvent, sealed bool, err error) {
	open := func(keyed bool) (store.Store, error) {
		if keyed {
			return OpenStore(o)
		}
		bare := *o
		bare.Audit = nil
		return OpenStore(&bare)
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
	if _, err := st.AuditVerify(ctx); err != nil {
		return nil, fmt.Errorf("the log does not verify, so it is not archived: %w", err)
	}
	err = st.View(ctx, func(tx store.Tx) error {
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

// PruneAudit deletes from st the records ArchiveAudit returned (evs, those
// before end), once it has checked that the last is unchanged, and appends
// a checkpoint naming it, so that the chain left still verifies; it
// returns how many records it deleted.
func PruneAudit(ctx context.Context, st store.Store, orchID string, evs []*store.AuditEvent, end time.Time) (int, error) {
	last := evs[len(evs)-1]
	through := last.Seq
	pruned := 0
	err := st.View(ctx, func(tx store.Tx) error {
		// What was archived is what is pruned: the last record's hash
		// chains all before it, and records never change.
		got, err := tx.AuditList(&store.AuditListParams{AfterSeq: through - 1, Limit: 1})
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0].Hash != last.Hash {
			return fmt.Errorf("record %d changed since it was archived; nothing pruned", through)
		}
		return nil
	})
	if err == nil {
		cp, _ := json.Marshal(store.AuditCheckpoint{Through: through, Hash: last.Hash})
		pruned, err = st.Prune(ctx, &store.PruneParams{What: store.PruneAudit, Through: through, Checkpoint: &store.AuditEvent{
			OrchestratorID: orchID, Actor: CLIActor(""), Action: store.AuditPruned, After: cp,
			Detail: fmt.Sprintf("records %d to %d archived (audit export --until %s) and pruned; record %d's hash is %s",
				evs[0].Seq, through, end.Format(time.RFC3339), through, last.Hash)}})
	}
	return pruned, err
}
