package rules

import (
	"fmt"
	"testing"
)

// TestPhrasingsHoldout16 scores the selector on holdout16 (rich message
// text around every kind of when) and only reports: it logs each wrong
// row, never fails, so the table measures the rules without gating them.
func TestPhrasingsHoldout16(t *testing.T) {
	const file = "phrasings_holdout16.tsv"
	rows, questions := checkTable(t, file)
	count := map[string]int{}
	for _, r := range rows {
		d := decideRow(r)
		out, why := score(r, d)
		count[out]++
		switch out {
		case wrong:
			t.Logf("WRONG %s:%d %q want %s %s msg %q ch %s: %s\n\tgot %s", file, r.line, r.text, r.kind, r.expect, r.msg, r.channel, why, d.raw)
		case failed:
			t.Logf("failed %s:%d %q want %s %s: %s\n\tgot %s", file, r.line, r.text, r.kind, r.expect, why, d.raw)
		}
	}
	summary := fmt.Sprintf("%s: %d rows, %d questions or refusals; %d passed, %d failed, %d wrong",
		file, len(rows), questions, count[passed], count[failed], count[wrong])
	t.Log(summary)
	fmt.Println(summary)
}
