package rules

import "testing"

// TestPhrasingsHoldout15 scores the selector on the fifteenth held-out
// table, written apart from the rules' code. It reports and does not fail:
// wrong rows are logged for the lead to judge.
func TestPhrasingsHoldout15(t *testing.T) {
	rows, questions := checkTable(t, "phrasings_holdout15.tsv")
	t.Logf("%d rows, %d questions or refusals", len(rows), questions)
	count := scoreTable(t, rows, len(rows))
	t.Logf("holdout15: %d passed, %d failed, %d wrong of %d", count[passed], count[failed], count[wrong], len(rows))
}
