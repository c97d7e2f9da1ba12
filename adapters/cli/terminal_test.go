package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	entries, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ItemID)
	}
	if strings.Join(got, " ") != "I0 I2 I3 I4" {
		t.Errorf("read %v, want I0 I2 I3 I4 (I1 was cut short, so never printed)", got)
	}
}
