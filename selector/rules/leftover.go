package rules

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// The words left in a message's text: none may be a piece of a schedule
// the grammar did not read (NL_SPEC decision 24).

// unknownDay finds, at the end of t, a day or a time said by something
// the grammar does not know: a holiday ("on Presidents Day", "every
// valentine's day"), a person's day ("on his birthday"), an event
// ("after the meeting").
func unknownDay(t []tok, afterWhen bool) (span string, why problem, found bool) {
	// "call Sam on his birthday", "on Presidents Day", "on a weekday": a
	// day the grammar does not know, named just before the when
	for k := max(len(t)-5, 0); k < len(t); k++ {
		named := t[k+1:]
		if slices.Contains([]string{"every", "each", "this", "next"}, t[k].s) && tokAt(t, k+1).s != "-" {
			// "every valentine's day", "each christmas eve": a holiday
			// the grammar does not know, said as a recurrence
			if slices.ContainsFunc(named, func(x tok) bool {
				return strings.HasSuffix(x.s, "'s") || x.s == "eve" || holidayWords[x.s]
			}) && slices.ContainsFunc(named, func(x tok) bool { return x.s == "day" || x.s == "eve" || holidayWords[x.s] }) {
				return spanText(t[k:]), problem{}, true
			}
			continue
		}
		if !slices.Contains([]string{"on", "for", "before", "after", "until", "till", "by", "around", "during", "over"}, t[k].s) {
			continue
		}
		if slices.ContainsFunc(named, func(x tok) bool { return x.kind == tNum || ordinalIn(x.s, 1, 99) }) {
			continue // "on day 45", "on the 3rd day": the checks below
		}
		for _, x := range named {
			if strings.HasSuffix(x.s, "day") || strings.HasSuffix(x.s, "days") || holidayWords[x.s] || x.s == "weekend" || x.s == "eve" || x.s == "moon" {
				var why problem
				if slices.ContainsFunc(named, func(x tok) bool { return holidayWords[x.s] }) {
					why = refusal("I can't follow holidays that move from year to year. I can schedule a fixed date instead.")
				}
				return spanText(t[k:]), why, true
			}
		}
	}
	// "call Sam after the meeting", "before lunch": a time said by an event
	for k := max(len(t)-4, 0); k < len(t)-1; k++ {
		if afterWhen && !slices.ContainsFunc(t[k:], timeBearing) && (t[k].s == "before" || t[k].s == "after") && asksItself(t) {
			continue // "…: did everyone update the changelog before tagging the release?": the question's
		}
		if slices.Contains([]string{"after", "before", "during", "until", "till", "once", "when", "whenever"}, t[k].s) && k > 0 &&
			!(t[k].s == "during" && slices.Contains(possessives, tokAt(t, k+1).s) && dutyWords(t[k:]) > 0) { // "during my shift": which hours?
			return spanText(t[k:]), problem{}, true
		}
	}
	return "", problem{}, false
}

// leftover returns the part of the message text that reads like a piece
// of a schedule the grammar did not take ("every 2/14 and" in "post x every
// 2/14 and 8/14 at noon" if the dates were not read): such a message was
// not understood, and pushing those words into the post would be wrong.
// Words about time inside the text ("the monday report", "the 2024
// report") are text when they stand between other words.
func leftover(t []tok, now time.Time, afterWhen bool) (span string, why problem) {
	if span, why, found := unknownDay(t, afterWhen); found {
		return span, why
	}
	skip := 0
	for k, x := range t {
		if k < skip {
			continue
		}
		next := ""
		if k+1 < len(t) {
			next = t[k+1].s
		}
		last := k == len(t)-1
		bad := false
		switch {
		case x.kind == tQuote:
		case hyphenated(t, k):
			// "daily-report", "weekly-sync": one name, not a when
		case (x.s == "except" || x.s == "excluding") && k == 0 && afterWhen:
			bad = true // "every hour 9-17 except lunch to stretch": an exception not read
		case x.s == "during" && slices.Contains(possessives, next) && dutyWords(t[k:]) > 0:
			// "every hour during my on-call shift": which hours?
			n := dutyWords(t[k:])
			bad, skip = true, k+n
			why = askTimeFor(t[k:k+n], "Which hours exactly? For example “from 9am to 5pm”.")
		case x.kind == tWord && next == "time" && (x.cap && k == 0 && afterWhen || zoneishWords[x.s]):
			bad = true // "9am Mars time", "server time": a zone not known; "pacific" answers in its place
			why = askTimeFor(t[k:k+2], "I don't know the timezone “"+x.s+" time”. Which one is it? Name a city or an IANA id such as Europe/Berlin.")
		case x.kind == tWord && next == "/" && k+2 < len(t) && t[k+2].kind == tWord && t[k+1].i == x.j && t[k+2].i == t[k+1].j &&
			(zoneAreas[x.s] || x.cap && t[k+2].cap && k == 0 && afterWhen && len(x.s) > 2 && len(t[k+2].s) > 2) &&
			!knownZone(x.s+"/"+t[k+2].s):
			// "Europe/Atlantis", "9am Mars/Olympus": a zone id not known; "to
			// Sarah/Tom", "call the Europe/Berlin office" are the text's
			bad = true
			why = askTime("I don't know the timezone “" + x.s + "/" + t[k+2].s + "”. Which one is it? Use an IANA id such as Europe/Berlin.")
		case x.kind == tWord && countRe.MatchString(x.s):
			bad = true // "buy milk x2": a count
		case last && (x.s == "please" || x.s == "pls" || x.s == "plz") && k > 0:
			// "post retro notes please in #eng": is "please" the message's?
			bad = true
			why = askTime("Should the message end with “" + x.s + "”? Put the message in quotes to say exactly what to post.")
		case x.kind == tWord && (x.s == "ev" || x.s == "evy" || x.s == "nxt" || x.s == "lst" || x.s == "alt"):
			bad = true // "ev weekday", "nxt tue": abbreviations of schedule words
		case x.kind == tWord && slices.Contains([]string{"last", "past", "previous", "prior", "preceding", "following", "coming", "upcoming"}, x.s) && (unit(next) != "" && len(next) > 1 || timeBearing(tokAt(t, k+1)) || next == "weekday" || next == "weekend"):
			bad = true // "last week", "past monday"
			if x.s == "last" || x.s == "past" || x.s == "previous" {
				why = refusal("That is in the past. When should it be instead?")
			}
		case x.kind == tWord && nearDayWord(x.s) && k > 0 && slices.Contains([]string{"on", "every", "each", "next", "this", "until", "till", "by"}, t[k-1].s):
			bad = true // "on tusdae": a day name two edits off
		case x.kind == tWord && misspeltWhenWord(x.s):
			bad = true // "evrey day", "tommorow": a schedule word misspelt past what is read
		case strongTime(x):
			bad = true
		case timeBearing(x):
			// A day or month name, a number or an ordinal in the message's
			// own words ("ship it friday", "3 tips") may be a piece of the
			// schedule that was not read: ask, and say that quotes keep
			// them in the message (NL_SPEC decision 24).
			bad = true
		case adjectives[x.s] && !last && tokAt(t, k+1).kind == tWord && !timeBearing(tokAt(t, k+1)) && unit(next) == "" && !recurWords[next]:
			// "the daily report", "our weekly sync"
		case (x.s == "every" || x.s == "each" || x.s == "evry" || x.s == "alternate") && !last && (whenish[next] || timeBearing(tokAt(t, k+1)) || unit(next) != ""):
			bad = true // "every other weekend", "every so often": a recurrence not read
			for n := len(t) - k; n >= 1; n-- {
				if _, _, y := parseBlock(t[k:k+n], when{}, now); y.found() {
					why = y
					break
				}
			}
		case vagueFrequency[x.s] || x.s == "on" && next == "and" && tokAt(t, k+2).s == "off":
			bad = true // "sometimes", "on and off": how often?
		case (x.s == "bi" || x.s == "semi") && last, x.s == "twice" || x.s == "thrice" || x.s == "once" && !last || x.s == "ago" || x.s == "or" && next == "so" || x.s == "ish" || x.s == "sharp" && last:
			bad = true // a count, a past or an approximation left in the text
			if x.s == "ago" {
				why = refusal("That is in the past. When should it be instead?")
			}
		case (x.s == "around" || x.s == "about" || x.s == "approximately" || x.s == "approx" || x.s == "roughly") && last:
			bad = true // "at around 9": when exactly?
		case (x.s == "few" || x.s == "couple" || x.s == "several" || x.s == "some") && (unit(next) != "" || next == "of" && unit(tokAt(t, k+2).s) != "" || unit(tokAt(t, k+2).s) != ""):
			bad = true // "in a few days": how many?
		case x.s == "till" && last && k > 0 && slices.Contains([]string{"the", "a", "my", "our"}, t[k-1].s):
			// "count the till": the cash drawer, nothing after it to end at
		case recurWords[x.s] && (last || k == len(t)-2):
			bad = true // "every satday" just before the time
			for n := len(t) - k; n >= 1; n-- {
				if _, _, y := parseBlock(t[k:k+n], when{}, now); y.found() {
					why = y
					break
				}
			}
		case leadWords[x.s]:
			for n := min(6, len(t)-k); n >= 1 && !bad; n-- {
				_, ok, y := parseBlock(t[k:k+n], when{}, now)
				if ok && (n > 1 || recurWords[x.s]) {
					bad = true
				}
				if y.found() {
					bad, why = true, y
				}
			}
		}
		if bad {
			lo, hi := k, k+1
			for lo > 0 && (timeBearing(t[lo-1]) || recurWords[t[lo-1].s] || slices.Contains(whenPreps, t[lo-1].s) || listWords[t[lo-1].s]) {
				lo--
			}
			for hi < len(t) && (timeBearing(t[hi]) || strongTime(t[hi]) || recurWords[t[hi].s] || slices.Contains(whenPreps, t[hi].s) || listWords[t[hi].s] || unit(t[hi].s) != "" || leadWords[t[hi].s] || hi <= k+1 && t[hi].kind == tWord) {
				hi++
			}
			return spanText(t[lo:hi]), why
		}
	}
	return "", problem{}
}

// misspeltWhenWord: one edit from a word that says when, and not a word
// of its own.
func misspeltWhenWord(s string) bool {
	if len(s) < 4 || realWords[s] {
		return false
	}
	words := []string{"every", "daily", "weekly", "monthly", "tomorrow", "tonight", "weekday", "weekdays", "weekend", "weekends", "hourly", "yearly"}
	if slices.Contains(words, s) {
		return false
	}
	for _, w := range words {
		if oneEdit(s, w) {
			return true
		}
	}
	return s == "tommorow" || s == "tommorrow" || s == "tomorow" || s == "2morrow" || s == "2moro" || s == "tonite" || s == "2nite" || s == "2day" || s == "tmorrow"
}

// realWords are one edit from a when word but mean something else.
var realWords = map[string]bool{"ever": true, "very": true, "evert": true, "dairy": true, "dally": true, "daisy": true, "weakly": true,
	"early": true, "nearly": true, "dearly": true, "yearling": true}

// holidayWords name days that move or that the grammar cannot place.
// Not "christmas" nor "good": Christmas is a date, and "good" too common.
var holidayWords = wordSet(movingHolidays, strings.Fields(`black cyber ash super bowl election mlk presidents president's
	columbus gras memorial labor labour veterans independence orthodox mother's father's mothers fathers lunar chinese`))

// zoneAreas begin IANA zone ids.
var zoneAreas = map[string]bool{"europe": true, "america": true, "asia": true, "africa": true, "australia": true, "pacific": true,
	"atlantic": true, "indian": true, "antarctica": true, "arctic": true, "etc": true, "us": true, "canada": true, "brazil": true, "mexico": true, "chile": true}

// zoneishWords before "time" name a zone ("local time", "server time").
var zoneishWords = map[string]bool{"local": true, "their": true, "my": true, "our": true, "your": true, "his": true, "her": true,
	"server": true, "office": true, "hq": true, "standard": true, "daylight": true, "summer": true, "winter": true, "home": true, "company": true, "team": true}

// whenish words after "every" make a recurrence, read or not.
var whenish = wordSet(dayParts, workdayLeads, strings.Fields(`other alternate second third fourth fifth last first weekend weekends weekday
	weekdays weeknight weeknights workday workdays leap so now single couple few several mornings evenings
	nights quarter half time fortnight semester term`))

// vagueFrequency words say how often without saying when.
var vagueFrequency = map[string]bool{"occasionally": true, "sometimes": true, "regularly": true, "periodically": true, "often": true,
	"frequently": true, "semi": true, "bimonthly": true, "biannually": true, "biannual": true, "weeknights": true, "weeknight": true,
	"mornings": true, "evenings": true, "afternoons": true, "nights": true}

// leadWords may start a piece of a schedule.
var leadWords = wordSet(everyWords, frequencyWords, relativeDays, strings.Fields(`everyday at on in next this until till from
	starting for by except weekdays weekends noon midnight once twice within after yesterday`))

// adjectives are frequency words that also describe a noun.
var adjectives = map[string]bool{"daily": true, "weekly": true, "monthly": true, "yearly": true, "hourly": true, "quarterly": true,
	"annual": true, "fortnightly": true, "nightly": true}

func tokAt(t []tok, k int) tok {
	if k >= 0 && k < len(t) {
		return t[k]
	}
	return tok{kind: tOther}
}

// spanText is the tokens as written: a space only where the message had
// one ("st. patrick's day", "2/14,").
func spanText(t []tok) string {
	var b strings.Builder
	for k, x := range t {
		if k > 0 && x.i > t[k-1].j {
			b.WriteByte(' ')
		}
		if x.kind == tQuote {
			b.WriteString("“" + x.s + "”")
			continue
		}
		b.WriteString(x.s)
	}
	return b.String()
}

var whenPreps = append(slices.Clone(everyWords), "at", "on", "next", "this", "until", "till", "from", "by", "before", "after", "except",
	"starting", "in", "through", "thru", "between", "during")

var listWords = map[string]bool{"and": true, ",": true, "&": true, "/": true, "or": true, "-": true, "through": true, "thru": true, "to": true, "till": true, "until": true}

var recurWords = wordSet(everyWords, frequencyWords, relativeDays, []string{"everyday", "until", "till", "except", "weekdays",
	"weekends", "noon", "midnight", "midday"})

// countRe is a count written after the text ("buy milk x2").
var countRe = regexp.MustCompile(`^x\d+$`)

var periodRe = regexp.MustCompile(`^(?:q[1-4]|h[12]|fy\d{2,4}|cy\d{2,4}|w\d{1,2}|wk\d{1,2})$`)

// strongTime: a token that is a time or date on its own.
func strongTime(x tok) bool {
	if x.kind == tNum {
		s := x.s
		switch {
		case strings.Contains(s, ":"):
			_, after, _ := strings.Cut(s, ":")
			return len(after) >= 2 // "9:30", not "1:1"
		case strings.Count(s, "/") >= 1 || len(s) >= 10 && s[4] == '-':
			return true
		case strings.HasSuffix(s, "am") || strings.HasSuffix(s, "pm") || strings.HasSuffix(s, "a") || strings.HasSuffix(s, "p"):
			return true
		}
		return false
	}
	if x.kind != tWord {
		return false
	}
	if _, plural, ok := weekday(x.s); ok && plural {
		return true
	}
	return x.s == "am" || x.s == "pm" || x.s == "noon" || x.s == "midnight" || x.s == "o'clock"
}

// timeBearing: a day or month name, a number or an ordinal.
func timeBearing(x tok) bool {
	if periodRe.MatchString(x.s) {
		return true // "the Q4 plan", "FY27": a period of the calendar
	}
	switch x.kind {
	case tNum:
		return true
	case tWord:
	default:
		return false
	}
	if _, _, ok := weekday(x.s); ok {
		return true
	}
	if _, ok := month(x.s); ok {
		return true
	}
	if stem, ok := strings.CutSuffix(x.s, "'s"); ok && stem != "may" && timeBearing(tok{s: stem, kind: tWord}) {
		return true // "friday's demo", "december's budget"
	}
	return isOrdinalTok(x) || numberWords[x.s] > 0 || x.s == "second"
}

func isOrdinalTok(x tok) bool {
	return ordinalIn(x.s, 1, 99) && x.kind == tNum || ordinalWords[x.s] > 0 && x.s != "second"
}

// possessives open a period only the sender knows ("during my shift").
var possessives = []string{"my", "our", "his", "her", "their", "the"}

// dutyWords is how many words from "during" name a shift ("during my
// on-call shift": 5), 0 for none: up to three words before "shift",
// "shifts", "rota" or "hours".
func dutyWords(t []tok) int {
	for k := 2; k < len(t) && k <= 5; k++ {
		if slices.Contains([]string{"shift", "shifts", "rota", "hours"}, t[k].s) {
			return k + 1
		}
		if t[k].kind != tWord && t[k].s != "-" {
			return 0
		}
	}
	return 0
}

// hyphenated says whether t[k] is a word joined by a hyphen, with no
// space, to a word on either side into a name ("daily-report",
// "weekly-sync"); not "bi-weekly", "mon-fri" nor "every-day".
func hyphenated(t []tok, k int) bool {
	part := func(x tok) bool {
		return x.kind == tWord && !timeBearing(x) && unit(x.s) == "" &&
			!slices.Contains([]string{"bi", "semi", "tri", "twice", "once", "every", "each", "other", "half", "quarter", "past", "mid", "end", "start", "per", "a"}, x.s)
	}
	joined := func(a, b int) bool {
		return a >= 0 && b+1 < len(t) && t[a+1].s == "-" && t[a].j == t[a+1].i && t[a+1].j == t[b+1].i && part(t[a]) && part(t[b+1])
	}
	return t[k].kind == tWord && (joined(k, k+1) || k >= 2 && joined(k-2, k-1))
}
