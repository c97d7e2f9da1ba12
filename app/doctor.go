package app

import (
	"context"
	"fmt"

	"github.com/schedbot/schedbot/store"
)

// Doctor lists the records of the store open returns that cannot be read
// and, with repair, fixes or removes them (store.Doctor), auditing each
// repair.
func Doctor(ctx context.Context, orchID string, open func() (store.Store, error), repair bool) ([]store.Problem, error) {
	st, err := open()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	d, ok := st.(store.Doctor)
	if !ok {
		return nil, fmt.Errorf("this store cannot be checked")
	}
	problems, err := d.Check(ctx, repair)
	if err != nil || !repair || len(problems) == 0 {
		return problems, err
	}
	err = st.Update(ctx, func(tx store.Tx) error {
		for _, p := range problems {
			ev := &store.AuditEvent{OrchestratorID: orchID, Actor: CLIActor(""), Action: store.AuditStoreRepaired,
				Detail: fmt.Sprintf("%s %q: %s: %s", p.Kind, p.ID, p.Error, p.Repair)}
			if p.Kind == "job" {
				ev.JobID = p.ID
			}
			if err := tx.AuditAppend(ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return problems, fmt.Errorf("repaired, but the audit of it failed: %w", err)
	}
	return problems, nil
}
