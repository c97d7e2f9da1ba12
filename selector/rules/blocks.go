package rules

import (
	"math"
	"slices"
	"strings"
	"time"
)

// Where a when block may start in a message, and reading a text into
// its blocks.

// whenBlocks reads toks left to right: each longest run the when grammar
// reads is a block; a word that says when but is in no block is dropped.
func whenBlocks(toks []tok, now time.Time) (blocks [][]tok, dropped []tok) {
	var w when
	for k := 0; k < len(toks); {
		glued := k > 0 && toks[k-1].j == toks[k].i && toks[k-1].s == "-" || k+1 < len(toks) && toks[k+1].s == "-" && toks[k+1].i == toks[k].j
		if startsBlock(toks[k]) && !glued {
			found := 0
			for n := min(len(toks)-k, 16); n >= 1; n-- {
				if nw, ok, _ := parseBlock(toks[k:k+n], w, now); ok {
					w, found = nw, n
					break
				}
			}
			if found > 0 {
				blocks = append(blocks, toks[k:k+found])
				k += found
				continue
			}
		}
		x := toks[k]
		if x.kind != tChannel && x.kind != tUser && x.kind != tQuote && !glued &&
			(timeBearing(x) || strongTime(x) || recurWords[x.s] || misspeltWhenWord(x.s) || nearDayWord(x.s) || holidayWords[x.s] || vagueFrequency[x.s]) {
			dropped = append(dropped, x)
		}
		k++
	}
	return blocks, dropped
}

// startsBlock: only these can begin a when, so the search for the tail
// skips the rest quickly.
func startsBlock(t tok) bool {
	switch t.kind {
	case tNum:
		return true
	case tWord:
	default:
		return t.s == "@" || t.s == "("
	}
	if _, ok := whenStarters[t.s]; ok {
		return true
	}
	if _, _, ok := weekday(t.s); ok {
		return true
	}
	if _, ok := month(t.s); ok {
		return true
	}
	if ordinalIn(t.s, 1, 99) || numberIn(t.s, 0, math.MaxInt) || zoneAbbrev[t.s] != "" || zoneWords[t.s] != "" {
		return true
	}
	if _, ok := compactDays[t.s]; ok {
		return true
	}
	_, ok := dayCodes[t.s]
	return ok
}

var whenStarters = wordSet(everyWords, frequencyWords, relativeDays, dayParts, holidays, workdayLeads, strings.Fields(`at on in everyday
	bimonthly bi half once twice thrice for until till til through thru up stop stopping end ending ends starting beginning
	from commencing effective start begin begins starts after as except excluding but not other apart skip skipping save
	the next this coming upcoming tomorow tommorow day noon midnight midday quarter minute weekdays weekends weekday weekend
	workdays within around about last first second third fourth fifth final penultimate between
	during only throughout mornings afternoons evenings nights eod lunch lunchtime later soon sometime asap a an iso week
	odd even yesterday sunrise sunset dawn dusk christmas xmas year eoy now exactly precisely`))

// holidayDays are holidays named by a word and a weekday.
var holidayDays = map[string]bool{"good friday": true, "black friday": true, "cyber monday": true, "ash wednesday": true,
	"holy thursday": true, "maundy thursday": true, "palm sunday": true, "easter sunday": true, "easter monday": true,
	"bowl sunday": true, "giving tuesday": true, "shrove tuesday": true, "whit monday": true}

// qualifiers change the day that follows them ("last Monday", "before
// Friday", "nxt tue", "ev weekday"): the grammar does not read them, so
// the day after them is not what was asked for.
var qualifiers = map[string]bool{"last": true, "past": true, "previous": true, "prior": true, "before": true, "ahead": true, "of": true,
	"than": true, "nxt": true, "lst": true, "ev": true, "evy": true, "by": true, "end": true, "after": true, "following": true,
	"since": true, "until": true, "till": true, "preceding": true, "earlier": true, "later": true, "other": true, "alternate": true,
	"alt": true, "every": true, "each": true, "to": true, "this": true, "coming": true, "upcoming": true, "on": true, "for": true}

// nearDayWord: two edits or fewer from a day name ("thrsdy", "mndy"),
// and not one the grammar reads.
func nearDayWord(s string) bool {
	if len(s) < 3 {
		return false
	}
	if _, _, ok := weekday(s); ok {
		return false
	}
	for _, d := range dayNames {
		if editDistance(s, d) <= 2 {
			return true
		}
	}
	return false
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// startsBlockWord: a word that may begin a when ("friday", "noon").
func startsBlockWord(t tok) bool {
	return t.kind == tWord && startsBlock(t) && !slices.Contains([]string{"a", "an", "the"}, t.s)
}

// chatter: words before the action that say nothing about time ("Hello!
// Hope you're well. Can you …", "Thanks in advance!! Please …").
func chatter(head []tok) bool {
	for _, t := range head {
		if timeBearing(t) || strongTime(t) || recurWords[t.s] || misspeltWhenWord(t.s) || t.kind == tQuote ||
			slices.Contains([]string{"every", "each", "until", "till", "except", "starting", "tonight", "today", "tomorrow", "noon", "midnight", "morning", "afternoon", "evening", "night", "week", "month", "year", "hour", "minute"}, t.s) {
			return false
		}
	}
	return true
}
