package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// housekeeper does one orchestrator's periodic chores in serve: it
// publishes the audit chain's head to the log (for an external copy to be
// compared with `audit verify --head`).
type housekeeper struct {
	id  string
	st  store.Store
	cfg *config.Config
	log *slog.Logger
}

// Run publishes the head at once and then every audit.publish_every,
// until ctx is done.
func (h *housekeeper) Run(ctx context.Context) error {
	publish := time.NewTicker(time.Duration(h.cfg.Audit.PublishEvery))
	defer publish.Stop()
	for {
		h.publishHead(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-publish.C:
		}
	}
}

func (h *housekeeper) publishHead(ctx context.Context) {
	var seq uint64
	var hash string
	err := h.st.View(ctx, func(tx store.Tx) (err error) {
		seq, hash, err = tx.AuditHead()
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			h.log.Error("read the audit head", slog.Any("error", err))
		}
		return
	}
	h.log.Info("audit head", slog.Uint64("seq", seq), slog.String("hash", hash))
}
