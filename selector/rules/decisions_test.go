package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/selector"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/decisions.golden")

// followUps are the replies tried after a question, by what it asked for:
// an answer, and a puzzled reply that makes the question be asked again.
var followUps = map[string][]string{
	selector.MissingTime:   {"9am", "huh?"},
	selector.MissingAction: {"hello team", "huh?"},
	selector.MissingTarget: {"in #team", "huh?"},
	selector.MissingJob:    {"2", "huh?"},
}

// TestDecisionsUnchanged decides every row of every phrasings table, the
// fuzz corpus and the fuzz seed files at the tables' clock, with a reply
// to each question, and compares the whole of each decision (call and
// arguments, question, pending state, refusal, reply) with
// testdata/decisions.golden. The grammar may be rearranged freely; what
// it decides may not change without the golden changing with it
// (go test ./selector/rules -run DecisionsUnchanged -update).
func TestDecisionsUnchanged(t *testing.T) {
	var out bytes.Buffer
	record := func(at string, in selector.Input) selector.Decision {
		d, s := decisionLine(in)
		fmt.Fprintf(&out, "%s\t%s\t%s\n", at, abbreviate(fmt.Sprintf("%q", in.Text), 80), abbreviate(s, 1000))
		return d
	}
	files, _ := filepath.Glob("testdata/phrasings*.tsv")
	slices.Sort(files)
	for _, f := range files {
		for _, r := range loadPhrasings(t, filepath.Base(f)) {
			in := rowInput(r)
			at := fmt.Sprintf("%s:%d", r.file, r.line)
			d := record(at, in)
			if d.Pending == nil {
				continue
			}
			for _, reply := range followUps[d.Missing] {
				next := in
				next.Text, next.Pending = reply, d.Pending
				record(at+">", next)
			}
		}
	}
	texts := slices.Clone(corpus)
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzRules/*")
	slices.Sort(seeds)
	for _, f := range seeds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, lit, _ := strings.Cut(string(b), "string(")
		lit = strings.TrimSuffix(strings.TrimSpace(lit), ")")
		var s string
		if _, err := fmt.Sscanf(lit, "%q", &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		texts = append(texts, s)
	}
	for k, text := range texts {
		in := input(text)
		in.Jobs = jobs
		record(fmt.Sprintf("corpus:%d", k), in)
	}
	const golden = "testdata/decisions.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Bytes(); !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		n := 0
		for k := 0; k < max(len(gl), len(wl)) && n < 20; k++ {
			g, w := "", ""
			if k < len(gl) {
				g = gl[k]
			}
			if k < len(wl) {
				w = wl[k]
			}
			if g != w {
				t.Errorf("line %d:\n got %s\nwant %s", k+1, g, w)
				n++
			}
		}
		if n == 0 {
			t.Errorf("output differs from %s", golden)
		}
	}
}

// abbreviate keeps a long s short in the golden file: its head, length
// and hash, so any change to it still shows.
func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes, sha256 %x)", s[:n/2], len(s), sha256.Sum256([]byte(s)))
}

// decisionLine decides in and renders the whole decision, pending state
// included, as one line of JSON; a panic is recorded, not raised.
func decisionLine(in selector.Input) (d selector.Decision, line string) {
	defer func() {
		if p := recover(); p != nil {
			d, line = selector.Decision{}, fmt.Sprintf("panic: %v", p)
		}
	}()
	d = Decide(in)
	// What repeats the decision or the input is written "=": the
	// question asked, the text asked about, the usual expiry.
	var p *selector.Pending
	if d.Pending != nil {
		c := *d.Pending
		if c.Question == d.Clarify {
			c.Question = "="
		}
		if c.Text == in.Text {
			c.Text = "="
		}
		if c.Expires.Equal(in.Now.Add(selector.PendingTTL)) {
			c.Expires = time.Time{}
		}
		p = &c
	}
	b, err := json.Marshal(struct {
		selector.Decision
		Pending *selector.Pending `json:"pending,omitempty"`
		Dropped string            `json:"dropped,omitempty"`
	}{d, p, d.Dropped})
	if err != nil {
		return d, "marshal: " + err.Error()
	}
	return d, string(b)
}
