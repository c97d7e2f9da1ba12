package rules

import (
	"regexp"
	"strings"
)

// work is the message being taken apart: lower is an ASCII-lowercased copy
// of orig with the same byte offsets, and every phrase the parser
// understands is blanked out of both, so what is left is the message text.
type work struct {
	orig  []byte
	lower []byte
}

func newWork(s string) *work {
	o := []byte(s)
	l := make([]byte, len(o))
	for i, c := range o {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		l[i] = c
	}
	return &work{orig: o, lower: l}
}

func (w *work) String() string { return string(w.lower) }

// blank removes [i, j) from both copies.
func (w *work) blank(i, j int) {
	for k := i; k < j; k++ {
		w.orig[k], w.lower[k] = ' ', ' '
	}
}

// find returns the submatch indexes of re's first match in lower.
func (w *work) find(re *regexp.Regexp) []int { return re.FindSubmatchIndex(w.lower) }

// take finds re, blanks the whole match and returns its groups (from orig
// when fromOrig, else lowercase); nil when it does not match.
func (w *work) take(re *regexp.Regexp, fromOrig bool) []string {
	m := w.find(re)
	if m == nil {
		return nil
	}
	src := w.lower
	if fromOrig {
		src = w.orig
	}
	out := make([]string, len(m)/2)
	for g := range out {
		if m[2*g] >= 0 {
			out[g] = string(src[m[2*g]:m[2*g+1]])
		}
	}
	w.blank(m[0], m[1])
	return out
}

func (w *work) has(re *regexp.Regexp) bool { return re.Match(w.lower) }

// rest is what is left of the original text, spaces folded.
func (w *work) rest() string { return strings.Join(strings.Fields(string(w.orig)), " ") }

var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
	"forty-five": 45, "sixty": 60, "ninety": 90,
	"once": 1, "twice": 2, "thrice": 3,
}

const numberPattern = `(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|forty-five|sixty|ninety)`

func number(s string) int {
	if n, ok := numberWords[s]; ok {
		return n
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
		if n > 1_000_000 {
			return -1
		}
	}
	if s == "" {
		return -1
	}
	return n
}

var dayIndex = map[string]int{
	"sun": 0, "sunday": 0, "sundays": 0, "mon": 1, "monday": 1, "mondays": 1, "tue": 2, "tues": 2, "tuesday": 2, "tuesdays": 2,
	"wed": 3, "wednesday": 3, "wednesdays": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4, "thursdays": 4,
	"fri": 5, "friday": 5, "fridays": 5, "sat": 6, "saturday": 6, "saturdays": 6,
}

const dayPattern = `(?:sundays?|sun|mondays?|mon|tuesdays?|tues|tue|wednesdays?|wed|thursdays?|thurs|thur|thu|fridays?|fri|saturdays?|sat)`

var monthIndex = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
	"jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
	"oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

const monthPattern = `(?:january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov|december|dec)`

var ordinalRe = regexp.MustCompile(`^(\d{1,2})(?:st|nd|rd|th)?$`)

var ordinalWords = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
	"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
	"seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}

func ordinal(s string) int {
	if n, ok := ordinalWords[s]; ok {
		return n
	}
	if m := ordinalRe.FindStringSubmatch(s); m != nil {
		return number(m[1])
	}
	return -1
}
