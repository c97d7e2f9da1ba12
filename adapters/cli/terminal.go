// Package cli is the terminal channel: it delivers outgoing messages by
// printing them, optionally recording each in a delivery log so that a
// message is never printed twice for one item, even across a crash.
package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schedbot/schedbot/orchestrator"
)

// Terminal prints deliveries to a writer (serve's standard output).
type Terminal struct {
	mu   sync.Mutex
	out  io.Writer
	log  *os.File
	sent map[string]bool
}

// LogEntry is one line of the delivery log.
type LogEntry struct {
	ItemID      string    `json:"itemId"`
	ExecutionID string    `json:"executionId,omitempty"`
	JobID       string    `json:"jobId,omitempty"`
	Text        string    `json:"text"`
	At          time.Time `json:"at"`
}

// NewTerminal returns a deliverer printing to out. With a logPath, every
// delivery is appended (and fsync'd) there first, and items already in the
// log are not delivered again.
func NewTerminal(out io.Writer, logPath string) (*Terminal, error) {
	t := &Terminal{out: out, sent: map[string]bool{}}
	if logPath == "" {
		return t, nil
	}
	entries, err := ReadLog(logPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		t.sent[e.ItemID] = true
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open delivery log: %w", err)
	}
	// A crash mid-line leaves a partial last line; start on a fresh one.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			f.Write([]byte("\n"))
		}
	}
	t.log = f
	return t, nil
}

// ReadLog reads a delivery log, skipping a damaged (partial) line.
func ReadLog(path string) ([]LogEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []LogEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e LogEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.ItemID != "" {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// Deliver prints d once.
func (t *Terminal) Deliver(_ context.Context, d *orchestrator.Delivery) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sent[d.ItemID] {
		return nil // printed before a crash kept the item from being marked done
	}
	if t.log != nil {
		b, err := json.Marshal(LogEntry{ItemID: d.ItemID, ExecutionID: d.ExecutionID, JobID: d.JobID, Text: d.Text, At: time.Now().UTC()})
		if err != nil {
			return err
		}
		if _, err := t.log.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("write delivery log: %w", err)
		}
		if err := t.log.Sync(); err != nil {
			return fmt.Errorf("sync delivery log: %w", err)
		}
	}
	t.sent[d.ItemID] = true
	prefix := "schedbot"
	if d.JobID != "" {
		prefix += " [job " + d.JobID + "]"
	}
	_, err := fmt.Fprintf(t.out, "%s %s: %s\n", time.Now().Format("15:04:05"), prefix, d.Text)
	return err
}

// Close closes the delivery log.
func (t *Terminal) Close() error {
	if t.log == nil {
		return nil
	}
	return t.log.Close()
}
