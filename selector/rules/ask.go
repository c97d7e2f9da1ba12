package rules

import (
	"regexp"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
)

// Questions about jobs, answered from the store: what is paused, what runs
// on a day, when a job last ran, and who changed what (the audit log).

var (
	pausedRe  = regexp.MustCompile(`^(?:what(?:'s|s|\s+is|\s+are)?|which(?:\s+(?:ones?|jobs?|schedules?|reminders?|posts?))?|any(?:thing)?|show(?:\s+me)?|list|are\s+there\s+any|is\s+anything|do\s+i\s+have\s+any|have\s+i)\s+(?:(?:of\s+)?(?:my|our|the)\s+)?(?:(?:jobs?|schedules?|reminders?|posts?|ones?)\s+)?(?:(?:are|is)\s+)?(?:currently\s+|still\s+)?(?:paused|on\s+hold|stopped|suspended)(?:\s+(?:jobs?|schedules?|reminders?|posts?|ones?))?(?:\s+right\s+now|\s+now)?$`)
	agendaRe  = regexp.MustCompile(`^(?:what(?:'s|s|\s+is|\s+are)?|anything|is\s+(?:there\s+)?anything|which\s+(?:jobs?|schedules?|reminders?|posts?)|show(?:\s+me)?|list)\s+(?:(?:jobs?|schedules?|reminders?|posts?)\s+)?(?:(?:is|are)\s+)?(?:on|scheduled|happening|planned|running|coming(?:\s+up)?|due|going\s+out|going\s+on|up|runs?|fires?|posts?|goes\s+out|set)(?:\s+(?:for|on|in|during|this|next|over))?\s*(.*)$`)
	lastRunRe = regexp.MustCompile(`^(?:when\s+(?:did|was|has)\s+(.+?)\s+(?:last\s+(?:run|ran|fire|fired|post|posted|go\s+out|sent|send)|(?:run|ran|fire|fired|post|posted|gone\s+out|go\s+out|sent|send)\s+last(?:\s+time)?|run|ran|fired?|posted?)|did\s+(.+?)\s+(?:run|fire|post|go\s+out|get\s+sent)(?:\s+(?:yet|today|yesterday|last\s+time))?|(?:the\s+)?last\s+(?:run|runs|fire|post)\s+of\s+(.+)|(?:(?:show|give|get)\s+(?:me\s+)?)?(?:the\s+)?(?:run\s+)?history\s+of\s+(?:the\s+)?runs?\s+of\s+(.+)|(?:show|list|give\s+me)\s+(?:the\s+)?(?:recent\s+|past\s+|last\s+)?runs\s+(?:of|for)\s+(.+)|how\s+(?:did|has)\s+(.+?)\s+(?:run|been\s+running|gone|done))$`)
	whoRe     = regexp.MustCompile(`^who\s+(created|made|set\s+up|scheduled|added|paused|stopped|resumed|restarted|changed|updated|edited|modified|moved|deleted|removed|cancel(?:l)?ed|ran|triggered|touched)\s+(.+)$`)
	historyRe = regexp.MustCompile(`^(?:what\s+(?:changed|happened|has\s+changed|was\s+changed|changes\s+were\s+made)|(?:show|list|give\s+me|get)(?:\s+me)?\s+(?:the\s+)?(?:changes|history|audit(?:\s+(?:log|trail))?|activity)|(?:recent\s+)?(?:changes|history|audit(?:\s+(?:log|trail))?|activity))(?:\s+(?:to|of|for|on|in|with|about))?\s*(.*)$`)
)

// whoActions maps the verb of "who paused X" to the audit action.
var whoActions = map[string]string{
	"created": "job.created", "made": "job.created", "set up": "job.created", "scheduled": "job.created", "added": "job.created",
	"paused": "job.paused", "stopped": "job.paused", "resumed": "job.resumed", "restarted": "job.resumed",
	"changed": "job.updated", "updated": "job.updated", "edited": "job.updated", "modified": "job.updated", "moved": "job.updated",
	"deleted": "job.deleted", "removed": "job.deleted", "canceled": "job.deleted", "cancelled": "job.deleted",
	"ran": "job.triggered", "triggered": "job.triggered", "touched": "",
}

// askAbout answers questions about jobs; ok is false when lower is none.
func askAbout(in selector.Input, text, lower string) (selector.Decision, bool) {
	lower = strings.TrimSpace(strings.TrimRight(lower, "?.! "))
	if pausedRe.MatchString(lower) {
		return call("schedule.list", map[string]any{"state": "paused"}), true
	}
	if m := whoRe.FindStringSubmatch(lower); m != nil {
		args := map[string]any{}
		if a := whoActions[strings.Join(strings.Fields(m[1]), " ")]; a != "" {
			args["action"] = a
		}
		return historyOf(in, text, m[2], args)
	}
	if m := lastRunRe.FindStringSubmatch(lower); m != nil {
		words := ""
		for _, g := range m[1:] {
			if g != "" {
				words = g
			}
		}
		if !namesJob(in, words) {
			return selector.Decision{}, false
		}
		id, d, ok := pickJob(in, text, words)
		if !ok {
			return d, true
		}
		return call("schedule.show", map[string]any{"jobId": id, "runs": 5}), true
	}
	if m := historyRe.FindStringSubmatch(lower); m != nil {
		return historyOf(in, text, m[1], map[string]any{})
	}
	if m := agendaRe.FindStringSubmatch(lower); m != nil {
		rest := strings.TrimSpace(m[1])
		if rest == "" && !strings.Contains(lower, "coming") && !strings.Contains(lower, "happening") && !strings.Contains(lower, " due") {
			return selector.Decision{}, false // "what's scheduled": the list
		}
		if from, until, ok := window(in, rest); ok {
			return call("schedule.agenda", map[string]any{"from": from.UTC().Format(time.RFC3339), "until": until.UTC().Format(time.RFC3339)}), true
		}
	}
	return selector.Decision{}, false
}

// historyOf asks the audit log about the job, channel or period words
// name: "the standup", "in #ops this week", "today".
func historyOf(in selector.Input, text, words string, args map[string]any) (selector.Decision, bool) {
	words = strings.TrimSpace(words)
	if from, rest, ok := periodSuffix(in, words); ok {
		args["since"] = from.UTC().Format(time.RFC3339)
		words = rest
	}
	for _, t := range lex(words) {
		if t.kind == tChannel {
			args["channelId"] = channelOf(t.s)
			words = strings.TrimSpace(strings.Replace(words, t.s, "", 1))
			words = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(words, " in"), " to"))
		}
	}
	stripped := strings.TrimSpace(fillerRe.ReplaceAllString(words, " "))
	switch {
	case stripped == "" && args["channelId"] == nil && in.ContextJobID != "" && words != "":
		args["jobId"] = in.ContextJobID // "who paused it"
	case stripped == "":
	default:
		if !namesJob(in, words) {
			return unsupported("I couldn't find a schedule matching “%s”. Say “list my schedules” to see them.", asWritten(text, words)), true
		}
		id, d, ok := pickJob(in, text, words)
		if !ok {
			return d, true
		}
		args["jobId"] = id
	}
	return call("schedule.history", args), true
}

// channelOf is the channel a target token names: the id of <#C…|name>,
// else the #name as written.
func channelOf(s string) string {
	if strings.HasPrefix(s, "<#") {
		id, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(s, "<#"), ">"), "|")
		return id
	}
	return strings.ToLower(s)
}

var periodSuffixRe = regexp.MustCompile(`(?:^|\s+)(?:(?:in|during|over|for)\s+)?(?:the\s+)?(today|yesterday|this\s+week|last\s+week|this\s+month|last\s+month|past\s+week|last\s+7\s+days|past\s+(\d{1,2})\s+days|last\s+(\d{1,2})\s+days|recently|lately)$`)

// periodSuffix reads a trailing "this week", "today", "last 3 days" as the
// start of the period it names.
func periodSuffix(in selector.Input, words string) (time.Time, string, bool) {
	m := periodSuffixRe.FindStringSubmatch(words)
	if m == nil {
		return time.Time{}, words, false
	}
	loc := zoneOf(in)
	now := in.Now.In(loc)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	var from time.Time
	switch p := strings.Join(strings.Fields(m[1]), " "); {
	case p == "today":
		from = day
	case p == "yesterday":
		from = day.AddDate(0, 0, -1)
	case p == "this week":
		from = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case p == "last week" || p == "past week" || p == "last 7 days" || p == "recently" || p == "lately":
		from = day.AddDate(0, 0, -7)
	case p == "this month":
		from = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
	case p == "last month":
		from = day.AddDate(0, -1, 0)
	case m[2] != "" || m[3] != "":
		from = day.AddDate(0, 0, -number(m[2]+m[3]))
	}
	return from, strings.TrimSpace(words[:len(words)-len(m[0])]), true
}

func zoneOf(in selector.Input) *time.Location {
	if loc, err := scheduler.LoadLocation(in.Timezone); err == nil && in.Timezone != "" {
		return loc
	}
	return time.UTC
}

// window reads the period of "what's on <period>": today (what is left of
// it), tomorrow, tonight, this/next week, the weekend, a weekday, a date;
// nothing means the next 7 days.
func window(in selector.Input, words string) (from, until time.Time, ok bool) {
	loc := zoneOf(in)
	now := in.Now.In(loc)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	w := strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimPrefix(words, "for "), "on ")), " ")
	w = strings.TrimPrefix(w, "the ")
	monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	switch w {
	case "", "next", "soon", "the next few days", "the week ahead", "coming up":
		return now, now.AddDate(0, 0, 7), true
	case "today", "for today", "later", "later today", "rest of the day", "rest of today":
		return now, day.AddDate(0, 0, 1), true
	case "tonight", "this evening":
		return now, day.AddDate(0, 0, 1), true
	case "tomorrow", "tmrw", "tmr", "tomorow":
		return day.AddDate(0, 0, 1), day.AddDate(0, 0, 2), true
	case "this week", "week", "rest of the week", "rest of this week":
		return now, monday.AddDate(0, 0, 7), true
	case "next week":
		return monday.AddDate(0, 0, 7), monday.AddDate(0, 0, 14), true
	case "weekend", "this weekend", "the weekend":
		sat := monday.AddDate(0, 0, 5)
		if now.After(sat) {
			sat = now
		}
		return sat, monday.AddDate(0, 0, 7), true
	case "this month", "month", "rest of the month":
		return now, time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, loc), true
	}
	toks := lex(w)
	if len(toks) == 1 {
		if d, plural, isDay := weekday(toks[0].s); isDay && !plural {
			ahead := (d - int(day.Weekday()) + 7) % 7
			start := day.AddDate(0, 0, ahead)
			if ahead == 0 {
				start = now
			}
			return start, day.AddDate(0, 0, ahead+1), true
		}
	}
	// a date: "Dec 24", "the 24th of December", "12/24"
	if wb, ok, _ := parseBlock(toks, when{}, now); ok && wb.date != nil && !wb.rec && len(wb.clocks) == 0 {
		y := wb.date.y
		if y == 0 {
			y = now.Year()
			if time.Date(y, time.Month(wb.date.m), wb.date.d, 0, 0, 0, 0, loc).Before(day) {
				y++
			}
		}
		d := time.Date(y, time.Month(wb.date.m), wb.date.d, 0, 0, 0, 0, loc)
		if d.Before(day) || d.Day() != wb.date.d {
			return time.Time{}, time.Time{}, false
		}
		start := d
		if d.Equal(day) {
			start = now
		}
		return start, d.AddDate(0, 0, 1), true
	}
	return time.Time{}, time.Time{}, false
}
