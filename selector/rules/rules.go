// Package rules is the offline, deterministic selector: a grammar of the
// phrasings in NL_SPEC.md. It never touches the network.
package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
)

// MaxText is the longest message the rules read; longer is refused.
const MaxText = 4000

// Selector is the rules selector.
type Selector struct{}

// New returns the rules selector.
func New() *Selector { return &Selector{} }

var _ selector.Selector = (*Selector)(nil)

// Select decides what in.Text asks for. It never fails: what it cannot
// read becomes a question or an "unsupported".
func (s *Selector) Select(_ context.Context, in selector.Input) (selector.Decision, error) {
	return Decide(in), nil
}

// Decide is Select without the interface.
func Decide(in selector.Input) selector.Decision {
	text := strings.TrimSpace(in.Text)
	if in.Pending != nil && !in.Now.After(in.Pending.Expires) && text != "" && len(text) <= MaxText {
		// A complete new request replaces the question; else the message
		// answers it.
		if d := decide(in, text); d.IsCall() || d.Unsupported != "" && !looksLikeAnswer(text) {
			return d
		}
		combined := in.Pending.Text + " " + answerText(in.Pending.Missing, text)
		d := decide(in, combined)
		if d.Pending != nil {
			d.Pending.Text = combined
		}
		return d
	}
	return decide(in, text)
}

var timeWordRe = regexp.MustCompile(`(?i)\b(at|on|every|in|tomorrow|today)\b`)

// looksLikeAnswer: short replies ("9am", "the backup one") answer a question.
func looksLikeAnswer(text string) bool { return len(strings.Fields(text)) <= 6 }

func answerText(missing, text string) string {
	if missing == selector.MissingTime && !timeWordRe.MatchString(text) {
		return "at " + text
	}
	return text
}

func unsupported(format string, args ...any) selector.Decision {
	return selector.Decision{Unsupported: fmt.Sprintf(format, args...)}
}

func clarify(in selector.Input, text, missing, question string) selector.Decision {
	return selector.Decision{Clarify: question, Missing: missing,
		Pending: &selector.Pending{Text: text, Missing: missing, Expires: in.Now.Add(selector.PendingTTL)}}
}

var (
	codeRe      = regexp.MustCompile("(?i)(```|<script|\\bselect\\s+.+\\s+from\\b|\\bdrop\\s+table\\b|\\brm\\s+-rf\\b|;\\s*--|\\$\\(|\\bfunction\\s*\\(|=>\\s*\\{|\\{\\s*\")")
	injectionRe = regexp.MustCompile(`(?i)\b(ignore (?:all |the )?(?:previous|prior|above) (?:instructions|prompts?)|system prompt|you are now|act as|jailbreak|developer mode|orchestratorid)\b`)
	jobIDRe     = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
)

func decide(in selector.Input, text string) selector.Decision {
	switch {
	case text == "":
		return clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: post “standup in 5” in #team every weekday at 9:25am.")
	case len(text) > MaxText:
		return unsupported("That message is too long (%d characters). Tell me in a sentence what to schedule, up to %d characters.", len(text), MaxText)
	case !utf8.ValidString(text):
		return unsupported("I could not read that message (it is not valid text).")
	case !hasLetters(text):
		return clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: remind me to stretch every day at 3pm.")
	case strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }):
		return unsupported("I could not read that message (it has control characters).")
	case strings.Contains(text, "../") || strings.Contains(text, `..\`) || strings.Contains(strings.ToLower(text), "file:"):
		return unsupported("I don't work with files or paths; tell me what to post, where and when.")
	case codeRe.MatchString(text):
		return unsupported("That looks like code. I schedule messages and workflows: tell me what to post, where and when.")
	case injectionRe.MatchString(text):
		return unsupported("I can only schedule, list and change jobs; I can't take other instructions.")
	}
	if d, ok := manage(in, text); ok {
		return d
	}
	return create(in, text)
}

func hasLetters(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// ---- what cannot be said (NL_SPEC decision 7) ----

var unsupportedPatterns = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`\b(first|second|third|fourth|last|1st|2nd|3rd|4th)\s+` + dayPattern + `\s+(?:of|in)\b`),
		"I can't schedule the nth or last weekday of a month yet (cron can't say it). I can do a fixed day of the month (“on the 1st”) or every week on a weekday."},
	{regexp.MustCompile(`\blast\s+(?:business\s+|working\s+|week)?day\s+of\b|\bend\s+of\s+(?:the\s+|every\s+|each\s+)?month\b`),
		"I can't schedule the last day of the month yet. I can do a fixed day such as the 28th, or the 1st of the next month."},
	{regexp.MustCompile(`\b(first|second|third|last|\d+(?:st|nd|rd|th))\s+(?:business|working|work)\s+day\b`),
		"I can't schedule the nth business day of the month. I can do a fixed day of the month, or every weekday."},
	{regexp.MustCompile(`\biso\s+week|\bweek\s+(?:number\s+)?\d{1,2}\b|\b(?:odd|even)\s+weeks\b`),
		"I can't schedule by ISO week number. I can repeat every week or every 2 weeks from now."},
	{regexp.MustCompile(`\bevery\s+(?:other|second|2nd)\s+month\b|\bbi-?monthly\b`),
		"I can't repeat every other month (cron can't count months). I can do monthly on a day, or every quarter."},
	{regexp.MustCompile(`\b(easter|thanksgiving|good\s+friday|memorial\s+day|labou?r\s+day|mother'?s\s+day|father'?s\s+day|ramadan|diwali|chinese\s+new\s+year|passover|hanukkah|black\s+friday)\b`),
		"I can't follow holidays that move from year to year. I can schedule a fixed date instead."},
	{regexp.MustCompile(`\b(sunrise|sunset|dawn|dusk)\b`),
		"I can't schedule by sunrise or sunset. I can use a fixed time of day in your timezone."},
	{regexp.MustCompile(`\b(whenever|when(?:ever)?\s+(?:someone|somebody|anyone|a\s+\w+\s+(?:is|gets)|the\s+\w+\s+(?:is|fails|goes|finishes))|if\s+(?:the\s+)?\w+\s+(?:fails|is\s+down|goes\s+down)|after\s+(?:each|every)\s+(?:deploy|build|release|merge))\b`),
		"I can't react to events; I run things on a schedule (a time, a day, an interval)."},
	{regexp.MustCompile(`\b(starting|beginning|from)\s+(next|this|on|in|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|` + monthPattern + `|\d)`),
		"I can't delay the start of a schedule yet. Create it when it should begin, or tell me a one-time date."},
}

// ---- management ----

var (
	prefixRe = regexp.MustCompile(`(?i)^(?:(?:hey|hi|ok|okay)\s+)?(?:<@[A-Z0-9]+>\s*)?(?:@?schedbot\b[,:]?\s*)?(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+|would\s+you\s+|i\s+want\s+(?:you\s+)?to\s+|i'd\s+like\s+(?:you\s+)?to\s+)*`)
	listRe   = regexp.MustCompile(`^(?:(?:list|show)(?:\s+me)?(?:\s+all)?(?:\s+(?:my|our|the))?\s+(?:schedules?|jobs?|reminders?|scheduled\s+\w+|automations?|posts?)|what(?:'s|\s+is|\s+are)\s+(?:scheduled|(?:my|our|the)\s+(?:schedules?|jobs?|reminders?))|(?:my|our)\s+(?:schedules?|jobs?|reminders?)|what\s+(?:schedules?|jobs?|reminders?|posts?)\s+(?:do|have|are)\b|which\s+(?:schedules?|jobs?|reminders?)|(?:schedules?|jobs?)\s*$)\b(.*)$`)
	bulkRe   = regexp.MustCompile(`\b(all|every|each)\s+(?:of\s+)?(?:my|our|the)?\s*(?:schedules?|jobs?|reminders?|posts?)\b|\beverything\b`)
	verbs    = []struct {
		re *regexp.Regexp
		fn string
	}{
		{regexp.MustCompile(`^(?:un-?pause|resume|restart|re-?enable|enable|continue|turn\s+(?:back\s+)?on)\b(.*)$`), "schedule.resume"},
		{regexp.MustCompile(`^(?:start)\b(.*)\bagain\b(.*)$`), "schedule.resume"},
		{regexp.MustCompile(`^(?:pause|stop|disable|hold|suspend|mute|turn\s+off)\b(.*)$`), "schedule.pause"},
		{regexp.MustCompile(`^(?:delete|remove|cancel|drop|get\s+rid\s+of|kill|destroy)\b(.*)$`), "schedule.delete"},
		{regexp.MustCompile(`^(?:show|describe|details?\s+(?:of|for)|info\s+(?:on|about)|what\s+is|tell\s+me\s+about)\b(.*)$`), "schedule.show"},
		{regexp.MustCompile(`^(?:run|trigger|fire|execute|send)\b(.*)\bnow\b(.*)$`), "schedule.run_now"},
		{regexp.MustCompile(`^(?:change|move|reschedule|update|edit|modify|shift|set)\b(.*)$`), "schedule.update"},
	}
	fillerRe = regexp.MustCompile(`\b(the|my|our|a|an|this|that|job|jobs|schedule|scheduled|schedules|reminder|reminders|one|please|now|it|to|for|of|in|on|post|message|automation|thing|again|right|away|immediately)\b`)
)

// manage recognises list/show/update/pause/resume/delete/run-now.
func manage(in selector.Input, text string) (selector.Decision, bool) {
	body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
	lower := strings.ToLower(strings.TrimRight(body, ".!? "))
	if m := listRe.FindStringSubmatch(lower); m != nil {
		args := map[string]any{}
		rest := strings.TrimSpace(m[1])
		if strings.Contains(rest, "paused") {
			args["state"] = "paused"
		}
		if strings.Contains(rest, "mine") || strings.HasPrefix(lower, "my ") || strings.Contains(lower, " my ") {
			if in.SenderID != "" {
				args["createdBy"] = in.SenderID
			}
		}
		// "what's scheduled in #ops": jobs that post there.
		if m := channelRe.FindStringSubmatch(body); m != nil {
			switch {
			case m[1] != "" && slackIDRe.MatchString(m[1]):
				args["channelId"] = m[1]
			case m[3] != "":
				args["channelId"] = "#" + strings.ToLower(m[3])
			}
		}
		return call("schedule.list", args), true
	}
	for _, v := range verbs {
		m := v.re.FindStringSubmatch(lower)
		if m == nil {
			continue
		}
		words := strings.TrimSpace(strings.Join(m[1:], " "))
		if v.fn == "schedule.update" || v.fn == "schedule.show" {
			// "change X to 10am" / "show X": X names a job; without one it
			// is not management ("set a reminder…" is a create).
			if !namesJob(in, words) {
				return selector.Decision{}, false
			}
		}
		if bulkRe.MatchString(words) {
			return unsupported("I can't change many schedules at once. Say which one (“%s the standup post”), or list them first.", strings.Fields(lower)[0]), true
		}
		if v.fn == "schedule.update" {
			return update(in, text, words), true
		}
		id, d, ok := pickJob(in, text, words)
		if !ok {
			return d, true
		}
		return call(v.fn, map[string]any{"jobId": id}), true
	}
	return selector.Decision{}, false
}

// namesJob reports whether words name a job: an id, "it", or words that
// match one of the jobs.
func namesJob(in selector.Input, words string) bool {
	if jobIDRe.MatchString(strings.ToUpper(words)) {
		return true
	}
	lead := strings.Fields(words)
	if len(lead) > 0 && (lead[0] == "it" || lead[0] == "that") {
		return true
	}
	head, _, _ := strings.Cut(words, " to ")
	_, _, ok := matchJobs(in.Jobs, head)
	return ok && head != ""
}

// pickJob finds the one job words name.
func pickJob(in selector.Input, text, words string) (string, selector.Decision, bool) {
	if id := jobIDRe.FindString(strings.ToUpper(words)); id != "" {
		return id, selector.Decision{}, true
	}
	stripped := strings.TrimSpace(fillerRe.ReplaceAllString(words, " "))
	if stripped == "" {
		if in.ContextJobID != "" {
			return in.ContextJobID, selector.Decision{}, true
		}
		return "", clarify(in, text, selector.MissingJob, "Which schedule? Give me its name or id (say “list my schedules” to see them)."), false
	}
	ids, names, ok := matchJobs(in.Jobs, words)
	switch {
	case !ok:
		return "", unsupported("I couldn't find a schedule matching “%s”. Say “list my schedules” to see them.", strings.TrimSpace(words)), false
	case len(ids) > 1:
		return "", clarify(in, text, selector.MissingJob, "Which one? "+strings.Join(names, "; ")+"."), false
	}
	return ids[0], selector.Decision{}, true
}

// matchJobs scores each job by how many of the significant words appear
// in its name, description, action text or channel; the best wins.
func matchJobs(jobs []selector.JobRef, words string) (ids []string, names []string, ok bool) {
	sig := strings.Fields(fillerRe.ReplaceAllString(strings.ToLower(words), " "))
	if len(sig) == 0 {
		return nil, nil, false
	}
	best := 0
	for _, j := range jobs {
		if j.State == "deleted" {
			continue
		}
		hay := strings.ToLower(strings.Join([]string{j.Name, j.Description, j.Text, j.ChannelID}, " "))
		score := 0
		for _, w := range sig {
			w = strings.TrimPrefix(w, "#")
			if strings.Contains(hay, w) || strings.Contains(hay, strings.TrimSuffix(w, "s")) {
				score++
			}
		}
		if score < len(sig) { // every word must match
			continue
		}
		label := j.JobID + " (" + j.Description
		if j.Name != "" {
			label = j.JobID + " “" + j.Name + "” (" + j.Description
		}
		label += ")"
		if score > best {
			best, ids, names = score, []string{j.JobID}, []string{label}
		} else if score == best {
			ids, names = append(ids, j.JobID), append(names, label)
		}
	}
	return ids, names, len(ids) > 0
}

// update reads "change X to <schedule>": X names the job, the rest is a new
// schedule parsed as a create would be.
func update(in selector.Input, text, words string) selector.Decision {
	jobWords, newPart, found := strings.Cut(words, " to ")
	if !found {
		jobWords, newPart, _ = strings.Cut(words, " for ")
	}
	id, d, ok := pickJob(in, text, jobWords)
	if !ok {
		return d
	}
	if strings.TrimSpace(newPart) == "" {
		return clarify(in, text, selector.MissingTime, "What should it change to? For example “every Friday at 10am”.")
	}
	// Parse the new schedule with the job's action standing in.
	sched := create(in, "post x "+newPart)
	if !sched.IsCall() {
		if sched.Pending != nil {
			sched.Pending.Text = text
		}
		return sched
	}
	var args map[string]any
	json.Unmarshal(sched.Args, &args)
	patch := map[string]any{"jobId": id, "scheduleType": args["scheduleType"], "schedule": args["schedule"]}
	if e, ok := args["endAt"]; ok {
		patch["endAt"] = e
	}
	return call("schedule.update", patch)
}

func call(fn string, args map[string]any) selector.Decision {
	b, _ := json.Marshal(args)
	return selector.Decision{Function: fn, Args: b}
}

// ---- create ----

var (
	quoteRe     = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?:^|\s)'([^']+)'(?:\s|$)`)
	channelRe   = regexp.MustCompile(`(?i)(?:\b(?:in|to|into|on|at)\s+)?(?:<#([CG][A-Z0-9]{2,20})(?:\|([^>]*))?>|#([a-z0-9][a-z0-9_-]{0,79}))`)
	slackIDRe   = regexp.MustCompile(`^[CG][A-Z0-9]{2,20}$`) // as Slack writes ids: upper case
	userRe      = regexp.MustCompile(`<@([UW][A-Z0-9]+)(?:\|[^>]*)?>`)
	threadRe    = regexp.MustCompile(`\b(?:in|to)\s+this\s+thread\b`)
	hereRe      = regexp.MustCompile(`\b(?:in\s+)?(?:here|this\s+channel)\b`)
	ianaRe      = regexp.MustCompile(`\b(?:in\s+)?([A-Za-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?)\b(?:\s+time)?`)
	abbrevRe    = regexp.MustCompile(`(\d|am\b|pm\b|noon\b|midnight\b)\s*\(?\b(pst|pdt|pt|cst|cdt|ct|est|edt|et|mst|mdt|mt|utc|gmt|cet|cest|bst|ist|jst|aest|aedt|z)\b\)?`)
	usZoneRe    = regexp.MustCompile(`(\d|am\b|pm\b|noon\b)\s*\(?\b(pacific|eastern|central|mountain)(?:\s+time)?\b\)?`)
	cityRe      = regexp.MustCompile(`\b(?:in\s+)?(london|paris|berlin|madrid|rome|amsterdam|tokyo|sydney|melbourne|new york|nyc|chicago|denver|los angeles|san francisco|seattle|toronto|singapore|india|mumbai|bangalore|dubai|sao paulo|são paulo|utc)\s+time\b`)
	remindRe    = regexp.MustCompile(`(?i)^\s*remind\s+(me|us|everyone|everybody|the\s+team|team|<@[UW][A-Z0-9]+(?:\|[^>]*)?>|@\w+|channel)?\s*(?:to|that|about|of)?\s*`)
	postVerbRe  = regexp.MustCompile(`^\s*(?:(?:schedule|set\s+up|create|add)\s+(?:a\s+|an\s+)?(?:message|post|reminder|announcement)(?:\s+(?:saying|that\s+says|to\s+say))?|post|send|say|announce|write|share|message|tell\s+(?:everyone|the\s+team|us)(?:\s+that)?|ping\s+(?:everyone|the\s+team)\s+(?:with|about)?)\s*(?:a\s+message\s+(?:saying|that\s+says)?|the\s+message|message)?\s*(?::|saying|that\s+says)?\s*`)
	workflowRe  = regexp.MustCompile(`\b(?:run|start|trigger|kick\s+off)\s+(?:the\s+)?workflow\s+([a-z0-9][a-z0-9_.-]*)\b|\b(?:run|start|trigger|kick\s+off)\s+(?:the\s+)?([a-z0-9][a-z0-9_.-]*)\s+workflow\b`)
	runFuncRe   = regexp.MustCompile(`\b(?:run|call|invoke)\s+([a-z][a-z0-9_]*\.[a-z][a-z0-9_.]*)\b`)
	startRe     = regexp.MustCompile(`\b(?:run|start|trigger|kick\s+off)\s+(?:the\s+)?([a-z0-9][a-z0-9_.-]*)\b`)
	endForRe    = regexp.MustCompile(`\bfor\s+(?:the\s+)?(?:next\s+)?` + numberPattern + `\s+(minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b`)
	endTimesRe  = regexp.MustCompile(`\b(?:` + numberPattern + `\s+times|(once|twice|thrice))\b`)
	untilRe     = regexp.MustCompile(`\b(?:until|till|til|through|thru)\s+(?:the\s+end\s+of\s+)?(` + monthPattern + `(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?|\d{4}-\d{2}-\d{2}|` + dayPattern + `|tomorrow|next\s+week|next\s+month|(?:the\s+)?end\s+of\s+(?:the\s+)?year|year\s+end)\b`)
	connectorRe = regexp.MustCompile(`(?i)^(?:and|then|to|at|on|in|every|each|,|:|-)+\s+|\s+(?:and|then|at|on|in|every|each|from|,|:|-)+$`)
)

var zoneAbbrev = map[string]string{
	"pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "pt": "America/Los_Angeles",
	"cst": "America/Chicago", "cdt": "America/Chicago", "ct": "America/Chicago",
	"est": "America/New_York", "edt": "America/New_York", "et": "America/New_York",
	"mst": "America/Denver", "mdt": "America/Denver", "mt": "America/Denver",
	"utc": "UTC", "gmt": "UTC", "z": "UTC", "cet": "Europe/Berlin", "cest": "Europe/Berlin", "bst": "Europe/London",
	"ist": "Asia/Kolkata", "jst": "Asia/Tokyo", "aest": "Australia/Sydney", "aedt": "Australia/Sydney",
}

var cityZone = map[string]string{
	"london": "Europe/London", "paris": "Europe/Paris", "berlin": "Europe/Berlin", "madrid": "Europe/Madrid",
	"rome": "Europe/Rome", "amsterdam": "Europe/Amsterdam", "tokyo": "Asia/Tokyo", "sydney": "Australia/Sydney",
	"melbourne": "Australia/Melbourne", "new york": "America/New_York", "nyc": "America/New_York",
	"chicago": "America/Chicago", "denver": "America/Denver", "los angeles": "America/Los_Angeles",
	"san francisco": "America/Los_Angeles", "seattle": "America/Los_Angeles", "toronto": "America/Toronto",
	"singapore": "Asia/Singapore", "india": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "bangalore": "Asia/Kolkata",
	"dubai": "Asia/Dubai", "sao paulo": "America/Sao_Paulo", "são paulo": "America/Sao_Paulo", "utc": "UTC",
}

// target is where the job posts.
type target struct {
	channelID string
	thread    bool
	user      string
}

// Parts of the day that settle a time's am or pm: "8 in the evening" is
// 20:00, "this evening at 7" is 19:00 today.
var dayPartRewrites = []struct {
	re  *regexp.Regexp
	out string
}{
	{regexp.MustCompile(`(?i)\b(\d{1,2}(?::\d{2})?)\s*(?:o'?clock\s+)?in\s+the\s+morning\b`), "${1}am"},
	{regexp.MustCompile(`(?i)\b(\d{1,2}(?::\d{2})?)\s*(?:o'?clock\s+)?(?:in\s+the\s+(?:afternoon|evening)|at\s+night)\b`), "${1}pm"},
	{regexp.MustCompile(`(?i)\bthis\s+(?:afternoon|evening)\s+at\s+(\d{1,2}(?::\d{2})?)\b(\s*(?:am|pm))?`), "today at ${1}pm"},
	{regexp.MustCompile(`(?i)\b(today|tomorrow)\s+(?:afternoon|evening)\s+at\s+(\d{1,2}(?::\d{2})?)\b(\s*(?:am|pm))?`), "$1 at ${2}pm"},
	{regexp.MustCompile(`(?i)\b(today|tomorrow)\s+morning\s+at\s+(\d{1,2}(?::\d{2})?)\b(\s*(?:am|pm))?`), "$1 at ${2}am"},
	// "Sunday mornings", "every weekday morning": the days recur; the time
	// written with them says when.
	{regexp.MustCompile(`(?i)\bevery\s+(` + dayPattern + `|weekday|weekend)\s+(?:morning|afternoon|evening|night)\b`), "every $1"},
	{regexp.MustCompile(`(?i)\b(` + dayPattern + `|weekday|weekend)s?\s+(?:morning|afternoon|evening|night)s\b`), "every $1"},
	// "every evening at 6" is 6 pm.
	{regexp.MustCompile(`(?i)\bevery\s+(?:evening|afternoon|night)\s+at\s+(\d{1,2}(?::\d{2})?)\b(?:\s*(?:am|pm|a\.m\.|p\.m\.))?`), "every day at ${1}pm"},
	{regexp.MustCompile(`(?i)\bevery\s+morning\s+at\s+(\d{1,2}(?::\d{2})?)\b(?:\s*(?:am|a\.m\.))?`), "every day at ${1}am"},
}

func create(in selector.Input, text string) selector.Decision {
	body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
	body = outsideQuotes(body, func(seg string) string {
		for _, rw := range dayPartRewrites {
			seg = rw.re.ReplaceAllString(seg, rw.out)
		}
		return seg
	})
	w := newWork(body)
	// 1. Quoted text is the message, whatever words it holds.
	quoted := ""
	if m := quoteRe.FindSubmatchIndex(w.orig); m != nil {
		for g := 1; g <= 4; g++ {
			if m[2*g] >= 0 {
				quoted = strings.TrimSpace(string(w.orig[m[2*g]:m[2*g+1]]))
				break
			}
		}
		w.blank(m[0], m[1])
	}
	// "from 9 to 5" is a window of hours, not a start bound.
	winFrom, winTo, hasWindow, winOK := takeWindow(w)
	if !winOK {
		return unsupported("I couldn't read that window of hours. Try “every 15 minutes from 9am to 5pm”.")
	}
	lower := w.String()
	for _, u := range unsupportedPatterns {
		if u.re.MatchString(lower) {
			return unsupported("%s", u.why)
		}
	}
	// 2. Where.
	var tgt target
	if w.take(threadRe, false) != nil {
		tgt.thread = true
	}
	if g := w.take(channelRe, true); g != nil {
		if g[1] != "" {
			if !slackIDRe.MatchString(g[1]) {
				return unsupported("That channel link is not one Slack writes. Name the channel as #name.")
			}
			tgt.channelID = g[1]
		} else {
			tgt.channelID = "#" + strings.ToLower(g[3])
		}
	}
	if !tgt.thread && tgt.channelID == "" {
		w.take(hereRe, false) // "here" is the conversation's channel, the default
	}
	// 3. The zone, when the text names one (decision 12).
	zone := in.Timezone
	if zone == "" {
		zone = "UTC"
	}
	if m := w.find(abbrevRe); m != nil {
		zone = zoneAbbrev[string(w.lower[m[4]:m[5]])]
		w.blank(m[4], m[1])
	} else if m := w.find(usZoneRe); m != nil {
		zone = map[string]string{"pacific": "America/Los_Angeles", "eastern": "America/New_York",
			"central": "America/Chicago", "mountain": "America/Denver"}[string(w.lower[m[4]:m[5]])]
		w.blank(m[4], m[1])
	} else if g := w.take(cityRe, false); g != nil {
		zone = cityZone[g[1]]
	} else if m := w.find(ianaRe); m != nil {
		name := string(w.orig[m[2]:m[3]])
		if loc, err := scheduler.LoadLocation(canonicalZone(name)); err == nil {
			zone = loc.String()
			w.blank(m[0], m[1])
		}
	}
	loc, err := scheduler.LoadLocation(zone)
	if err != nil {
		loc, zone = time.UTC, "UTC"
	}
	now := in.Now.In(loc)
	// 4. When.
	end, endWhy := takeEnd(w, now)
	if endWhy != "" {
		return unsupported("%s", endWhy)
	}
	r, why := takeRecur(w)
	if why != "" {
		return unsupported("%s", why)
	}
	if hasWindow {
		if r.every == 0 && r.minuteStep == 0 && r.hourStep == 0 && !r.onTheHour && !r.hasAtMinute {
			return unsupported("A window of hours goes with a repeating time, such as “every 15 minutes from 9am to 5pm”.")
		}
		r.window = [2]int{winFrom, winTo}
	}
	clocks, clockErr := takeClocks(w)
	switch clockErr {
	case "seconds":
		return unsupported("I schedule to the minute; seconds in a time (like 9:00:30) aren't supported.")
	case "bad":
		return unsupported("That time doesn't exist on a clock. Try something like 9am or 17:30.")
	}
	var day *date
	if !r.any() {
		var ok bool
		if day, ok = takeDate(w, now); !ok {
			return unsupported("I couldn't read that date. Try “tomorrow at 9am”, “on Dec 3 at 9am” or “2026-12-03 09:00”.")
		}
	}
	// Vague times of day ("afternoon") are asked about, but stay in the text
	// ("good morning").
	vague := vagueRe.FindStringSubmatch(w.String())
	// 5. What.
	action, ok := takeAction(in, w, quoted)
	// 6. Put it together.
	whenText := ""
	var sched map[string]any
	var scheduleType string
	switch {
	case r.any():
		if r.dayInterval && (len(clocks) > 0 || len(r.dows) > 0) {
			return unsupported("I can't repeat every few days or weeks at a fixed time or weekday: an interval would drift an hour at DST and cron can't say it. I can do every week on a weekday, or every N days from now with no fixed time.")
		}
		if r.every > 0 && !r.dayInterval && len(r.dows) == 0 && len(r.doms) == 0 && len(r.months) == 0 && !r.onTheHour && !r.hasAtMinute && !hasWindow {
			if len(clocks) > 0 {
				return unsupported("I can't start an interval at a set time yet. I can repeat every %s from now, or at fixed times (“every day at 9am and 5pm”).", humanDuration(r.every))
			}
			scheduleType, sched = "interval", map[string]any{"everySeconds": int64(r.every / time.Second)}
			whenText = "every " + humanDuration(r.every)
			break
		}
		if r.dayInterval {
			scheduleType, sched = "interval", map[string]any{"everySeconds": int64(r.every / time.Second)}
			whenText = "every " + humanDuration(r.every)
			break
		}
		expr, q, errWhy := cronFor(&r, clocks, now)
		if errWhy != "" {
			return unsupported("%s", errWhy)
		}
		if q != "" {
			return clarify(in, text, selector.MissingTime, q)
		}
		scheduleType, sched = "cron", map[string]any{"cron": expr, "timezone": zone}
		if c, err := scheduler.ParseCron(expr); err == nil {
			whenText = lowerFirst(c.Describe())
		}
	default:
		runAt, q, why := onceAt(day, clocks, vague, now)
		if why != "" {
			return unsupported("%s", why)
		}
		if q != "" {
			return clarify(in, text, selector.MissingTime, q)
		}
		if runAt.IsZero() {
			if !ok {
				return clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: post “standup in 5” in #team every weekday at 9:25am.")
			}
			return clarify(in, text, selector.MissingTime, fmt.Sprintf("When should I %s? For example “every Friday at 9am” or “tomorrow at 3pm”.", action.verb()))
		}
		scheduleType, sched = "once", map[string]any{"runAt": runAt.UTC().Format(time.RFC3339), "timezone": zone}
		whenText = "on " + runAt.Format("Mon 2 Jan at 3:04 PM")
	}
	if !ok {
		return clarify(in, text, selector.MissingAction, fmt.Sprintf("What should I post %s?", whenText))
	}
	args := map[string]any{"scheduleType": scheduleType, "schedule": sched, "targetAction": action.json()}
	if ref := targetRef(in, tgt, action); ref != nil {
		args["targetRef"] = ref
	}
	if end != nil {
		endAt, why := end.resolve(scheduleType, sched, now)
		if why != "" {
			return unsupported("%s", why)
		}
		args["endAt"] = endAt.UTC().Format(time.RFC3339)
	}
	return call("schedule.create", args)
}

// outsideQuotes applies fn to the text between quotations, leaving what is
// quoted (the message) as written.
func outsideQuotes(s string, fn func(string) string) string {
	var b strings.Builder
	last := 0
	for _, q := range quoteRe.FindAllStringIndex(s, -1) {
		b.WriteString(fn(s[last:q[0]]))
		b.WriteString(s[q[0]:q[1]])
		last = q[1]
	}
	b.WriteString(fn(s[last:]))
	return b.String()
}

func canonicalZone(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		sub := strings.Split(p, "_")
		for j, q := range sub {
			if len(q) > 0 && !(i == 0 && strings.EqualFold(p, "etc")) {
				sub[j] = strings.ToUpper(q[:1]) + strings.ToLower(q[1:])
			}
		}
		parts[i] = strings.Join(sub, "_")
	}
	return strings.Join(parts, "/")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
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
	return strconv.Itoa(n) + " " + unit + "s"
}

// cronFor builds the expression; q is a question when the time is missing
// (decision 3), why when it cannot be said.
func cronFor(r *recur, clocks []clock, now time.Time) (expr, q, why string) {
	dom, month, dow := r.dayFields(now)
	days := dom + " " + month + " " + dow
	hourField := "*"
	if r.window != [2]int{} {
		hourField = fmt.Sprintf("%d-%d", r.window[0], r.window[1]-1)
		if r.window[1]-1 == r.window[0] {
			hourField = fmt.Sprint(r.window[0])
		}
	}
	switch {
	case r.minuteStep > 0 || (r.every > 0 && r.every < time.Hour):
		n := r.minuteStep
		if n == 0 {
			n = int(r.every / time.Minute)
		}
		if n <= 0 || 60%n != 0 || r.every%time.Minute != 0 {
			return "", "", fmt.Sprintf("Every %s on set days can't be kept evenly: use a step that divides the hour (5, 10, 15, 20, 30 minutes).", humanDuration(r.every))
		}
		if n == 1 {
			return "* " + hourField + " " + days, "", ""
		}
		return fmt.Sprintf("*/%d %s %s", n, hourField, days), "", ""
	case r.hourStep > 0 || r.every >= time.Hour && r.every < 24*time.Hour:
		n := r.hourStep
		if n == 0 {
			n = int(r.every / time.Hour)
		}
		if r.every%time.Hour != 0 || 24%n != 0 {
			return "", "", "Every few hours on set days must divide the day (1, 2, 3, 4, 6, 8 or 12 hours)."
		}
		minute := 0
		if r.hasAtMinute {
			minute = r.atMinute
		}
		if r.window != [2]int{} {
			// Every n hours inside the window, from its start, its end included.
			var hs []int
			for h := r.window[0]; h <= r.window[1] && h < 24; h += n {
				hs = append(hs, h)
			}
			return fmt.Sprintf("%d %s %s", minute, intList(hs), days), "", ""
		}
		if n == 1 {
			return fmt.Sprintf("%d * %s", minute, days), "", ""
		}
		return fmt.Sprintf("%d */%d %s", minute, n, days), "", ""
	case r.onTheHour || r.hasAtMinute:
		minute := r.atMinute
		if r.window != [2]int{} {
			return fmt.Sprintf("%d %d-%d %s", minute, r.window[0], min(r.window[1], 23), days), "", ""
		}
		return fmt.Sprintf("%d * %s", minute, days), "", ""
	}
	if len(clocks) == 0 {
		return "", "What time? For example 9am or 17:30.", ""
	}
	for _, c := range clocks {
		if c.ambiguous {
			return "", fmt.Sprintf("Is that %d in the morning or in the afternoon? Say %dam or %dpm.", c.h, c.h, c.h), ""
		}
	}
	minute := clocks[0].m
	var hours []int
	for _, c := range clocks {
		if c.m != minute {
			return "", "", fmt.Sprintf("I can't put %s and %s in one schedule (their minutes differ). I can make two schedules: ask for each time separately.", clocks[0], c)
		}
		hours = append(hours, c.h)
	}
	slices.Sort(hours)
	hours = slices.Compact(hours)
	return fmt.Sprintf("%d %s %s", minute, intList(hours), days), "", ""
}

// onceAt is a one-time instant (decision 9). Zero with no question means
// the text named no time at all.
func onceAt(day *date, clocks []clock, vague []string, now time.Time) (at time.Time, q, why string) {
	if day != nil && day.isRel {
		if len(clocks) == 1 && day.relative >= 24*time.Hour && day.relative%(24*time.Hour) == 0 {
			// "in 2 days at 9am": that day, at that time.
			d := now.Add(day.relative)
			c := clocks[0]
			if c.ambiguous {
				return time.Time{}, fmt.Sprintf("Is that %d in the morning or in the afternoon? Say %dam or %dpm.", c.h, c.h, c.h), ""
			}
			return time.Date(d.Year(), d.Month(), d.Day(), c.h, c.m, 0, 0, now.Location()), "", ""
		}
		return now.Add(day.relative), "", "" // exact, keeps the seconds of now
	}
	if day != nil && day.vague != "" {
		if day.vague == "tonight" && len(clocks) == 0 {
			return time.Time{}, "What time tonight? For example 8pm.", ""
		}
		if day.vague != "tonight" {
			return time.Time{}, fmt.Sprintf("Is %s the %s or the %s? Write the month's name (Mar 4) or an ISO date (2026-03-04).", day.vague, dm(day.vague, true), dm(day.vague, false)), ""
		}
	}
	if len(clocks) > 1 {
		return time.Time{}, "", "That names more than one time; a one-time job runs once. Ask for each separately, or say “every day at …”."
	}
	if len(clocks) == 0 {
		if vague != nil {
			return time.Time{}, fmt.Sprintf("What time exactly (“%s” could be several hours)? For example 3pm.", vague[1]), ""
		}
		if day != nil {
			return time.Time{}, "What time on that day? For example 9am.", ""
		}
		return time.Time{}, "", ""
	}
	c := clocks[0]
	if c.ambiguous {
		return time.Time{}, fmt.Sprintf("Is that %d in the morning or in the afternoon? Say %dam or %dpm.", c.h, c.h, c.h), ""
	}
	if day == nil || day.vague == "tonight" {
		t := time.Date(now.Year(), now.Month(), now.Day(), c.h, c.m, 0, 0, now.Location())
		if day != nil && c.h < 12 {
			t = t.Add(12 * time.Hour) // "tonight at 8" is 8pm
		}
		if !t.After(now) {
			t = t.AddDate(0, 0, 1) // decision 9: the next time it comes round
		}
		return t, "", ""
	}
	t := time.Date(day.y, time.Month(day.m), day.d, c.h, c.m, 0, 0, now.Location())
	if t.Day() != day.d {
		return time.Time{}, "", "That date doesn't exist."
	}
	if !t.After(now) && day.weekday {
		t = t.AddDate(0, 0, 7) // "on Friday" said on a Friday after the time: next week's
	}
	for i := 1; !t.After(now) && day.dayOfMonth && i <= 14; i++ {
		// The next month that has that day.
		if next := time.Date(day.y, time.Month(day.m)+time.Month(i), day.d, c.h, c.m, 0, 0, now.Location()); next.Day() == day.d {
			t = next
		}
	}
	if !t.After(now) {
		return time.Time{}, fmt.Sprintf("%s has already passed. When should it be instead?", t.Format("Mon 2 Jan at 3:04 PM")), ""
	}
	return t, "", ""
}

func dm(s string, monthFirst bool) string {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		a, b, _ = strings.Cut(s, ".")
	}
	x, y := number(a), number(b)
	if !monthFirst {
		x, y = y, x
	}
	if x < 1 || x > 12 {
		return s
	}
	return fmt.Sprintf("%s of %s", scheduler.Ordinal(y), time.Month(x))
}
