package rules

import (
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Misspelt when words two edits off ("tommorow", "wensday"), which
// NL_SPEC 20 does not read as they stand: the question offers the
// request spelled right, and yes makes it.

// slang are spellings of when words too far off to be counted.
var slang = map[string]string{"2morrow": "tomorrow", "2moro": "tomorrow", "tonite": "tonight", "2nite": "tonight", "2day": "today"}

// spellWords are what a misspelt when word may have meant.
var spellWords = slices.Concat(everyWords[:2], frequencyWords, relativeDays[:3], []string{"weekday", "weekdays", "weekend", "weekends"},
	dayNames, monthNames[1:])

// respelt asks "Did you mean …?" of a request that reads whole with its
// misspelt when words spelled right; ok is false when it has none, or
// does not read whole even so.
func respelt(in selector.Input, text string) (selector.Decision, bool) {
	var b strings.Builder
	at, fixed := 0, false
	for _, x := range lex(text) {
		if x.kind != tWord || !misspeltWhenWord(x.s) && !nearDayWord(x.s) {
			continue
		}
		right, ok := slang[x.s]
		if !ok {
			right, ok = closestWord(x.s)
		}
		if !ok || right == x.s {
			continue // "today" is two edits from "monday", and a word
		}
		b.WriteString(text[at:x.i] + right)
		at, fixed = x.j, true
	}
	if !fixed {
		return selector.Decision{}, false
	}
	b.WriteString(text[at:])
	spelt := b.String()
	if d := decide(in, spelt); !d.IsCall() || d.Function != "schedule.create" {
		return selector.Decision{}, false
	}
	d := clarify(in, text, selector.MissingTime, "Did you mean “"+spelt+"”? (yes or no)")
	d.Pending.Yes, d.Pending.Create = spelt, true
	return d, true
}

// closestWord is the one word of spellWords nearest s, within two edits;
// of two as near, the one that holds more of s's letters in order
// ("wensday" is in "wednesday", less of it in "weekday").
func closestWord(s string) (string, bool) {
	best, dist, kept, ties := "", 3, 0, 0
	for _, w := range spellWords {
		d, k := editDistance(s, w), inOrder(s, w)
		switch {
		case d < dist || d == dist && k > kept:
			best, dist, kept, ties = w, d, k, 1
		case d == dist && k == kept:
			ties++
		}
	}
	return best, dist <= 2 && ties == 1
}

// inOrder is the length of the longest run of a's letters found in b in
// the same order.
func inOrder(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
