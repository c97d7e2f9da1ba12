package rules

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/olebedev/when"
	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/en"
)

// clock is a time of day as written.
type clock struct {
	h, m      int
	ambiguous bool // a bare 1-6 with no am/pm (NL_SPEC decision 2)
}

func (c clock) String() string {
	ap := "AM"
	if c.h >= 12 {
		ap = "PM"
	}
	h := c.h % 12
	if h == 0 {
		h = 12
	}
	return fmt.Sprintf("%d:%02d %s", h, c.m, ap)
}

var (
	secondsRe = regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}\b`)
	noonRe    = regexp.MustCompile(`\b(?:at\s+)?(noon|midday|midnight)\b`)
	// "at 9", "9am", "9:30 pm", "at 17:00", "0600", "at 9 o'clock"
	clockRe = regexp.MustCompile(`(?:\b(at|@)\s*)?\b(\d{1,2})(?:[:.h](\d{2}))?(?:\s*(a\.?m\.?|p\.?m\.?|o'?clock|h\b))?(?:\b|$)`)
	// "0600" as a 24-hour time, only after "at".
	milRe   = regexp.MustCompile(`\bat\s+([01]\d|2[0-3])([0-5]\d)\b|\b(0\d)([0-5]\d)\b`)
	vagueRe = regexp.MustCompile(`\b(morning|afternoon|evening|tonight|night|lunch(?:time)?|eod|end of (?:the )?day|later|soon|sometime)\b`)
)

// takeClocks finds every time of day, blanking them. ok is false when a
// number that looks like a time cannot be one (25:00).
func takeClocks(w *work) (out []clock, err string) {
	if w.has(secondsRe) {
		return nil, "seconds"
	}
	for {
		g := w.take(noonRe, false)
		if g == nil {
			break
		}
		if g[1] == "midnight" {
			out = append(out, clock{h: 0})
		} else {
			out = append(out, clock{h: 12})
		}
	}
	for {
		g := w.take(milRe, false)
		if g == nil {
			break
		}
		if g[1] == "" {
			g[1], g[2] = g[3], g[4]
		}
		h, m := number(g[1]), number(g[2])
		if h > 23 || m > 59 {
			return nil, "bad"
		}
		out = append(out, clock{h: h, m: m})
	}
	text := w.lower
	locs := clockRe.FindAllSubmatchIndex(text, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		l := locs[i]
		grp := func(k int) string {
			if l[2*k] < 0 {
				return ""
			}
			return string(text[l[2*k]:l[2*k+1]])
		}
		at, hs, ms, suffix := grp(1), grp(2), grp(3), strings.ReplaceAll(grp(4), ".", "")
		if l[4] > 0 && (text[l[4]-1] == '.' || text[l[4]-1] == ',') {
			continue // "1.5h": a decimal, not a time
		}
		if suffix == "h" { // "17h": a 24-hour time, as much of Europe writes it
			suffix, at = "", "at"
		}
		// A bare number is a time only after "at" or with a suffix or minutes;
		// "every 2 hours", "5 times", "the 15th" are not times.
		if at == "" && ms == "" && suffix == "" {
			continue
		}
		if at == "" && suffix == "" && ms != "" && text[l[5]] == '.' {
			continue // "release 1.10" is a version, not a time; "at 9.30" is one
		}
		end := l[1]
		if end < len(text) && (unicode.IsLetter(rune(text[end])) && suffix == "") {
			continue // "15th", "2nd"
		}
		if end+1 < len(text) && text[end] == ' ' && ms == "" && suffix == "" && followsUnit(text[end+1:]) {
			continue // "at 5 minutes past"... leave for the interval parser
		}
		h, m := number(hs), 0
		if ms != "" {
			m = number(ms)
		}
		if h < 0 || m > 59 {
			return nil, "bad"
		}
		c := clock{h: h, m: m}
		switch {
		case strings.HasPrefix(suffix, "a"):
			if h < 1 || h > 12 {
				return nil, "bad"
			}
			c.h = h % 12
		case strings.HasPrefix(suffix, "p"):
			if h < 1 || h > 12 {
				return nil, "bad"
			}
			c.h = h%12 + 12
		default: // decision 2: bare hours
			switch {
			case h > 23:
				return nil, "bad"
			case len(hs) == 2 && hs[0] == '0':
				// a leading zero is 24-hour
			case h >= 7 && h <= 11, h == 12, h == 0, h >= 13:
			default: // 1-6
				c.ambiguous = true
			}
		}
		out = append(out, c)
		w.blank(l[0], l[1])
	}
	// Found from the end; put them back in reading order.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, ""
}

var unitWords = regexp.MustCompile(`^(?:min|minute|minutes|mins|hour|hours|hrs|day|days|week|weeks|times|seconds|secs|sec)\b`)

func followsUnit(rest []byte) bool { return unitWords.Match(rest) }

// The date parser for one-time requests: olebedev/when with English casual
// dates, "Dec 3"-style dates and "in 2 hours", corrected below where it is
// wrong for NL_SPEC.
var whenParser = func() *when.Parser {
	p := when.New(&rules.Options{Distance: 5, MatchByOrder: true})
	p.Add(en.CasualDate(rules.Override), en.ExactMonthDate(rules.Override), en.Deadline(rules.Override))
	return p
}()

var (
	relativeRe = regexp.MustCompile(`\b(?:in|within)\s+` + numberPattern + `\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b`)
	casualRe   = regexp.MustCompile(`\b(today|tomorrow|tmr|tonight)\b`)
	monthDayRe = regexp.MustCompile(`\b(?:on\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthPattern + `|` + monthPattern + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?)(?:,?\s+(\d{4}))?\b`)
	isoDateRe  = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2}))?\b`)
	slashRe    = regexp.MustCompile(`\b(?:on\s+)?(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b`)
	// 25.12 and 25.12.2026: day first, as Europe writes dates.
	dotDateRe    = regexp.MustCompile(`\b(?:on\s+)?(\d{1,2})\.(\d{1,2})(?:\.(\d{2,4}))?\b`)
	halfAnHourRe = regexp.MustCompile(`\bin\s+(?:half\s+an\s+hour|a\s+half\s+hour|30\s+mins?)\b`)
	theDomRe     = regexp.MustCompile(`\b(?:on\s+)?the\s+(\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|tenth|fifteenth|twentieth)\b`)
	weekdayRe    = regexp.MustCompile(`\b(?:(next|this|on|coming)\s+)?(` + dayPattern + `)\b`)
)

// date is a calendar day the text names, in the zone of the request.
type date struct {
	y, m, d  int
	relative time.Duration // "in 2 hours": exact, keeps the seconds of now
	isRel    bool
	vague    string // "3/4": which reading is meant is unclear
	weekday  bool   // named by its weekday: rolls a week when today's time passed
	// dayOfMonth: "on the 15th"; rolls a month when today's time passed
	dayOfMonth bool
}

// nextYear is the year of the next occurrence of month/day from now.
func nextYear(now time.Time, m, d int) int {
	if time.Date(now.Year(), time.Month(m), d, 23, 59, 0, 0, now.Location()).Before(now) {
		return now.Year() + 1
	}
	return now.Year()
}

// takeDate finds a one-time date. The day-of-week rules follow NL_SPEC
// decision 10; when's own reading of "next Saturday" differs.
func takeDate(w *work, now time.Time) (*date, bool) {
	if w.take(halfAnHourRe, false) != nil {
		return &date{relative: 30 * time.Minute, isRel: true}, true
	}
	if g := w.take(relativeRe, false); g != nil {
		// when's Deadline rule reads the same phrase; use it for the amount.
		res, err := whenParser.Parse(g[0], now)
		n := number(g[1])
		if err != nil || res == nil || n <= 0 {
			return nil, false
		}
		return &date{relative: res.Time.Sub(now), isRel: true}, true
	}
	if g := w.take(isoDateRe, false); g != nil {
		return &date{y: number(g[1]), m: number(g[2]), d: number(g[3])}, true
	}
	if g := w.take(slashRe, false); g != nil {
		a, b := number(g[1]), number(g[2])
		d := &date{}
		switch {
		case a > 12 && b <= 12: // 22/12: day/month
			d.m, d.d = b, a
		case b > 12 && a <= 12: // 7/13: month/day
			d.m, d.d = a, b
		case a <= 12 && b <= 12:
			d.vague = g[1] + "/" + g[2]
			return d, true
		default:
			return nil, false
		}
		if g[3] != "" {
			d.y = number(g[3])
			if d.y < 100 {
				d.y += 2000
			}
		} else {
			d.y = nextYear(now, d.m, d.d)
		}
		return d, true
	}
	if g := w.take(dotDateRe, false); g != nil {
		d, m := number(g[1]), number(g[2])
		switch {
		case d < 1 || d > 31 || m < 1 || m > 12:
			return nil, false
		case d <= 12 && d != m:
			return &date{vague: g[1] + "." + g[2]}, true
		}
		out := &date{m: m, d: d}
		if g[3] != "" {
			out.y = number(g[3])
			if out.y < 100 {
				out.y += 2000
			}
		} else {
			out.y = nextYear(now, m, d)
		}
		return out, true
	}
	if m := w.find(monthDayRe); m != nil {
		text := string(w.lower[m[0]:m[1]])
		res, err := whenParser.Parse(text, now)
		if err != nil || res == nil {
			return nil, false
		}
		d := &date{y: res.Time.Year(), m: int(res.Time.Month()), d: res.Time.Day()}
		year := ""
		if m[6] >= 0 {
			year = string(w.lower[m[6]:m[7]])
		}
		w.blank(m[0], m[1])
		if year != "" { // a year was written
			d.y = number(year)
		} else if time.Date(d.y, time.Month(d.m), d.d, 23, 59, 0, 0, now.Location()).Before(now) {
			d.y++ // when keeps this year; a date with no year is its next occurrence
		}
		return d, true
	}
	if g := w.take(theDomRe, false); g != nil {
		day := ordinal(g[1])
		if day < 1 || day > 31 {
			return nil, false
		}
		// The next month that has that day, this one included.
		for m := 0; m < 14; m++ {
			t := time.Date(now.Year(), now.Month()+time.Month(m), day, 0, 0, 0, 0, now.Location())
			if t.Day() == day && !t.Before(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())) {
				return &date{y: t.Year(), m: int(t.Month()), d: t.Day(), dayOfMonth: true}, true
			}
		}
		return nil, false
	}
	if g := w.take(casualRe, false); g != nil {
		switch g[1] {
		case "today":
			return &date{y: now.Year(), m: int(now.Month()), d: now.Day()}, true
		case "tonight":
			return &date{vague: "tonight"}, true
		}
		t := now.AddDate(0, 0, 1)
		return &date{y: t.Year(), m: int(t.Month()), d: t.Day()}, true
	}
	if g := w.take(weekdayRe, false); g != nil {
		wd := dayIndex[g[2]]
		ahead := (wd - int(now.Weekday()) + 7) % 7
		if g[1] == "next" {
			// The following Monday-Sunday week.
			daysToMonday := (8 - int(now.Weekday())) % 7
			if daysToMonday == 0 {
				daysToMonday = 7
			}
			ahead = daysToMonday + (wd+6)%7
		}
		t := now.AddDate(0, 0, ahead)
		return &date{y: t.Year(), m: int(t.Month()), d: t.Day(), weekday: g[1] != "next"}, true
	}
	return nil, true
}
