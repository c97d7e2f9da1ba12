package rules

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Changing a job's schedule: "move the standup to 10am".

// dayOfMonthRe: a day said without "of the month" ("the second to last
// day", "the last weekday").
var dayOfMonthRe = regexp.MustCompile(`(?i)^(?:the\s+)?(?:(?:\w+\s+to\s+)?last|first|second|third|fourth|\d+(?:st|nd|rd|th))\s+(?:day|weekday|business\s+day|working\s+day|monday|tuesday|wednesday|thursday|friday|saturday|sunday)$`)

// update reads "change X to <when>": X names the job, the rest is a new
// when, and what the words do not change is kept (NL_SPEC decision 23).
func update(in selector.Input, text, words string) selector.Decision {
	head := updateHead(in, words)
	newPart := strings.TrimSpace(strings.TrimPrefix(" "+words+" ", " "+head+" "))
	if rest, ok := strings.CutPrefix(words, head+":"); ok {
		newPart = strings.TrimSpace(rest) // "update the standup: 9:45am"
	}
	for _, lead := range []string{"to ", "for ", "so it runs ", "so that it runs ", "and make it ", "so it posts ", "so it "} {
		newPart = strings.TrimPrefix(newPart, lead)
	}
	newPart = strings.TrimPrefix(newPart, ": ") // an answer to "What should it say?"
	if ctx := jobRef(in, in.ContextJobID); ctx != nil && ctx.ScheduleType == store.ScheduleInterval && windowRe.MatchString(newPart) {
		// "only from 9am to 6pm" of a job every 2 hours: its hours, not
		// one time changed to another (newSchedule)
	} else if m := fromToRe.FindStringSubmatch(newPart); m != nil && replaces(in, m[1]) {
		newPart = m[2] // "change the time from 9am to 10am": the new part
	}
	if m := verbWhenRe.FindStringSubmatch(newPart); m != nil {
		switch w := strings.TrimSuffix(m[1], " instead"); {
		case isWhenWords(in, w) || isChannelWords(w):
			newPart = strings.TrimPrefix(m[1], "to ") // "make it post at 10am", "make it post in #eng": the when, the channel
		case quotedAlone(w), postSayRe.MatchString(newPart) && !answerShaped(selector.MissingTime, w) && len(strings.Fields(w)) > 1 && !refersBack(w) && !pronounTexts[strings.ToLower(w)] && !strings.HasPrefix(strings.ToLower(w), "the same"):
			newPart = "say " + w // "make it post “hi all” instead", "make it post hi team"
		}
	}
	newPart = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(newPart), "instead"))
	newPart = asWritten(text, newPart) // a message or a channel id keeps its case
	id, d, ok := pickJobToChange(in, text, messageOfIt(in, head))
	if !ok {
		return d
	}
	if strings.TrimSpace(newPart) == "" {
		// "change the time": the answer ("10am", "hi all") is what it
		// changes to, which words naming only a part must say
		asked := strings.TrimSpace(text)
		if bareMessageRe.MatchString(head) && !strings.HasSuffix(strings.ToLower(asked), " to") {
			asked += " to"
		}
		switch h := messageOfIt(in, head); {
		case messageHeadRe.MatchString(h):
			// "change the message": its answer is the message, whatever it says
			return clarify(in, asked, selector.MissingMessage, "What should it say? For example “hello team”.")
		case strings.HasSuffix(h, " channel"):
			return clarify(in, asked, selector.MissingTarget, "Which channel should it post in? For example #eng.")
		}
		return clarify(in, asked, selector.MissingTime, "What should it change to? For example “every Friday at 10am”.")
	}
	if mins, dir, ok := shiftOf(newPart); ok {
		return shift(in, text, jobRef(in, id), mins, dir) // "push it back an hour"
	}
	if toMeRe.MatchString("send it to " + newPart) {
		// "send it to me": to the sender, as "remind me" makes a job;
		// outside Slack no target, which is the conversation it came from
		return call("schedule.update", map[string]any{"jobId": id, "targetRef": targetRef(in, target{}, action{remindWho: "me"})})
	}
	job := jobRef(in, id)
	// "change the standup message to “standup in 10”", "make it say hi
	// all", "move it to #eng", "post it in #eng"
	p := lex(newPart)
	if len(p) == 2 && p[1].kind == tChannel && channelLeadRe.MatchString(p[0].s) {
		p = p[1:]
	}
	msgHead := messageOfIt(in, head)
	if job != nil && job.Text != "" && strings.EqualFold(unquote(head), job.Text) {
		msgHead = "its message" // "change hello world to hello team": the job by its message
	}
	msg, isMsg, quoted := newMessage(msgHead, newPart, p, in.Now)
	if m := sayRe.FindStringSubmatch(newPart); isMsg && !quoted && m != nil && lex(m[1])[0].kind == tQuote {
		// "make it say “call at 5” at 10am": two changes (decision 27)
		return unsupported("I change one thing a message. Say: make it say “%s”; then the new time or channel (“move it to 10am”).", msg)
	}
	if isMsg && !quoted && saysWhen(in, msg) {
		// "change the standup text to standup on Monday": a day, a number
		// in unquoted words may be a when (decision 24)
		if slices.ContainsFunc(lex(msg), func(t tok) bool { return t.kind == tChannel }) {
			// "post hi in #eng instead": the channel is likely meant; no
			// one answer settles which, so nothing waits for one
			return unsupported("I can't tell whether “%s” is the new message or where to post it. Say the message in quotes "+
				"(make it say “…”), or the channel alone (“post it in #eng”).", msg)
		}
		// "yes" makes them the message; a message in quotes takes their
		// place in the request
		d := clarify(in, text, selector.MissingAction, "Should the new message be “"+msg+"”? Its words name a time or a day, "+
			"so I'm asking: say yes, or give the message in quotes.")
		d.Pending.Yes = "change " + id + " message to “" + msg + "”"
		d.Pending.Replace = strings.Join(strings.Fields(msg), " ")
		return d
	}
	if isMsg && !quoted && commentRe.MatchString(strings.ToLower(msg)) {
		// "make it say something nicer": about the post, not the post; an
		// answer could not be told from another such comment, so nothing
		// waits for one
		return unsupported("I post the words I'm given and can't write them for you. Give me the new message in quotes: make it say “good morning team”.")
	}
	if !isMsg && job != nil && job.ScheduleType != store.ScheduleOnce && (limitedRe.MatchString(strings.ToLower(outsideQuotes(newPart))) || limitedRe.MatchString(head) || onceDateRe.MatchString(strings.ToLower(outsideQuotes(newPart)))) {
		// "move the standup to 10am tomorrow only", "… for a week": a
		// repeating job changes for good
		return clarify(in, text, selector.MissingTime, "I change a repeating job for good, not for a while or one day. Say the new schedule (“every weekday at 10am”), or pause it and make a one-time post.")
	}
	if isMsg || len(p) == 1 && p[0].kind == tChannel {
		patch := map[string]any{"jobId": id}
		switch {
		case isMsg && job != nil && strings.HasPrefix(job.Text, "workflow "):
			return unsupported("That job starts a workflow; it has no message to change.")
		case isMsg:
			patch["targetAction"] = action{text: withMark(text, msg)}.json()
		default:
			ref, why := channelRef(in, p[0])
			if why != "" {
				return unsupported("%s", why)
			}
			patch["targetRef"] = ref
		}
		return call("schedule.update", patch)
	}
	if swapped, ok := swapWords(job, head, newPart); ok && swapVerbRe.MatchString(requestBody(text)) && !saysWhen(in, newPart) && !isChannelWords(newPart) {
		// "change the form to the survey" of "fill the form": those words
		// of its message, swapped
		return call("schedule.update", map[string]any{"jobId": id, "targetAction": action{text: swapped}.json()})
	}
	patch, d, ok := newSchedule(in, text, newPart, job)
	if !ok {
		return d
	}
	patch["jobId"] = id
	return call("schedule.update", patch)
}

var (
	// channelLeadRe: the word before a channel an update moves a job to
	// ("post it in #eng"); "to" is cut before.
	channelLeadRe = regexp.MustCompile(`^(?:in|into|on|over)$`)
	// sayRe: a new message said with its verb ("make it say hi all").
	sayRe = regexp.MustCompile(`^(?:say|says)\s+(.+)$`)
	// messageHeadRe: an update whose job words end in the message they
	// change ("change the message to hi all", "update the standup text:
	// …"): what follows is the new message, quoted or not, unless it is
	// a when ("move the message to Tuesday").
	messageHeadRe = regexp.MustCompile(`(?:^|\s)(?:message|msg|text|wording|words|content|note)$`)
	// messageOfRe: "the text of the standup" is "the standup text".
	messageOfRe = regexp.MustCompile(`^(?:the\s+)?(message|msg|text|wording|channel|time)\s+(?:of|for|in|on)\s+(.+)$`)
)

// postSayRe: a new message said with the verb that posts it ("post hi
// team", "send hi team"); of two words or more: "post here", "post
// again" say no message.
var postSayRe = regexp.MustCompile(`(?i)^(?:post|send)\s`)

// fromToRe: a change said with what it replaces ("from 9am to 10am").
var fromToRe = regexp.MustCompile(`^from\s+(.+?)\s+to\s+(.+)$`)

// bareMessageRe: job words that are only the message, the channel or
// the when ("change the text to …", "change the channel to #eng",
// "change the time to 10am").
var bareMessageRe = regexp.MustCompile(`^(?:(?:the|this|that|its)\s+)?(message|msg|text|wording|words|content|channel|target|destination|time|hour|day|days|date|schedule|timing|frequency|recurrence|cadence)$`)

// messageOfIt reads "the message" as the message of the job in context,
// when there is one, "the text of the standup" as "the standup text", and
// no words at all ("move to #eng") as "it": head otherwise.
func messageOfIt(in selector.Input, head string) string {
	if m := messageOfRe.FindStringSubmatch(head); m != nil {
		return m[2] + " " + m[1]
	}
	if in.ContextJobID == "" {
		return head
	}
	if m := bareMessageRe.FindStringSubmatch(head); m != nil {
		switch m[1] {
		case "channel", "target", "destination":
			return "its channel"
		case "time", "hour", "day", "days", "date", "schedule", "timing", "frequency", "recurrence", "cadence":
			return "its time"
		}
		return "its message"
	}
	if head == "" {
		return "it"
	}
	return head
}

// newMessage is the message an update says, if it says one: quoted, after
// "say", or after job words that end in "message" or "text". quoted: the
// words were in quotes, so they are the message whatever they say.
func newMessage(head, newPart string, p []tok, now time.Time) (msg string, ok, quoted bool) {
	if len(p) == 1 && p[0].kind == tQuote {
		return p[0].s, true, true
	}
	isWhen := func(s string) bool { _, ok, _ := parseBlock(lex(s), when{}, now); return ok }
	if m := sayRe.FindStringSubmatch(newPart); m != nil {
		if q := lex(m[1]); len(q) > 0 && q[0].kind == tQuote {
			return q[0].s, true, len(q) == 1 // "say “tomorrow”": quoted, the message whatever it says
		}
		return m[1], true, false // a when in it asks first (saysWhen)
	}
	if messageHeadRe.MatchString(head) && newPart != "" && !slices.ContainsFunc(p, func(t tok) bool { return t.kind == tQuote || t.kind == tChannel }) && !isWhen(newPart) {
		return unquote(newPart), true, false
	}
	return "", false, false
}

// commentRe: words about a message rather than the message ("something
// nicer", "whatever you like", "better").
var commentRe = regexp.MustCompile(`^(?:(?:something|anything|whatever|whichever|more|less|the\s+opposite)\b.*|\w+er(?:\s+(?:things|words|stuff))?|a\s+(?:bit|little)\s+.*|(?:a|an)\s+(?:\w+er|better|different|new|other|proper|real)\s+(?:message|greeting|text|one|version|post|wording))[.!]?$`)

// saysWhen reports whether unquoted message words say when or where
// ("standup on Monday", "hi at noon", "hi in #eng", "hi every day"):
// a new message with such words is asked about, as decision 24 asks.
func saysWhen(in selector.Input, msg string) bool {
	return slices.ContainsFunc(lex(msg), func(t tok) bool {
		return t.kind == tChannel || timeBearing(t) || strongTime(t) || recurWords[t.s]
	}) || slices.Contains([]string{"later", "earlier", "sooner", "soon"}, strings.ToLower(msg)) || create(in, "post "+msg).Function != ""
}

// withMark is msg with the "!" or "?" that ends text after it, which
// the reading of the request trims ("make it say hi all!").
func withMark(text, msg string) string {
	i := strings.LastIndex(text, msg)
	if i < 0 {
		return msg
	}
	if after := strings.TrimSpace(text[i+len(msg):]); after != "" && strings.Trim(after, "!?") == "" {
		return msg + after
	}
	return msg
}

// unquote is s without the quotes around all of it.
func unquote(s string) string {
	if p := lex(s); len(p) == 1 && p[0].kind == tQuote {
		return p[0].s
	}
	return s
}

// isChannelWords reports whether s is a channel and nothing else ("#eng",
// "in #eng").
func isChannelWords(s string) bool {
	p := lex(s)
	if len(p) == 2 && (channelLeadRe.MatchString(p[0].s) || p[0].s == "to") {
		p = p[1:]
	}
	return len(p) == 1 && p[0].kind == tChannel
}

// channelRef is the target a job moved (or copied) to channel ch posts
// to, or why there is none.
func channelRef(in selector.Input, ch tok) (map[string]any, string) {
	s := &sentence{toks: []tok{ch}, used: make([]bool, 1)}
	if why := s.takeTargets(); why != "" {
		return nil, why
	}
	ref := targetRef(in, s.tgt, action{})
	if ref == nil {
		return nil, "I couldn't read that channel."
	}
	return ref, ""
}

// jobRef is the job of in.Jobs with id, or nil.
func jobRef(in selector.Input, id string) *selector.JobRef {
	for k := range in.Jobs {
		if in.Jobs[k].JobID == id {
			return &in.Jobs[k]
		}
	}
	return nil
}

// windowRe: hours of the day said alone ("only from 9am to 6pm",
// "between 9 and 5"); group 1 is them.
var windowRe = regexp.MustCompile(`(?i)^(?:only\s+)?((?:from|between)\s+\S+(?:\s+[ap]m)?\s+(?:to|and|till|until|-)\s+\S+(?:\s+[ap]m)?)$`)

// thatDayRe: the day of a one-time job, said back ("at 9am that day").
var thatDayRe = regexp.MustCompile(`(?i)\s*\b(?:on\s+)?(?:that|the\s+same|same)\s+day\b`)

// newSchedule reads the when of an update and merges it into the job's
// schedule: only a time keeps the days, months and zone; only days keep
// the time; a one-time job moved to 10am stays on its day.
func newSchedule(in selector.Input, text, part string, job *selector.JobRef) (map[string]any, selector.Decision, bool) {
	zone := in.Timezone
	var old store.Schedule
	oldType := ""
	if job != nil {
		old, oldType = job.Schedule, job.ScheduleType
		if old.Timezone != "" {
			zone = old.Timezone
		}
	}
	if zone == "" {
		zone = "UTC"
	}
	loc, err := scheduler.LoadLocation(zone)
	if err != nil {
		return nil, unsupported("The job's timezone %q is not one I know.", zone), false
	}
	now := in.Now.In(loc)
	part = strings.TrimSpace(part)
	if oldType == store.ScheduleInterval && windowRe.MatchString(part) && old.EverySeconds%60 == 0 {
		// "only from 9am to 6pm" of a job every 2 hours: every 2 hours
		// within those hours
		every := "every " + itoa(int(old.EverySeconds/60)) + " minutes "
		if old.EverySeconds%3600 == 0 {
			every = "every " + itoa(int(old.EverySeconds/3600)) + " hours "
		}
		part = every + windowRe.ReplaceAllString(part, "$1")
	}
	if oldType == store.ScheduleOnce {
		// "at 9am that day": the day it is on; "make it 3 hours": from now
		part = strings.TrimSpace(thatDayRe.ReplaceAllString(part, ""))
		if amountRe.MatchString(part) {
			part = "in " + part
		}
	}
	if p := lex(part); len(p) > 0 && p[0].kind == tNum && len(p[0].s) <= 5 && !strings.ContainsAny(p[0].s, "/-") {
		part = "at " + part // "move it to 10": a time
	}
	toks := lex(part)
	w, ok, why := parseBlock(toks, when{}, now)
	if f := strings.Fields(old.Cron); !ok && (len(f) == 5 && f[2] != "*" && f[3] == "*" || strings.Contains(old.RRule, "FREQ=MONTHLY") && !strings.Contains(old.RRule, "INTERVAL")) && dayOfMonthRe.MatchString(part) {
		// "make it the second to last day" of a monthly job: of the month
		if w2, ok2, _ := parseBlock(lex(part+" of the month"), when{}, now); ok2 {
			w, ok = w2, true
		}
	}
	if !ok {
		switch {
		case why.ask != nil:
			return nil, askQuestion(in, text, why.ask), false
		case why.refusal != "":
			return nil, unsupported("%s", why.refusal), false
		}
		return nil, clarify(in, text, selector.MissingTime, "I couldn't read “"+part+"” as a schedule. Try “to 10am”, “to Tuesdays” or “to every Friday at 10am”."), false
	}
	if w.zone != "" && w.zone != zone {
		zone = w.zone
		loc, _ = scheduler.LoadLocation(zone)
		now = in.Now.In(loc)
		w, _, _ = parseBlock(toks, when{}, now)
	}
	s := &sentence{blocks: [][]tok{toks}}
	recurring := job != nil && oldType != store.ScheduleOnce
	if recurring && !w.rec && w.date == nil && !w.hasDay && !w.hasRel && (len(w.dows) > 0 || w.domOnce) {
		// "move the weekly report to Thursday": every Thursday, as it was
		// every Friday
		w.rec, w.dowsEv, w.wdOnce, w.domOnce = true, len(w.dows) > 0, false, false
	}
	if old := oldTimes(oldType, old, loc); len(w.clocks) == 0 && w.part != "" && job != nil && len(old) == 1 && !w.rec {
		if c := (clk{h: old[0][0] % 12, m: old[0][1]}); c.h != 0 && inPart(c, w.part) {
			h, _ := c.resolved(w.part) // "in the evening" of a 7am job: 7pm, said so (the same-hour rule below keeps it)
			c.ap = map[bool]byte{false: 'a', true: 'p'}[h >= 12]
			w.clocks = []clk{c}
		}
	}
	if len(w.clocks) == 0 && w.part != "" {
		return nil, clarify(in, text, selector.MissingTime, "What time exactly (“"+w.part+"” could be several hours)? For example 3pm."), false
	}
	if d, ok := someDaysAt(in, text, part, w, job, oldDays(oldType, old), recurring); ok {
		return nil, d, false
	}
	if job != nil && oldType == store.ScheduleOnce && w.rec && len(w.dows) == 0 && len(w.doms) == 0 && len(w.nths) == 0 && w.date == nil && !old.RunAt.IsZero() {
		// "make it every week", "i meant every month" of a one-time job:
		// on its day, not today's
		day := old.RunAt.In(loc)
		switch w.unit {
		case "week":
			w.dows, w.dowsEv = []int{int(day.Weekday())}, true
		case "month":
			w.doms = []int{day.Day()}
		}
	}
	daysSaid := w.rec || len(w.dows) > 0 || w.date != nil || w.hasDay || len(w.doms) > 0 || len(w.months) > 0 || w.hasRel || len(w.nths) > 0
	timeSaid := len(w.clocks) > 0
	// keep the job's time when only days were said
	if !timeSaid && daysSaid && job != nil && !(w.hasRel && w.relDays == 0) { // "in 3 hours" is no day
		for _, hm := range oldTimes(oldType, old, loc) {
			w.clocks = append(w.clocks, clk{h: hm[0], m: hm[1], zero: true})
		}
	}
	if old := oldTimes(oldType, old, loc); timeSaid && len(old) == 1 && old[0][0] > 12 {
		// "change it to 11:30" of an 11pm job: the same hour keeps its
		// half of the day (a bare 7-11 is otherwise the morning's)
		for k, c := range w.clocks {
			if c.ap == 0 && !c.zero && c.h >= 7 && c.h <= 11 && c.h == old[0][0]-12 {
				w.clocks[k].ap = 'p'
			}
		}
	}
	if timeSaid && !daysSaid && job != nil {
		if patch, d, ok, done := retime(in, text, w, job, old, oldType, zone, loc); done {
			return patch, d, ok
		}
	}
	if f := strings.Fields(old.Cron); recurring && oldType == store.ScheduleCron && w.rec && (w.unit == "hour" || w.unit == "minute") &&
		len(w.dows) == 0 && w.window == nil && len(f) == 5 && f[2] == "*" && f[3] == "*" {
		// "make it every 2 hours" of a job every hour from 9 to 5 on
		// weekdays: within the same hours and days
		if lo, hi, ok := strings.Cut(f[1], "-"); ok && !strings.ContainsAny(f[1], ",/") {
			w.window = []int{valueOf(lo), valueOf(hi)}
		}
		if f[4] != "*" {
			w.dows, w.dowsEv = oldDays(oldType, old), true
		}
	}
	if recurring && w.rec && w.unit == "week" && len(w.dows) == 0 {
		// "make it every other week": on the days it runs, not today's
		w.dows = oldDays(oldType, old)
		w.dowsEv = len(w.dows) > 0
	}
	if !timeSaid && !daysSaid && w.zone != "" && job != nil && oldType == store.ScheduleCron {
		return map[string]any{"scheduleType": "cron", "schedule": map[string]any{"cron": old.Cron, "timezone": zone}}, selector.Decision{}, true
	}
	out := compile(w, now, zone)
	switch {
	case out.why.refusal != "":
		return nil, unsupported("%s", out.why.refusal), false
	case out.why.ask != nil:
		return nil, askQuestion(in, text, out.why.ask), false
	case out.none:
		return nil, clarify(in, text, selector.MissingTime, "What should it change to? For example “every Friday at 10am”."), false
	}
	if msg := verify(w, s, out.c, now); msg != "" {
		return nil, clarify(in, text, selector.MissingTime, msg), false
	}
	c := out.c
	if c.typ == "once" {
		c.sched["timezone"] = zone
	}
	patch := map[string]any{"scheduleType": c.typ, "schedule": c.sched}
	if c.count > 0 && c.typ != "once" {
		patch["count"] = c.count // runs, not a date, as at create
	}
	if !c.endAt.IsZero() && (c.count == 0 || c.typ == "once" || !c.endAt.Equal(c.countEnd)) {
		patch["endAt"] = c.endAt.UTC().Format(time.RFC3339)
	}
	if !c.startAt.IsZero() {
		patch["startAt"] = c.startAt.UTC().Format(time.RFC3339)
	}
	return patch, selector.Decision{}, true
}

// retime moves a job to the times w says, keeping its days: a cron or an
// rrule keeps its other fields, a one-time job its day, and an interval
// is asked whether it should become daily. done is false when the job's
// schedule cannot keep its days (a cron every minute), and w is compiled
// as a schedule of its own.
func retime(in selector.Input, text string, w when, job *selector.JobRef, old store.Schedule, oldType, zone string, loc *time.Location) (patch map[string]any, d selector.Decision, ok, done bool) {
	hm, q := resolvedClocks(w)
	if q != "" {
		return nil, clarify(in, text, selector.MissingTime, q), false, true
	}
	switch oldType {
	case store.ScheduleCron:
		f := strings.Fields(old.Cron)
		if len(f) != 5 || strings.HasPrefix(f[0], "*") || strings.HasPrefix(f[1], "*") {
			break
		}
		minute := hm[0][1]
		var hours []int
		for _, x := range hm {
			if x[1] != minute {
				return nil, unsupported("I can't put %s and %s in one schedule (their minutes differ).", clockText(hm[0]), clockText(x)), false, true
			}
			hours = append(hours, x[0])
		}
		expr := strings.Join([]string{itoa(minute), intList(uniq(hours)), f[2], f[3], f[4]}, " ")
		return map[string]any{"scheduleType": "cron", "schedule": map[string]any{"cron": expr, "timezone": zone}}, selector.Decision{}, true, true
	case store.ScheduleRRule:
		var parts []string
		for _, p := range strings.Split(strings.TrimPrefix(old.RRule, "RRULE:"), ";") {
			if !strings.HasPrefix(p, "BYHOUR=") && !strings.HasPrefix(p, "BYMINUTE=") {
				parts = append(parts, p)
			}
		}
		minute := hm[0][1]
		var hours []int
		for _, x := range hm {
			if x[1] != minute {
				return nil, unsupported("I can't put %s and %s in one schedule (their minutes differ).", clockText(hm[0]), clockText(x)), false, true
			}
			hours = append(hours, x[0])
		}
		parts = append(parts, "BYHOUR="+intList(uniq(hours)), "BYMINUTE="+itoa(minute))
		sched := map[string]any{"rrule": strings.Join(parts, ";"), "timezone": zone}
		if old.Dtstart != "" {
			sched["dtstart"] = old.Dtstart
		}
		return map[string]any{"scheduleType": "rrule", "schedule": sched}, selector.Decision{}, true, true
	case store.ScheduleOnce:
		if len(hm) != 1 {
			return nil, unsupported("A one-time job runs once: give one time."), false, true
		}
		day := old.RunAt.In(loc)
		t := scheduler.WallInstant(day.Year(), day.Month(), day.Day(), hm[0][0], hm[0][1], loc)
		if !t.After(in.Now) {
			return nil, clarify(in, text, selector.MissingTime, t.Format("Mon 2 Jan")+" at "+clockText(hm[0])+" has already passed. Which day?"), false, true
		}
		return map[string]any{"scheduleType": "once", "schedule": map[string]any{"runAt": t.UTC().Format(time.RFC3339), "timezone": zone}}, selector.Decision{}, true, true
	case store.ScheduleInterval:
		var at []string
		for _, x := range hm {
			at = append(at, clockText(x))
		}
		d := clarify(in, text, selector.MissingTime, "That job repeats on an interval. Should it run every day at "+strings.Join(at, " and ")+" instead? (yes or no)")
		d.Pending.Yes = "change " + job.JobID + " to every day at " + strings.Join(at, " and ")
		return nil, d, false, true
	}
	return nil, selector.Decision{}, false, false
}

// oldTimes are the times of day a job fires at, when it has fixed ones.
// oldDays are the weekdays a weekly job runs on (0 Sunday), none when it
// names none.
func oldDays(typ string, s store.Schedule) []int {
	var days []int
	switch f := strings.Fields(s.Cron); {
	case typ == store.ScheduleCron && len(f) == 5 && f[2] == "*" && f[4] != "*":
		for _, part := range strings.Split(f[4], ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, b := valueOf(lo), valueOf(lo)
			if isRange {
				b = valueOf(hi)
			}
			for d := a; d <= b; d++ {
				days = append(days, d%7)
			}
		}
	case typ == store.ScheduleRRule:
		for _, p := range strings.Split(s.RRule, ";") {
			if v, ok := strings.CutPrefix(p, "BYDAY="); ok {
				for _, d := range strings.Split(v, ",") {
					if i := slices.Index([]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}, d); i >= 0 {
						days = append(days, i) // an ordinal ("1MO") is no weekly day
					}
				}
			}
		}
	}
	return days
}

func oldTimes(typ string, s store.Schedule, loc *time.Location) [][2]int {
	switch typ {
	case store.ScheduleCron:
		f := strings.Fields(s.Cron)
		if len(f) != 5 || strings.ContainsAny(f[0]+f[1], "*/-") {
			return nil
		}
		var out [][2]int
		for _, h := range strings.Split(f[1], ",") {
			for _, m := range strings.Split(f[0], ",") {
				out = append(out, [2]int{valueOf(h), valueOf(m)})
			}
		}
		return out
	case store.ScheduleRRule:
		var hs, ms []string
		for _, p := range strings.Split(s.RRule, ";") {
			if v, ok := strings.CutPrefix(p, "BYHOUR="); ok {
				hs = strings.Split(v, ",")
			}
			if v, ok := strings.CutPrefix(p, "BYMINUTE="); ok {
				ms = strings.Split(v, ",")
			}
		}
		var out [][2]int
		for _, h := range hs {
			for _, m := range ms {
				out = append(out, [2]int{valueOf(h), valueOf(m)})
			}
		}
		return out
	case store.ScheduleOnce:
		t := s.RunAt.In(loc)
		return [][2]int{{t.Hour(), t.Minute()}}
	}
	return nil
}
