package app

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// The read operations below run the same way in the CLI (opening each
// store for the moment) and in the daemon (on the stores it holds), so
// `schedbot audit` prints the same whichever path it took.

// Viewer reads one orchestrator's store: fn is not called for a store
// that was never created, which reads as empty.
type Viewer func(ctx context.Context, o *config.Orchestrator, fn func(store.Store) error) error

// ViewDirect opens the store for one read; one that was never created
// reads as empty rather than being created by a read.
func ViewDirect(ctx context.Context, o *config.Orchestrator, fn func(store.Store) error) error {
	if !StoreExists(o) {
		return nil
	}
	st, err := OpenStore(o)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

func SelectOrchestrators(cfg *config.Config, id string) ([]*config.Orchestrator, error) {
	if id != "" {
		o, err := cfg.Orchestrator(id)
		if err != nil {
			return nil, err
		}
		return []*config.Orchestrator{o}, nil
	}
	var out []*config.Orchestrator
	for _, id := range cfg.OrchestratorIDs() {
		out = append(out, cfg.Orchestrators[id])
	}
	return out, nil
}

// AuditQuery is what `schedbot audit` asks for.
type AuditQuery struct {
	Orchestrator string    `json:"orchestrator,omitempty"`
	JobID        string    `json:"job,omitempty"`
	Actor        string    `json:"actor,omitempty"`
	Since        time.Time `json:"since,omitzero"`
	Limit        int       `json:"limit,omitempty"`
	Head         string    `json:"head,omitempty"` // audit verify: a head hash published before
}

func AuditEvents(ctx context.Context, cfg *config.Config, view Viewer, q AuditQuery) ([]*store.AuditEvent, error) {
	orchs, err := SelectOrchestrators(cfg, q.Orchestrator)
	if err != nil {
		return nil, err
	}
	p := &store.AuditListParams{JobID: q.JobID, Actor: q.Actor, Since: q.Since}
	events := []*store.AuditEvent{}
	for _, o := range orchs {
		err := view(ctx, o, func(st store.Store) error {
			return st.View(ctx, func(tx store.Tx) error {
				evs, err := tx.AuditList(p)
				events = append(events, evs...)
				return err
			})
		})
		if err != nil {
			return nil, fmt.Errorf("orchestrator %s: %w", o.ID, err)
		}
	}
	if len(orchs) > 1 { // each log is in order already; interleave them by time
		sort.SliceStable(events, func(i, j int) bool { return events[i].At.Before(events[j].At) })
	}
	if q.Limit > 0 && len(events) > q.Limit {
		events = events[len(events)-q.Limit:]
	}
	return events, nil
}

// VerifyResult is one orchestrator's audit chain check.
type VerifyResult struct {
	Orchestrator string `json:"orchestrator"`
	Records      int    `json:"records"`
	BrokenAt     uint64 `json:"brokenAt,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Keyed        bool   `json:"keyed,omitempty"` // every record's MAC was checked
	HeadSeq      uint64 `json:"headSeq,omitempty"`
	HeadHash     string `json:"headHash,omitempty"`
	// HeadFound is the record a head given to check is, 0 when it is not
	// in the chain (HeadReason says why).
	HeadFound  uint64 `json:"headFound,omitempty"`
	HeadReason string `json:"headReason,omitempty"`
}

func VerifyAudit(ctx context.Context, cfg *config.Config, view Viewer, orchID, head string) ([]VerifyResult, error) {
	orchs, err := SelectOrchestrators(cfg, orchID)
	if err != nil {
		return nil, err
	}
	if head != "" && len(orchs) > 1 {
		return nil, Usagef("--head names one chain: say whose with --orchestrator")
	}
	key, err := cfg.Audit.AuditKey()
	if err != nil {
		return nil, err
	}
	var out []VerifyResult
	for _, o := range orchs {
		r := VerifyResult{Orchestrator: o.ID, Keyed: key != nil}
		var chainErr error
		err := view(ctx, o, func(st store.Store) error {
			r.Records, chainErr = st.AuditVerify(ctx)
			c, err := st.Count(ctx)
			if err != nil {
				return err
			}
			r.HeadSeq, r.HeadHash = c.AuditSeq, c.AuditHash
			if head == "" || chainErr != nil {
				return nil
			}
			return st.View(ctx, func(tx store.Tx) (err error) {
				r.HeadFound, r.HeadReason, err = findHead(tx, head)
				return err
			})
		})
		if err != nil {
			return nil, fmt.Errorf("orchestrator %s: %w", o.ID, err)
		}
		var ce *store.ChainError
		switch {
		case errors.As(chainErr, &ce):
			r.BrokenAt, r.Reason = ce.Seq, ce.Reason
		case chainErr != nil:
			return nil, fmt.Errorf("orchestrator %s: %w", o.ID, chainErr)
		}
		out = append(out, r)
	}
	return out, nil
}

// findHead looks for the record whose hash is head: a head published
// before must still be in the chain, else the chain was rewritten or
// truncated since, or the record was pruned (then the archive has it).
func findHead(tx store.Tx, head string) (uint64, string, error) {
	evs, err := tx.AuditList(nil)
	if err != nil {
		return 0, "", err
	}
	for _, ev := range evs {
		if strings.EqualFold(ev.Hash, head) {
			return ev.Seq, "", nil
		}
	}
	if len(evs) > 0 && evs[0].Seq > 1 {
		return 0, fmt.Sprintf("not in the chain; records before %d were pruned: look for it in the archive `audit export` wrote", evs[0].Seq), nil
	}
	return 0, "not in the chain: rewritten or truncated since it was published", nil
}

// QueueReport is what `schedbot queue` shows of one orchestrator.
type QueueReport struct {
	Orchestrator string                  `json:"orchestrator"`
	Counts       map[store.QueueName]int `json:"counts"`
	Items        []*store.QueueItem      `json:"items"`
}

// queueQueues are the queues listed by default: work not yet finished.
var queueQueues = []store.QueueName{store.QueueIncoming, store.QueueProcessing, store.QueueOutgoing, store.QueueDead}

func QueueItems(ctx context.Context, cfg *config.Config, view Viewer, orchID string, queue store.QueueName, limit int) ([]QueueReport, error) {
	orchs, err := SelectOrchestrators(cfg, orchID)
	if err != nil {
		return nil, err
	}
	queues := queueQueues
	if queue != "" {
		if !queue.Valid() {
			return nil, Usagef("--queue %q: not one of incoming, processing, outgoing, done, dead", queue)
		}
		queues = []store.QueueName{queue}
	}
	var out []QueueReport
	for _, o := range orchs {
		r := QueueReport{Orchestrator: o.ID, Counts: map[store.QueueName]int{}, Items: []*store.QueueItem{}}
		err := view(ctx, o, func(st store.Store) error {
			c, err := st.Count(ctx)
			if err != nil {
				return err
			}
			r.Counts = c.Queues
			return st.View(ctx, func(tx store.Tx) error {
				for _, q := range queues {
					items, err := tx.QueueList(&store.QueueListParams{Queue: q, Limit: limit})
					if err != nil {
						return err
					}
					r.Items = append(r.Items, items...)
				}
				return nil
			})
		})
		if err != nil {
			return nil, fmt.Errorf("orchestrator %s: %w", o.ID, err)
		}
		out = append(out, r)
	}
	return out, nil
}
