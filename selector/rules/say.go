package rules

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
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

// describeCreate is what a schedule.create call posts and when, in words
// as describe says them; ok is false for another call.
func describeCreate(d selector.Decision, now time.Time) (text, when string, ok bool) {
	var a struct {
		ScheduleType string         `json:"scheduleType"`
		Schedule     store.Schedule `json:"schedule"`
		TargetAction struct {
			FunctionArgs struct {
				Text string `json:"text"`
			} `json:"functionArgs"`
		} `json:"targetAction"`
	}
	if d.Function != "schedule.create" || json.Unmarshal(d.Args, &a) != nil || a.TargetAction.FunctionArgs.Text == "" {
		return "", "", false
	}
	if a.ScheduleType == store.ScheduleInterval && a.Schedule.StartAt.IsZero() {
		a.Schedule.StartAt = now.UTC().Truncate(time.Second)
	}
	sp, err := scheduler.NewSpec(a.ScheduleType, a.Schedule, time.Time{})
	if err != nil {
		return "", "", false
	}
	when = lowerFirst(sp.Describe())
	if a.ScheduleType == store.ScheduleOnce {
		when = "on " + strings.TrimPrefix(sp.Describe(), "Once on ")
	}
	return a.TargetAction.FunctionArgs.Text, when, true
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
