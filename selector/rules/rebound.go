package rules

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Changes of a job's bounds (NL_SPEC decision 8): "only for 3 weeks",
// "until christmas", "end it on dec 24", "3 more times", "start it next
// monday" change its endAt, count or startAt and nothing else. The bound
// is read by the create grammar, as a new job's would be.

var (
	// keepGoingRe: the job in context, bounded ("make it run for 3 weeks",
	// "only until christmas", "for 2 more weeks", "3 more times only",
	// "starting tomorrow").
	keepGoingRe = regexp.MustCompile(`(?i)^(?:(?:make|have|let)\s+(?:it|that|this)(?:\s+(?:run|go\s+on|continue|repeat|keep\s+going|go))?\s+)?(?:only\s+|just\s+)?((?:for|until|till|til|through|thru|starting)\s+.+?|(?:[0-9]+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:more\s+)?times?)(?:\s+only)?$`)
	// endDayRe: "make it end friday", "have it stop tomorrow": the last
	// day it runs
	endDayRe = regexp.MustCompile(`(?i)^(?:(?:make|have|let)\s+(it|that|this)\s+(?:end|finish|stop|expire)|(?:end|finish|expire)s?)\s+((?:next\s+|this\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow)$`)
	// endJobRe: a job ended on a day ("end it on dec 24", "stop the standup
	// after christmas", "make it stop after christmas", "finish it in 3
	// weeks"): group 1 or 2 names the job.
	endJobRe = regexp.MustCompile(`(?i)^(?:(?:make|have|let)\s+(.+?)\s+(?:end|finish|stop|expire)|(?:end|finish|stop|expire)(?:\s+(.+?))?)\s+(on|after|by|in)\s+(.+)$`)
	// runsLeftRe: "stop after 6 more", "end after 3 more runs".
	runsLeftRe = regexp.MustCompile(`(?i)^until\s+([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten)\s+more(?:\s+(?:times?|runs?|posts?|reminders?))?$`)
	// lengthRe: "make it 3 weeks" of a job that has an end: the length it
	// runs for, from now.
	lengthRe = regexp.MustCompile(`(?i)^(?:make|have)\s+(it|that|this)\s+(?:just\s+|only\s+)?((?:[0-9]+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:days?|weeks?|months?))$`)
	// reboundAskRe and reboundTailRe: what may stand around a change of
	// bounds ("can it start on dec 10?", "until jan 15 actually").
	reboundAskRe  = regexp.MustCompile(`(?i)^(?:can|could|would|will)\s+(?:you\s+|u\s+)?(?:please\s+|pls\s+)?`)
	reboundTailRe = regexp.MustCompile(`(?i)(?:\s+(?:though|tho|actually|instead|then|please|pls|thanks|thx))+$`)
	// startJobRe: the job in context started later ("start it next
	// monday", "make it start on dec 1"). Only "it": "start daily-report
	// every monday" starts a workflow.
	startJobRe = regexp.MustCompile(`(?i)^(?:(?:make|have|let)\s+(it|that|this)\s+(?:start|begin)|(?:start|begin)\s+(it|that|this)|(it|that|this)\s+(?:should\s+)?(?:start|begin)s?)\s+(?:on\s+|from\s+)?(.+)$`)
	moreRe     = regexp.MustCompile(`(?i)\s+more\b`)
	// extendRe: the job in context kept going until a day ("extend it to
	// dec 31", "keep it going until end of january").
	extendRe = regexp.MustCompile(`(?i)^(?:extend|keep|continue|prolong)\s+(it|that|this)(?:\s+(?:going|running|on))?\s+(?:to|until|till|til|through|thru|into)\s+(.+)$`)
)

// rebound reads text as a change of a job's bounds; ok is false when it
// says none.
func rebound(in selector.Input, text string) (selector.Decision, bool) {
	lower := strings.ToLower(strings.TrimRight(strings.TrimSpace(text), ".!? "))
	lower = reboundTailRe.ReplaceAllString(reboundAskRe.ReplaceAllString(lower, ""), "")
	words, phrase := "it", ""
	if head, last, ok := strings.Cut(lower, ", "); ok && !strings.Contains(last, ", ") && !isWhenWords(in, head) && !hasAction(in, head) {
		if d, ok := rebound(in, last); ok {
			return d, true // "the exam got moved, make it until dec 22"
		}
	}
	switch m := (struct{ keep, end, start, length, endDay []string }{keepGoingRe.FindStringSubmatch(lower), endJobRe.FindStringSubmatch(lower), startJobRe.FindStringSubmatch(lower), lengthRe.FindStringSubmatch(lower), endDayRe.FindStringSubmatch(lower)}); {
	case m.endDay != nil:
		words, phrase = cmp.Or(m.endDay[1], "it"), "until "+m.endDay[2]
	case m.length != nil:
		job := jobRef(in, in.ContextJobID)
		if job == nil || job.EndAt.IsZero() && job.Remaining == 0 || !refersBack(m.length[1]) {
			return selector.Decision{}, false // "make it 2 weeks" of a job with no end: every 2 weeks?
		}
		phrase = "for " + m.length[2]
	case m.keep != nil:
		phrase = moreRe.ReplaceAllString(m.keep[1], "") // "for 2 more weeks": for 2 weeks from now
	case m.end != nil && m.end[3] == "in":
		words, phrase = m.end[1]+m.end[2], "for "+m.end[4]
	case m.end != nil:
		words, phrase = cmp.Or(m.end[1]+m.end[2], "it"), "until "+m.end[4]
		if m.end[3] == "after" {
			phrase = "through " + m.end[4] // "stop after june": June included
		}
		if r := runsLeftRe.FindStringSubmatch("until " + m.end[4]); r != nil {
			phrase = r[1] + " times" // "stop after 6 more": 6 more runs
		} else if f := strings.Fields(m.end[4]); m.end[3] == "after" && len(f) == 2 && runsLeftRe.MatchString("until "+f[0]+" more "+f[1]) {
			phrase = f[0] + " times" // "make it stop after 10 times"
		}
	case m.start != nil:
		words, phrase = m.start[1]+m.start[2]+m.start[3], "starting "+m.start[4]
	case extendRe.MatchString(lower):
		m := extendRe.FindStringSubmatch(lower)
		words, phrase = m[1], "until "+m[2]
	default:
		return selector.Decision{}, false
	}
	if refersBack(words) && in.ContextJobID == "" || !namesJob(in, words) {
		return selector.Decision{}, false
	}
	bound, ok := boundOf(in, phrase)
	if !ok {
		return selector.Decision{}, false
	}
	id, d, ok := pickJobToChange(in, text, words)
	if !ok {
		return d, true
	}
	bound["jobId"] = id
	if start, ok := bound["startAt"].(string); ok {
		if sched, ok := reanchored(jobRef(in, id), start); ok {
			// "every 2 weeks on monday", "starting dec 7": its weeks
			// counted from then, not from when it was made
			bound["schedule"], bound["scheduleType"] = sched, store.ScheduleRRule
		}
	}
	return call("schedule.update", bound), true
}

// reanchored is the schedule of an rrule job that repeats every n weeks
// or days, anchored at its first day on or after start (RFC 3339), at
// its time of day; ok is false for any other job.
func reanchored(job *selector.JobRef, start string) (map[string]any, bool) {
	if job == nil || job.ScheduleType != store.ScheduleRRule || !strings.Contains(job.Schedule.RRule, "INTERVAL=") || job.Schedule.Dtstart == "" {
		return nil, false
	}
	loc, err := scheduler.LoadLocation(job.Schedule.Timezone)
	at, err2 := time.Parse(time.RFC3339, start)
	anchor, err3 := time.Parse("2006-01-02T15:04:05", job.Schedule.Dtstart)
	if err != nil || err2 != nil || err3 != nil {
		return nil, false
	}
	var days []time.Weekday
	for _, p := range strings.Split(job.Schedule.RRule, ";") {
		if v, ok := strings.CutPrefix(p, "BYDAY="); ok {
			for _, d := range strings.Split(v, ",") {
				if i := slices.Index([]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}, d); i >= 0 {
					days = append(days, time.Weekday(i))
				}
			}
		}
	}
	day := at.In(loc)
	for k := 0; k < 7 && len(days) > 0 && !slices.Contains(days, day.Weekday()); k++ {
		day = day.AddDate(0, 0, 1)
	}
	return map[string]any{"rrule": job.Schedule.RRule, "timezone": job.Schedule.Timezone,
		"dtstart": day.Format("2006-01-02") + anchor.Format("T15:04:05")}, true
}

// boundOf is the bound phrase says (endAt, startAt or count), read as a
// new daily job's would be; ok is false when it says none, or more.
func boundOf(in selector.Input, phrase string) (map[string]any, bool) {
	in.Pending, in.ContextJobID = nil, ""
	d := create(in, "post “x” every day at 9am "+phrase)
	var args map[string]any
	if d.Function != "schedule.create" || json.Unmarshal(d.Args, &args) != nil {
		return nil, false
	}
	bound := map[string]any{}
	for _, k := range []string{"endAt", "startAt", "count"} {
		if v, ok := args[k]; ok {
			bound[k] = v
		}
	}
	return bound, len(bound) > 0
}
