package main

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// syncBuffer is a bytes.Buffer a logger and a test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(substr string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.b.String(), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// TestHousekeeper_PublishesTheAuditHead: serve logs each chain's head at
// start and every audit.publish_every, so that a copy kept outside the
// store can be checked with `audit verify --head`.
func TestHousekeeper_PublishesTheAuditHead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cfg, err := config.Parse([]byte("orchestrators: {default: {}}\naudit: {publish_every: 1h}\n"), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		h := &housekeeper{id: "default", st: st, cfg: cfg, log: slog.New(slog.NewTextHandler(&logs, nil))}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- h.Run(ctx) }()
		synctest.Wait()
		ev := &store.AuditEvent{Action: store.AuditJobCreated}
		st.Update(t.Context(), func(tx store.Tx) error { return tx.AuditAppend(ev) })
		time.Sleep(2*time.Hour + time.Second)
		synctest.Wait()
		cancel()
		<-done
		got := logs.lines("audit head")
		if len(got) != 3 || !strings.Contains(got[0], "seq=0") || !strings.Contains(got[2], "seq=1 hash="+ev.Hash) {
			t.Errorf("audit head lines = %q, want 3 (at start, 1h, 2h), the later ones naming record 1 and its hash", got)
		}
	})
}
