package rules

import "testing"

// TestCorrections holds decision 39's rows of the main table to passing,
// not to the table's 90%: a correction read as a new request asks what to
// post about the words meant to change the job just made.
func TestCorrections(t *testing.T) {
	n := 0
	for _, r := range loadPhrasings(t, mainTable) {
		if r.from != "nlspec-39" {
			continue
		}
		n++
		if out, why := score(r, decideRow(r)); out != passed {
			t.Errorf("%s:%d %q: %s: %s", r.file, r.line, r.text, out, why)
		}
	}
	if n < 10 {
		t.Errorf("%d rows of decision 39, want at least 10", n)
	}
}
