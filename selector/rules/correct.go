package rules

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Corrections (NL_SPEC decision 39): right after a job was made or
// changed, "no, make it 10am", "actually Tuesdays", "I meant #eng" and
// "at 10 instead" change that job, the one in context.

var (
	// correctionLeadRe: the words that open a correction, as many as are
	// written ("no sorry, I meant …", "ugh typo, …", "not friday, …").
	correctionLeadRe = regexp.MustCompile(`(?i)^(?:(?:no+|nope|nah|oh|oops|whoops|sorry|wait|hmm+|um+|uh+|ah+|ugh|typo|actually|never\s*mind|nvm|forget\s+(?:it|that)|scratch\s+that|hold\s+on|hang\s+on|one\s+sec(?:ond)?|i\s+said|i\s+wanted|that'?s\s+not\s+what\s+i\s+(?:meant|said|wanted|asked\s+for)|you\s+(?:put|got|made|set)\s+(?:it|that|the\s+\w+)\s+(?:in\s+|on\s+|at\s+)?(?:the\s+)?wrong(?:\s+(?:channel|time|day|date|text|message|one))?|i\s+meant(?:\s+to\s+say)?|i\s+mean|meant|correction|my\s+bad|rather|on\s+second\s+thought|wrong\s+(?:channel|time|day|date|text|message)|that'?s\s+(?:wrong|not\s+right|incorrect)|(?:it'?s\s+)?wrong|not\s+[^,]+,)(?:\s*[—–-]+\s*|[\s,.!:;]+))+`)
	// correctionTailRe: the words that close one ("… instead"), and
	// after opening words "…, not 9am".
	correctionTailRe = regexp.MustCompile(`(?i)(?:[\s,.!]+(?:instead|rather))+[\s.!?]*$`)
	correctionNotRe  = regexp.MustCompile(`(?i)(?:,\s*|\s+)not\s+[^,]+$`)
	// shouldRe: "it should be 10am", "should go to #eng", "it should say
	// hello everyone": the job in context, as it ought to be.
	shouldRe = regexp.MustCompile(`(?i)^(?:it\s+|that\s+)?should\s+(?:(say|read)|be|go|post|run|fire)\s+(.+)$`)
	// postItInRe: a job sent elsewhere ("post it in #eng", "send the
	// dentist reminder to #eng"). Group 1 names the job, if anything.
	postItInRe = regexp.MustCompile(`(?i)^(?:post|send|put|move)(?:\s+(.+?))?\s+(?:in|to|into|on)\s+(\S+)$`)
	// toMeRe: a job sent to the person writing ("send it to me", "dm me
	// instead", "send the standup to my DMs"). Groups 1 to 3 name the
	// job, if anything.
	toMeRe = regexp.MustCompile(`(?i)^(?:(?:post|send|put|move|dm)(?:\s+(.+?))?(?:\s+` + privately + `)?\s+(?:to|in|into)\s+` + senderWords + `|` + dmVerbs + `\s+me(?:\s+(it|that|this))?|send\s+me\s+(it|that|this))(?:\s+` + privately + `)?$`)
	// dmWhenRe: the sender as a new target, and a when ("dm me at 10am").
	dmWhenRe = regexp.MustCompile(`(?i)^(` + dmVerbs + `)\s+me\s+(.+)$`)
	// itWhenRe: the job in context with its verb and a new when ("send
	// it at 5pm", "post it out at 8").
	itWhenRe = regexp.MustCompile(`(?i)^(?:post|send|run|fire)\s+(?:it|that|this)(?:\s+out)?\s+(.+)$`)
	// alsoRe: a job posted somewhere else as well ("post it in #eng too",
	// "also send the standup to #eng"). Group 1 names the job, if anything;
	// "also" before or "too", "also", "as well" after must be said.
	alsoRe = regexp.MustCompile(`(?i)^(also\s+)?(?:(?:post|send|put)(?:\s+(.+?))?\s+)?(?:(?:in|to|into|on)\s+)?(\S+?)[.!]?(\s+(?:too|also|as\s+well)[.!]?)?$`)
	// sameForRe: a copy said without "post … too" ("same for #eng", "do
	// the same in #ops", "copy it to #eng", "cross-post the standup to
	// #eng"). Group 1 is the verb, group 2 names the job, if anything;
	// group 3 is where the copy posts ("me": the sender).
	sameForRe = regexp.MustCompile(`(?i)^(?:and\s+)?(?:also\s+)?(?:(?:(?:do|make)\s+)?(?:the\s+)?same(?:\s+(?:thing|one))?|(share|copy|duplicate|clone|cross-?post|mirror|repost)(?:\s+(.+?))?)` +
		`\s+(?:for|in|to|into|with|on)\s+(\S+?)(?:\s+(?:too|also|as\s+well))?[.!]?$`)
	// sendMeACopyRe: a copy to the sender asked as one.
	sendMeACopyRe = regexp.MustCompile(`(?i)^(?:send|give|dm|message)\s+me\s+a\s+copy(?:\s+(?:too|as\s+well))?$`)
	// andInRe: a channel added ("and #eng", "add #ops too", "and in #ops
	// too"): a copy there.
	andInRe = regexp.MustCompile(`(?i)^(?:(?:and|add|plus|also)\s+)+(?:(?:another|one\s+more)(?:\s+one)?\s+)?(?:(?:in|to|on|for)\s+)?(#[a-z0-9][\w.-]*|<#[A-Z0-9]+(?:\|[^>]*)?>)(?:\s+(?:too|also|as\s+well))?$`)
	// inChannelRe: a channel alone, said of the job in context
	inChannelRe = regexp.MustCompile(`(?i)^(?:in|to|into)\s+(#[a-z0-9][\w.-]*|<#[A-Z0-9]+(?:\|[^>]*)?>)(?:\s+(?:please|pls|instead|then))?$`)
	// makeNumberRe: a bare number said as a change ("make that 25")
	makeNumberRe = regexp.MustCompile(`(?i)^(?:make\s+(?:it|that)|change\s+(?:it|that)\s+to)\s+(\d{1,3})$`)
	// sameButRe: the job once more at another when ("same but at 5pm",
	// "do the same for thursdays"); group 1 is the when
	sameButRe = regexp.MustCompile(`(?i)^(?:and\s+)?(?:(?:do|make)\s+)?(?:the\s+)?same(?:\s+(?:thing|one))?,?\s+(?:but\s+)?(?:(?:for|on)\s+)?(.+?)(?:\s+(?:too|as\s+well))?$`)
	// dmMeTooRe: a copy to the sender ("dm me too", "also message me").
	dmMeTooRe = regexp.MustCompile(`(?i)^(?:also\s+` + dmVerbs + `\s+me(?:\s+(?:too|also|as\s+well))?|` + dmVerbs + `\s+me\s+(?:too|also|as\s+well))[.!]?$`)
	// insteadOfRe: what a correction replaces, said after it ("hi team
	// instead of hello", "10am rather than 9am").
	insteadOfRe = regexp.MustCompile(`(?i)[\s,]+(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(.+?)[.!]?$`)
	// onlyRe: a when said as the only one ("only weekdays", "mondays
	// only", "just fridays"): right after a job, a change of it.
	onlyRe = regexp.MustCompile(`(?i)^(?:(?:only|just)\s+(.+?)|(.+?)\s+only)(?:\s+actually)?[.!]?$`)
	// noDaysRe: days said as ones a job no longer runs on ("no fridays",
	// "skip weekends", "don't send it on weekends", "stop it on
	// weekends"): after "no", "skip" or "stop it on" plural, so that "skip friday" stays one run skipped, and with no
	// comma, so that "no, fridays" corrects to them.
	noDaysRe = regexp.MustCompile(`(?i)^(?:(?:no|skip|(?:stop|pause|mute|silence|disable|turn\s+off)\s+(?:it|that|this)\s+on)\s+(?:the\s+)?([a-z]+s(?:\s*(?:,|and|&)\s*[a-z]+s)*)|(?:don'?t|do\s+not|never)\s+(?:send|post|run|remind\s+me|do)\s+(?:it|that|this)\s+on\s+([a-z]+(?:\s*(?:,|and|&|or)\s*[a-z]+)*))(?:\s+(?:actually|anymore|any\s+more|please|pls))?[.!]?$`)
	// doInsteadRe: "do 10 instead", "do thursdays instead": the job's
	// new when.
	doInsteadRe = regexp.MustCompile(`(?i)^do\s+(.+?)\s+instead[.!?]*$`)
	// itWords name the job in context and nothing else.
	itWords = []string{"it", "that", "this", "that one", "this one"}
	// verbWhenRe: a when after the job's verb ("remind me at 5pm
	// instead", "send it at 10 instead", "make it post at 10am"): the
	// job's new when, when group 1 is one.
	verbWhenRe = regexp.MustCompile(`(?i)^(?:(?:make|have|let)\s+it\s+)?(?:remind\s+(?:me|us)|post|send|run|fire|go\s+out)(?:\s+it)?\s+(.+)$`)
	// sayInsteadRe: "post hi all instead", "say hi all instead", "make it
	// post hi all instead".
	sayInsteadRe = regexp.MustCompile(`(?i)^(?:(?:make|have|let)\s+it\s+)?(?:post|say|send)\s+(.+)$`)
)

// correction reads text as a correction: opening or closing words say
// so, and the rest is a change said plainly ("no, move it to 10am") or,
// with a job in context, what a change of it says ("10am", "Tuesdays",
// "#eng"). A complete new request after "actually" is left to decide,
// which reads it as one.
func correction(in selector.Input, text string) (selector.Decision, bool) {
	if in.PickedJobID != "" {
		return selector.Decision{}, false
	}
	text = strings.TrimSpace(text)
	if n, ok := minutesInstead(in, text); ok {
		return decide(in, "make it in "+n+" minutes"), true
	}
	if m := doInsteadRe.FindStringSubmatch(strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))); m != nil && in.ContextJobID != "" && (isWhenWords(in, m[1]) || isWhenWords(in, "at "+m[1])) {
		return decide(in, "make it "+m[1]), true // "can you do 10 instead"
	}
	if d, ok := rebound(in, strings.TrimSpace(text[len(correctionLeadRe.FindString(text)):])); ok {
		return d, true // "only for 3 weeks", "end it on dec 24": rebound.go
	}
	marked := strings.HasSuffix(text, "*") && !strings.HasSuffix(text, "**") // "10am*", as chat corrects a typo
	if m := noDaysRe.FindStringSubmatch(text); m != nil && in.ContextJobID != "" && len(daysOnly(m[1]+m[2])) > 0 {
		if d, ok := daysChanged(in, "drop "+m[1]+m[2]); ok {
			return d, true // "no fridays", "skip weekends": days it no longer runs on
		}
	}
	lead := correctionLeadRe.FindString(text)
	rest := strings.TrimSpace(strings.TrimSuffix(text[len(lead):], "*"))
	rest = bothDaysRe.ReplaceAllString(rest, "$1") // "both tuesday and thursday": those days
	if m := itIsRe.FindString(rest); lead != "" && m != "" {
		rest = strings.TrimSpace(rest[len(m):]) // "no no, it's every other wednesday"
	}
	if m := onlyRe.FindStringSubmatch(politeTailRe.ReplaceAllString(rest, "")); m != nil && in.ContextJobID != "" && (isWhenWords(in, m[1]+m[2]) || asksWhen(in, m[1]+m[2])) {
		rest, lead = m[1]+m[2], cmp.Or(lead, "only") // "only weekdays", "mondays only": a change of it
	}
	said := false // "it should say …": the message is what follows
	if m := shouldRe.FindStringSubmatch(rest); m != nil {
		rest, said = m[2], m[1] != "" // "it should be 10am": a correction whatever opens it
		if lead == "" {
			lead = "should"
		}
	}
	corrected := rest
	if strings.HasPrefix(strings.ToLower(lead), "not ") {
		corrected = strings.TrimSpace(lead) + " " + rest // "not ch 5, ch 6"
	}
	if d, ok := swapSaid(in, corrected); ok {
		return d, true // "should be ch 6 not ch 5": those words of its message
	}
	tail, instead := "", false
	if !strings.ContainsAny(rest, "\"“”") { // a quoted message may say anything
		tail = correctionTailRe.FindString(rest)
		instead = tail != ""
		if not := correctionNotRe.FindString(rest); tail == "" && not != "" {
			// "#eng not #team", "sorry, 10am not 9am": a time or a channel
			// before it, not "use tabs not spaces"
			if before := strings.TrimSpace(rest[:len(rest)-len(not)]); oneToken(before) || isWhenWords(in, before) {
				tail = not
			}
		}
	}
	if m := insteadOfRe.FindStringSubmatchIndex(rest); tail == "" && m != nil && replaces(in, rest[m[2]:m[3]]) && !openQuote(rest[:m[0]]) {
		// "make it post hi team instead of hello", "10am rather than 9am":
		// what it replaces is the job's, outside the quotes of a message
		tail, instead = rest[m[0]:], true
	}
	rest = strings.TrimSpace(strings.TrimRight(rest[:len(rest)-len(tail)], ",.!;: "))
	if rest == "" {
		return selector.Decision{}, false
	}
	if m := dmWhenRe.FindStringSubmatch(rest); m != nil && instead && in.ContextJobID != "" && isWhenWords(in, m[2]) {
		// "dm me at 10am instead": a new target and a new time (decision 27)
		return unsupported("I change one thing a message. Say “%s me instead”, then “%s instead”.", strings.ToLower(m[1]), m[2]), true
	}
	if m := verbWhenRe.FindStringSubmatch(rest); m != nil && instead && in.ContextJobID != "" && isWhenWords(in, m[1]) {
		rest = m[1] // "actually remind me at 5pm instead": the job's new time
	}
	// rest without what opens and closes a request politely: "can you post
	// it in #eng too pls?"
	bare := strings.TrimRight(strings.TrimSpace(politeTailRe.ReplaceAllString(prefixRe.ReplaceAllString(rest, ""), "")), "?!. ")
	if m := inChannelRe.FindStringSubmatch(bare); m != nil && jobRef(in, in.ContextJobID) != nil {
		// "in #eng please": where the job last spoken of posts, asked, as
		// the job may not be the one meant
		j := jobRef(in, in.ContextJobID)
		d := clarify(in, text, selector.MissingJob, "Move "+JobLabel(*j)+" to "+m[1]+"? (yes or no)")
		d.Pending.Yes = "move " + j.JobID + " to " + m[1]
		return d, true
	}
	if j := jobRef(in, in.ContextJobID); j != nil && j.ScheduleType == store.ScheduleInterval && stepUnit(j.Schedule.EverySeconds, bare) != "" {
		bare = "every " + bare + " " + stepUnit(j.Schedule.EverySeconds, bare) // "every 15 minutes", then "actually 20": the step
		rest = bare
	} else if numberIn(bare, 1, 24) && j != nil && atTimeOfDay(j) {
		bare = "at " + bare // "actually 6": the hour, asked am or pm as "make it 6" is
		rest = bare
	}
	if m := itWhenRe.FindStringSubmatch(bare); m != nil && in.ContextJobID != "" && (isWhenWords(in, m[1]) || isWhenWords(in, "at "+m[1])) {
		// "send it at 5pm": "it" is the job in context, so a change of it
		if d := update(in, text, "it "+m[1]); d.Function == "schedule.update" || d.Clarify != "" {
			return d, true
		}
	}
	asCreate := create(in, rest) // read once: whether rest is a request of its own
	if !said && asCreate.Function != "" {
		// "no, send the report at noon on weekdays", "post hello 2 hours
		// later": a complete request, which decide reads as one
		return selector.Decision{}, false
	}
	if instead && in.ContextJobID != "" && strings.EqualFold(bare, "remind me") {
		bare = "send it to me" // "remind me instead": the job, to the sender
	}
	if m := makeItTooRe.FindStringSubmatch(bare); m != nil {
		bare = "add " + m[1] + " too" // "make it tuesdays too": one more day
	}
	if m := sameButRe.FindStringSubmatch(bare); m != nil && isWhenWords(in, m[1]) && in.ContextJobID != "" {
		bare = "also " + m[1] // "same but at 5pm", "do the same for thursdays": once more then
	}
	if d, ok := daysChanged(in, bare); ok {
		return d, true
	}
	if d, ok := alsoAt(in, text, bare); ok {
		return d, true // "also at 2pm": a copy at that time
	}
	copyWords, named := bare, false
	if m := sameForRe.FindStringSubmatch(bare); m != nil {
		copyWords = "post " + cmp.Or(m[2], "it") + " in " + m[3] + " too" // "same for #eng": a copy
		if strings.EqualFold(m[3], "me") {
			copyWords = "send " + cmp.Or(m[2], "it") + " to me too"
		}
		named = m[1] != "" && !strings.EqualFold(m[1], "share") // "copy the weekly report": a job's words
	} else if dmMeTooRe.MatchString(bare) || sendMeACopyRe.MatchString(bare) {
		copyWords = "send it to me too" // "dm me too", "send me a copy"
	} else if m := andInRe.FindStringSubmatch(bare); m != nil {
		copyWords = "post it in " + m[1] + " too" // "and #eng", "add #ops too"
	}
	if d, ok := copiedTo(in, text, copyWords, named); ok {
		return d, true
	}
	if d, ok := movedTo(in, text, bare, instead); ok {
		return d, true
	}
	if mins, dir, ok := shiftOf(politeTailRe.ReplaceAllString(rest, "")); ok && dir != 0 && in.ContextJobID != "" {
		// "an hour later", "10 min earlier pls": the job in context moves
		return shift(in, text, jobRef(in, in.ContextJobID), mins, dir), true
	}
	if job := jobRef(in, in.ContextJobID); job != nil && job.ScheduleType == store.ScheduleOnce && thatDayRe.MatchString(rest) && clockOnly(in, thatDayRe.ReplaceAllString(rest, "")) {
		rest = strings.TrimSpace(thatDayRe.ReplaceAllString(rest, "")) // "at 9am that day": the day it is on
	}
	if lead == "" && tail == "" && !marked && in.ContextJobID != "" && in.Pending == nil && (clockOnly(in, rest) || partOnly(in, rest)) {
		lead = "at" // "8am" right after a job: its time, said again or changed
	}
	if job := jobRef(in, in.ContextJobID); lead == "" && job != nil && job.ScheduleType == store.ScheduleInterval && windowRe.MatchString(rest) {
		lead = "only" // "from 9 to 5" right after a job every hour: its hours
	}
	if lead == "" && tail == "" && !marked || retractRe.MatchString(outsideQuotes(rest)) {
		return selector.Decision{}, false
	}
	if m := sayInsteadRe.FindStringSubmatch(rest); m != nil && instead && !marked && in.ContextJobID != "" && !refersBack(strings.Fields(m[1])[0]) && !isChannelWords(m[1]) {
		// "post hi all instead", "make it post hi all instead"
		if d := update(in, text, "it say "+strings.ToLower(m[1])); d.Function == "schedule.update" || d.Missing == selector.MissingAction || d.Unsupported != "" {
			return d, true
		}
	}
	if d, ok := manage(in, rest); ok && !marked {
		return d, true
	}
	if in.ContextJobID == "" {
		return selector.Decision{}, false
	}
	if said {
		return update(in, text, "it say "+strings.ToLower(rest)), true // "it should say hello everyone"
	}
	if partOnly(in, rest) {
		// "in the evening" right after a 7am job: 7pm
		if d := update(in, text, "it "+strings.ToLower(rest)); d.Function == "schedule.update" {
			return d, true
		}
	}
	// what is left must be a when or a target, nothing to post
	isWhen := isWhenWords(in, rest)
	if !isWhen && asksWhen(in, rest) {
		// "only during business hours": asked which, of the job
		isWhen, rest = true, strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(rest, "during "), "within "))
	}
	if !isWhen && (asCreate.Function != "" || asCreate.Missing != selector.MissingAction) {
		return selector.Decision{}, false
	}
	if marked && !isWhen && !oneToken(rest) {
		return selector.Decision{}, false // "delete*" is not a correction of the job's time
	}
	d := update(in, text, "it "+strings.ToLower(rest))
	if d.Function == "schedule.update" || isWhen && d.Clarify != "" {
		return d, true // or its question about the new time ("3:30": am or pm?)
	}
	return selector.Decision{}, false
}

// itIsRe opens what a correction says should be, after its opening words
// ("no no, it's every other wednesday", "wrong date, it's the 11th").
var itIsRe = regexp.MustCompile(`(?i)^(?:it'?s|it\s+is|its|should\s+be)\s+`)

// alsoAtRe: the job in context once more, at another time or day ("also
// at 2pm", "and at 5pm too", "add 2pm", "also on dec 15 same time");
// group 1 or 2 is the when.
var alsoAtRe = regexp.MustCompile(`(?i)^(?:and\s+)?(?:also|add|plus)\s+(?:again\s+)?(?:at\s+)?(.+?)(?:,?\s+(?:at\s+)?(?:the\s+)?same\s+time)?(?:\s+(?:too|as\s+well))?$|^(?:and\s+)?at\s+(.+?)\s+(?:too|as\s+well)$`)

// makeItTooRe: one more of something said as a change ("make it
// tuesdays too"); bothDaysRe: "both" before days, which says nothing more.
var (
	makeItTooRe = regexp.MustCompile(`(?i)^(?:make|do)\s+it\s+(?:on\s+)?(.+?)\s+(?:too|as\s+well)$`)
	bothDaysRe  = regexp.MustCompile(`(?i)\bboth\s+((?:on\s+)?[a-z]+days?\s+(?:and|&)\s+[a-z]+days?)\b`)
)

// yearRe: a year said.
var yearRe = regexp.MustCompile(`\b20\d\d\b`)

// alsoAt reads "also at 2pm", "also every thursday at 9:45am", "also on
// dec 29" of the job in context as a second job like
// it (its days, message and target) at that time: one job has one time
// of day, or several with the same minutes, so a copy says it plainly.
func alsoAt(in selector.Input, text, bare string) (selector.Decision, bool) {
	m := alsoAtRe.FindStringSubmatch(bare)
	job := jobRef(in, in.ContextJobID)
	if m == nil || job == nil || job.ScheduleType == "interval" {
		return selector.Decision{}, false
	}
	at := m[1] + m[2]
	if p := lex(at); len(p) > 0 && p[0].kind == tNum {
		at = "at " + at // "also 2pm"
	}
	w, ok, _ := parseBlock(lex(at), when{}, in.Now)
	if loc, err := scheduler.LoadLocation(job.Schedule.Timezone); ok && err == nil && job.ScheduleType == "once" && len(w.clocks) == 0 && !w.rec && (len(w.dows) == 1 || w.date != nil || w.hasDay) {
		// "also thursday" of a reminder on Friday at 10am: Thursday at 10am
		at += " at " + job.Schedule.RunAt.In(loc).Format("15:04")
		w, ok, _ = parseBlock(lex(at), when{}, in.Now)
	}
	if !ok || len(w.clocks) == 0 && w.date == nil ||
		slices.ContainsFunc(w.dows, func(d int) bool { return slices.Contains(oldDays(job.ScheduleType, job.Schedule), d%7) }) {
		// days alone add days to the job (daysChanged), if anything; a
		// day it runs on at another time ("also on fridays at 5pm" of a
		// weekday job) is a second run that day or a new time: asked
		return selector.Decision{}, false
	}
	if f := strings.Fields(job.Schedule.Cron); w.date != nil && !w.rec && len(f) == 5 && f[4] == "*" && !strings.ContainsAny(f[2]+f[3], "*,-/") && !yearRe.MatchString(at) {
		// "and july 15 too" of a job every Jan 15: every July 15 too
		at = "every " + strings.TrimPrefix(at, "on ")
	}
	if job.ScheduleType == "once" && w.date == nil && !w.hasDay && !w.rec && len(w.dows) == 0 {
		// "tonight at 11:30", "and again at 2am": the first such time
		// after it, the next day when the time comes earlier in the day
		if loc, err := scheduler.LoadLocation(job.Schedule.Timezone); err == nil {
			first := job.Schedule.RunAt.In(loc)
			if h, vague := w.clocks[0].resolved(w.part); len(w.clocks) == 1 && !vague && h*60+w.clocks[0].m <= first.Hour()*60+first.Minute() {
				at += " on " + first.AddDate(0, 0, 1).Format("2006-01-02")
			}
		}
	}
	patch, d, ok := newSchedule(in, text, at, job)
	if !ok {
		return d, true
	}
	args := map[string]any{"scheduleType": patch["scheduleType"], "schedule": patch["schedule"], "targetAction": job.Action}
	if job.ChannelID != "" {
		if ref := targetRef(in, target{channelID: job.ChannelID}, action{}); ref != nil {
			args["targetRef"] = ref
		}
	}
	return call("schedule.create", args), true
}

// replaces reports whether what a correction says it replaces ("…
// instead of X") is a part of a job: quoted, a when, a channel, or words
// of the message of the job in context.
func replaces(in selector.Input, x string) bool {
	if quotedAlone(x) || isWhenWords(in, x) || isChannelWords(x) || oneToken(x) && isWhenWords(in, "at "+x) {
		return true
	}
	job := jobRef(in, in.ContextJobID)
	return job != nil && len(x) > 1 && strings.Contains(strings.ToLower(job.Text), strings.ToLower(x))
}

// openQuote reports whether s ends inside a quote.
func openQuote(s string) bool {
	return strings.Count(s, `"`)%2 == 1 || strings.Count(s, "“") > strings.Count(s, "”")
}

var (
	// addDaysRe: days added to the job in context ("add wednesday too",
	// "also on fridays", "on wednesdays too"); removeDaysRe: days taken
	// from it ("not on fridays", "except fridays", "drop friday").
	addDaysRe    = regexp.MustCompile(`(?i)^(?:(?:add|also|and|plus)(?:\s+on)?\s+(.+?)(?:\s+(?:too|also|as\s+well))?|(?:on\s+)?(.+?)\s+(?:too|as\s+well))$`)
	removeDaysRe = regexp.MustCompile(`(?i)^(?:not(?:\s+on)?|except(?:\s+on)?|but\s+not(?:\s+on)?|drop|remove|no\s+more|skip\s+all)\s+(.+?)(?:\s+(?:anymore|any\s+more))?$`)
)

// daysChanged reads days added to or taken from the weekly job in
// context: its cron's weekdays, changed, the rest kept.
func daysChanged(in selector.Input, words string) (selector.Decision, bool) {
	job := jobRef(in, in.ContextJobID)
	add := addDaysRe.FindStringSubmatch(words)
	rm := removeDaysRe.FindStringSubmatch(words)
	if job == nil || job.ScheduleType != "cron" || add == nil && rm == nil {
		return selector.Decision{}, false
	}
	f := strings.Fields(job.Schedule.Cron)
	if len(f) != 5 || f[2] != "*" {
		return selector.Decision{}, false // days of the month: not a weekly job
	}
	if f[4] == "*" {
		f[4] = "0-6"
	}
	field, ok := shiftDows(f[4], 0)
	var said []int
	if add != nil {
		said = daysOnly(add[1] + add[2])
	} else {
		said = daysOnly(rm[1])
	}
	if !ok || len(said) == 0 {
		return selector.Decision{}, false
	}
	var days []int
	for _, part := range strings.Split(field, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, _ := strconv.Atoi(lo)
		b := a
		if isRange {
			b, _ = strconv.Atoi(hi)
		}
		for d := a; d <= b; d++ {
			days = append(days, d%7)
		}
	}
	had := func(d int) bool { return slices.Contains(days, d) }
	switch {
	case add != nil && !slices.ContainsFunc(said, func(d int) bool { return !had(d) }):
		return unsupported("It already runs on %s.", dayList(said)), true
	case rm != nil && !slices.ContainsFunc(said, had):
		return unsupported("It doesn't run on %s.", dayList(said)), true
	}
	if add != nil {
		days = append(days, said...)
	} else {
		days = slices.DeleteFunc(days, func(d int) bool { return slices.Contains(said, d) })
		if len(days) == 0 {
			return unsupported("That leaves no day for it to run. To stop it, say “pause it” or “delete it”."), true
		}
	}
	slices.Sort(days)
	f[4] = dowField(slices.Compact(days))
	if f[4] == "0-6" {
		f[4] = "*"
	}
	return call("schedule.update", map[string]any{"jobId": job.JobID, "scheduleType": "cron",
		"schedule": map[string]any{"cron": strings.Join(f, " "), "timezone": job.Schedule.Timezone}}), true
}

// daysOnly is the weekdays words name when they name nothing else
// ("wednesday", "mondays and fridays"); nil otherwise.
func daysOnly(words string) []int {
	var days []int
	for _, t := range lex(words) {
		d, _, ok := weekday(t.s)
		switch {
		case ok:
			days = append(days, d)
		case t.s == "weekend" || t.s == "weekends":
			days = append(days, 6, 0)
		case t.s == "weekdays":
			days = append(days, 1, 2, 3, 4, 5)
		case t.s != "and" && t.s != "," && t.s != "&" && t.s != "on" && t.s != "or":
			return nil
		}
	}
	return days
}

// clockOnly reports whether s says a time of day and nothing else ("8am",
// "at 10:30").
func clockOnly(in selector.Input, s string) bool {
	w, ok, _ := parseBlock(lex(s), when{}, in.Now)
	return ok && len(w.clocks) > 0 && !w.rec && len(w.dows) == 0 && !w.hasDay && w.date == nil && !w.hasRel && len(w.doms) == 0
}

// partOnly reports whether s is only a part of the day ("in the
// evening"), which of a job at one time keeps its hour.
func partOnly(in selector.Input, s string) bool {
	w, ok, _ := parseBlock(lex(s), when{}, in.Now)
	return ok && w.part != "" && len(w.clocks) == 0 && !w.rec && len(w.dows) == 0 && !w.hasDay && w.date == nil
}

// asksWhen reports whether s is a when that a question settles ("during
// business hours": which hours?).
func asksWhen(in selector.Input, s string) bool {
	t := lex(s)
	if len(t) > 1 && slices.Contains([]string{"during", "in", "within"}, t[0].s) {
		t = t[1:]
	}
	_, ok, why := parseBlock(t, when{}, in.Now)
	return !ok && why.ask != nil
}

// isWhenWords reports whether s reads as a when and nothing else.
func isWhenWords(in selector.Input, s string) bool {
	_, ok, _ := parseBlock(lex(s), when{}, in.Now)
	return ok
}

// oneToken reports whether s is one channel or one number ("#eng",
// "10am"), which "…not X" after it corrects.
func oneToken(s string) bool {
	p := lex(strings.TrimSpace(s))
	return len(p) == 1 && (p[0].kind == tChannel || p[0].kind == tNum)
}

// minutesInstead reads a bare number said of a one-time job due within
// the hour ("in 12 minutes", then "actually 15", "make that 25") as
// minutes from now, not a time of day.
func minutesInstead(in selector.Input, text string) (string, bool) {
	bare := strings.TrimRight(strings.TrimSpace(politeTailRe.ReplaceAllString(text[len(correctionLeadRe.FindString(text)):], "")), "?!. ")
	if m := makeNumberRe.FindStringSubmatch(bare); m != nil {
		bare = m[1]
	}
	j := jobRef(in, in.ContextJobID)
	// a run said as a while ("in 12 minutes") keeps the seconds it was
	// said at; one said as a time of day ("at 2am") has none
	if j == nil || j.ScheduleType != store.ScheduleOnce || !numberIn(bare, 1, 120) || !j.Schedule.RunAt.After(in.Now) || j.Schedule.RunAt.Sub(in.Now) > time.Hour ||
		j.Schedule.RunAt.Second() == 0 && j.Schedule.RunAt.Nanosecond() == 0 {
		return "", false
	}
	return bare, true
}

// atTimeOfDay says whether j runs at a time of day on its days, which a
// bare hour can change: once, or a cron or rrule with set hours and no
// day of the month ("actually 6" of a job on the 5th may be the 6th).
func atTimeOfDay(j *selector.JobRef) bool {
	switch j.ScheduleType {
	case store.ScheduleOnce:
		return true
	case store.ScheduleCron:
		f := strings.Fields(j.Schedule.Cron)
		return len(f) == 5 && f[2] == "*" && !strings.ContainsAny(f[0]+f[1], "*/")
	case store.ScheduleRRule:
		return strings.Contains(j.Schedule.RRule, "BYHOUR") && !strings.Contains(j.Schedule.RRule, "BYMONTHDAY") && !strings.Contains(j.Schedule.RRule, "BYSETPOS")
	}
	return false
}

// stepUnit is the unit a bare number changes an interval's step in:
// minutes of a step under an hour, hours (up to 23) of one in hours; ""
// for days and weeks ("every 2 weeks", "actually 3": weeks? asked).
func stepUnit(every int64, bare string) string {
	switch {
	case every > 0 && every < 3600 && numberIn(bare, 1, 59):
		return "minutes"
	case every >= 3600 && every < 86400 && every%3600 == 0 && numberIn(bare, 1, 23):
		return "hours"
	}
	return ""
}
