package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// sampled is what a schedule's fires fell on, sampled by sampleFires.
type sampled struct {
	dow, mon, dom [32]bool        // weekdays, months, days of the month
	hm            map[[2]int]bool // times of day
	n             int             // fires sampled; 0: it never fires
}

// sampleFires samples a schedule's fires from its start: every fire for a
// while (the times of day), then the first fire of each day for six weeks
// (the days), then of each month (the months), for a year.
func sampleFires(sp *scheduler.Spec, c *compiled, now time.Time) sampled {
	f := sampled{hm: map[[2]int]bool{}}
	from := now
	if !c.startAt.IsZero() {
		from = c.startAt.Add(-time.Second)
	}
	horizon := now.AddDate(1, 0, 1)
	if !c.startAt.IsZero() {
		horizon = c.startAt.AddDate(1, 0, 1)
	}
	loc := now.Location()
	daily := from.AddDate(0, 0, 45)
	for t, ok := sp.Next(from); ok && (f.n == 0 || !t.After(horizon)) && f.n < 600; t, ok = sp.Next(t) {
		l := t.In(loc)
		f.dow[l.Weekday()], f.mon[l.Month()], f.dom[l.Day()] = true, true, true
		f.hm[[2]int{l.Hour(), l.Minute()}] = true
		f.n++
		switch {
		case f.n > 60 && t.After(daily):
			t = time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, loc).Add(-time.Minute)
		case f.n > 60:
			t = time.Date(l.Year(), l.Month(), l.Day(), 23, 59, 0, 0, loc)
		}
	}
	return f
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
	f := sampleFires(sp, c, now)
	gotDow, gotMon, gotDom, gotHM := f.dow, f.mon, f.dom, f.hm
	if f.n == 0 {
		return "That schedule would never fire. When should it run?"
	}
	named := readNames(s.blocks, s.body)
	from := now
	if !c.startAt.IsZero() {
		from = c.startAt
	}
	jumps := map[[2]int]map[[2]int]bool{}
	jumpOf := func(hm [2]int) map[[2]int]bool {
		if jumps[hm] == nil {
			jumps[hm] = skippedAt(hm, from)
		}
		return jumps[hm]
	}
	dstShift := func(h, m int) bool {
		// a wall time skipped by DST fires at the jump: 02:30 -> 03:00
		// (New York), 03:15 -> 03:45 (Chatham)
		for j := range jumpOf([2]int{h, m}) {
			if gotHM[j] {
				return true
			}
		}
		return false
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
				if slices.ContainsFunc(named.clocks, func(x [2]int) bool { return jumpOf(x)[hm] }) {
					continue
				}
				return fmt.Sprintf("The schedule I built would also run at %s, which you didn't name. Could you say the time again?", clockText(hm))
			}
		}
	}
	return ""
}

// skippedAt is the wall times at which a clock time fires on the days of
// the year from `from` whose clocks skip it (DESIGN §5: at the jump, such
// as 03:00 for 02:30 in New York, 03:45 for 03:15 in Chatham).
func skippedAt(hm [2]int, from time.Time) map[[2]int]bool {
	out := map[[2]int]bool{}
	loc := from.Location()
	for d := range 400 {
		t := time.Date(from.Year(), from.Month(), from.Day()+d, hm[0], hm[1], 0, 0, loc)
		if t.Hour() != hm[0] || t.Minute() != hm[1] {
			// the jump, the bound of t's zone period nearest it: Go may
			// normalise a skipped time to either side of the gap
			start, end := t.ZoneBounds()
			j := start.In(loc)
			if end.After(t) && end.Sub(t) < t.Sub(start) {
				j = end.In(loc)
			}
			out[[2]int{j.Hour(), j.Minute()}] = true
		}
	}
	return out
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
	partOf := func(b []tok) (part string) {
		for _, t := range b {
			switch t.s {
			case "morning", "afternoon", "evening", "night", "tonight", "mornings", "afternoons", "evenings", "nights":
				part = strings.TrimSuffix(t.s, "s")
			}
		}
		return part
	}
	said := "" // a part said in one block settles a clock in another ("sunday night … at 8:30")
	for _, b := range blocks {
		said = cmp.Or(partOf(b), said)
	}
	for _, b := range blocks {
		except := false
		part := cmp.Or(partOf(b), said)
		skipTo := 0
		for k, t := range b {
			if k < skipTo {
				continue
			}
			s := t.s
			if k > 0 && compactDuration(s) > 0 && (b[k-1].s == "in" || slices.Contains(looseWords, b[k-1].s)) {
				continue // "in 1h30": an offset, not half past one
			}
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
					if _, isOrdinal := ordinal(s); t.kind == tNum && !isOrdinal {
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
				if s == "weekday" || s == "weekdays" || s == "weekend" || s == "weekends" || s == "workdays" || slices.Contains(workdayLeads, s) {
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
				if d, ok := ordinal(s); ok && d >= 1 && d <= 31 && !isBoundWord(b, k) && !isNth(b, k) {
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
		case "on":
			return eventOn(b, j) // "until the exam on dec 15": the end's day
		case "before":
			return j > 0 && slices.Contains([]string{"day", "days", "week", "weeks"}, b[j-1].s) // "2 days before dec 1"
		case "every", "each", "at", ",", "and", "except":
			return false
		}
	}
	return false
}

// eventOn says whether the "on" at b[j] follows an event named after an
// end ("until the exam on", "till my trip on"): words only, back to
// "until" and "the" or a possessive (parser.skipEvent).
func eventOn(b []tok, j int) bool {
	for i := j - 2; i >= 0 && i >= j-6; i-- {
		if b[i].kind != tWord {
			return false
		}
		if slices.Contains([]string{"until", "till", "til"}, b[i].s) {
			return slices.Contains([]string{"the", "my", "our", "his", "her", "their", "your"}, b[i+1].s)
		}
	}
	return false
}

// isNth: "the 2nd Friday", "3rd of January" keep the ordinal; "the 1st
// Monday" does not name day 1.
func isNth(b []tok, k int) bool {
	// "2nd and 4th Tuesday": past the list of ordinals
	for k+2 < len(b) && (b[k+1].s == "and" || b[k+1].s == "," || b[k+1].s == "&") && (ordinalIn(b[k+2].s, 1, 99) || b[k+2].s == "last") {
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
		if slices.Contains([]string{"weekday", "workday", "day"}, b[k+1].s) || slices.Contains(workdayLeads, b[k+1].s) {
			return true
		}
	}
	return false
}

func isMonthTok(t tok) bool { _, ok := month(t.s); return ok }
