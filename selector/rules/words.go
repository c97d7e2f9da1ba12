package rules

import (
	"slices"
	"strconv"
	"strings"
)

// The vocabulary of the "when": day and month names, numbers, ordinals and
// units, with the near-misses NL_SPEC decision 20 allows, and the word
// lists several families read. A list only one family reads lives in
// that family's file. Each word list is written once: a list that holds
// the words of another is built from it (TestWordListsDefinedOnce).

// dayNames are the days of the week, Sunday first as time.Weekday counts.
var dayNames = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// dayIndex reads a day's name or abbreviation.
var dayIndex = withNames(map[string]int{
	"sun": 0, "mon": 1, "tue": 2, "tues": 2, "wed": 3, "weds": 3, "thu": 4, "thur": 4, "thurs": 4, "fri": 5, "sat": 6,
}, dayNames)

// monthNames are the months, January at 1.
var monthNames = []string{"", "january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december"}

// monthIndex reads a month's name or abbreviation.
var monthIndex = withNames(map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}, monthNames)

// withNames adds names[k] = k to index, skipping empty names.
func withNames(index map[string]int, names []string) map[string]int {
	for k, n := range names {
		if n != "" {
			index[n] = k
		}
	}
	return index
}

// frequencyWords say how often in one word.
var frequencyWords = []string{"daily", "weekly", "monthly", "yearly", "annually", "hourly", "quarterly", "biweekly", "fortnightly", "nightly"}

// everyWords begin a recurrence ("evry" is read as "every").
var everyWords = []string{"every", "each", "evry"}

// relativeDays name a day counted from today.
var relativeDays = []string{"today", "tomorrow", "tonight", "tmr", "tmrw"}

// workdayLeads say a day is a weekday ("business day", "school days").
var workdayLeads = []string{"business", "working", "work", "biz", "school"}

// dayParts are the parts of a day that settle a bare hour ("3 in the
// afternoon").
var dayParts = []string{"morning", "afternoon", "evening", "night"}

// wordSet is the words of lists as a set.
func wordSet(lists ...[]string) map[string]bool {
	set := map[string]bool{}
	for _, l := range lists {
		for _, w := range l {
			set[w] = true
		}
	}
	return set
}

// weekday reads a day name: "mon", "Monday", "mondays" (plural), "thursdy"
// (one edit from exactly one name).
func weekday(s string) (d int, plural, ok bool) {
	if d, ok := dayIndex[s]; ok {
		return d, false, true
	}
	if strings.HasSuffix(s, "s") && len(s) > 4 {
		if d, ok := dayIndex[s[:len(s)-1]]; ok && len(s) > 5 {
			return d, true, true
		}
		if d, ok := nearMiss(s[:len(s)-1], dayNames); ok {
			return d, true, true
		}
	}
	if d, ok := nearMiss(s, dayNames); ok {
		return d, false, true
	}
	return 0, false, false
}

// Only the long month names take near-misses: "match", "tune" and "jane"
// are words of their own, so March and May take none.
var longMonths = func() []string {
	names := slices.Clone(monthNames)
	names[3], names[5] = "", ""
	return names
}()

// Words one edit from a month name that are words of their own.
var notMonths = map[string]bool{"tune": true, "dune": true, "jane": true, "juno": true, "jung": true, "junk": true, "duly": true,
	"jury": true, "judy": true, "julie": true, "apron": true}

var monthMisspelt = map[string]int{}

func month(s string) (int, bool) {
	if m, ok := monthIndex[s]; ok {
		return m, true
	}
	if m, ok := monthMisspelt[s]; ok {
		return m, true
	}
	if notMonths[s] {
		return 0, false
	}
	return nearMissMin(s, longMonths, 4)
}

// nearMiss returns the index of the one name in names (of 6 letters or
// more) that s is one edit from; ok is false when none or several are.
func nearMiss(s string, names []string) (int, bool) { return nearMissMin(s, names, 6) }

// nearMissMin is nearMiss for names of at least minLen letters.
func nearMissMin(s string, names []string, minLen int) (int, bool) {
	if len(s) < 4 {
		return 0, false
	}
	found := -1
	for i, n := range names {
		if len(n) < minLen || !oneEdit(s, n) {
			continue
		}
		if found >= 0 {
			return 0, false
		}
		found = i
	}
	return found, found >= 0
}

// oneEdit reports whether a becomes b by one insertion, deletion,
// substitution or swap of neighbours.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	switch {
	case la == lb:
		diff := -1
		for i := 0; i < la; i++ {
			if a[i] != b[i] {
				if diff >= 0 {
					// a swap of neighbours
					return i == diff+1 && a[diff] == b[i] && a[i] == b[diff] && a[i+1:] == b[i+1:]
				}
				diff = i
			}
		}
		return true
	case la == lb+1:
		a, b = b, a
		fallthrough
	case la+1 == lb:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}

var numberWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "ninety": 90,
}

// number reads "12" or "twelve"; ok is false when s is not a whole number.
func number(s string) (n int, ok bool) {
	if n, ok := numberWords[s]; ok {
		return n, true
	}
	if s == "" || len(s) > 7 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// valueOf is the value of s, a number the caller has matched already (a
// date's digits); 0 when it is not one, which no date or time takes.
func valueOf(s string) int {
	n, _ := number(s)
	return n
}

// numberIn reports whether s reads as a whole number from lo to hi.
func numberIn(s string, lo, hi int) bool {
	n, ok := number(s)
	return ok && n >= lo && n <= hi
}

var ordinalWords = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
	"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
	"seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}

// ordinal reads "15th", "1st", "fifteenth" (up to 99th); ok is false when
// s is not one.
func ordinal(s string) (n int, ok bool) {
	if n, ok := ordinalWords[s]; ok {
		return n, true
	}
	if len(s) < 3 {
		return 0, false
	}
	suf := s[len(s)-2:]
	if suf != "st" && suf != "nd" && suf != "rd" && suf != "th" {
		return 0, false
	}
	if n, ok = number(s[:len(s)-2]); !ok || n > 99 {
		return 0, false
	}
	return n, true
}

// ordinalIn reports whether s reads as an ordinal from lo to hi.
func ordinalIn(s string, lo, hi int) bool {
	n, ok := ordinal(s)
	return ok && n >= lo && n <= hi
}

// unit reads a unit of time: "minute", "mins", "h", "hrs", "days", "wk".
func unit(s string) string {
	switch s {
	case "s", "sec", "secs", "second", "seconds":
		return "second"
	case "m", "min", "mins", "minute", "minutes", "mn", "minuets":
		return "minute"
	case "h", "hr", "hrs", "hour", "hours":
		return "hour"
	case "d", "day", "days":
		return "day"
	case "w", "wk", "wks", "week", "weeks":
		return "week"
	case "fortnight", "fortnights":
		return "fortnight"
	case "month", "months": // not "mo": Monday or month?
		return "month"
	case "year", "years", "yr", "yrs":
		return "year"
	}
	return ""
}

// compactDuration reads "2h", "90m", "1d", "10min", "1.5h"; seconds is 0
// when s is not one.
func compactDuration(s string) (seconds float64) {
	// 1h30m, 1d3h: several parts; 1h30: the minutes after the hours
	var total float64
	hours := false
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		j := i
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		if hours && i == len(s) && i <= 2 {
			if m, err := strconv.Atoi(s); err == nil && m < 60 {
				return total + float64(m)*60
			}
		}
		part := compactPart(s[:j])
		hours = part > 0 && (s[i:j] == "h" || s[i:j] == "hr" || s[i:j] == "hrs")
		if part == 0 {
			return 0
		}
		total += part
		s = s[j:]
	}
	return total
}

func compactPart(s string) (seconds float64) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 || i == len(s) {
		return 0
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0
	}
	u := unit(s[i:])
	if u == "" || u == "fortnight" || u == "month" || u == "year" {
		return 0
	}
	return n * unitSeconds[u]
}

var unitSeconds = map[string]float64{"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400, "fortnight": 14 * 86400}

// rangeWords join the two ends of a range of days, dates or months:
// "mon-fri", "Jan through Mar", "the 1st to the 15th".
var rangeWords = []string{"-", "through", "thru", "to", "till", "until", "til"}

// backReferences point back to the job last spoken of: "pause it",
// "delete that". A management message whose other words name no job
// means that job only with one of these (NL_SPEC 14).
var backReferences = []string{"it", "its", "that", "this"}
