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
	pausedRe = regexp.MustCompile(`^(?:what(?:'s|s|\s+is|\s+are)?|which(?:\s+(?:ones?|jobs?|schedules?|reminders?|posts?))?|any(?:thing)?|show(?:\s+me)?|list|are\s+there\s+any|is\s+anything|do\s+i\s+have\s+any|have\s+i)\s+(?:(?:of\s+)?(?:my|our|the)\s+)?(?:(?:jobs?|schedules?|reminders?|posts?|ones?)\s+)?(?:(?:are|is)\s+)?(?:currently\s+|still\s+)?(?:paused|on\s+hold|stopped|suspended)(?:\s+(?:jobs?|schedules?|reminders?|posts?|ones?))?(?:\s+right\s+now|\s+now)?$`)
	// whichNextRe: which job runs next
	whichNextRe = regexp.MustCompile(`^which\s+(?:one|job|reminder|post)?\s*(?:is|comes|runs|goes\s+out)\s+(?:up\s+)?next$`)
	// didScheduleRe: "what did I schedule for friday", "what have we got
	// on tomorrow": the agenda of that day
	didScheduleRe = regexp.MustCompile(`^what\s+(?:did|have)\s+(?:i|we)\s+(?:got\s+)?(?:schedule[d]?|set(?:\s+up)?|plan(?:ned)?)?\s*(?:for|on)\s+(.+)$`)
	agendaRe      = regexp.MustCompile(`^(?:what(?:'s|s|\s+is|\s+are)?|anything|is\s+(?:there\s+)?anything|which\s+(?:jobs?|schedules?|reminders?|posts?)|show(?:\s+me)?|list)\s+(?:(?:jobs?|schedules?|reminders?|posts?)\s+)?(?:(?:is|are)\s+)?(?:on|scheduled|happening|planned|running|coming(?:\s+up)?|due|going\s+out|going\s+on|up|runs?|fires?|posts?|goes\s+out|set)(?:\s+(?:for|on|in|during|over))?\s*(.*)$`)
	lastRunRe     = regexp.MustCompile(`^(?:when\s+(?:did|was|has)\s+(.+?)\s+(?:last\s+(?:run|ran|fire|fired|post|posted|go\s+out|sent|send)|(?:run|ran|fire|fired|post|posted|gone\s+out|go\s+out|sent|send)\s+last(?:\s+time)?|run|ran|fired?|posted?)|did\s+(.+?)\s+(?:run|fire|post|go\s+out|get\s+sent)(?:\s+(?:yet|today|yesterday|last\s+time))?|(?:the\s+)?last\s+(?:run|runs|fire|post)\s+of\s+(.+)|(?:(?:show|give|get)\s+(?:me\s+)?)?(?:the\s+)?(?:run\s+)?history\s+of\s+(?:the\s+)?runs?\s+of\s+(.+)|(?:show|list|give\s+me)\s+(?:the\s+)?(?:recent\s+|past\s+|last\s+)?runs\s+(?:of|for)\s+(.+)|how\s+(?:did|has)\s+(.+?)\s+(?:run|been\s+running|gone|done))$`)
	whoRe         = regexp.MustCompile(`^(?:who|has\s+anyone|did\s+anyone|has\s+somebody|did\s+somebody|has\s+someone|did\s+someone)\s+(?:last\s+|just\s+|recently\s+)?(created|made|set\s+up|scheduled|added|paused|stopped|turned\s+off|switched\s+off|resumed|restarted|turned\s+on|changed|change|updated|update|edited|edit|modified|modify|moved|move|deleted|delete|removed|remove|cancel(?:l)?ed|ran|run|triggered|touched|touch)\s+(.+?)(?:\s+(?:recently|lately))?$`)
	historyRe     = regexp.MustCompile(`^(?:what(?:'s|s)?\s+(?:changed|happened|has\s+changed|was\s+changed|changes\s+were\s+made|been\s+changed)|what\s+did\s+(?:people|anyone|someone|somebody|they|we|i)\s+change|(?:show|list|give|get)(?:\s+me)?\s+(?:the\s+)?(?:recent\s+|latest\s+|last\s+)?(?:changes|history|audit(?:\s+(?:log|trail))?|activity)|(?:recent\s+|latest\s+)?(?:changes|history|audit(?:\s+(?:log|trail))?|activity))(?:\s+(?:to|of|for|on|in|with|about))?\s*(.*)$`)
)

var (
	// "list everything", "what do we have scheduled?", "show the #ops reminders"
	listMoreRe = regexp.MustCompile(`^(?:(?:list|show)(?:\s+me)?\s+(?:everything|all|all\s+of\s+(?:it|them)|mine|it\s+all)|what\s+(?:do|have)\s+(?:we|i|you)\s+(?:have|got)\s+(?:scheduled|set\s+up|going|on\s+the\s+books)|what(?:'s|s|\s+is|\s+have\s+we\s+got)\s+set\s+up|(?:list|show)(?:\s+me)?\s+(?:the|all(?:\s+the)?)\s+(?:jobs|schedules|reminders|posts))(?:\s+(?:in|for|to|on)\s+(\S+))?$`)
	mineRe     = regexp.MustCompile(`\b(?:i|we)\s+(?:created|made|set\s+up|own|scheduled|added)\b|\bcreated\s+by\s+me\b|\bmine\b`)
	inChanRe   = regexp.MustCompile(`^(?:what(?:'s|s|\s+is|\s+goes)?|anything)\s+(?:(?:scheduled|posting|set\s+up|going\s+out)\s+)?(?:in|on|into|to|for)\s+(\S+)$` +
		// "what did i set up for #eng", "how many reminders go to #design",
		// "which posts go out in #ops", "do i have anything in #eng"
		`|^(?:what|which|how\s+many|do\s+(?:i|we)\s+have|is\s+there|are\s+there)\b.*\b(?:set\s+up|scheduled|schedules?|reminders?|posts?|jobs?|go(?:es)?(?:\s+out)?|anything)\s+(?:in|on|into|to|for)\s+(\S+)$`)
	// questions about one job: "when's the next weekly report?", "is it paused?"
	showMoreRe = regexp.MustCompile(`^(?:when(?:'s|s|\s+is|\s+does|\s+will)\s+(?:the\s+)?next\s+(.+?)(?:\s+(?:run|post|go\s+out|fire|due))?|(?:the\s+)?next\s+(?:run|post|time)\s+(?:of|for)\s+(.+)|when\s+(?:is|does|will)\s+(.+?)\s+(?:going\s+off|go\s+off|due|running|run\s+next|next|fire\s+next|post\s+next)|ha(?:s|ve)\s+(.+?)\s+(?:run|fired|posted|gone\s+out|been\s+sent)(?:\s+(?:today|yet|yesterday|this\s+week))?|is\s+(.+?)\s+(?:paused|active|enabled|disabled|running|on|off|still\s+on|still\s+running|still\s+active|done|finished)|what\s+does\s+(.+?)\s+(?:do|say|post|send)|what\s+(?:channel|time|day|days)\s+does\s+(.+?)\s+(?:post|go\s+out|run|fire|send)(?:\s+(?:to|in|at|on))?|status\s+(?:of\s+)?(.+)|does\s+(.+?)\s+(?:run|post|fire|go\s+out)\s+on\s+\w+)$`)
	howToRe    = regexp.MustCompile(`^(?:how\s+(?:do|can|would|should)\s+(?:i|we|you)\s+(?:use|pause|delete|cancel|remove|stop|resume|list|see|edit|change|create|make|set\s+up|add|schedule|skip|snooze|move|find|view)\b.*|how\s+does\s+\w+\s+work|how\s+do\s+(?:i|we)\s+use\s+(?:this|it|you)(?:\s+thing|\s+bot)?|what(?:'s|\s+is)\s+the\s+syntax\b.*|(?:(?:can|could)\s+you\s+)?explain\s+(?:how|what)\b.*|what\s+commands?\s+(?:are\s+there|do\s+you\s+(?:have|take|support|know))|.*\bwhat\s+(?:can|does)\s+(?:this|the|you)(?:\s+bot)?\s+do)$`)
	pronounRe  = regexp.MustCompile(`^(?:it|that|this|that\s+one|this\s+one|them)$`)
)

// askFirst are the words a question about jobs starts with.
var askFirst = map[string]bool{"where": true, "where's": true, "who's": true, "whos": true, "what": true, "what's": true, "whats": true, "which": true, "any": true, "anything": true,
	"show": true, "list": true, "who": true, "has": true, "have": true, "did": true, "when": true, "when's": true, "whens": true,
	"is": true, "are": true, "does": true, "do": true, "the": true, "last": true, "how": true, "agenda": true, "status": true,
	"next": true, "give": true, "get": true, "can": true, "could": true, "explain": true, "i": true, "i'm": true,
	"changes": true, "history": true, "audit": true, "activity": true, "recent": true, "latest": true}

// whoActions maps the verb of "who paused X" to the audit action.
var whoActions = map[string]string{
	"created": "job.created", "made": "job.created", "set up": "job.created", "scheduled": "job.created", "added": "job.created",
	"paused": "job.paused", "stopped": "job.paused", "resumed": "job.resumed", "restarted": "job.resumed",
	"changed": "job.updated", "updated": "job.updated", "edited": "job.updated", "modified": "job.updated", "moved": "job.updated",
	"deleted": "job.deleted", "removed": "job.deleted", "canceled": "job.deleted", "cancelled": "job.deleted",
	"ran": "job.triggered", "triggered": "job.triggered", "touched": "", "touch": "", "turned off": "job.paused",
	"switched off": "job.paused", "turned on": "job.resumed", "change": "job.updated", "update": "job.updated",
	"edit": "job.updated", "modify": "job.updated", "move": "job.updated", "delete": "job.deleted", "remove": "job.deleted",
	"run": "job.triggered",
}

// askAbout answers questions about jobs; ok is false when lower is none.
func askAbout(in selector.Input, text, lower string) (selector.Decision, bool) {
	lower = strings.TrimSpace(strings.TrimRight(lower, "?.! "))
	if first, _, _ := strings.Cut(lower, " "); !askFirst[first] {
		return selector.Decision{}, false // most messages: spare the patterns below
	}
	if m := didScheduleRe.FindStringSubmatch(lower); m != nil && isDayWords(in, m[1]) {
		lower = "what's on " + m[1] // "what did I schedule for friday?": its agenda
	}
	if whichNextRe.MatchString(lower) {
		lower = "what's up next" // "which one is next?": the runs to come
	}
	if isHowTo(lower) {
		return selector.Decision{Reply: helpFor(in)}, true
	}
	if itNextRe.MatchString(lower) {
		// "what's next?", "where does it post?": the job in context, else the list
		if in.ContextJobID != "" {
			return call("schedule.show", map[string]any{"jobId": in.ContextJobID}), true
		}
		return call("schedule.list", map[string]any{}), true
	}
	if strings.HasPrefix(lower, "what did i schedule") || strings.HasPrefix(lower, "what have i scheduled") {
		return call("schedule.list", map[string]any{}), true
	}
	if pausedRe.MatchString(lower) {
		return call("schedule.list", map[string]any{"state": "paused"}), true
	}
	if m := listMoreRe.FindStringSubmatch(lower); m != nil {
		args := map[string]any{}
		if mineRe.MatchString(lower) && in.SenderID != "" {
			args["createdBy"] = in.SenderID
		}
		if m[1] != "" {
			if t := lex(m[1]); len(t) == 1 && t[0].kind == tChannel {
				args["channelId"] = channelOf(t[0].s)
			} else {
				return selector.Decision{}, false
			}
		}
		return call("schedule.list", args), true
	}
	if m := inChanRe.FindStringSubmatch(lower); m != nil {
		if t := lex(m[1] + m[2]); len(t) == 1 && t[0].kind == tChannel {
			return call("schedule.list", map[string]any{"channelId": channelOf(t[0].s)}), true
		}
	}
	if m := whoRe.FindStringSubmatch(lower); m != nil {
		args := map[string]any{}
		if a := whoActions[strings.Join(strings.Fields(m[1]), " ")]; a != "" {
			args["action"] = a
		}
		return historyOf(in, text, m[2], args, true)
	}
	if m := showMoreRe.FindStringSubmatch(lower); m != nil {
		words := ""
		for _, g := range m[1:] {
			if g != "" {
				words = g
			}
		}
		if pronounRe.MatchString(words) && in.ContextJobID == "" {
			return clarify(in, text, selector.MissingJob, "Which schedule? Give me its name or id (say “list my schedules” to see them)."), true
		}
		if namesJob(in, words) {
			id, d, ok := pickJob(in, text, words)
			if !ok {
				return d, true
			}
			return call("schedule.show", map[string]any{"jobId": id}), true
		}
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
		return historyOf(in, text, m[1], map[string]any{}, false)
	}
	if m := agendaRe.FindStringSubmatch(lower); m != nil {
		rest := strings.TrimSpace(m[1])
		args := map[string]any{}
		rest = takeChannel(rest, args)
		if rest == "" && !strings.Contains(lower, "coming") && !strings.Contains(lower, "happening") && !strings.Contains(lower, " due") && !strings.HasSuffix(lower, " on") {
			return selector.Decision{}, false // "what's scheduled": the list
		}
		if from, until, ok := window(in, rest); ok {
			args["from"], args["until"] = from.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339)
			return call("schedule.agenda", args), true
		}
	}
	if m := agendaMoreRe.FindStringSubmatch(lower); m != nil {
		args := map[string]any{}
		rest := takeChannel(strings.TrimSpace(m[1]+" "+m[2]), args)
		if from, until, ok := window(in, rest); ok {
			args["from"], args["until"] = from.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339)
			return call("schedule.agenda", args), true
		}
	}
	return selector.Decision{}, false
}

// itNextRe: a question about the job just spoken of, or about what is
// scheduled ("what's next", "when's the next one", "what time is it set
// for", "where does it post").
var itNextRe = regexp.MustCompile(`^(?:(?:show|tell|give)\s+me\s+(?:the\s+)?next\s+(?:few\s+|couple\s+(?:of\s+)?)?(?:dates|runs|times|ones|posts)|what\s+are\s+the\s+next\s+(?:few\s+)?(?:dates|runs|times)|what(?:'s|\s+is)\s+next|when(?:'s|\s+is)\s+(?:the\s+|it\s+)?next(?:\s+(?:one|run|post|time))?|what\s+time\s+(?:is\s+it\s+set(?:\s+for)?|does\s+it\s+(?:run|post|fire|go\s+out))|where\s+(?:does|will)\s+it\s+(?:post|go)|(?:who|where)(?:'s|\s+is)\s+it\s+(?:going|posting|sent|sending)(?:\s+to)?|who\s+(?:does|will)\s+it\s+(?:go|post|remind|ping)(?:\s+to)?|who\s+gets\s+it)$`)

// agendaMoreRe: "show me tomorrow's schedule", "agenda for monday", "what
// do I have on monday", "list what's happening tomorrow".
var agendaMoreRe = regexp.MustCompile(`^(?:(?:show|give|get)(?:\s+me)?\s+(?:the\s+)?([a-z]+)(?:'s|s')?\s+(?:schedule|agenda|runs|posts|reminders)|(?:the\s+)?agenda(?:\s+for)?|what\s+do\s+(?:i|we)\s+have(?:\s+on)?|(?:list|show)(?:\s+me)?\s+what(?:'s|s|\s+is)\s+(?:happening|on|coming\s+up|scheduled|due))\s*(.*)$`)

// takeChannel moves a channel the words name ("in #ops") into args.
func takeChannel(words string, args map[string]any) string {
	for _, t := range lex(words) {
		if t.kind == tChannel {
			args["channelId"] = channelOf(t.s)
			words = strings.TrimSpace(strings.Replace(words, t.s, "", 1))
			for _, p := range []string{" in", " to", " for", " on"} {
				words = strings.TrimSpace(strings.TrimSuffix(words, p))
			}
			for _, p := range []string{"in ", "to ", "for ", "on "} {
				words = strings.TrimSpace(strings.TrimPrefix(words, p))
			}
			words = strings.Join(strings.Fields(strings.Replace(" "+words+" ", " in ", " ", 1)), " ")
		}
	}
	return words
}

// isHowTo: "how do I pause a reminder?", "what commands are there?": help.
func isHowTo(lower string) bool {
	return howToRe.MatchString(strings.TrimSpace(prefixRe.ReplaceAllString(lower, "")))
}

// historyOf asks the audit log about the job, channel or period words
// name: "the standup", "in #ops this week", "today". With oneJob ("who
// changed the #finance reminder?"), words that name one job by its
// channel mean that job.
func historyOf(in selector.Input, text, words string, args map[string]any, oneJob bool) (selector.Decision, bool) {
	words = strings.TrimSpace(words)
	if from, rest, ok := periodSuffix(in, words); ok {
		args["since"] = from.UTC().Format(time.RFC3339)
		words = rest
	}
	if pronounRe.MatchString(words) {
		if in.ContextJobID == "" {
			return clarify(in, text, selector.MissingJob, "Which schedule? Give me its name or id (say “list my schedules” to see them)."), true
		}
		args["jobId"] = in.ContextJobID
		return call("schedule.history", args), true
	}
	if oneJob && namesJob(in, words) {
		if ids, _, ok := matchJobs(in.Jobs, words); ok && len(ids) == 1 {
			args["jobId"] = ids[0]
			return call("schedule.history", args), true
		}
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
		return strings.ToUpper(id) // read from lowercased words: Slack ids are upper case
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
		n, _ := number(m[2] + m[3]) // the pattern's digits
		from = day.AddDate(0, 0, -n)
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
	case "", "next", "soon", "now", "the next few days", "the week ahead", "coming up":
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
	case "next weekend":
		return monday.AddDate(0, 0, 12), monday.AddDate(0, 0, 14), true
	case "weekend", "this weekend", "the weekend":
		sat := monday.AddDate(0, 0, 5)
		if now.After(sat) {
			sat = now
		}
		return sat, monday.AddDate(0, 0, 7), true
	case "this month", "month", "rest of the month":
		return now, time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, loc), true
	case "next month":
		return time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, loc), time.Date(now.Year(), now.Month()+2, 1, 0, 0, 0, 0, loc), true
	}
	toks := lex(w)
	if len(toks) == 2 && (toks[0].s == "this" || toks[0].s == "next") {
		// "next Tuesday": that day in the following Monday-Sunday week
		// (decision 10); "this Tuesday": the coming one
		if d, plural, isDay := weekday(toks[1].s); isDay && !plural {
			if toks[0].s == "this" {
				toks = toks[1:]
			} else {
				ahead := (8-int(day.Weekday()))%7 + (d+6)%7
				if day.Weekday() == time.Monday {
					ahead += 7
				}
				return day.AddDate(0, 0, ahead), day.AddDate(0, 0, ahead+1), true
			}
		}
	}
	if len(toks) == 1 {
		if m, isMonth := month(toks[0].s); isMonth { // "in December": this one, or next year's
			y := now.Year()
			if m < int(now.Month()) {
				y++
			}
			start := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, loc)
			if start.Before(now) {
				start = now
			}
			return start, time.Date(y, time.Month(m)+1, 1, 0, 0, 0, 0, loc), true
		}
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

// isDayWords says whether s says a day and no time ("friday", "tomorrow").
func isDayWords(in selector.Input, s string) bool {
	w, ok, _ := parseBlock(lex(s), when{}, in.Now)
	return ok && len(w.clocks) == 0 && (w.hasDay || len(w.dows) > 0 || w.date != nil)
}
