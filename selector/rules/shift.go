package rules

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Relative moves (NL_SPEC decision 23): "push the standup back an hour",
// "make it 30 minutes earlier", "move it a day later" shift every time a
// job fires by that much, keeping the rest of its schedule.

// shiftRe: an amount and, maybe, its direction, ending the words of an
// update. Groups: a direction before, "by", the amount, its unit, a
// direction after. Without a direction or "by" it is no move ("every 30
// minutes", "to 2 hours").
var shiftRe = regexp.MustCompile(`(?:^|\s)(?:(back|forward|ahead|up|out)\s+)?(by\s+)?(an?|one|two|three|four|five|six|seven|ten|fifteen|twenty|thirty|forty[- ]five|half\s+an?|\d+)\s*(minutes?|mins?|m|hours?|hrs?|hr|h|days?|d)(?:\s+(later|earlier|sooner|back|forward|ahead))?$`)

// shiftVerbRe: the verbs that say a direction themselves ("delay the
// standup by 15 minutes", "push it 2 hours"); manageSynonyms reads them
// as moves.
var shiftVerbRe = regexp.MustCompile(`^(delay|postpone|push\s+back|push|bring\s+forward|bring)\s+(.+?)(?:\s+(forward|back))?$`)

// dayAfterRe: "make it the day after", "move it to the next day", "the
// day before": a day later or earlier. Groups: the verb, the job, the
// side.
var dayAfterRe = regexp.MustCompile(`^(make|move|change|push|switch|put)\s+(it|that|this|that\s+one|this\s+one|the\s+\S+(?:\s+\S+)?)\s+(?:to\s+|on\s+)?the\s+(?:day\s+(after|before)|(next|following|previous)\s+day)(?:\s+instead)?$`)

// everyDay reports whether j runs every day (or more often): no day of it
// moves a day later.
func everyDay(j *selector.JobRef) bool {
	if j == nil {
		return false
	}
	if j.ScheduleType == store.ScheduleInterval {
		return true
	}
	f := strings.Fields(j.Schedule.Cron)
	return j.ScheduleType == store.ScheduleCron && len(f) == 5 && f[2] == "*" && f[3] == "*" && f[4] == "*"
}

// putOffRe: "put the standup off by a day" is its postponement.
var putOffRe = regexp.MustCompile(`^put\s+(.+?)\s+off\b`)

// shiftWords rewrites "delay X by 15 minutes" as "move X 15 minutes
// later" and "bring X forward an hour" as "move X an hour earlier".
func shiftWords(in selector.Input, lower string) (string, bool) {
	if m := dayAfterRe.FindStringSubmatch(lower); m != nil && !everyDay(jobRef(in, in.ContextJobID)) {
		dir := "later" // "make it the day after": a day later
		if m[3] == "before" || m[3] == "previous" {
			dir = "earlier"
		}
		return "move " + m[2] + " a day " + dir, true
	}
	lower = putOffRe.ReplaceAllString(lower, "postpone $1")
	m := shiftVerbRe.FindStringSubmatch(lower)
	if m == nil {
		// "standup 15 min later": a job's words, then the move (not "post
		// hello 2 hours later", a create)
		if at := shiftRe.FindStringSubmatchIndex(lower); at != nil && at[0] > 0 && (group(lower, at, 1) != "" || group(lower, at, 5) != "") &&
			!startsAction(lower) && namesJob(in, lower[:at[0]]) {
			return "move " + lower, true
		}
		return "", false
	}
	body := strings.TrimSpace(m[2] + " " + m[3])
	at := shiftRe.FindStringSubmatchIndex(body)
	after := ""
	if at != nil {
		after = group(body, at, 5)
	}
	if at == nil || m[1] == "bring" && m[3] != "forward" && group(body, at, 1) != "forward" && after != "forward" && after != "earlier" && after != "sooner" {
		return "", false // "bring water in 2 hours": no move
	}
	whens := []string{"in", "within", "for", "every", "after", "at"}
	if m[1] == "delay" || m[1] == "postpone" {
		whens = []string{"in", "within", "every", "at"} // "delay it for an hour" is by an hour
	}
	if before := strings.Fields(body[:at[0]]); len(before) > 0 && slices.Contains(whens, before[len(before)-1]) {
		return "", false // "delay … in 2 hours", "push … every 2 hours": a when
	}
	dir := "later"
	if strings.HasPrefix(m[1], "bring") {
		dir = "earlier"
	}
	if after == "later" || after == "earlier" || after == "sooner" {
		dir = after
	}
	job := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body[:at[0]]), " for"))
	return "move " + job + " " + body[at[6]:at[9]] + " " + dir, true
}

// shiftOf reads part as a relative move: minutes (negative: earlier),
// and whether part is one at all. dir is 0 when it says no direction
// ("move it by an hour").
func shiftOf(part string) (mins, dir int, ok bool) {
	m := shiftRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(part)))
	if m == nil || !isShift(m) || strings.TrimSpace(shiftRe.ReplaceAllString(strings.ToLower(strings.TrimSpace(part)), "")) != "" {
		return 0, 0, false
	}
	m = append(m[:2], m[3:]...) // without "by"
	n := 1
	switch a := m[2]; {
	case strings.HasPrefix(a, "half"):
		n = 0 // half an hour
	case a == "a" || a == "an" || a == "one":
	case a == "forty-five" || a == "forty five":
		n = 45
	default:
		if v, err := strconv.Atoi(a); err == nil {
			n = v
		} else {
			n = numberWords[a]
		}
	}
	unit := 1
	switch u := m[3]; {
	case strings.HasPrefix(u, "h"):
		unit = 60
	case strings.HasPrefix(u, "d"):
		unit = 24 * 60
	}
	mins = n * unit
	if n == 0 {
		mins = 30
	}
	switch m[1] + m[4] {
	case "later", "back", "out", "backlater":
		dir = 1
	case "earlier", "sooner", "up", "upearlier":
		dir = -1
	}
	return mins, dir, mins > 0 && mins < 7*24*60
}

// shift moves every fire of job by mins.
func shift(in selector.Input, text string, job *selector.JobRef, mins, dir int) selector.Decision {
	if dir == 0 {
		return clarify(in, text, selector.MissingTime, "Earlier or later? Say “"+amountText(mins)+" later” or “"+amountText(mins)+" earlier”.")
	}
	if job == nil {
		return unsupported("I couldn't find that schedule. Say “list my schedules” to see them.")
	}
	delta := mins * dir
	zone := job.Schedule.Timezone
	if zone == "" {
		zone = in.Timezone
	}
	loc, err := scheduler.LoadLocation(zone)
	if err != nil {
		return unsupported("The job's timezone %q is not one I know.", zone)
	}
	say := func() selector.Decision {
		return unsupported("I can't move that schedule by %s: say its new time instead (“move it to 10am”).", amountText(mins))
	}
	switch job.ScheduleType {
	case store.ScheduleOnce:
		t := job.Schedule.RunAt.In(loc)
		w := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute()+delta, 0, 0, time.UTC)
		at := scheduler.WallInstant(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), loc)
		if !at.After(in.Now) {
			return clarify(in, text, selector.MissingTime, at.In(loc).Format("Mon 2 Jan 3:04 PM")+" has already passed. When should it run?")
		}
		return call("schedule.update", map[string]any{"jobId": job.JobID, "scheduleType": "once",
			"schedule": map[string]any{"runAt": at.UTC().Format(time.RFC3339), "timezone": zone}})
	case store.ScheduleCron, store.ScheduleRRule:
		times := oldTimes(job.ScheduleType, job.Schedule, loc)
		if len(times) == 0 {
			return say()
		}
		var hours []int
		minute, days := -1, 0
		for k, hm := range times {
			v := hm[0]*60 + hm[1] + delta
			d := floorDiv(v, 24*60)
			v -= d * 24 * 60
			if k > 0 && (d != days || v%60 != minute) {
				return say() // its times would fall on different days
			}
			days, minute = d, v%60
			hours = append(hours, v/60)
		}
		if job.ScheduleType == store.ScheduleRRule {
			if days != 0 {
				return say()
			}
			var parts []string
			for _, p := range strings.Split(strings.TrimPrefix(job.Schedule.RRule, "RRULE:"), ";") {
				if !strings.HasPrefix(p, "BYHOUR=") && !strings.HasPrefix(p, "BYMINUTE=") {
					parts = append(parts, p)
				}
			}
			parts = append(parts, "BYHOUR="+intList(uniq(hours)), "BYMINUTE="+itoa(minute))
			sched := map[string]any{"rrule": strings.Join(parts, ";"), "timezone": zone}
			if job.Schedule.Dtstart != "" {
				sched["dtstart"] = job.Schedule.Dtstart
			}
			return call("schedule.update", map[string]any{"jobId": job.JobID, "scheduleType": "rrule", "schedule": sched})
		}
		f := strings.Fields(job.Schedule.Cron)
		if days != 0 {
			if f[2] != "*" || f[3] != "*" {
				return say() // dates of the month do not shift by a day
			}
			dows, ok := shiftDows(f[4], days)
			if !ok {
				return say()
			}
			f[4] = dows
		}
		f[0], f[1] = itoa(minute), intList(uniq(hours))
		return call("schedule.update", map[string]any{"jobId": job.JobID, "scheduleType": "cron",
			"schedule": map[string]any{"cron": strings.Join(f, " "), "timezone": zone}})
	}
	return unsupported("That job repeats on an interval: say when it should run instead (“every day at 10am”).")
}

// shiftDows moves a cron day-of-week field of numbers, lists and ranges
// by days.
func shiftDows(field string, days int) (string, bool) {
	if field == "*" {
		return field, true
	}
	var out []int
	for _, part := range strings.Split(field, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || a < 0 || b > 7 || a > b {
			return "", false
		}
		for d := a; d <= b; d++ {
			out = append(out, ((d+days)%7+7)%7)
		}
	}
	out = uniq(out)
	return dowField(out), true
}

// dowField writes days as a cron field, runs of three or more as ranges.
func dowField(days []int) string {
	var parts []string
	for i := 0; i < len(days); {
		j := i
		for j+1 < len(days) && days[j+1] == days[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, itoa(days[i])+"-"+itoa(days[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, itoa(days[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// startsAction reports whether lower opens with the verb of a create
// ("post …", "remind …").
func startsAction(lower string) bool {
	first, _, _ := strings.Cut(lower, " ")
	return slices.Contains(postVerbs, first) || first == "remind" || first == "run" || first == "start"
}

// isShift: a match of shiftRe that says a direction or "by".
func isShift(m []string) bool { return m[1] != "" || m[2] != "" || m[5] != "" }

// submatches are the groups of s found at loc, "" for those unmatched.
func submatches(s string, loc []int) []string {
	out := make([]string, len(loc)/2)
	for k := range out {
		out[k] = group(s, loc, k)
	}
	return out
}

// group is submatch k of s, found at loc, or "".
func group(s string, loc []int, k int) string {
	if loc[2*k] < 0 {
		return ""
	}
	return s[loc[2*k]:loc[2*k+1]]
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// amountText says mins as a person would: "30 minutes", "an hour", "2 days".
func amountText(mins int) string {
	n, unit := mins, "minute"
	switch {
	case mins%(24*60) == 0:
		n, unit = mins/(24*60), "day"
	case mins%60 == 0:
		n, unit = mins/60, "hour"
	}
	switch {
	case n != 1:
		return plural(n, unit)
	case unit == "hour":
		return "an hour"
	}
	return "a " + unit
}
