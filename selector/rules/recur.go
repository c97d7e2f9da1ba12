package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// recur is a recurrence as written, before it becomes cron or an interval.
type recur struct {
	every       time.Duration // an interval ("every 15 minutes", "every 2 weeks")
	minuteStep  int           // "every 15 minutes" limited to days: cron */15
	hourStep    int           // "every 4 hours on the hour": cron 0 */4
	onTheHour   bool
	dows        []int
	doms        []int
	months      []int
	daily       bool // "every day", "daily"
	weekly      bool // "weekly" with no day named
	monthly     bool // "monthly" with no day named
	yearly      bool
	dayInterval bool // "every N days/weeks": an interval that must not carry a time or weekday
	atMinute    int  // "hourly at :15"
	hasAtMinute bool
	window      [2]int // "from 9 to 5": hours [from, to); zero: all day
}

var windowRe = regexp.MustCompile(`\b(?:from|between)\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s+(?:to|and|until|till|through|-|–)\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b`)

// takeWindow reads "from 9 to 5" / "between 9am and 5:30pm" as the hours
// a frequent schedule runs in; ok is false when it is unreadable.
func takeWindow(w *work) (from, to int, found, ok bool) {
	g := w.take(windowRe, false)
	if g == nil {
		return 0, 0, false, true
	}
	hour := func(h, ap string) int {
		n := number(h)
		switch {
		case n < 0 || n > 23:
			return -1
		case ap == "am" && n <= 12:
			return n % 12
		case ap == "pm" && n <= 12:
			return n%12 + 12
		}
		return n
	}
	from, to = hour(g[1], g[3]), hour(g[4], g[6])
	if from < 0 || to < 0 || g[2] != "" && g[2] != "00" {
		return 0, 0, true, false
	}
	if g[6] == "" && to <= from && to < 12 {
		to += 12 // "from 9 to 5" ends at 5 pm
	}
	if g[5] != "" && g[5] != "00" {
		to++ // "until 5:30" runs through the 5 o'clock hour
	}
	if to <= from || to > 24 {
		return 0, 0, true, false
	}
	return from, to, true, true
}

func (r *recur) any() bool {
	return r.every > 0 || r.minuteStep > 0 || r.hourStep > 0 || r.onTheHour || len(r.dows) > 0 || len(r.doms) > 0 ||
		len(r.months) > 0 || r.daily || r.weekly || r.monthly || r.yearly
}

// needsTime reports whether the recurrence names days but no time of day.
func (r *recur) needsTime() bool {
	return r.every == 0 && r.minuteStep == 0 && r.hourStep == 0 && !r.onTheHour && !r.hasAtMinute
}

var (
	everyUnitRe     = regexp.MustCompile(`\b(?:every|each)\s+(?:` + numberPattern + `\s*)?(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?)\b`)
	hourlyRe        = regexp.MustCompile(`\b(hourly|every\s+half\s+(?:an\s+)?hour|every\s+quarter\s+(?:of\s+an\s+)?hour|half[- ]hourly)\b`)
	onTheHourRe     = regexp.MustCompile(`\bon\s+the\s+hour\b`)
	everyMonthDayRe = regexp.MustCompile(`\b(?:every|each)\s+(` + monthPattern + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	halfHourRe      = regexp.MustCompile(`\bon\s+the\s+half[\s-]+hour\b|\bat\s+half\s+past\b`)
	otherRe         = regexp.MustCompile(`\b(?:every|each)\s+(?:other|second|2nd|alternate)\s+(days?|weeks?|` + dayPattern + `)\b|\bbi-?weekly\b|\bfortnightly\b`)
	pastHourRe      = regexp.MustCompile(`\b(?:at\s+)?(?::(\d{2})|(\d{1,2})\s+(?:minutes?\s+)?past(?:\s+the\s+hour)?)\b`)
	dailyRe         = regexp.MustCompile(`\b(?:every\s*day|everyday|each\s+day|once\s+a\s+day|every\s+(?:morning|evening|night|afternoon))\b`)
	// A bare "daily", "weekly" is a schedule word only where a schedule
	// phrase follows (or the text ends): "post the weekly report" keeps it.
	genericRe = regexp.MustCompile(`(?:^|\s)(daily|weekly|monthly|yearly|annually|quarterly)(\s+(?:on|at|in|for|until|from|till|by|between|every)\b|\s*[,.!?]|\s*$)`)
	// A bare singular "weekday"/"weekend" is text ("weekend plans"); the
	// plural or a preposition makes it a schedule.
	weekdaysRe    = regexp.MustCompile(`\b(?:every|each|on)\s+(?:weekdays?|business\s+days?|working\s+days?|work\s*days?)\b|\b(?:weekdays|business\s+days|working\s+days|workdays)\b|\b(?:mon(?:day)?)\s*(?:-|to|through|thru|–)\s*(?:fri(?:day)?)\b`)
	weekendsRe    = regexp.MustCompile(`\b(?:every|each|on|at|over)\s+(?:the\s+)?weekends?\b|\bweekends\b`)
	exceptRe      = regexp.MustCompile(`\b(?:except(?:\s+(?:on|for))?|but\s+not(?:\s+on)?|excluding|other\s+than|not\s+on)\s+(?:the\s+)?(weekends?|weekdays?|` + dayPattern + `(?:\s*(?:,|and|or|&)\s*` + dayPattern + `)*)\b`)
	weeklyRe      = regexp.MustCompile(`\b(?:every\s+week|once\s+a\s+week)\b`)
	monthlyRe     = regexp.MustCompile(`\b(?:every\s+month|each\s+month|once\s+a\s+month)\b`)
	quarterlyRe   = regexp.MustCompile(`\bevery\s+quarter\b`)
	yearlyRe      = regexp.MustCompile(`\b(?:every\s+year|each\s+year)\b`)
	dayListRe     = regexp.MustCompile(`\b(?:(?:every|each|on)\s+)?(` + dayPattern + `(?:(?:\s*,\s*(?:and\s+|&\s*|or\s+)?|\s*(?:and|&|or)\s*|\s+)(?:(?:every|on)\s+)?` + dayPattern + `)*)\b`)
	dayRangeRe    = regexp.MustCompile(`\b(?:(?:every|each|on|from)\s+)?(` + dayPattern + `)\s*(?:-|to|through|thru|–)\s*(` + dayPattern + `)\b`)
	domRe         = regexp.MustCompile(`\b(?:(?:on|every)\s+)?(?:the\s+)?((?:\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|tenth|fifteenth|twentieth)(?:\s*(?:,|and|&)\s*(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)|first|fifteenth|tenth|twentieth))*)(?:\s+(?:day\s+)?of\s+(?:every|each|the)\s+month)?\b`)
	inMonthsRe    = regexp.MustCompile(`\b(?:in|during|every|each)\s+(` + monthPattern + `(?:\s*(?:,|and|&)\s*` + monthPattern + `)*)\b`)
	yearDateRe    = regexp.MustCompile(`\b(?:on\s+)?(?:(` + monthPattern + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?|(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthPattern + `))\b`)
	plainDayWords = regexp.MustCompile(dayPattern)
	pluralDaysRe  = regexp.MustCompile(`days\b`)
	monthWordRe   = regexp.MustCompile(monthPattern)
	domPartRe     = regexp.MustCompile(`\d{1,2}(?:st|nd|rd|th)|[a-z]+`)
)

// takeRecur reads the recurrence phrases; why is set when the text asks
// for something NL_SPEC says we cannot express.
func takeRecur(w *work) (r recur, why string) {
	if g := w.take(hourlyRe, false); g != nil {
		switch {
		case strings.Contains(g[1], "half"):
			r.every = 30 * time.Minute
		case strings.Contains(g[1], "quarter"):
			r.every = 15 * time.Minute
		default:
			r.every = time.Hour
		}
	}
	if g := w.take(everyUnitRe, false); g != nil {
		n := 1
		if g[1] != "" {
			n = number(g[1])
		}
		if n <= 0 {
			return r, "I need a whole number of units, such as “every 15 minutes”."
		}
		unit := g[2]
		switch {
		case strings.HasPrefix(unit, "sec"):
			if n < 60 {
				return r, fmt.Sprintf("I can't repeat every %d seconds: the shortest interval is 60 seconds. Try “every minute”.", n)
			}
			r.every = time.Duration(n) * time.Second
		case strings.HasPrefix(unit, "min"):
			r.every = time.Duration(n) * time.Minute
		case strings.HasPrefix(unit, "h"):
			r.every = time.Duration(n) * time.Hour
		case strings.HasPrefix(unit, "day"):
			if n == 1 {
				r.daily = true
			} else {
				r.every, r.dayInterval = time.Duration(n)*24*time.Hour, true
			}
		case strings.HasPrefix(unit, "week"), strings.HasPrefix(unit, "fortnight"):
			if strings.HasPrefix(unit, "fortnight") {
				n *= 2
			}
			if n == 1 {
				r.weekly = true
			} else {
				r.every, r.dayInterval = time.Duration(n)*7*24*time.Hour, true
			}
		case strings.HasPrefix(unit, "month"):
			if n != 1 {
				return r, fmt.Sprintf("I can't repeat every %d months yet: cron can't count months. I can do monthly on a day (“on the 1st of every month”) or every quarter.", n)
			}
			r.monthly = true
		case strings.HasPrefix(unit, "year"):
			if n != 1 {
				return r, "I can't repeat every few years; I can do once a year on a date."
			}
			r.yearly = true
		}
	}
	if g := w.take(otherRe, false); g != nil {
		switch {
		case strings.HasPrefix(g[1], "day"):
			r.every, r.dayInterval = 48*time.Hour, true
		case strings.HasPrefix(g[1], "week"):
			r.every, r.dayInterval = 14*24*time.Hour, true
		default: // a weekday: every other Tuesday
			r.every, r.dayInterval = 14*24*time.Hour, true
			r.dows = []int{dayIndex[g[1]]}
		}
	}
	if w.take(onTheHourRe, false) != nil {
		r.onTheHour = true
	}
	if w.take(halfHourRe, false) != nil { // "every hour on the half hour"
		r.atMinute, r.hasAtMinute = 30, true
	}
	quarterly := w.take(quarterlyRe, false) != nil
	for {
		m := w.find(genericRe)
		if m == nil {
			break
		}
		switch string(w.lower[m[2]:m[3]]) {
		case "daily":
			r.daily = true
		case "weekly":
			r.weekly = true
		case "monthly":
			r.monthly = true
		case "yearly", "annually":
			r.yearly = true
		case "quarterly":
			quarterly = true
		}
		w.blank(m[2], m[3])
	}
	if quarterly {
		r.months = []int{1, 4, 7, 10}
		r.doms = []int{1}
	}
	if w.take(yearlyRe, false) != nil {
		r.yearly = true
	}
	if w.take(monthlyRe, false) != nil {
		r.monthly = true
	}
	if w.take(weeklyRe, false) != nil {
		r.weekly = true
	}
	if w.take(dailyRe, false) != nil {
		r.daily = true
	}
	// "every day except Sunday": read the exceptions first, apply them last.
	var except []int
	if g := w.take(exceptRe, false); g != nil {
		switch {
		case strings.HasPrefix(g[1], "weekend"):
			except = []int{0, 6}
		case strings.HasPrefix(g[1], "weekday"):
			except = []int{1, 2, 3, 4, 5}
		default:
			for _, d := range plainDayWords.FindAllString(g[1], -1) {
				except = append(except, dayIndex[d])
			}
		}
	}
	if w.take(weekdaysRe, false) != nil {
		r.dows = []int{1, 2, 3, 4, 5}
	}
	if w.take(weekendsRe, false) != nil {
		r.dows = append(r.dows, 0, 6)
	}
	if g := w.take(dayRangeRe, false); g != nil {
		a, b := dayIndex[g[1]], dayIndex[g[2]]
		for d := a; ; d = (d + 1) % 7 {
			r.dows = append(r.dows, d)
			if d == b {
				break
			}
		}
	}
	// Day lists need a recurrence word ("every", a plural, or an already
	// found recurrence); a lone "on Friday" is a one-time date.
	// Every day list is looked at: "the monday report every friday" names
	// Friday as the schedule, and Monday stays in the text.
	for _, m := range dayListRe.FindAllSubmatchIndex(w.lower, -1) {
		phrase := string(w.lower[m[0]:m[1]])
		recurring := strings.HasPrefix(phrase, "every") || strings.HasPrefix(phrase, "each") || pluralDaysRe.MatchString(phrase)
		if !recurring {
			continue
		}
		for _, d := range plainDayWords.FindAllString(string(w.lower[m[2]:m[3]]), -1) {
			r.dows = append(r.dows, dayIndex[d])
		}
		w.blank(m[0], m[1])
	}
	if len(r.dows) == 0 && r.any() {
		// "weekly on Friday", "every week on mon and wed": the recurrence
		// is already said, so a plain day list belongs to it.
		if m := w.find(dayListRe); m != nil {
			for _, d := range plainDayWords.FindAllString(string(w.lower[m[2]:m[3]]), -1) {
				r.dows = append(r.dows, dayIndex[d])
			}
			w.blank(m[0], m[1])
		}
	}
	// "every December 24": once a year on that date.
	if g := w.take(everyMonthDayRe, false); g != nil {
		if d := number(g[2]); d >= 1 && d <= 31 {
			r.months, r.doms, r.yearly = []int{monthIndex[g[1]]}, []int{d}, true
		}
	}
	if g := w.take(inMonthsRe, false); g != nil {
		for _, mo := range monthWordRe.FindAllString(g[1], -1) {
			r.months = append(r.months, monthIndex[mo])
		}
	}
	if r.yearly || len(r.months) > 0 {
		if g := w.take(yearDateRe, false); g != nil {
			if g[1] != "" {
				r.months, r.doms = []int{monthIndex[g[1]]}, []int{number(g[2])}
			} else {
				r.months, r.doms = []int{monthIndex[g[4]]}, []int{number(g[3])}
			}
		}
	}
	if m := w.find(domRe); m != nil {
		phrase := string(w.lower[m[0]:m[1]])
		if r.monthly || r.yearly || len(r.months) > 0 || r.any() || strings.Contains(phrase, " month") ||
			strings.Contains(phrase, " and ") || strings.Contains(phrase, ",") || strings.Contains(phrase, "&") {
			g := w.take(domRe, false)
			for _, part := range domPartRe.FindAllString(g[1], -1) {
				if part == "and" || part == "the" {
					continue
				}
				if d := ordinal(part); d >= 1 && d <= 31 {
					r.doms = append(r.doms, d)
				}
			}
			if len(r.doms) > 0 && len(r.months) == 0 {
				r.monthly = true
			}
		}
	}
	if g := w.find(pastHourRe); g != nil && (r.every == time.Hour || r.onTheHour) {
		mm := ""
		if g[2] >= 0 {
			mm = string(w.lower[g[2]:g[3]])
		} else {
			mm = string(w.lower[g[4]:g[5]])
		}
		if n := number(mm); n >= 0 && n < 60 {
			r.atMinute, r.hasAtMinute = n, true
			w.blank(g[0], g[1])
		}
	}
	if len(except) > 0 {
		if len(r.dows) == 0 {
			r.dows = []int{0, 1, 2, 3, 4, 5, 6}
		}
		r.dows = slices.DeleteFunc(r.dows, func(d int) bool { return slices.Contains(except, d) })
		if len(r.dows) == 0 {
			return r, "That leaves no day to run on."
		}
	}
	slices.Sort(r.dows)
	r.dows = slices.Compact(r.dows)
	slices.Sort(r.doms)
	r.doms = slices.Compact(r.doms)
	slices.Sort(r.months)
	r.months = slices.Compact(r.months)
	return r, ""
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// dayFields are the cron day-of-month, month and day-of-week fields.
func (r *recur) dayFields(now time.Time) (dom, month, dow string) {
	dom, month, dow = "*", "*", "*"
	if len(r.doms) > 0 {
		dom = intList(r.doms)
	}
	if len(r.months) > 0 {
		month = intList(r.months)
	}
	if len(r.dows) > 0 {
		dow = intList(r.dows)
		if dow == "1,2,3,4,5" {
			dow = "1-5"
		}
	}
	if r.weekly && len(r.dows) == 0 && len(r.doms) == 0 {
		dow = strconv.Itoa(int(now.Weekday())) // "weekly": on today's weekday
	}
	if (r.monthly || r.yearly) && len(r.doms) == 0 {
		dom = strconv.Itoa(now.Day())
	}
	if r.yearly && len(r.months) == 0 {
		month = strconv.Itoa(int(now.Month()))
	}
	return dom, month, dow
}
