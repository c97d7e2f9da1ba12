package rules

import (
	"regexp"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Management (NL_SPEC decision 14): list, show, update, pause, resume,
// delete and run now, by id, by words that name a job, or "it".

var (
	listRe = regexp.MustCompile(`^(?:/?remind\s+list|(?:list|show|display|view|see|get|check)(?:\s+me)?(?:\s+(?:all|every))?(?:\s+(?:of\s+)?(?:my|our|the|your|current|active|upcoming|existing|scheduled|paused))*\s+(?:schedules?|jobs?|reminders?|scheduled\s+\w+|automations?|posts?|crons?|tasks?|messages?)|(?:show|tell)(?:\s+me)?\s+what(?:'s|\s+is|\s+i\s+have)?\s+scheduled|what(?:'s|\s+is|\s+are)\s+(?:(?:currently|already)\s+)?(?:scheduled|on\s+the\s+schedule|(?:my|our|the|all\s+the|all)\s+(?:schedules?|jobs?|reminders?|scheduled\s+\w+))|(?:my|our|all)\s+(?:schedules?|jobs?|reminders?)|what\s+(?:schedules?|jobs?|reminders?|posts?|automations?)\s+(?:do|have|are|did|exist)\b|which\s+(?:schedules?|jobs?|reminders?)|(?:do\s+i|have\s+i)\s+(?:have|got|set)\s+any\s+(?:schedules?|jobs?|reminders?)|any(?:thing)?\s+scheduled|what(?:'s|s|\s+is)\s+on\s+(?:my|our|the)\s+(?:schedule|calendar|list)|(?:schedules?|jobs?|reminders?|list)\s*$)\b(.*)$`)
	bulkRe = regexp.MustCompile(`\b(all|every|each)\s+(?:of\s+)?(?:my|our|the)?\s*(?:schedules?|jobs?|reminders?|posts?)\b|\beverything\b|\ball\s+of\s+them\b|^both(?:\s+of\s+them)?$|^(?:them\s+)?all(?:\s+(?:of\s+)?(?:them|those|these))?$|\bboth\s+(?:of\s+)?(?:my|our|the|these|those)?\s*(?:schedules|jobs|reminders|posts)\b`)
	verbs  = []struct {
		re *regexp.Regexp
		fn string
	}{
		{regexp.MustCompile(`^(?:un-?pause|resume|restart|re-?enable|enable|continue|reactivate|re-?activate|turn\s+(?:back\s+)?on|switch\s+(?:back\s+)?on|unmute)\b(.*)$`), "schedule.resume"},
		{regexp.MustCompile(`^(?:start)\b(.*)\bagain\b(.*)$`), "schedule.resume"},
		{regexp.MustCompile(`^(?:turn|switch)\b(.*)\b(?:back\s+)?on(?:\s+again)?$`), "schedule.resume"},
		{regexp.MustCompile(`^(?:turn|switch)\b(.*?)\boff\b(.*)$`), "schedule.pause"}, // "turn it off for 2 weeks"
		{regexp.MustCompile(`^(?:pause|stop(?:\s+(?:pinging|posting|sending|running|reminding))?|disable|hold|suspend|mute|deactivate|turn\s+off|switch\s+off|put\s+on\s+hold|silence)\b(.*)$`), "schedule.pause"},
		{regexp.MustCompile(`^(?:delete|remove|cancel|drop|get\s+rid\s+of|kill|destroy|erase|trash|unschedule|nuke|clear|wipe|purge)\b(.*)$`), "schedule.delete"},
		{regexp.MustCompile(`^(?:show|describe|details?\s+(?:of|for|on|about)|(?:show|give|get)\s+(?:me\s+)?(?:the\s+)?details?\s+(?:of|for|on|about)|info(?:rmation)?\s+(?:on|about|for)|what\s+is|what's|whats|tell\s+me\s+about|status\s+of|when\s+(?:does|will|is)|when's|whens|inspect|look\s+up|check|what\s+does)\b(.*)$`), "schedule.show"},
		{regexp.MustCompile(`^(?:run|trigger|fire|execute|send|post|kick\s+off)\b(.*)\b(?:now|right\s+now|immediately|right\s+away|at\s+once)\b(.*)$`), "schedule.run_now"},
		// "trigger nightly-build", "run the standup": a job named by its
		// name and nothing else (runNowBare), now
		{runNowBareRe, "schedule.run_now"},
		{regexp.MustCompile(`^(?:change|move|reschedule|update|edit|modify|shift|set|push|make|switch|adjust|bump)\b(.*)$`), "schedule.update"},
	}
	fillerRe = regexp.MustCompile(`\b(the|my|our|a|an|this|that|its|job|jobs|schedule|scheduled|schedules|reminder|reminders|one|please|now|it|to|for|of|in|on|post|posts|message|automation|thing|again|right|away|immediately|me|status|details?|info|what|s|is|the|next|run|runs|does|will|when|show|about|cron|task|once|at|instead|pls|plz|thanks|thx|time|times|schedule|again|back|off|go|goes|out|be|happen|happens|instead|fire|fires|send|sends|channel|text|zone|timezone|tz|look|like|does|says|saying|called|named|msg|wording|s)\b`)
)

// listing decides a request to list jobs (rest is what follows the
// listing words): schedule.list with its filters (paused, mine, a
// channel), or schedule.show when it names one job.
func listing(in selector.Input, text, body, lower, rest string) selector.Decision {
	args := map[string]any{}
	rest = strings.TrimSpace(rest)
	// "show schedule standup", "show the schedule for the dentist": one job
	if singularNounRe.MatchString(lower) && rest != "" && namesJob(in, rest) {
		id, d, ok := pickJob(in, text, rest)
		if !ok {
			return d
		}
		return call("schedule.show", map[string]any{"jobId": id})
	}
	if strings.Contains(lower, "paused") {
		args["state"] = "paused"
	}
	if strings.Contains(rest, "mine") || strings.HasPrefix(lower, "my ") || strings.Contains(lower, " my ") || mineRe.MatchString(lower) {
		if in.SenderID != "" {
			args["createdBy"] = in.SenderID
		}
	}
	// "what's scheduled in #ops": jobs that post there.
	for _, t := range lex(body) {
		if t.kind != tChannel {
			continue
		}
		if strings.HasPrefix(t.s, "<#") {
			id, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(t.s, "<#"), ">"), "|")
			if slackIDRe.MatchString(id) {
				args["channelId"] = id
			}
		} else {
			args["channelId"] = t.s
		}
		break
	}
	// "show me the job in #exec": one job, when only one posts there
	if ch, ok := args["channelId"].(string); ok && singularJobRe.MatchString(lower) {
		var ids []string
		for _, j := range in.Jobs {
			if j.State != "deleted" && strings.EqualFold(j.ChannelID, ch) {
				ids = append(ids, j.JobID)
			}
		}
		if len(ids) == 1 {
			return call("schedule.show", map[string]any{"jobId": ids[0]})
		}
	}
	return call("schedule.list", args)
}

// manage recognises list/show/update/pause/resume/delete/run-now.
func manage(in selector.Input, text string) (selector.Decision, bool) {
	if d, ok := life(in, text); ok { // skip, unskip, snooze, done: life.go
		return d, true
	}
	body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
	lower := strings.ToLower(strings.TrimRight(body, ".!? "))
	if polite := politeTailRe.FindString(lower); polite != "" && !objectEndRe.MatchString(lower[:len(lower)-len(polite)]) {
		lower = lower[:len(lower)-len(polite)] // "pause it pls", not "change the message to thanks"
	}
	lower = strings.TrimPrefix(lower, "/")
	lower = apostropheRe.ReplaceAllString(lower, "$1'$2") // "whats scheduled": "what's scheduled"
	if nextDatesRe.MatchString(lower) && in.ContextJobID != "" {
		args := map[string]any{"jobId": in.ContextJobID} // "whats the next date": of the job just spoken of
		if n := nextCount(lower); n > 0 {
			args["next"] = n // "show me the next 5 dates"
		}
		return call("schedule.show", args), true
	}
	// "remind show all reminders", "remind delete the standup": Slack's
	// /remind verbs, typed after the word
	if rest, ok := strings.CutPrefix(lower, "remind "); ok && remindVerbRe.MatchString(rest) {
		lower = rest
	}
	if d, ok := askAbout(in, text, lower); ok {
		return d, true
	}
	// "pause the standup until further notice": for good, which is what
	// pause and delete do anyway
	lower = strings.TrimSpace(openEndedRe.ReplaceAllString(lower, ""))
	lower = manageSynonyms(in, lower)
	if m := leadAndRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[2]) {
		lower = m[1] // "now delete that one", "and pause it"; "also stop by the bakery" names no job
	}
	lower = showMeRe.ReplaceAllString(lower, "show $1") // "show me it"
	if dontRemindRe.MatchString(lower) {
		// "don't remind me to call mom at 5pm" is not a request to remind
		return unsupported("I won't, and nothing changed: I only schedule what you ask for. To stop a reminder, name it (“pause the standup”) or say “list my schedules”."), true
	}
	if d, ok := rename(in, text, lower); ok {
		return d, true
	}
	if d, ok := noLongerNeeded(in, text, lower); ok {
		return d, true
	}
	if m := listRe.FindStringSubmatch(lower); m != nil && !jobIDRe.MatchString(strings.ToUpper(body)) {
		return listing(in, text, body, lower, m[1]), true
	}
	for _, v := range verbs {
		m := v.re.FindStringSubmatch(lower)
		if m == nil {
			continue
		}
		words := strings.TrimSpace(strings.Join(m[1:], " "))
		if d, ok := twoJobs(in, v.fn, words); ok {
			return d, true
		}
		if bulkRe.MatchString(words) {
			return unsupported("I can't change many schedules at once. Say which one (“%s the standup post”), or list them first.", strings.Fields(lower)[0]), true
		}
		if v.fn == "schedule.pause" {
			if d, ok := pauseWhile(in, text, words); ok {
				return d, true // "pause it next week", "until jan 4": its runs then skipped
			}
		}
		if (v.fn == "schedule.pause" || v.fn == "schedule.resume" || v.fn == "schedule.delete") && limitedRe.MatchString(words) && namesJob(in, limitedRe.ReplaceAllString(words, " ")) {
			// "pause the standup for a week", "move it to 10am tomorrow only"
			return clarify(in, text, selector.MissingTime, "I change a job for good, not for a while or one day: "+
				"pause it now and resume it later, or make a one-time post for that day."), true
		}
		if v.re == runNowBareRe {
			// without "now", only a job's own name is running it: "run the
			// standup at 9", "trigger a build" are not
			if _, ok := namedJob(in.Jobs, words); !ok {
				if d, ok := runNowAsk(in, text, lower, words); ok {
					return d, true
				}
				continue
			}
		}
		if v.fn == "schedule.update" || v.fn == "schedule.show" || v.fn == "schedule.run_now" {
			// "change X to 10am" / "show X": X names a job; without one it
			// is not management ("set a reminder…", "send hi now" are
			// creates).
			head := words
			if v.fn == "schedule.update" {
				if indefiniteRe.MatchString(words) {
					continue // "set a daily reminder at 6pm to …": a new one
				}
				head = messageOfIt(in, updateHead(in, words))
			}
			if !namesJob(in, head) {
				if v.fn == "schedule.update" && jobNounRe.MatchString(head) && head != words {
					return unsupported("I couldn't find a schedule matching “%s”. Say “list my schedules” to see them.", strings.TrimSpace(head)), true
				}
				continue
			}
		}
		if v.fn == "schedule.pause" || v.fn == "schedule.delete" || v.fn == "schedule.resume" {
			// "stop posting at 5pm every day" is not about a job's words
			if !namesJob(in, words) && looksLikeCreate(words) {
				continue
			}
		}
		if bulkRe.MatchString(words) {
			return unsupported("I can't change many schedules at once. Say which one (“%s the standup post”), or list them first.", strings.Fields(lower)[0]), true
		}
		if v.fn == "schedule.update" {
			return update(in, text, words), true
		}
		pick := pickJob
		if v.fn == "schedule.pause" || v.fn == "schedule.delete" {
			pick = pickJobToChange
		}
		id, d, ok := pick(in, text, words)
		if !ok {
			return d, true
		}
		return call(v.fn, map[string]any{"jobId": id}), true
	}
	if askedAboutRe.MatchString(lower) && aboutItRe.MatchString(lower) && in.ContextJobID != "" && !strings.ContainsAny(lower, "\"“”") {
		// "when will that first go off?", "which channel is that going
		// to?": what the job in context does, shown
		return call("schedule.show", map[string]any{"jobId": in.ContextJobID}), true
	}
	return selector.Decision{}, false
}

// apostropheRe: a question word's contraction typed without its
// apostrophe ("whats", "whens", "wheres").
var apostropheRe = regexp.MustCompile(`^(what|when|where|who|how)(s)\b`)

var (
	// politeTailRe: the courtesy that ends a change ("pause it pls").
	objectEndRe  = regexp.MustCompile(`(?:^|\s)(?:to|say|says|as|be|with|into|read|reads|:)$`)
	politeTailRe = regexp.MustCompile(`[\s,]+(?:pls|plz|please|thx|thanks|thank\s+you|ty|sir|ma'?am|madam|bro|mate)[.!]*$`)
	remindVerbRe = regexp.MustCompile(`^(?:list|show|delete|remove|cancel|pause|resume|help)\b`)
	shouldBeRe   = regexp.MustCompile(`^(.+?)\s+should\s+(?:be|run|go\s+out|post|fire)\s+((?:at|on|every)\s.+|\d[\d:.]*\s*(?:[ap]\.?m\.?)?|noon|midnight)$`)
	jobFirstRe   = regexp.MustCompile(`^([^:]+):\s*(move|change|reschedule|update|pause|resume|delete)((?:\s+.+)?)$`)
	runNowBareRe = regexp.MustCompile(`^(?:run|trigger|fire|execute|test|kick\s+off)\b(.*)$`)
	// noMoreRe: "don't remind me about the backup anymore", "stop
	// reminding #team about the backup"
	// channelNamedRe: a channel said with "the … channel" or "channel"
	// before it, after "to": the channel
	channelNamedRe = regexp.MustCompile(`\bto\s+(?:the\s+)?(?:channel\s+(#[\w.-]+|<#[^>]+>)|(#[\w.-]+|<#[^>]+>)\s+channel)\s*$`)
	// noMorePostRe: "don't post the standup anymore", "no more standup"
	noMorePostRe = regexp.MustCompile(`^(?:(?:don'?t|do\s+not|never)\s+(?:post|send|run|start|do)\s+(.+?)\s+(?:anymore|any\s+more|again)|no\s+more\s+(.+?)(?:\s+(?:please|pls|thanks))?)$`)
	noMoreRe     = regexp.MustCompile(`^(?:don'?t|do\s+not|never|stop|no\s+need\s+to)\s+(?:remind(?:ing)?|ping(?:ing)?)\s+(?:me|us|everyone|the\s+team|<?#[^\s>]+>?)\s+(?:about|of|to)\s+(.+?)(?:\s+(?:anymore|any\s+more|again))?$`)
	// dontRemindRe: a "don't remind me …" that names no job asks for nothing
	dontRemindRe = regexp.MustCompile(`^(?:don'?t|do\s+not|never)\s+(?:remind|ping|post|send)\b`)
	// openEndedRe: "pause the standup until further notice": for good,
	// which is what pause and delete do anyway. The words a create reads
	// as no end (noEnd), and those only a pause or delete says.
	openEndedRe = regexp.MustCompile(`\s+(?:` + noEndAlternatives() + `|(?:till|til|'til)\s+further\s+notice` +
		`|(?:until|till|til|'til)\s+(?:i\s+(?:say|tell\s+you)(?:\s+so)?(?:\s+otherwise)?|we\s+(?:say|resume\s+it)|next\s+time|i\s+resume\s+it)` +
		`|for\s+now|for\s+the\s+time\s+being|for\s+good|permanently)$`)
)

// renameRes: a job's new name ("rename the standup to daily-sync",
// "call it morning standup", "give the dentist reminder the name
// dentist"). Group 1 names the job, group 2 is the name.
var renameRes = []*regexp.Regexp{
	regexp.MustCompile(`^(?:rename|re-name|retitle)\s+(.+?)\s+(?:to|as|into)\s+(.+)$`),
	regexp.MustCompile(`^(?:call|name|title)\s+(that one|this one|(?:this|that|the)\s+(?:job|reminder|schedule|post)|it|that|this)\s+(?:as\s+)?(.+)$`),
	regexp.MustCompile(`^(?:give|set)\s+(.+?)\s+the\s+name\s+(?:to\s+|of\s+)?(.+)$`),
	regexp.MustCompile(`^(?:change|set|update)\s+(?:the\s+name\s+of\s+(.+?)|(its|.+?'s)\s+name)\s+to\s+(.+)$`),
	// "change the name to standup", "rename to standup": the job in context
	regexp.MustCompile(`^(?:(?:change|set|update|make)\s+(?:the|its)\s+(?:name|title)(?:\s+to)?|(?:rename|re-name|retitle)\s+(?:it\s+)?(?:to|as))\s+(.+)$`),
	regexp.MustCompile(`^(?:rename|re-name|retitle)\s+(it|that|this)\s+(.+)$`),
}

// nameSaysWhen reports whether a new name is a when ("call it at 5pm",
// "call it tomorrow"): a name may have a day part ("morning standup").
func nameSaysWhen(in selector.Input, name string) bool {
	toks := lex(name)
	return slices.ContainsFunc(toks, func(t tok) bool { return t.kind == tNum || strongTime(t) }) ||
		len(toks) > 0 && !slices.ContainsFunc(toks, func(t tok) bool { return !timeBearing(t) }) || // "call it monday"

		slices.Contains([]string{"now", "later", "soon", "today", "tomorrow", "tonight"}, strings.TrimSpace(name)) ||
		create(in, "post x "+name).Function != ""
}

// notNames open what "call it …", "name it …" say that is no name
// ("call it off for today", "name it after mom", "call it in").
var notNames = []string{"off", "quits", "in", "out", "a", "an", "even", "done", "what", "whatever", "whichever",
	"after", "something", "anything", "for", "like", "so"}

// byChannelOnly reports whether words name a job by its channel's name
// alone ("the team" for a job in #team), too loose to rename it by.
func byChannelOnly(in selector.Input, words string) bool {
	sig := strings.TrimSpace(fillerRe.ReplaceAllString(strings.ToLower(words), " "))
	return sig != "" && slices.ContainsFunc(in.Jobs, func(j selector.JobRef) bool {
		return strings.EqualFold(strings.TrimPrefix(j.ChannelID, "#"), strings.TrimPrefix(sig, "#"))
	})
}

// callItIdioms are what "call it …" means that is no name.
var callItIdioms = []string{"off", "a day", "a night", "quits", "even", "done", "a wrap", "it", "that", "a deal", "now"}

// rename reads a change of a job's name: schedule.update with "name".
func rename(in selector.Input, text, lower string) (selector.Decision, bool) {
	for _, re := range renameRes {
		m := re.FindStringSubmatch(lower)
		if m == nil {
			continue
		}
		words, name := strings.Join(m[1:len(m)-1], ""), m[len(m)-1]
		if len(m) == 2 {
			words = "it" // "change the name to standup"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(name), " ")
		if !namesJob(in, words) || slices.Contains(callItIdioms, strings.TrimSpace(name)) || slices.Contains(notNames, first) ||
			nameSaysWhen(in, name) || byChannelOnly(in, words) {
			continue // "call it off for today", "call it at 5pm", "rename the team to eng"
		}
		words = strings.TrimSuffix(words, "'s")
		id, d, ok := pickJob(in, text, words)
		if !ok {
			return d, true
		}
		name = unquote(strings.TrimSpace(asWritten(text, name)))
		return call("schedule.update", map[string]any{"jobId": id, "name": name}), true
	}
	return selector.Decision{}, false
}

// runNowAsk asks before running a job its words name but not its name
// ("trigger the standup", "test the friday post"): a run posts at once,
// so a loose match is confirmed, never guessed. "run" is left out: "run
// the standup at 9" and "run workflow W" are creates.
func runNowAsk(in selector.Input, text, lower, words string) (selector.Decision, bool) {
	var j *selector.JobRef
	switch it := strings.TrimSpace(words); {
	case slices.Contains(itWords, it) && in.ContextJobID != "":
		j = jobRef(in, in.ContextJobID) // "test it", "run it": the job just spoken of
	case strings.HasPrefix(lower, "run ") || slices.ContainsFunc(lex(words), func(t tok) bool { return t.kind == tNum }):
	default:
		if ids, _, ok := matchJobs(in.Jobs, words); ok && len(ids) == 1 {
			j = jobRef(in, ids[0])
		}
	}
	if j == nil {
		return selector.Decision{}, false
	}
	d := clarify(in, text, selector.MissingJob, "Run this job now: "+JobLabel(*j)+"? (yes or no)")
	d.Pending.Yes = "run " + j.JobID + " now"
	return d, true
}

// manageVerbs are the management verbs a one-edit slip is read as, when
// what follows names a job ("pasue the standup", "delte the dentist").
var manageVerbs = []string{"pause", "resume", "delete", "cancel", "remove", "show", "unpause", "describe"}

var (
	onHoldRe    = regexp.MustCompile(`^(?:put|place|keep)\s+(.+?)\s+on\s+hold$`)
	needPauseRe = regexp.MustCompile(`^i\s+(?:need|want)\s+(.+?)\s+(paused|stopped|deleted|removed|resumed)$`)
	scrapRe     = regexp.MustCompile(`^(?:scrap|ditch|bin|axe)\s+(.+)$`)
	replaceRe   = regexp.MustCompile(`^(?:replace|swap)\s+(.+?)\s+(?:with|for|by)\s+(.+)$`)
	// messageShouldRe: "the standup text should be standup in 10"
	messageShouldRe = regexp.MustCompile(`^(.+?)\s+should\s+(?:(?:say|read)\s*:?\s*(.+)|be\s*:?\s*(["“'].+))$`)
	rewordRe        = regexp.MustCompile(`^(?:reword|rephrase|rewrite)\s+(.+?)(?::\s*|\s+(?:to|as)\s+)(.+)$`)
)

// manageSynonyms rewrites management said another way into the verb the
// table below reads, only when the rest names a job.
func manageSynonyms(in selector.Input, lower string) string {
	if !strings.Contains(lower, " ") {
		return lower
	}
	if m := replaceRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return "change " + m[1] + " to " + m[2] // "replace hello world with hello team"
	}
	lower = channelNamedRe.ReplaceAllString(lower, "to $1$2") // "move it to the #food channel"
	if m := messageShouldRe.FindStringSubmatch(lower); m != nil && messageHeadRe.MatchString(m[1]) && namesJob(in, messageOfIt(in, m[1])) {
		return "change " + m[1] + " to " + m[2] + m[3] // "the message should be 'hello team'"
	}
	if m := rewordRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		if refersBack(m[1]) {
			return "change its message to " + m[2] // "reword it: hi all"
		}
		return "change " + m[1] + " message to " + m[2]
	}
	if moved, ok := shiftWords(in, lower); ok {
		return moved // "delay the standup by 15 minutes"
	}
	if m := onHoldRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return "pause " + m[1]
	}
	if m := needPauseRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return map[string]string{"paused": "pause", "stopped": "pause", "deleted": "delete", "removed": "delete", "resumed": "resume"}[m[2]] + " " + m[1]
	}
	if m := scrapRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return "delete " + m[1]
	}
	if m := shouldBeRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return "move " + m[1] + " to " + m[2] // "the standup should be at 10am"
	}
	if m := jobFirstRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return strings.TrimSpace(m[2] + " " + m[1] + m[3]) // "standup: move to 10am"
	}
	if m := noMoreRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]) {
		return "pause " + m[1] // "stop" means pause (decision 14)
	}
	if m := noMorePostRe.FindStringSubmatch(lower); m != nil && namesJob(in, m[1]+m[2]) {
		return "pause " + m[1] + m[2] // "don't post the standup anymore"
	}
	first, rest, ok := strings.Cut(lower, " ")
	if !ok || len(first) < 4 || slices.Contains(manageVerbs, first) {
		return lower
	}
	for _, v := range manageVerbs {
		if oneEdit(first, v) && namesJob(in, rest) {
			return v + " " + rest
		}
	}
	return lower
}

// leadAndRe: a change opened by a word that joins it to what came before
// ("now delete that one", "and pause it too").
var leadAndRe = regexp.MustCompile(`^(?:now|then|and|also|so)\s+((?:delete|remove|pause|resume|show|skip|cancel|stop|run|move|change|rename)\s+(.+))$`)

// showMeRe: "show me it", "show me that one".
var showMeRe = regexp.MustCompile(`^show\s+me\s+(it|that|this|that\s+one|this\s+one)$`)

// deleteItTailRe: a delete asked for after saying a job is not needed
// ("i don't need the dentist reminder anymore, please delete it").
var deleteItTailRe = regexp.MustCompile(`^(.+?)[,;.]?\s+(?:so\s+)?(?:please\s+|pls\s+|just\s+|you\s+can\s+)?(?:delete|remove|get\s+rid\s+of|scrap|drop|cancel)\s+it(?:\s+(?:please|pls|thanks))?$`)

// noLongerNeededRe: "i don't need it anymore", "we don't do standups
// anymore", "we no longer need the
// standup", "the standup is no longer needed", "not needed anymore".
var noLongerNeededRe = regexp.MustCompile(`^(?:(?:i|we)\s+(?:don'?t|do\s+not|no\s+longer)\s+(?:need|do|have|hold|run)\s+(.+?)|(.+?)\s+(?:is|isn'?t|are|aren'?t)\s+(?:no\s+longer\s+)?(?:needed|necessary|required)|((?:it'?s\s+)?)(?:no\s+longer|not)\s+needed)(?:\s+(?:any\s*more|now))?$`)

// noLongerNeeded reads a job said to be needed no more as a delete, which
// it asks to confirm: the words say it without saying "delete".
func noLongerNeeded(in selector.Input, text, lower string) (selector.Decision, bool) {
	deleteIt := false
	if m := deleteItTailRe.FindStringSubmatch(lower); m != nil {
		lower, deleteIt = m[1], true // "…anymore, please delete it": no need to ask
	}
	m := noLongerNeededRe.FindStringSubmatch(lower)
	if m == nil || strings.Contains(m[0], "isn't") || strings.Contains(m[0], "aren't") {
		return selector.Decision{}, false
	}
	words := strings.TrimSpace(m[1] + m[2] + m[3])
	if words == "" || words == "it's" {
		words = "it"
	}
	if !namesJob(in, words) {
		return selector.Decision{}, false
	}
	id, d, ok := pickJob(in, text, words)
	if !ok {
		return d, true
	}
	j := jobRef(in, id)
	if j == nil {
		return selector.Decision{}, false
	}
	if deleteIt {
		return call("schedule.delete", map[string]any{"jobId": id}), true
	}
	d = clarify(in, text, selector.MissingJob, "Delete "+JobLabel(*j)+"? (yes or no)")
	d.Pending.Yes = "delete " + id
	return d, true
}

// twoJobs refuses a change naming two jobs ("delete X and Y"), naming
// both: one job a message, so each change is confirmed on its own.
func twoJobs(in selector.Input, fn, words string) (selector.Decision, bool) {
	if fn == "schedule.update" || fn == "schedule.show" {
		return selector.Decision{}, false
	}
	for _, sep := range []string{" and ", " & ", ", "} {
		a, b, ok := strings.Cut(words, sep)
		if !ok || !namesJob(in, a) || !namesJob(in, b) {
			continue
		}
		ia, _, okA := pickJob(in, a, a)
		ib, _, okB := pickJob(in, b, b)
		if !okA || !okB || ia == ib {
			continue
		}
		verb := strings.TrimPrefix(fn, "schedule.")
		if verb == "run_now" {
			verb = "run"
		}
		return unsupported("I change one schedule at a time. Say “%s %s”, then “%s %s”.", verb, strings.TrimSpace(a), verb, strings.TrimSpace(b)), true
	}
	return selector.Decision{}, false
}

// limitedRe: a change said for a while or a day only.
var limitedRe = regexp.MustCompile(`\b(?:for\s+(?:a|an|one|two|three|\d+|the\s+next|the\s+rest\s+of)\s+\w+|(?:this|next|coming)\s+(?:week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)(?:'s)?|(?:today|tomorrow|tonight)(?:\s+only)?|only\s+(?:today|tomorrow|tonight|once)|until\s+\w+|till\s+\w+)\b`)

// onceDateRe: a calendar date, which a repeating job cannot move to.
var onceDateRe = regexp.MustCompile(`\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}/\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b`)

var singularNounRe = regexp.MustCompile(`^(?:show|display|view|see|get|check)(?:\s+me)?(?:\s+(?:the|my|our))?\s+(?:schedule|job|reminder|automation|post)\b`)

var singularJobRe = regexp.MustCompile(`\b(?:the|that|this)\s+(?:job|schedule|reminder|automation)\b`)

// nextDatesRe asks when a job runs next, naming no job ("whats the next
// date", "show me the next 3 dates", "when will it run next?").
var nextDatesRe = regexp.MustCompile(`^(?:(?:what|when)(?:'s|\s+is|\s+are|\s+will)?|show(?:\s+me)?|list|give\s+me|tell\s+me)\s+(?:the\s+)?(?:next\s+)?(?:\d+|few|couple(?:\s+of)?|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)?\s*(?:next\s+)?(?:dates?|runs?|times?|occurrences?|days?)(?:\s+(?:it|for\s+it|of\s+it))?(?:\s+(?:runs?|will\s+run|fires?|goes\s+out))?$|^when\s+(?:will|does)\s+it\s+(?:run|fire|go\s+out|post)(?:\s+next)?$|^(?:what|which)\s+(?:time|times|days?|dates?)\s+(?:does|will)\s+it\s+(?:run|fire|post|go\s+out)$`)

// askedAboutRe: a question ("when will that first go off?", "which
// channel is that going to?"), and aboutItRe what it asks of the job in
// context: when it runs, where it posts.
var (
	askedAboutRe = regexp.MustCompile(`(?i)^(?:@\S+\s+)?(?:(?:so|and|ok|okay)[,\s]+)?(?:(?:when|what|which|where|is|does|will|how)(?:'s|'ll|\s)|the\s+\w+\s+\w+\s+is\??$)`)
	aboutItRe    = regexp.MustCompile(`(?i)\b(?:it|that|this|one)\b.*\b(?:go(?:es|ing)?\s+off|go(?:es)?\s+out|fire|fires|run|runs|post|posts|hit|hits|land|going|sent|date|dates|time|times|day|channel)\b|\b(?:next|first|last)\s+(?:date|run|time|one|day)\b`)
)

// indefiniteRe opens the words after a change verb that speak of a new
// job, not one that exists ("set a daily reminder …", "make me a …").
var indefiniteRe = regexp.MustCompile(`(?i)^\s*(?:up\s+)?(?:me\s+)?(?:a|an|another|one\s+more)\s`)

var jobNounRe = regexp.MustCompile(`^(?:the|my|our|that)\s+.*\b(?:job|reminder|schedule|post|message|automation|alert)s?$`)

// looksLikeCreate: words with a schedule and something to post.
func looksLikeCreate(words string) bool {
	return strings.Contains(words, " every ") || strings.HasPrefix(words, "every ")
}

// asWritten finds part (lowercased) in text and returns it as written.
func asWritten(text, part string) string {
	lower := []byte(text)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	if i := strings.LastIndex(string(lower), part); i >= 0 {
		return text[i : i+len(part)]
	}
	return part
}

// updateHead is the part of "change X to 10am" that names the job.
func updateHead(in selector.Input, words string) string {
	// "make it 4:30pm", "change its message to …": the job in context
	for _, p := range []string{"that one ", "its message ", "its text ", "its channel ", "its time ", "it ", "its ", "that "} {
		if strings.HasPrefix(words+" ", p) {
			return strings.TrimSpace(p)
		}
	}
	// "push the standup back an hour": the job's words end where the
	// amount begins
	if m := shiftRe.FindStringSubmatchIndex(words); m != nil && m[0] > 0 && isShift(submatches(words, m)) {
		return strings.TrimSpace(words[:m[0]])
	}
	// the first of the words that start the new when ("update the
	// standup: 9:45am")
	cut := -1
	for _, sep := range []string{": ", " to ", " for ", " so it ", " so that it ", " and make it ", " from ", " at ", " on ", " every ", " say ", " says "} {
		if i := strings.Index(" "+words+" ", sep); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		return strings.TrimSpace((" " + words + " ")[:cut])
	}
	// "make the queue one weekdays only": the job's words end where a
	// when that reads to the end begins
	for _, t := range lex(words) {
		if head := strings.TrimSpace(words[:t.i]); head != "" && t.kind == tWord && isWhenWords(in, words[t.i:]) && namesJob(in, head) {
			return head
		}
	}
	// "make the standup 11am instead": the job's words end where the when
	// begins
	for _, t := range lex(words) {
		if t.kind == tNum || t.kind == tChannel || t.kind == tQuote {
			return strings.TrimSpace(words[:t.i])
		}
	}
	return words
}

// nextCount is how many next runs a question asks to see ("the next 5
// dates", "next ten runs"): at most 20; 0 when it says no number.
func nextCount(lower string) int {
	for _, t := range lex(lower) {
		if n, ok := number(t.s); ok && n > 1 && unit(t.s) == "" {
			return min(n, 20)
		}
	}
	return 0
}
