package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// leftover returns the part of the message text that reads like a piece
// of a schedule the grammar did not take ("every 2/14 and" in "post x every
// 2/14 and 8/14 at noon" if the dates were not read): such a message was
// not understood, and pushing those words into the post would be wrong.
// Words about time inside the text ("the monday report", "the 2024
// report") are text when they stand between other words.
func leftover(t []tok, now time.Time, afterWhen bool) (span string, why problem) {
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
				return spanText(t[k:]), problem{}
			}
			continue
		}
		if !slices.Contains([]string{"on", "for", "before", "after", "until", "till", "by", "around", "during", "over"}, t[k].s) {
			continue
		}
		if slices.ContainsFunc(named, func(x tok) bool { return x.kind == tNum || ordinal(x.s) > 0 }) {
			continue // "on day 45", "on the 3rd day": the checks below
		}
		for _, x := range named {
			if strings.HasSuffix(x.s, "day") || strings.HasSuffix(x.s, "days") || holidayWords[x.s] || x.s == "weekend" || x.s == "eve" || x.s == "moon" {
				if slices.ContainsFunc(named, func(x tok) bool { return holidayWords[x.s] }) {
					why = refusal("I can't follow holidays that move from year to year. I can schedule a fixed date instead.")
				}
				return spanText(t[k:]), why
			}
		}
	}
	// "call Sam after the meeting", "before lunch": a time said by an event
	for k := max(len(t)-4, 0); k < len(t)-1; k++ {
		if slices.Contains([]string{"after", "before", "during", "until", "till", "once", "when", "whenever"}, t[k].s) && k > 0 {
			return spanText(t[k:]), problem{}
		}
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
		case x.kind == tWord && next == "time" && (x.cap && k == 0 && afterWhen || zoneishWords[x.s]):
			bad = true // "9am Mars time", "server time": a zone not known
			why = askTime("I don't know the timezone “" + x.s + " time”. Which one is it? Name a city or an IANA id such as Europe/Berlin.")
		case x.kind == tWord && next == "/" && k+2 < len(t) && t[k+2].kind == tWord && t[k+1].i == x.j && t[k+2].i == t[k+1].j && (zoneAreas[x.s] || x.cap && t[k+2].cap && len(x.s) > 2 && len(t[k+2].s) > 2):
			bad = true // "Europe/Atlantis": a zone id not known
			why = askTime("I don't know the timezone “" + x.s + "/" + t[k+2].s + "”. Which one is it? Use an IANA id such as Europe/Berlin.")
		case x.kind == tWord && regexp.MustCompile(`^x\d+$`).MatchString(x.s):
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
var holidayWords = map[string]bool{"easter": true, "thanksgiving": true, "christmas": false, "black": true, "cyber": true, "ash": true,
	"super": true, "bowl": true, "election": true, "mlk": true, "presidents": true, "president's": true, "columbus": true,
	"mardi": true, "gras": true, "memorial": true, "labor": true, "labour": true, "veterans": true, "independence": true,
	"ramadan": true, "diwali": true, "passover": true, "hanukkah": true, "eid": true, "orthodox": true, "good": false,
	"mother's": true, "father's": true, "mothers": true, "fathers": true, "lunar": true, "chinese": true, "yom": true, "rosh": true}

// zoneAreas begin IANA zone ids.
var zoneAreas = map[string]bool{"europe": true, "america": true, "asia": true, "africa": true, "australia": true, "pacific": true,
	"atlantic": true, "indian": true, "antarctica": true, "arctic": true, "etc": true, "us": true, "canada": true, "brazil": true, "mexico": true, "chile": true}

// zoneishWords before "time" name a zone ("local time", "server time").
var zoneishWords = map[string]bool{"local": true, "their": true, "my": true, "our": true, "your": true, "his": true, "her": true,
	"server": true, "office": true, "hq": true, "standard": true, "daylight": true, "summer": true, "winter": true, "home": true, "company": true, "team": true}

// whenish words after "every" make a recurrence, read or not.
var whenish = map[string]bool{"other": true, "alternate": true, "second": true, "third": true, "fourth": true, "fifth": true, "last": true,
	"first": true, "weekend": true, "weekends": true, "weekday": true, "weekdays": true, "weeknight": true, "weeknights": true,
	"workday": true, "workdays": true, "business": true, "working": true, "leap": true, "so": true, "now": true, "single": true,
	"couple": true, "few": true, "several": true, "morning": true, "afternoon": true, "evening": true, "night": true,
	"mornings": true, "evenings": true, "nights": true, "quarter": true, "half": true, "time": true, "fortnight": true, "semester": true, "term": true}

// vagueFrequency words say how often without saying when.
var vagueFrequency = map[string]bool{"occasionally": true, "sometimes": true, "regularly": true, "periodically": true, "often": true,
	"frequently": true, "semi": true, "bimonthly": true, "biannually": true, "biannual": true, "weeknights": true, "weeknight": true,
	"mornings": true, "evenings": true, "afternoons": true, "nights": true}

// leadWords may start a piece of a schedule.
var leadWords = map[string]bool{}

// adjectives are frequency words that also describe a noun.
var adjectives = map[string]bool{"daily": true, "weekly": true, "monthly": true, "yearly": true, "hourly": true, "quarterly": true,
	"annual": true, "fortnightly": true, "nightly": true}

func init() {
	for _, w := range strings.Fields(`every each evry everyday at on in next this until till from starting for by daily weekly
		monthly yearly annually hourly quarterly biweekly fortnightly nightly today tomorrow tonight tmr tmrw except weekdays
		weekends noon midnight once twice within after yesterday`) {
		leadWords[w] = true
	}
}

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

var whenPreps = []string{"at", "on", "every", "each", "next", "this", "until", "till", "from", "by", "before", "after", "except", "starting", "in", "through", "thru", "between", "during", "evry"}

var listWords = map[string]bool{"and": true, ",": true, "&": true, "/": true, "or": true, "-": true, "through": true, "thru": true, "to": true, "till": true, "until": true}

var recurWords = map[string]bool{"every": true, "each": true, "evry": true, "everyday": true, "daily": true, "weekly": true, "monthly": true,
	"yearly": true, "annually": true, "hourly": true, "quarterly": true, "biweekly": true, "fortnightly": true, "nightly": true,
	"tomorrow": true, "tonight": true, "today": true, "tmr": true, "tmrw": true, "until": true, "till": true, "except": true,
	"weekdays": true, "weekends": true, "noon": true, "midnight": true, "midday": true}

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
	return ordinal(x.s) > 0 && x.kind == tNum || ordinalWords[x.s] > 0 && x.s != "second"
}

// verify re-reads every weekday, month, day of the month and time of day
// the when blocks name, straight from their tokens, and checks that the
// compiled schedule's fires over the next year contain each of them and
// nothing outside them (NL_SPEC decision 24). It returns a question when
// they disagree: a wrong schedule is worse than a question.
func verify(w when, s *sentence, c *compiled, now time.Time) string {
	sp, err := specOf(c, now)
	if err != nil {
		return "I couldn't build that schedule: " + err.Error()
	}
	from := now
	if !c.startAt.IsZero() {
		from = c.startAt.Add(-time.Second)
	}
	horizon := now.AddDate(1, 0, 1)
	if !c.startAt.IsZero() {
		horizon = c.startAt.AddDate(1, 0, 1)
	}
	loc := now.Location()
	var gotDow, gotMon, gotDom [32]bool
	gotHM := map[[2]int]bool{}
	// Every fire for a while (the times of day), then the first fire of
	// each day for six weeks (the days), then of each month (the months),
	// for a year.
	n := 0
	daily := from.AddDate(0, 0, 45)
	for t, ok := sp.Next(from); ok && (n == 0 || !t.After(horizon)) && n < 600; t, ok = sp.Next(t) {
		l := t.In(loc)
		gotDow[l.Weekday()], gotMon[l.Month()], gotDom[l.Day()] = true, true, true
		gotHM[[2]int{l.Hour(), l.Minute()}] = true
		n++
		switch {
		case n > 60 && t.After(daily):
			t = time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, loc).Add(-time.Minute)
		case n > 60:
			t = time.Date(l.Year(), l.Month(), l.Day(), 23, 59, 0, 0, loc)
		}
	}
	if n == 0 {
		return "That schedule would never fire. When should it run?"
	}
	named := readNames(s.blocks, s.body)
	dstShift := func(h, m int) bool {
		// a wall time skipped by DST fires at the jump: 02:30 -> 03:00/03:30
		return gotHM[[2]int{h + 1, m}] || gotHM[[2]int{h + 1, 0}]
	}
	for _, d := range named.dows {
		if !gotDow[d] {
			return fmt.Sprintf("I read “%s” as %s, but the schedule I built would not run on %s. Could you say it another way?", named.word("dow", d), capitalize(dayNames[d]), capitalize(dayNames[d]))
		}
	}
	for _, d := range named.exDows {
		if gotDow[d] {
			return fmt.Sprintf("I read “except %s” but the schedule I built would still run then. Could you say it another way?", named.word("dow", d))
		}
	}
	if len(named.dows) > 0 && len(named.exDows) == 0 && !named.dowRange && c.typ != "once" && len(w.nths) == 0 {
		for d := 0; d < 7; d++ {
			if gotDow[d] && !slices.Contains(named.dows, d) {
				return fmt.Sprintf("The schedule I built would also run on %s, which you didn't name. Could you say the days again?", capitalize(dayNames[d]))
			}
		}
	}
	for _, m := range named.months {
		if !gotMon[m] {
			return fmt.Sprintf("I read “%s” as %s, but the schedule I built would not run in %s. Could you say it another way?", named.word("mon", m), time.Month(m), time.Month(m))
		}
	}
	for _, m := range named.exMons {
		if gotMon[m] {
			return fmt.Sprintf("I read “except %s” but the schedule I built would still run then. Could you say it another way?", named.word("mon", m))
		}
	}
	if len(named.months) > 0 && len(named.exMons) == 0 && !named.monRange && c.typ != "once" {
		for m := 1; m <= 12; m++ {
			if gotMon[m] && !slices.Contains(named.months, m) {
				return fmt.Sprintf("The schedule I built would also run in %s, which you didn't name. Could you say the months again?", time.Month(m))
			}
		}
	}
	for _, d := range named.doms {
		if !gotDom[d] {
			return fmt.Sprintf("I read “%s” as the %s, but the schedule I built would not run on that day. Could you say it another way?", named.word("dom", d), domList([]int{d}))
		}
	}
	if len(named.doms) > 0 && len(w.nths) == 0 && !named.domRange && c.typ != "once" {
		for d := 1; d <= 31; d++ {
			if gotDom[d] && !slices.Contains(named.doms, d) {
				return fmt.Sprintf("The schedule I built would also run on the %s, which you didn't name. Could you say the days again?", domList([]int{d}))
			}
		}
	}
	if w.window != nil || w.unit == "minute" || w.unit == "hour" || w.startClock != nil {
		named.clocks = nil // a window's ends and a step's start are not fires
	}
	for _, hm := range named.clocks {
		if !gotHM[hm] && !dstShift(hm[0], hm[1]) {
			return fmt.Sprintf("I read “%s” as %s, but the schedule I built would not run then. Could you say the time another way?", named.word("clock", hm[0]*60+hm[1]), clockText(hm))
		}
	}
	if len(named.clocks) > 0 && len(w.mins) == 0 && w.unit != "minute" && w.unit != "hour" {
		for hm := range gotHM {
			if !slices.Contains(named.clocks, hm) && !named.hasAmbiguousClock {
				// a time skipped by DST fires at the jump
				if hm[1] == 0 || slices.ContainsFunc(named.clocks, func(x [2]int) bool { return x[0] == hm[0]-1 && x[1] == hm[1] }) {
					continue
				}
				return fmt.Sprintf("The schedule I built would also run at %s, which you didn't name. Could you say the time again?", clockText(hm))
			}
		}
	}
	return ""
}

// names is what the when blocks name, read from their tokens alone.
type names struct {
	dows, exDows, months, exMons, doms []int
	clocks                             [][2]int
	dowRange, monRange, domRange       bool
	hasAmbiguousClock                  bool
	said                               map[string]string // "mon:1" -> "Jan": the words as written
}

// word is how the message wrote the day, month, date or time, for a
// question in the user's words.
func (n names) word(kind string, v int) string {
	if w := n.said[kind+":"+itoa(v)]; w != "" {
		return w
	}
	switch kind {
	case "dow":
		return capitalize(dayNames[v])
	case "mon":
		return time.Month(v).String()
	case "dom":
		return domList([]int{v})
	}
	return clockText([2]int{v / 60, v % 60})
}

// say records how the message wrote a name.
func (n *names) say(kind string, v int, body string, t ...tok) {
	if n.said == nil {
		n.said = map[string]string{}
	}
	k := kind + ":" + itoa(v)
	if _, ok := n.said[k]; ok || len(t) == 0 {
		return
	}
	if t[len(t)-1].j <= len(body) && t[0].i <= t[len(t)-1].j {
		n.said[k] = body[t[0].i:t[len(t)-1].j]
	} else {
		n.said[k] = spanText(t)
	}
}

// readNames reads the blocks' tokens with no grammar: a day or month name
// is named (after "except", excluded); a range or a weekday/weekend word
// names more than its ends; a clock with am/pm, minutes or a 24-hour hour
// names a time of day.
func readNames(blocks [][]tok, body string) names {
	var n names
	for _, b := range blocks {
		except := false
		part := ""
		for _, t := range b {
			switch t.s {
			case "morning", "afternoon", "evening", "night", "tonight", "mornings", "afternoons", "evenings", "nights":
				part = strings.TrimSuffix(t.s, "s")
			}
		}
		skipTo := 0
		for k, t := range b {
			if k < skipTo {
				continue
			}
			s := t.s
			// a time of day, with what is glued to it ("8:05 PM", "quarter to noon")
			if t.kind == tNum || s == "noon" || s == "midnight" || s == "midday" || s == "quarter" || s == "half" || numberWords[s] > 0 {
				p := &parser{t: b, i: k}
				if c, strong, ok := p.readClock(); ok && strong && !isBoundWord(b, k) && !(t.kind == tNum && strings.Contains(s, "/")) {
					if h, amb := c.resolved(part); !amb {
						n.clocks = append(n.clocks, [2]int{h, c.m})
						n.say("clock", h*60+c.m, body, b[k:max(p.i, k+1)]...)
					} else {
						n.hasAmbiguousClock = true
					}
					skipTo = p.i
					if t.kind == tNum && ordinal(s) < 0 {
						continue
					}
				}
			}
			switch {
			case s == "except" || s == "excluding" || s == "but" || s == "skipping" || s == "minus" || s == "save" ||
				s == "not" && k+1 < len(b) && b[k+1].s == "on" || s == "than" && k > 0 && b[k-1].s == "other" || s == "from" && k > 0 && b[k-1].s == "apart":
				except = true
				continue
			case s == "every" || s == "each" || s == "at" || s == "from" || s == "until" || s == "till" || s == "for" || s == "starting" || s == "in" && !except:
				except = false
			}
			if t.kind == tWord {
				if k+1 < len(b) && (b[k+1].s == "-" || b[k+1].s == "through" || b[k+1].s == "thru" || b[k+1].s == "to" || b[k+1].s == "till" || b[k+1].s == "until") {
					if _, _, ok := weekday(s); ok {
						n.dowRange = true
					}
					if _, ok := month(s); ok {
						n.monRange = true
					}
				}
				if d, _, ok := weekday(s); ok && !isBoundWord(b, k) {
					if except {
						n.exDows = append(n.exDows, d)
					} else {
						n.dows = append(n.dows, d)
					}
					n.say("dow", d, body, t)
					continue
				}
				if s == "weekday" || s == "weekdays" || s == "weekend" || s == "weekends" || s == "workdays" || s == "business" || s == "working" {
					n.dowRange = true
				}
				if m, ok := month(s); ok && !isBoundWord(b, k) && (s != "may" || k+1 < len(b) && b[k+1].kind == tNum || k >= 2 && listWords[b[k-1].s] && isMonthTok(b[k-2])) {
					if except {
						n.exMons = append(n.exMons, m)
					} else {
						n.months = append(n.months, m)
					}
					n.say("mon", m, body, t)
				}
				if s == "quarter" || s == "quarterly" {
					n.monRange = true
				}
			}
			if t.kind == tNum {
				if d := ordinal(s); d >= 1 && d <= 31 && !isBoundWord(b, k) && !isNth(b, k) {
					n.doms = append(n.doms, d)
					n.say("dom", d, body, t)
					if k+1 < len(b) && listWords[b[k+1].s] && b[k+1].s != "and" && b[k+1].s != "," && b[k+1].s != "&" && b[k+1].s != "/" && b[k+1].s != "or" {
						n.domRange = true
					}
				}
			}
		}
	}
	return n
}

// isBoundWord: a name that belongs to "until", "starting", "for" or a
// zone, not to the days the schedule fires on.
func isBoundWord(b []tok, k int) bool {
	for j := k - 1; j >= 0 && j >= k-5; j-- {
		switch b[j].s {
		case "until", "till", "til", "through", "thru", "starting", "beginning", "from", "as", "ending", "commencing", "effective", "after", "up":
			if b[j].s == "through" || b[j].s == "thru" || b[j].s == "from" {
				// "monday through friday", "from april to june": a range
				if j > 0 {
					if _, _, ok := weekday(b[j-1].s); ok {
						return false
					}
					if _, ok := month(b[j-1].s); ok {
						return false
					}
				}
				if b[j].s == "from" && j+2 < len(b) && (b[j+2].s == "to" || b[j+2].s == "-" || b[j+2].s == "through") {
					return false
				}
			}
			return true
		case "every", "each", "on", "at", ",", "and", "except":
			return false
		}
	}
	return false
}

// isNth: "the 2nd Friday", "3rd of January" keep the ordinal; "the 1st
// Monday" does not name day 1.
func isNth(b []tok, k int) bool {
	// "2nd and 4th Tuesday": past the list of ordinals
	for k+2 < len(b) && (b[k+1].s == "and" || b[k+1].s == "," || b[k+1].s == "&") && (ordinal(b[k+2].s) > 0 || b[k+2].s == "last") {
		k += 2
	}
	// "2nd to last day", "4th last Friday": counted from the end
	if k+2 < len(b) && b[k+1].s == "to" && b[k+2].s == "last" {
		return true
	}
	if k+1 < len(b) && b[k+1].s == "last" {
		return true
	}
	if k+1 < len(b) {
		if _, _, ok := weekday(b[k+1].s); ok {
			return true
		}
		if u := unit(b[k+1].s); u != "" && len(b[k+1].s) > 1 {
			return true // "every 2nd week": not the 2nd of a month
		}
		if slices.Contains([]string{"weekday", "business", "working", "work", "workday", "day"}, b[k+1].s) {
			return true
		}
	}
	return false
}

func isMonthTok(t tok) bool { _, ok := month(t.s); return ok }
