package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// Naming days, months, times and durations in replies.

func uniq(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = itoa(x)
	}
	return strings.Join(s, ",")
}

func clockText(hm [2]int) string { return scheduler.Clock(hm[0], hm[1]) }

func dayList(d []int) string {
	var names []string
	for _, x := range uniq(d) {
		names = append(names, capitalize(dayNames[x]))
	}
	return joinAnd(names)
}

func domList(d []int) string {
	var names []string
	for _, x := range uniq(d) {
		if x == -1 {
			names = append(names, "last day")
			continue
		}
		names = append(names, scheduler.Ordinal(x))
	}
	return joinAnd(names)
}

func monthList(m []int) string {
	var names []string
	for _, x := range uniq(m) {
		names = append(names, time.Month(x).String())
	}
	return joinAnd(names)
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func humanDuration(d time.Duration) string {
	switch {
	case d%(7*24*time.Hour) == 0:
		return plural(int(d/(7*24*time.Hour)), "week")
	case d%(24*time.Hour) == 0:
		return plural(int(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	}
	return plural(int(d/time.Second), "second")
}

func plural(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return itoa(n) + " " + unit + "s"
}

// describe is the schedule in words, for a question.
func describe(c *compiled, now time.Time) string {
	sp, err := specOf(c, now)
	if err != nil {
		return ""
	}
	d := sp.Describe()
	if c.typ == "once" {
		return "on " + strings.TrimPrefix(d, "Once on ")
	}
	return lowerFirst(d)
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
