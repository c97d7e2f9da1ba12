package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/schedbot/schedbot/orchestrator"
)

func TestTerminal_LogMakesDeliveryOncePerItemAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	var out bytes.Buffer
	term, err := NewTerminal(&out, path)
	if err != nil {
		t.Fatal(err)
	}
	d := &orchestrator.Delivery{ItemID: "I1", JobID: "J1", ExecutionID: "J1@x", Text: "hello world"}
	for range 2 {
		if err := term.Deliver(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	term.Close()
	// A crash mid-append leaves half a line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"itemId":"I2","te`)
	f.Close()

	term, err = NewTerminal(&out, path) // the restarted daemon
	if err != nil {
		t.Fatal(err)
	}
	term.Deliver(t.Context(), d) // redelivered: not printed again
	term.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I2", Text: "second"})
	term.Close()
	if n := strings.Count(out.String(), "hello world"); n != 1 {
		t.Errorf("printed %d times:\n%s", n, out.String())
	}
	entries, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].ItemID != "I1" || entries[1].ItemID != "I2" || entries[0].ExecutionID != "J1@x" {
		t.Errorf("log = %+v", entries)
	}
	if !strings.Contains(out.String(), "[job J1]: hello world") {
		t.Errorf("output = %q", out.String())
	}
}

// fullDisk writes half of what it is given, then fails as a full disk
// does, while failing is set.
type fullDisk struct {
	*os.File
	failing bool
}

func (f *fullDisk) Write(b []byte) (int, error) {
	if !f.failing {
		return f.File.Write(b)
	}
	n, _ := f.File.Write(b[:len(b)/2])
	return n, syscall.ENOSPC
}

func TestTerminal_AFailedAppendIsTrimmedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	var out bytes.Buffer
	var disk *fullDisk
	term, err := newTerminal(&out, path, func(f *os.File) logFile { disk = &fullDisk{File: f}; return disk })
	if err != nil {
		t.Fatal(err)
	}
	d := &orchestrator.Delivery{ItemID: "I1", Text: "hello world"}
	disk.failing = true
	if err := term.Deliver(t.Context(), d); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Deliver on a full disk = %v, want ENOSPC", err)
	}
	if out.Len() != 0 {
		t.Fatalf("printed %q although the log write failed", out.String())
	}
	disk.failing = false // space returns; the worker retries
	if err := term.Deliver(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	// Killed here, before the item was marked done: the restarted daemon
	// must see I1 as delivered.
	entries, err := ReadLog(path)
	if err != nil || len(entries) != 1 || entries[0].ItemID != "I1" {
		t.Fatalf("log after the retry = %+v, %v", entries, err)
	}
	raw, _ := os.ReadFile(path)
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Errorf("the failed append was left in the log: %q", line)
		}
	}
	term, err = NewTerminal(&out, path)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	if err := term.Deliver(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "hello world"); n != 1 {
		t.Errorf("printed %d times:\n%s", n, out.String())
	}
}

func TestReadLog_ADamagedLineNeverHidesADelivery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	// An older schedbot appended I2 after a cut-short I1, on the same line.
	os.WriteFile(path, []byte(`{"itemId":"I0","text":"a","at":"2026-11-20T15:00:00Z"}`+"\n"+
		`{"itemId":"I1","te{"itemId":"I2","text":"b","at":"2026-11-20T15:00:01Z"}`+"\n"+
		`garbage {"itemId":"I3","text":"c","at":"2026-11-20T15:00:02Z"} trailing`+"\n"+
		`{"itemId":"I4","text":"d","at":"2026-11-20T15:00:03Z"}`+"\n"), 0o600)
	if got := logIDs(t, path); got != "I0 I2 I3 I4" {
		t.Errorf("read %v, want I0 I2 I3 I4 (I1 was cut short, so never printed)", got)
	}
}

// printed counts how often each item's text was printed to out.
func printedTimes(out string, text string) int { return strings.Count(out, ": "+text+"\n") }

// validLines fails the test when the log holds a line that is not one
// whole entry.
func validLines(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if line != "" && (!strings.HasSuffix(line, "\n") || !json.Valid([]byte(line))) {
			t.Errorf("the log holds a damaged line: %q", line)
		}
	}
}

func TestTerminal_ARetryReadsWhatAnotherProcessPrinted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	var outA, outB bytes.Buffer
	a, err := NewTerminal(&outA, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewTerminal(&outB, path) // another serve on this host, started at the same time
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// A prints I1 and dies before marking it done; B retries it.
	if err := a.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I1", Text: "one", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I1", Text: "one", Attempt: 2}); err != nil {
		t.Fatal(err)
	}
	// A retry of an item nobody printed is printed, once.
	if err := b.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I2", Text: "two", Attempt: 2}); err != nil {
		t.Fatal(err)
	}
	// A third process died halfway through an append; B appends after it.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"itemId":"I9","te`)
	f.Close()
	if err := a.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I2", Text: "two", Attempt: 3}); err != nil {
		t.Fatal(err)
	}
	if err := b.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I3", Text: "three", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	all := outA.String() + outB.String()
	for _, text := range []string{"one", "two", "three"} {
		if n := printedTimes(all, text); n != 1 {
			t.Errorf("%q printed %d times:\n%s", text, n, all)
		}
	}
	if printedTimes(outB.String(), "one") != 0 {
		t.Errorf("B printed I1 again although A had printed it:\n%s", outB.String())
	}
	validLines(t, path)
}

// stallingDisk runs during before the failure of its first write, which
// writes half of what it is given and fails as a full disk does.
type stallingDisk struct {
	*os.File
	during func()
	failed bool
}

func (f *stallingDisk) Write(b []byte) (int, error) {
	if f.failed {
		return f.File.Write(b)
	}
	f.failed = true
	n, _ := f.File.Write(b[:len(b)/2])
	f.during()
	return n, syscall.ENOSPC
}

func TestTerminal_AFailedAppendNeverCutsAnotherProcesssLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	var outA, outB bytes.Buffer
	b, err := NewTerminal(&outB, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var bDone chan error
	a, err := newTerminal(&outA, path, func(f *os.File) logFile {
		return &stallingDisk{File: f, during: func() {
			// B delivers while A's append is failing. Holding the lock,
			// A keeps B out until its half line is trimmed: give B the
			// time it would need to finish otherwise.
			bDone = make(chan error, 1)
			go func() { bDone <- b.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I2", Text: "two", Attempt: 1}) }()
			select {
			case err := <-bDone:
				bDone <- err
			case <-time.After(300 * time.Millisecond):
			}
		}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// B appends after A opened the log: A's trim must not go back to the
	// length A saw then.
	if err := b.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I0", Text: "zero", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if err := a.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I1", Text: "one", Attempt: 1}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Deliver on a full disk = %v, want ENOSPC", err)
	}
	if err := <-bDone; err != nil {
		t.Fatal(err)
	}
	if err := a.Deliver(t.Context(), &orchestrator.Delivery{ItemID: "I1", Text: "one", Attempt: 2}); err != nil {
		t.Fatal(err)
	}
	if got := logIDs(t, path); got != "I0 I2 I1" {
		t.Errorf("log holds %v, want I0 I2 I1 (B's lines whole, A's failed one gone)", got)
	}
	validLines(t, path)
	// A restarted process prints none of them again.
	var outC bytes.Buffer
	c, err := NewTerminal(&outC, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, id := range []string{"I0", "I1", "I2"} {
		c.Deliver(t.Context(), &orchestrator.Delivery{ItemID: id, Text: "again", Attempt: 3})
	}
	if outC.Len() != 0 {
		t.Errorf("printed again after a restart: %s", outC.String())
	}
}

// TestTerminal_TwoTerminalsRacingForOneItemPrintItOnce: two Terminals on
// one log retry the same items at the same time (a lease that ran out
// while the first attempt was still going): the lock makes each one's
// look-then-append one step, so each item is printed once.
func TestTerminal_TwoTerminalsRacingForOneItemPrintItOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	outs := make([]bytes.Buffer, 2)
	var terms []*Terminal
	for i := range outs {
		term, err := NewTerminal(&outs[i], path)
		if err != nil {
			t.Fatal(err)
		}
		defer term.Close()
		terms = append(terms, term)
	}
	const n = 300
	var wg sync.WaitGroup
	for _, term := range terms {
		wg.Go(func() {
			for i := range n {
				if err := term.Deliver(t.Context(), &orchestrator.Delivery{ItemID: fmt.Sprint("I", i), Text: fmt.Sprint("post ", i), Attempt: 2}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	all := outs[0].String() + outs[1].String()
	for i := range n {
		if k := printedTimes(all, fmt.Sprint("post ", i)); k != 1 {
			t.Errorf("item I%d printed %d times", i, k)
		}
	}
	validLines(t, path)
}

// TestTerminal_TwoProcessesOnOneLogPrintEachItemOnce: the same race
// between two processes (this test binary, run again as a deliverer).
func TestTerminal_TwoProcessesOnOneLogPrintEachItemOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deliveries.log")
	const n = 1000
	type proc struct {
		cmd   *exec.Cmd
		start io.WriteCloser
		out   *bufio.Reader
	}
	var procs []*proc
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTerminalHelperProcess$")
		cmd.Env = append(os.Environ(), "SCHEDBOT_TERMINAL_HELPER="+path, fmt.Sprint("SCHEDBOT_TERMINAL_HELPER_N=", n))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, start: stdin, out: bufio.NewReader(stdout)}
		if line, err := p.out.ReadString('\n'); line != "ready\n" {
			t.Fatalf("helper said %q, %v", line, err)
		}
		procs = append(procs, p)
	}
	for _, p := range procs { // both start together
		p.start.Close()
	}
	counts := map[string]int{}
	for _, p := range procs {
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				break
			}
			if _, text, ok := strings.Cut(strings.TrimSpace(line), ": "); ok {
				counts[text]++
			}
		}
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	for i := range n {
		if k := counts[fmt.Sprint("post ", i)]; k != 1 {
			t.Errorf("item I%d printed %d times", i, k)
		}
	}
	validLines(t, path)
}

// TestTerminalHelperProcess is the deliverer that the test above runs
// twice; on its own it does nothing.
func TestTerminalHelperProcess(t *testing.T) {
	path := os.Getenv("SCHEDBOT_TERMINAL_HELPER")
	if path == "" {
		t.Skip("run by TestTerminal_TwoProcessesOnOneLogPrintEachItemOnce")
	}
	var n int
	fmt.Sscan(os.Getenv("SCHEDBOT_TERMINAL_HELPER_N"), &n)
	term, err := NewTerminal(os.Stdout, path)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin) // until the parent closes it
	for i := range n {
		if err := term.Deliver(t.Context(), &orchestrator.Delivery{ItemID: fmt.Sprint("I", i), Text: fmt.Sprint("post ", i), Attempt: 2}); err != nil {
			t.Fatal(err)
		}
	}
}

// logIDs is the item ids of a delivery log's entries, in order.
func logIDs(t *testing.T, path string) string {
	t.Helper()
	entries, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ItemID)
	}
	return strings.Join(got, " ")
}
