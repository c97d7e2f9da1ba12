package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// Driver is the store driver o's config names.
func Driver(o *config.Orchestrator) string {
	if IsPostgres(o) {
		return config.DriverPostgres
	}
	return config.DriverBolt
}

// SameStore reports whether two orchestrator configs name one store.
func SameStore(a, b *config.Orchestrator) (bool, error) {
	if IsPostgres(a) != IsPostgres(b) {
		return false, nil
	}
	if !IsPostgres(a) {
		pa, _ := filepath.Abs(StorePath(a))
		pb, _ := filepath.Abs(StorePath(b))
		return pa == pb, nil
	}
	da, err := a.Store.DSN()
	if err != nil {
		return false, err
	}
	db, err := b.Store.DSN()
	if err != nil {
		return false, err
	}
	return da == db && a.ID == b.ID, nil
}

// CopyCounts are the records CopyOrchestrator copied.
type CopyCounts struct{ Jobs, Runs, Items, Events int }

// CopyOrchestrator opens both stores, keeps serve off both (a bolt file
// is locked by Open; a database by the loops lock) and copies.
func CopyOrchestrator(ctx context.Context, from, to *config.Orchestrator) (CopyCounts, error) {
	if !StoreExists(from) {
		return CopyCounts{}, fmt.Errorf("no store to copy at %s", StorePath(from))
	}
	src, err := OpenStore(from)
	if err != nil {
		return CopyCounts{}, fmt.Errorf("open source: %w", err)
	}
	defer src.Close()
	dst, err := OpenStore(to)
	if err != nil {
		return CopyCounts{}, fmt.Errorf("open target: %w", err)
	}
	defer dst.Close()
	for _, st := range []store.Store{src, dst} {
		if err := RefuseServed(ctx, st, from.ID); err != nil {
			return CopyCounts{}, fmt.Errorf("stop schedbot serve first: %w", err)
		}
	}
	return copyStore(ctx, src, dst)
}

// copyStore copies jobs, their runs, the queue and the audit log from src
// into the empty dst, in one transaction on each: a failure writes
// nothing. The source chain is verified before, the target's once the
// copy commits (a target that does not verify is said, and was empty
// before: it can be removed); the target re-chains the events (the same records, in the same order, under
// the same seqs), so its hashes are its own.
func copyStore(ctx context.Context, src, dst store.Store) (n CopyCounts, err error) {
	var jobs []*store.Job
	var runs []*store.Run
	var items []*store.QueueItem
	var events []*store.AuditEvent
	if _, err := src.AuditVerify(ctx); err != nil {
		return n, fmt.Errorf("read source: source audit log: %w", err)
	}
	err = src.View(ctx, func(tx store.Tx) error {
		cursor := ""
		for {
			page, err := tx.JobList(&store.JobListParams{States: store.JobStates, Limit: store.MaxListLimit, Cursor: cursor})
			if err != nil {
				return err
			}
			jobs = append(jobs, page.Jobs...)
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		for _, j := range jobs {
			rs, err := tx.RunList(j.JobID, 1<<30)
			if err != nil {
				return err
			}
			runs = append(runs, rs...)
		}
		for _, q := range store.QueueNames {
			after := ""
			for {
				page, err := tx.QueueList(&store.QueueListParams{Queue: q, Limit: store.MaxListLimit, After: after})
				if err != nil {
					return err
				}
				if len(page) == 0 {
					break
				}
				items = append(items, page...)
				after = page[len(page)-1].ItemID
			}
		}
		var seq uint64
		for {
			page, err := tx.AuditList(&store.AuditListParams{AfterSeq: seq, Limit: 1000})
			if err != nil {
				return err
			}
			if len(page) == 0 {
				return nil
			}
			events = append(events, page...)
			seq = page[len(page)-1].Seq
		}
	})
	if err != nil {
		return n, fmt.Errorf("read source: %w", err)
	}
	err = dst.Update(ctx, func(tx store.Tx) error {
		if err := requireEmpty(tx); err != nil {
			return err
		}
		for _, j := range jobs {
			if err := tx.JobPut(j); err != nil {
				return err
			}
		}
		for _, r := range runs {
			if err := tx.RunPut(r); err != nil {
				return err
			}
		}
		for _, it := range items {
			if it.Queue == store.QueueProcessing {
				// Its worker is gone: it runs again, at least once.
				it.Queue = store.QueueIncoming
			}
			if err := tx.QueueAdd(it); err != nil {
				return err
			}
		}
		// The target is empty and the source's chain verified: its events
		// take seqs 1..n again, in order (checked below with the chain).
		for _, ev := range events {
			ev.PrevHash, ev.Hash = "", ""
			if err := tx.AuditAppend(ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("write target: %w", err)
	}
	if got, err := dst.AuditVerify(ctx); err != nil {
		return n, fmt.Errorf("write target: target audit log: %w", err)
	} else if got != len(events) {
		return n, fmt.Errorf("write target: target audit log holds %d events, %d were copied", got, len(events))
	}
	return CopyCounts{Jobs: len(jobs), Runs: len(runs), Items: len(items), Events: len(events)}, nil
}

var errNotEmpty = errors.New("the target store is not empty; copy into an empty one")

func requireEmpty(tx store.Tx) error {
	if n, err := tx.JobCount(); err != nil {
		return err
	} else if n > 0 {
		return fmt.Errorf("%w (it holds %d jobs)", errNotEmpty, n)
	}
	for _, q := range store.QueueNames {
		if items, err := tx.QueueList(&store.QueueListParams{Queue: q, Limit: 1}); err != nil {
			return err
		} else if len(items) > 0 {
			return fmt.Errorf("%w (it holds %s queue items)", errNotEmpty, q)
		}
	}
	if evs, err := tx.AuditList(&store.AuditListParams{Limit: 1}); err != nil {
		return err
	} else if len(evs) > 0 {
		return fmt.Errorf("%w (it holds audit events)", errNotEmpty)
	}
	return nil
}
