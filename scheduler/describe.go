package scheduler

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Describe says in English when the spec fires, in its own zone:
// "Every weekday at 8:30 AM", "Every 15 minutes", "Once on Fri 27 Nov 2026 at 9:00 AM".
func (sp *Spec) Describe() string {
	var s string
	switch sp.Type {
	case "cron":
		s = sp.Cron.Describe()
	case "interval":
		s = describeEvery(sp.Every)
		if sp.Every >= 24*time.Hour && !sp.Start.IsZero() {
			// a day or more apart, counted from its start: say that
			// start, or nothing tells the time of day it runs at
			st := sp.Start.In(sp.Loc)
			s += " from " + st.Format("Mon 2 Jan 2006") + " " + Clock(st.Hour(), st.Minute())
		}
	case "once":
		t := sp.RunAt.In(sp.Loc)
		s = "Once on " + t.Format("Mon 2 Jan 2006") + " at " + Clock(t.Hour(), t.Minute())
	case "rrule":
		s = sp.RRule.Describe()
	}
	if !sp.NotBefore.IsZero() {
		nb := sp.NotBefore.In(sp.Loc)
		s += ", starting " + nb.Format("Mon 2 Jan 2006")
		if nb.Hour() != 0 || nb.Minute() != 0 {
			s += " " + Clock(nb.Hour(), nb.Minute()) // a day's start says no time
		}
	}
	if !sp.End.IsZero() {
		s += ", until " + sp.describeEnd()
	}
	if sp.Limit == 1 {
		s += ", once more"
	} else if sp.Limit > 1 {
		s += fmt.Sprintf(", %d more times", sp.Limit)
	}
	if n := len(sp.Skip); n > maxSkipsNamed {
		// "pause it until jan 4": a month of runs, not a list of them
		s += fmt.Sprintf(", except %d runs between %s and %s", n, sp.describeSkip(sp.Skip[0]), sp.describeSkip(sp.Skip[n-1]))
	} else if n > 0 {
		days := make([]string, len(sp.Skip))
		for i, t := range sp.Skip {
			days[i] = sp.describeSkip(t)
		}
		s += ", except " + joinAnd(days)
	}
	return s
}

// maxSkipsNamed is how many runs left out a description names one by
// one; more are counted.
const maxSkipsNamed = 5

// describeEnd says the end as a person would: an end at midnight is the
// last day it runs on, "Tue 31 Mar 2026", not "Wed 1 Apr 2026 12:00 AM".
func (sp *Spec) describeEnd() string {
	e := sp.End.In(sp.Loc)
	if e.Hour() == 0 && e.Minute() == 0 && e.Second() == 0 && e.Nanosecond() == 0 {
		return e.AddDate(0, 0, -1).Format("Mon 2 Jan 2006")
	}
	return e.Format("Mon 2 Jan 2006") + " " + Clock(e.Hour(), e.Minute())
}

// describeSkip names a left-out occurrence by its day ("Thu 24 Dec"), and
// by its time too when the schedule fires more than once that day.
func (sp *Spec) describeSkip(t time.Time) string {
	l := t.In(sp.Loc)
	day := l.Format("Mon 2 Jan")
	y, m, d := l.Date()
	first, ok := sp.next(time.Date(y, m, d, 0, 0, 0, 0, sp.Loc).Add(-time.Nanosecond))
	again, ok2 := sp.next(t)
	sameDay := func(u time.Time) bool { uy, um, ud := u.In(sp.Loc).Date(); return uy == y && um == m && ud == d }
	if (ok && !first.Equal(t) && sameDay(first)) || (ok2 && sameDay(again)) {
		return day + " " + Clock(l.Hour(), l.Minute())
	}
	return day
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// DescribeWithZone is Describe followed by the zone name in parentheses,
// the form stored as a Job's description.
func (sp *Spec) DescribeWithZone() string {
	return sp.Describe() + " (" + ZoneName(sp.Loc) + ")"
}

// ZoneName is a zone's name as people read it: an IANA id, but a fixed
// offset as "UTC+1", not as its Etc id of the opposite sign ("Etc/GMT-1").
func ZoneName(loc *time.Location) string {
	name := loc.String()
	if rest, ok := strings.CutPrefix(name, "Etc/GMT"); ok && len(rest) > 1 {
		return "UTC" + map[byte]string{'-': "+", '+': "-"}[rest[0]] + rest[1:]
	}
	return name
}

func describeEvery(d time.Duration) string {
	secs := int64(d / time.Second)
	units := []struct {
		n    int64
		name string
	}{{7 * 86400, "week"}, {86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}}
	for _, u := range units {
		if secs%u.n == 0 {
			if k := secs / u.n; k != 1 {
				return fmt.Sprintf("Every %d %ss", k, u.name)
			}
			return "Every " + u.name
		}
	}
	return "Every " + d.String()
}

// Clock writes a time of day as descriptions do: "9:30 AM".
func Clock(h, m int) string {
	ap := "AM"
	if h >= 12 {
		ap = "PM"
	}
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	return fmt.Sprintf("%d:%02d %s", h12, m, ap)
}

func members(set uint64, lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v++ {
		if has(set, v) {
			out = append(out, v)
		}
	}
	return out
}

func full(set uint64, lo, hi int) bool { return len(members(set, lo, hi)) == hi-lo+1 }

// step reports whether set is exactly lo, lo+k, lo+2k… up to hi for some k > 1.
func step(set uint64, lo, hi int) (int, bool) {
	m := members(set, lo, hi)
	if len(m) < 2 || m[0] != lo {
		return 0, false
	}
	k := m[1] - m[0]
	for i := range m {
		if m[i] != lo+i*k {
			return 0, false
		}
	}
	if m[len(m)-1]+k <= hi {
		return 0, false
	}
	return k, k > 1
}

func join(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

var dayNames = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
var monthNames = []string{"", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// Ordinal writes n as 1st, 2nd, 3rd, 11th, 21st.
func Ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// days describes the day fields twice: as the head of a sentence ("Every
// weekday") and as a trailing qualifier ("on weekdays"); both empty for
// every day.
func (c *Cron) days() (head, tail string) {
	dows := members(c.dow, 0, 6)
	doms := members(c.dom, 1, 31)
	months := members(c.month, 1, 12)
	allDow, allDom, allMonth := len(dows) == 7, len(doms) == 31, len(months) == 12
	var monthPart string
	if !allMonth {
		var names []string
		for _, m := range months {
			names = append(names, monthNames[m])
		}
		monthPart = join(names)
	}
	var dowHead, dowTail string
	if !allDow {
		switch fmt.Sprint(dows) {
		case "[1 2 3 4 5]":
			dowHead, dowTail = "every weekday", "on weekdays"
		case "[0 6]":
			dowHead, dowTail = "every Saturday and Sunday", "on weekends"
		default:
			var names, plural []string
			for _, d := range dows {
				names = append(names, dayNames[d])
				plural = append(plural, dayNames[d]+"s")
			}
			dowHead, dowTail = "every "+join(names), "on "+join(plural)
		}
	}
	var domPart string
	if !allDom || (!c.domStar && allDow) {
		if k, ok := step(c.dom, 1, 31); ok && c.domStar {
			domPart = fmt.Sprintf("every %d days of the month", k)
		} else if len(doms) >= 3 && contiguous(doms) {
			domPart = "the " + Ordinal(doms[0]) + " to the " + Ordinal(doms[len(doms)-1])
		} else {
			var ords []string
			for _, d := range doms {
				ords = append(ords, Ordinal(d))
			}
			domPart = "the " + join(ords)
		}
	}
	inMonths := ""
	if monthPart != "" {
		inMonths = " in " + monthPart
	}
	switch {
	case domPart == "" && dowHead == "":
		if monthPart == "" {
			return "every day", ""
		}
		return "every day in " + monthPart, "every day in " + monthPart
	case domPart == "":
		return dowHead + inMonths, dowTail + inMonths
	}
	ofMonth := " of every month"
	if monthPart != "" {
		ofMonth = " of " + monthPart
	}
	if dowHead == "" || c.domStar || c.dowStar {
		// AND semantics with a day-of-week list only narrows the dates.
		s := "on " + domPart + ofMonth
		if dowHead != "" {
			s += " when it is a " + join(dayNamesOf(dows))
		}
		return s, s
	}
	// Both day fields restricted: cron fires when either matches (the OR
	// trap: "0 9 1-7 * 1" is not the first Monday), so say so plainly.
	s := "on " + domPart + ofMonth + " or on any " + strings.TrimPrefix(dowHead, "every ") + inMonths
	return s, s
}

func dayNamesOf(dows []int) []string {
	var out []string
	for _, d := range dows {
		out = append(out, dayNames[d])
	}
	return out
}

// Describe says in English when c fires, in its zone's wall time.
func (c *Cron) Describe() string {
	head, tail := c.days()
	mins := members(c.minute, 0, 59)
	hours := members(c.hour, 0, 23)
	allMin, allHour := full(c.minute, 0, 59), full(c.hour, 0, 23)
	withTail := func(s string) string {
		if tail == "" {
			return s
		}
		return s + " " + tail
	}
	_, hourStep := step(c.hour, 0, 23)
	// Fixed times of day: "Every weekday at 8:30 AM".
	if len(mins)*len(hours) <= 6 && !allHour && !(hourStep && len(mins) == 1) {
		var times []string
		for _, h := range hours {
			for _, m := range mins {
				times = append(times, Clock(h, m))
			}
		}
		return capitalize(head) + " at " + join(times)
	}
	hourWindow := ""
	if !allHour {
		if k, ok := step(c.hour, 0, 23); ok {
			hourWindow = fmt.Sprintf("every %d hours", k)
		} else if contiguous(hours) {
			hourWindow = "from " + Clock(hours[0], 0) + " to " + Clock(hours[len(hours)-1], 59)
		}
	}
	switch {
	case allMin && allHour:
		return withTail("Every minute")
	case allMin && hourWindow != "" && !strings.HasPrefix(hourWindow, "every"):
		return withTail("Every minute " + hourWindow)
	}
	if k, ok := step(c.minute, 0, 59); ok {
		s := fmt.Sprintf("Every %d minutes", k)
		switch {
		case allHour:
			return withTail(s)
		case hourWindow != "" && !strings.HasPrefix(hourWindow, "every"):
			return withTail(s + " " + hourWindow)
		}
	}
	if len(mins) == 1 {
		at := fmt.Sprintf(" at %d minutes past", mins[0])
		if mins[0] == 0 {
			at = " on the hour"
		}
		switch {
		case allHour && mins[0] == 0:
			return withTail("Every hour")
		case allHour:
			return withTail("Every hour" + at)
		case strings.HasPrefix(hourWindow, "every"):
			return withTail("E" + hourWindow[1:] + at)
		case hourWindow != "":
			return withTail("Every hour" + at + " " + hourWindow)
		}
	}
	// Anything else, stated field by field.
	s := "At minute " + listOf(mins) + " past hour " + listOf(hours)
	if allHour {
		s = "At minute " + listOf(mins) + " of every hour"
	}
	return withTail(s)
}

func contiguous(v []int) bool {
	for i := 1; i < len(v); i++ {
		if v[i] != v[i-1]+1 {
			return false
		}
	}
	return len(v) > 1
}

func listOf(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.Itoa(x))
	}
	return join(s)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ClockNote says, of the runs given, the first one the clocks moved
// (section 5 of docs/DESIGN.md): a wall time the clocks skip that day
// runs when they jump, and one they repeat runs once, at its first pass.
// It is "" when none was moved. An interval or a wildcard cron runs on
// real time and is never moved; a run at 3:00 AM meant for 3:00 AM is
// not either, unless a 2:00 AM run that day is one with it.
func (sp *Spec) ClockNote(runs []time.Time) string {
	if sp.Type == store.ScheduleInterval || sp.Cron != nil && !sp.Cron.Fixed() {
		return ""
	}
	for _, t := range runs {
		lt := t.In(sp.Loc)
		_, off := lt.Zone()
		_, before := t.Add(-time.Nanosecond).In(sp.Loc).Zone()
		if off > before {
			inGap, at := sp.gapRuns(t, before)
			if inGap == "" {
				continue // a run at its own time, just after the jump
			}
			gap := t.In(time.FixedZone("", before))
			jump, to := Clock(gap.Hour(), gap.Minute()), Clock(lt.Hour(), lt.Minute())
			switch {
			case sp.Type == store.ScheduleOnce:
				// its instant does not say which time was asked: true of both
				return fmt.Sprintf("On %s the clocks jump from %s to %s, so a time between them runs at %s.", lt.Format("Mon 2 Jan"), jump, to, to)
			case at:
				return fmt.Sprintf("On %s the clocks jump from %s to %s, so that day's %s run is the %s one.", lt.Format("Mon 2 Jan"), jump, to, inGap, to)
			}
			return fmt.Sprintf("On %s the clocks jump from %s to %s, so that day's run is at %s.", lt.Format("Mon 2 Jan"), jump, to, to)
		}
		for _, d := range []time.Duration{30 * time.Minute, time.Hour} {
			if u := t.Add(d).In(sp.Loc); u.Format("2006-01-02 15:04") == lt.Format("2006-01-02 15:04") {
				abbr, _ := lt.Zone()
				return fmt.Sprintf("On %[2]s %[1]s comes twice (the clocks go back): that day's run is at the first %[1]s (%[3]s).", Clock(lt.Hour(), lt.Minute()), lt.Format("Mon 2 Jan"), abbr)
			}
		}
	}
	return ""
}

// gapRuns reads the schedule on the day of t, a run at the clocks'
// jump, on the clock before the jump: the first of its times the clocks
// skip ("" for none: t was meant for its own time of day), and whether it
// also has a run at the time t ran (the two are one run). A one-time run
// cannot tell and says it was in the gap.
func (sp *Spec) gapRuns(t time.Time, before int) (inGap string, at bool) {
	fixed := time.FixedZone("", before)
	lt, jump := t.In(sp.Loc), t.In(fixed).Format("15:04")
	next := func(after time.Time) (time.Time, bool) {
		switch sp.Type {
		case store.ScheduleCron:
			return sp.Cron.Next(after, fixed)
		case store.ScheduleRRule:
			return sp.RRule.Next(after, fixed)
		}
		return time.Time{}, false
	}
	if sp.Type == store.ScheduleOnce {
		return Clock(t.In(fixed).Hour(), t.In(fixed).Minute()), false
	}
	n, ok := next(time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, fixed).Add(-time.Nanosecond))
	for ; ok && n.In(fixed).Day() == lt.Day(); n, ok = next(n) {
		switch w := n.In(fixed).Format("15:04"); {
		case w == lt.Format("15:04"):
			at = true
		case w >= jump && w < lt.Format("15:04") && inGap == "":
			inGap = Clock(n.In(fixed).Hour(), n.In(fixed).Minute())
		}
	}
	return inGap, at
}
