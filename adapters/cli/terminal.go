// Package cli is the terminal channel: it delivers outgoing messages by
// printing them, optionally recording each in a delivery log so that a
// message is never printed twice for one item, even across a crash, and
// even when several serve processes on one host share the log.
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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schedbot/schedbot/orchestrator"
)

// logFile is the delivery log as the terminal uses it: an *os.File opened
// for appending, or a test's wrapper that fails like a full disk.
type logFile interface {
	io.Writer
	io.ReaderAt
	Sync() error
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
	Fd() uintptr
	Close() error
}

// Terminal prints deliveries to a writer (serve's standard output).
type Terminal struct {
	mu      sync.Mutex
	out     io.Writer
	log     logFile
	scanned int64 // the log is read into sent up to here (a line's end)
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
// log are not delivered again. Several processes may share one logPath:
// each append holds an flock on it.
func NewTerminal(out io.Writer, logPath string) (*Terminal, error) {
	return newTerminal(out, logPath, nil)
}

func newTerminal(out io.Writer, logPath string, wrap func(*os.File) logFile) (*Terminal, error) {
	t := &Terminal{out: out, sent: map[string]bool{}}
	if logPath == "" {
		return t, nil
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open delivery log: %w", err)
	}
	t.log = f
	if wrap != nil {
		t.log = wrap(f)
	}
	err = t.locked(func() error {
		size, err := t.repair()
		if err != nil {
			return err
		}
		return t.catchUp(size)
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return t, nil
}

// locked runs fn holding the log's flock, which every process appending
// to the same file takes (it is per open file, so two Terminals in one
// process exclude each other too).
func (t *Terminal) locked(fn func() error) error {
	fd := int(t.log.Fd())
	if err := flock(fd, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock delivery log: %w", err)
	}
	defer flock(fd, syscall.LOCK_UN)
	return fn()
}

func flock(fd, how int) error {
	for {
		if err := syscall.Flock(fd, how); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// repair measures the log under the lock and cuts a partial last line: a
// process that died mid-append (or whose append failed and could not be
// trimmed) never printed that item, since printing follows the sync.
func (t *Terminal) repair() (int64, error) {
	st, err := t.log.Stat()
	if err != nil {
		return 0, fmt.Errorf("measure delivery log: %w", err)
	}
	size := st.Size()
	last := make([]byte, 1)
	if size == 0 {
		return 0, nil
	}
	if _, err := t.log.ReadAt(last, size-1); err != nil {
		return 0, fmt.Errorf("read delivery log: %w", err)
	}
	if last[0] == '\n' {
		return size, nil
	}
	n, err := completeLength(t.log, size)
	if err == nil {
		err = t.log.Truncate(n)
	}
	if err != nil {
		return 0, fmt.Errorf("repair delivery log: %w", err)
	}
	return n, nil
}

// catchUp reads the entries other processes appended since the last read,
// up to size (a line's end, measured under the lock).
func (t *Terminal) catchUp(size int64) error {
	if size < t.scanned {
		t.scanned = 0 // the file was replaced or cut: read it all again
	}
	if size == t.scanned {
		return nil
	}
	entries, err := readEntries(io.NewSectionReader(t.log, t.scanned, size-t.scanned))
	if err != nil {
		return fmt.Errorf("read delivery log: %w", err)
	}
	for _, e := range entries {
		t.sent[e.ItemID] = true
	}
	t.scanned = size
	return nil
}

// completeLength is the length of f's first size bytes up to and
// including their last newline.
func completeLength(f io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
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
	return readEntries(f)
}

func readEntries(r io.Reader) ([]LogEntry, error) {
	var out []LogEntry
	sc := bufio.NewScanner(r)
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
// and the error asks for a retry. A retry (Attempt > 1) first reads what
// other processes appended to the log since: an earlier attempt, maybe in
// another process, may have printed d already.
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
		printed := false
		err = t.locked(func() error {
			size, err := t.repair()
			if err != nil {
				return err
			}
			if d.Attempt > 1 {
				if err := t.catchUp(size); err != nil {
					return err
				}
				if printed = t.sent[d.ItemID]; printed {
					return nil
				}
			}
			if err := t.append(append(b, '\n'), size); err != nil {
				return err
			}
			if t.scanned == size {
				t.scanned = size + int64(len(b)) + 1 // our own line: nothing to read
			}
			return nil
		})
		if err != nil || printed {
			return err
		}
	}
	t.sent[d.ItemID] = true
	prefix := "schedbot"
	if d.JobID != "" {
		prefix += " [job " + d.JobID + "]"
	}
	text := d.Text
	if d.Target.Channel == "terminal" && strings.HasPrefix(d.Target.ChannelID, "#") {
		text = "[" + d.Target.ChannelID + "] " + text // a #label: "post hi in #team"
	}
	_, err := fmt.Fprintf(t.out, "%s %s: %s\n", time.Now().Format("15:04:05"), prefix, text)
	return err
}

// append writes one line at the end of the log, size bytes long when
// measured under the lock, and syncs it; on failure it cuts the log back
// to size, which holds every other process's lines.
func (t *Terminal) append(line []byte, size int64) error {
	n, err := t.log.Write(line)
	if err == nil {
		if err = t.log.Sync(); err != nil {
			err = fmt.Errorf("sync delivery log: %w", err)
		}
	} else {
		err = fmt.Errorf("write delivery log: %w", err)
	}
	if err == nil {
		return nil
	}
	if terr := t.log.Truncate(size); terr != nil {
		if n == len(line) {
			// The whole line stays in the log, where a retry would find it:
			// it counts as delivered, so print it.
			return nil
		}
		// A partial line is cut by the next append, in any process.
		return fmt.Errorf("%w (and trimming it failed: %v)", err, terr)
	}
	return err
}

// Close closes the delivery log.
func (t *Terminal) Close() error {
	if t.log == nil {
		return nil
	}
	return t.log.Close()
}
