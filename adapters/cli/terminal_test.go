package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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
