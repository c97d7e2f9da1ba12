package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/schedbot/schedbot/store"
)

type outcome struct {
	item *store.QueueItem
	err  error
	ch   string
}

// deliverOutgoing sends one batch of due outgoing items and records every
// outcome in one transaction: done, retry later (backoff), or dead.
func (w *Worker) deliverOutgoing(ctx context.Context) (int, error) {
	var items []*store.QueueItem
	t := now()
	err := w.opt.Store.View(ctx, func(tx store.Tx) error {
		after := ""
		for len(items) < w.opt.Batch {
			page, err := tx.QueueList(&store.QueueListParams{Queue: store.QueueOutgoing, Limit: w.opt.Batch, After: after})
			if err != nil || len(page) == 0 {
				return err
			}
			for _, it := range page {
				if !it.NotBefore.After(t) && len(items) < w.opt.Batch {
					items = append(items, it)
				}
			}
			after = page[len(page)-1].ItemID
		}
		return nil
	})
	if err != nil || len(items) == 0 {
		return 0, err
	}
	outs := make([]outcome, 0, len(items))
	for _, it := range items {
		d, err := w.resolve(it)
		ch := d.Target.Channel
		if err == nil {
			if dl := w.opt.Deliverers[ch]; dl == nil {
				err = Permanent(fmt.Errorf("no deliverer for channel %q in this daemon", ch))
			} else {
				err = deliverSafely(ctx, dl, d)
			}
		}
		outs = append(outs, outcome{item: it, err: err, ch: ch})
	}
	var dead []outcome
	err = w.opt.Store.Update(ctx, func(tx store.Tx) error {
		dead = dead[:0]
		for _, o := range outs {
			it := o.item
			it.Attempts++
			it.UpdatedAt = now()
			var ra *RetryAfterError
			switch {
			case errors.As(o.err, &ra):
				// A rate limit is the channel's pace, not a failure.
				it.Attempts--
				it.NotBefore = now().Add(max(ra.After, 10*time.Millisecond))
			case o.err == nil:
				it.Queue, it.LastError = store.QueueDone, ""
			case isPermanent(o.err) || it.Attempts >= w.opt.MaxAttempts:
				it.Queue, it.LastError = store.QueueDead, o.err.Error()
				dead = append(dead, o)
				if err := w.recordDead(tx, it, o.err); err != nil {
					return err
				}
			default:
				it.LastError = o.err.Error()
				it.NotBefore = now().Add(w.backoff(it.Attempts))
			}
			if err := tx.QueuePut(it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return len(items), err
	}
	for _, o := range outs {
		var ra *RetryAfterError
		if o.err == nil || errors.As(o.err, &ra) {
			continue
		}
		isDead := o.item.Queue == store.QueueDead
		lvl := slog.LevelWarn
		if isDead {
			lvl = slog.LevelError
		}
		w.log.Log(ctx, lvl, "delivery failed", slog.String("itemId", o.item.ItemID), slog.String("channel", o.ch),
			slog.Int("attempt", o.item.Attempts), slog.Bool("deadLettered", isDead), slog.String("error", o.err.Error()))
		if w.opt.DeliveryFailedFunc != nil {
			w.opt.DeliveryFailedFunc(o.ch, isDead)
		}
	}
	return len(items), nil
}

func deliverSafely(ctx context.Context, d Deliverer, del *Delivery) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("deliverer panicked: %v", r)
		}
	}()
	return d.Deliver(ctx, del)
}

func isPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

func (w *Worker) backoff(attempt int) time.Duration {
	d := w.opt.Backoff << min(attempt-1, 20)
	return min(d, w.opt.MaxBackoff)
}

// recordDead audits a dead-lettered delivery and notes it on the run that
// produced it, so `schedule.show` says why nothing arrived.
func (w *Worker) recordDead(tx store.Tx, it *store.QueueItem, cause error) error {
	detail := fmt.Sprintf("item %s after %d attempt(s): %v", it.ItemID, it.Attempts, cause)
	if it.ExecutionID != "" {
		if r, err := tx.RunGet(it.ExecutionID); err == nil {
			r.Error = truncate("delivery failed: "+cause.Error(), 500)
			if err := tx.RunPut(r); err != nil {
				return err
			}
		}
	}
	return tx.AuditAppend(&store.AuditEvent{OrchestratorID: w.opt.OrchestratorID, Actor: workerActor,
		Action: store.AuditDeliveryFailed, JobID: it.JobID, ExecutionID: it.ExecutionID, Detail: truncate(detail, 500)})
}

// resolve reads an outgoing item's text and decides where it goes: its own
// target, else the channel profile it came from, else the default.
func (w *Worker) resolve(it *store.QueueItem) (*Delivery, error) {
	var p ReplyPayload
	d := &Delivery{ItemID: it.ItemID, OrchestratorID: it.OrchestratorID, JobID: it.JobID, ExecutionID: it.ExecutionID, Attempt: it.Attempts + 1}
	if err := json.Unmarshal(it.Payload, &p); err != nil {
		d.Target = w.opt.DefaultTarget
		return d, Permanent(fmt.Errorf("payload is not a message: %v", err))
	}
	d.Text, d.ReplyJobID, d.Actions, d.NextRuns, d.ListJobs = p.Text, p.JobID, p.Actions, p.NextRuns, p.ListJobs
	switch {
	case p.TargetRef != nil:
		d.Target = *p.TargetRef
		if d.Target.ChannelProfileID == "" {
			d.Target.ChannelProfileID = it.ChannelProfileID
		}
	case it.ChannelProfileID != "" && w.opt.ProfileChannels[it.ChannelProfileID] != "":
		d.Target = store.TargetRef{Channel: w.opt.ProfileChannels[it.ChannelProfileID], ChannelProfileID: it.ChannelProfileID}
	default:
		d.Target = w.opt.DefaultTarget
	}
	return d, nil
}
