package rules

import (
	"strings"
	"testing"
)

// TestPhrasings scores the rules selector against the table. Every row
// must pass: a wrong row is a call where none was wanted, or a call that
// fires, posts or targets differently; a failed one asks where it should
// act, or acts where it should ask.
func TestPhrasings(t *testing.T) {
	rows := loadPhrasings(t, mainTable)
	count := scoreTable(t, rows, 40)
	if count[wrong] > 0 {
		t.Errorf("%d rows got a wrong schedule or change", count[wrong])
	}
	if count[passed] < len(rows) {
		t.Errorf("%d of %d rows passed, want all", count[passed], len(rows))
	}
}

// heldOut are tables each written apart from the code and from the other
// tables, by someone who read only docs/NL_SPEC.md, to measure how the rules
// generalize; then the rules were fixed against what they found, and they
// are kept so it stays fixed. firstContact is what each found.
var heldOut = []struct{ file, firstContact string }{
	{"phrasings_holdout.tsv", "10 wrong, 13 failed of 480"},
	{"phrasings_holdout2.tsv", "43 wrong, 28 failed of 657 (decision 24 read strictly)"},
	{"phrasings_holdout3.tsv", "26 wrong, 8 failed of 780"},
	{"phrasings_holdout4.tsv", "26 wrong, 42 failed of 895"},
	{"phrasings_holdout5.tsv", "39 wrong, 12 failed of 920"},
	{"phrasings_holdout6.tsv", "35 wrong, 27 failed of 808 (3 in its first 583 rows)"},
	{"phrasings_holdout7.tsv", "29 wrong, 8 failed of 741 (4 in its first 616 rows)"},
	{"phrasings_holdout8.tsv", "22 wrong, 49 failed of 696"},
	{"phrasings_holdout9.tsv", "0 wrong, 3 failed of 489"},
	{"phrasings_holdout10.tsv", "4 wrong, 12 failed of 507"},
	{"phrasings_holdout11.tsv", "6 wrong, 3 failed of 636"},
	{"phrasings_holdout12.tsv", "5 wrong, 13 failed of 522"},
	{"phrasings_holdout13.tsv", "12 wrong (one cause: \"please\" in the text), 6 failed of 524"},
	{"phrasings_holdout14.tsv", "4 wrong, 25 failed of 495"},
	{"phrasings_holdout15.tsv", "0 wrong, 7 failed of 494"},
	{"phrasings_holdout16.tsv", "20 wrong (one cause: a closing emoji or aside cut from the text), 58 failed of 464"},
	{"phrasings_holdout17.tsv", "0 wrong, 0 failed of 593 (with 61 messages that are not requests)"},
}

// TestPhrasingsHeldOut scores the selector on every held-out table; any
// wrong row (a call nobody asked for) fails.
func TestPhrasingsHeldOut(t *testing.T) {
	for _, h := range heldOut {
		t.Run(strings.TrimSuffix(h.file, ".tsv"), func(t *testing.T) {
			rows, questions := checkTable(t, h.file)
			if len(rows) < 450 || questions*100 < len(rows)*30 {
				t.Errorf("%d rows, %d questions or refusals; want at least 450 and 30%%", len(rows), questions)
			}
			if count := scoreTable(t, rows, len(rows)); count[wrong] > 0 {
				t.Errorf("%d rows got a wrong schedule or change (on first contact: %s)", count[wrong], h.firstContact)
			}
		})
	}
}

// familyTables are held-out tables written for the reading families of one
// issue, smaller than heldOut's: each was written before the rules were
// changed for them. firstContact is what each found.
var familyTables = []struct{ file, firstContact string }{
	{"phrasings_holdout18.tsv", "110 passed, 75 failed, 45 wrong of 230 (issue 19's families; 7 rows corrected against NL_SPEC 20 and 24)"},
	{"phrasings_holdout19.tsv", "80 passed, 3 failed, 2 wrong of 85 (5 rows corrected against NL_SPEC 2, 10 and 20)"},
}

// TestPhrasingsFamilies scores the selector on the family tables; any wrong
// row fails, and at least 97% must pass.
func TestPhrasingsFamilies(t *testing.T) {
	for _, h := range familyTables {
		t.Run(strings.TrimSuffix(h.file, ".tsv"), func(t *testing.T) {
			rows, _ := checkTable(t, h.file)
			if len(rows) < 80 {
				t.Errorf("%d rows, want at least 80", len(rows))
			}
			count := scoreTable(t, rows, len(rows))
			if count[wrong] > 0 {
				t.Errorf("%d rows got a wrong schedule or change (on first contact: %s)", count[wrong], h.firstContact)
			}
			if count[passed]*100 < len(rows)*97 {
				t.Errorf("%d of %d rows passed, want at least 97%%", count[passed], len(rows))
			}
		})
	}
}

// TestPhrasingsManagementHeldOut scores held-out table 20: management and
// questions about existing jobs (lists, shows, history, agendas, picks),
// written apart from the code for issue 19. It is smaller than the
// tables above, which are mostly creates.
func TestPhrasingsManagementHeldOut(t *testing.T) {
	const file, firstContact = "phrasings_holdout20.tsv", "6 wrong, 59 failed of 227"
	rows, _ := checkTable(t, file)
	if len(rows) < 200 {
		t.Errorf("%d rows, want at least 200", len(rows))
	}
	if count := scoreTable(t, rows, len(rows)); count[wrong] > 0 {
		t.Errorf("%d rows got a wrong call (on first contact: %s)", count[wrong], firstContact)
	}
}

// TestPhrasingsLifeHeldOut scores held-out table 21: skip, unskip, snooze
// and done said where a careful bot asks or refuses (the table has no kind
// for those calls, so it holds the rules to no wrong call), written apart
// from the code for issue 19.
func TestPhrasingsLifeHeldOut(t *testing.T) {
	const file, firstContact = "phrasings_holdout21.tsv", "0 wrong, 7 failed of 72"
	rows, _ := checkTable(t, file)
	if count := scoreTable(t, rows, len(rows)); count[wrong] > 0 {
		t.Errorf("%d rows got a wrong call (on first contact: %s)", count[wrong], firstContact)
	}
}
