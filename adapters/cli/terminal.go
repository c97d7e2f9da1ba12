// Package cli is the terminal channel: it delivers outgoing messages by
// printing them, optionally recording each in a delivery log so that a
// message is never printed twice for one item, even across a crash.
package cli

import (
	"bufio"
	"bytes"
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

// logFile is the delivery log as the terminal uses it: an *os.File opened
// for appending, or a test's wrapper that fails like a full disk.
type logFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// Terminal prints deliveries to a writer (serve's standard output).
type Terminal struct {
	mu      sync.Mutex
	out     io.Writer
	log     logFile
	size    int64 // the log's length up to its last complete, synced line
	damaged bool  // a failed append could not be trimmed yet
	sent    map[string]bool
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
	return newTerminal(out, logPath, nil)
}

func newTerminal(out io.Writer, logPath string, wrap func(*os.File) logFile) (*Terminal, error) {
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
	// A crash mid-line leaves a partial last line, whose item was never
	// printed (printing follows the sync): trim it.
	size, err := completeLength(f)
	if err == nil {
		err = f.Truncate(size)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("repair delivery log: %w", err)
	}
	t.size = size
	t.log = f
	if wrap != nil {
		t.log = wrap(f)
	}
	return t, nil
}

// completeLength is the length of f up to and including its last newline.
func completeLength(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	for end := st.Size(); end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// entryStart is how every line of the log begins.
var entryStart = []byte(`{"itemId":`)

// ReadLog reads a delivery log. A damaged line (an append cut short, with
// another written after it by an older schedbot) still yields every whole
// entry inside it, so that an item printed once never looks undelivered;
// a partial entry is skipped (its item was not printed).
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
			continue
		}
		out = append(out, salvage(sc.Bytes())...)
	}
	return out, sc.Err()
}

// salvage returns the whole entries found inside a damaged line.
func salvage(line []byte) []LogEntry {
	var out []LogEntry
	for i := 0; ; i++ {
		j := bytes.Index(line[i:], entryStart)
		if j < 0 {
			return out
		}
		i += j
		var e LogEntry
		if json.NewDecoder(bytes.NewReader(line[i:])).Decode(&e) == nil && e.ItemID != "" {
			out = append(out, e)
		}
	}
}

// Deliver prints d once. A failed append (a full disk) is trimmed at once,
// so that the next append starts on a clean line; d is then not printed
// and the error asks for a retry.
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
		if err := t.append(append(b, '\n')); err != nil {
			return err
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

// append writes one line and syncs it; on failure it cuts the log back to
// its last complete line.
func (t *Terminal) append(line []byte) error {
	// A trim that failed before is retried first: nothing is appended to a
	// damaged log.
	if t.damaged {
		if err := t.log.Truncate(t.size); err != nil {
			return fmt.Errorf("repair delivery log: %w", err)
		}
		t.damaged = false
	}
	_, err := t.log.Write(line)
	if err == nil {
		if err = t.log.Sync(); err != nil {
			err = fmt.Errorf("sync delivery log: %w", err)
		}
	} else {
		err = fmt.Errorf("write delivery log: %w", err)
	}
	if err != nil {
		if terr := t.log.Truncate(t.size); terr != nil {
			t.damaged = true
			return fmt.Errorf("%w (and trimming it failed: %v)", err, terr)
		}
		return err
	}
	t.size += int64(len(line))
	return nil
}

// Close closes the delivery log.
func (t *Terminal) Close() error {
	if t.log == nil {
		return nil
	}
	return t.log.Close()
}
