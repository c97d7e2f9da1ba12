package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// The life of a reminder after it is made (issue 19 §3): skip one run,
// restore it, snooze it, mark it done. "that" and "it" right after a
// reminder fired are the job whose post came last (Input.LastFiredJobID).

var (
	skipRe   = regexp.MustCompile(`^skip\b(.*)$`)
	unskipRe = regexp.MustCompile(`^(?:un-?skip|don'?t\s+skip|do\s+not\s+skip|undo\s+(?:the\s+)?skip(?:\s+of)?)\b(.*)$`)
	snoozeRe = regexp.MustCompile(`^(?:snooze|remind\s+me\s+(?:again|later))\b(.*)$`)
	doneRe   = regexp.MustCompile(`^(?:(?:all\s+|it'?s\s+|that'?s\s+|i'?m\s+)?done|did\s+it|finished|completed?)(?:\s+with\s+(.*?)|\s+(it|that|this))?$|^mark\s+(.*?)\s*(?:as\s+)?(?:done|complete|completed|finished)$`)
	// "tomorrow's standup": the day said before the job
	possessiveDayRe = regexp.MustCompile(`^(.*?)\b((?:next\s+)?(?:today|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun))'s\s+(.+)$`)
	// "10 minutes", "an hour": an amount of time, which snooze reads as "in …"
	// bareMinutesRe: a snooze that ends in a number and no unit; group 1
	// is the word before it
	bareMinutesRe = regexp.MustCompile(`(?i)(?:^|(\S+)\s+)\d{1,3}$`)
	amountRe      = regexp.MustCompile(`^(?:\d+(?:\.\d+)?|a|an|one|two|three|four|five|ten|fifteen|twenty|thirty|forty-five|half\s+an?)\s*(?:more\s+)?(?:m|min|mins|minutes?|h|hr|hrs|hours?|days?|weeks?)\b`)
	snoozeLeadRe  = regexp.MustCompile(`^(?:for|until|till|til|to|by|in)\s+`)
)

// life recognises skip, unskip, snooze and done. ok is false when the text
// is none of them (or names no job, so that "skip lunch every day at noon"
// stays a request to create).
// moveOneRe: one run moved to another time ("push tomorrow's one to
// 4pm", "move friday's reminder to 10am").
var moveOneRe = regexp.MustCompile(`^(?:push|move|shift|bump|change|reschedule)\s+(tomorrow'?s|today'?s|tonight'?s|(?:mon|tues|wednes|thurs|fri|satur|sun)day's)\s+(?:one|run|post|reminder)\s+(?:back\s+|forward\s+)?(?:to|till|until)\s+(.+)$`)

func life(in selector.Input, text string) (selector.Decision, bool) {
	body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
	lower := strings.TrimSpace(strings.TrimRight(strings.ToLower(body), ".!? "))
	if strings.Contains(lower, " every ") || strings.Contains(lower, " to ") && snoozeRe.MatchString(lower) {
		return selector.Decision{}, false // "remind me again to …", "skip … every day": a new schedule
	}
	if m := moveOneRe.FindStringSubmatch(lower); m != nil && (isWhenWords(in, m[2]) || isWhenWords(in, "at "+m[2])) {
		// "push tomorrow's one to 4pm": one run moved, which is two
		// changes; say both, never read "one to 4pm" as 3:59
		day := strings.TrimSuffix(strings.TrimSuffix(m[1], "s"), "'")
		return unsupported("I can't move one run of a schedule. Skip it (“skip %s”) and ask for a one-time reminder then (“remind me %s at %s to …”).", day, day, m[2]), true
	}
	if m := doneRe.FindStringSubmatch(lower); m != nil {
		words := strings.TrimSpace(m[1] + " " + m[2] + " " + m[3])
		id, d, ok := lifeJob(in, text, words, true, "Which reminder is done? Give me its name or id.")
		if !ok {
			return d, true
		}
		return call("schedule.complete", map[string]any{"jobId": id}), true
	}
	if m := unskipRe.FindStringSubmatch(lower); m != nil {
		return occurrence(in, text, holidaysDated(strings.TrimSpace(m[1])), "schedule.unskip", 0)
	}
	if m := pauseRangeRe.FindStringSubmatch(lower); m != nil {
		lower = "skip " + m[1] // a pause that ends is a skip of the days between
	}
	if m := skipRe.FindStringSubmatch(lower); m != nil {
		words := holidaysDated(strings.TrimSpace(m[1])) // "skip it on christmas eve"
		if rest, start, end, ok := skipPeriod(in, words); ok {
			return skipBetween(in, text, rest, start, end)
		}
		words, count := skipCount(words)
		return occurrence(in, text, words, "schedule.skip", count)
	}
	if m := snoozeRe.FindStringSubmatch(lower); m != nil {
		return snooze(in, text, strings.TrimSpace(m[1]))
	}
	return selector.Decision{}, false
}

// skipCountRe: "the next 2", "next three runs", "the next 2 times": how
// many runs a skip leaves out, from the next.
var skipCountRe = regexp.MustCompile(`\b(?:the\s+)?next\s+([0-9]{1,3}|[a-z]+)(?:\s+(?:runs?|times?|ones?|occurrences?|posts?|reminders?))?\b`)

// skipCount takes "the next N" out of a skip's words: the words left,
// which name the job ("the next 2 standups": "standup"), and N (0: none
// said). A period ("the next 2 weeks") is no count.
func skipCount(words string) (string, int) {
	m := skipCountRe.FindStringSubmatchIndex(words)
	if m == nil {
		return words, 0
	}
	n, ok := number(words[m[2]:m[3]])
	rest := strings.TrimSpace(words[:m[0]] + " " + words[m[1]:])
	if !ok || n < 1 || unit(firstWord(strings.TrimSpace(words[m[1]:]))) != "" {
		return words, 0
	}
	if f := strings.Fields(rest); len(f) > 0 && n > 1 && words[m[1]:] != "" && strings.HasPrefix(strings.TrimSpace(words[m[1]:]), f[len(f)-1]) {
		f[len(f)-1] = strings.TrimSuffix(f[len(f)-1], "s") // "standups": the job is "standup"
		rest = strings.Join(f, " ")
	}
	return rest, n
}

// skipPeriodRe: a period whose runs a skip leaves out: "next week",
// "this week", "the next 2 weeks", "for the next 3 days", "for a week".
// dayRangeRe: "from dec 21 to jan 3", "between dec 21 and jan 3".
var dayRangeRe = regexp.MustCompile(`\b(?:from|between)\s+(.+?)\s+(?:to|until|till|through|thru|and|-)\s+(.+)$`)

// pauseRangeRe: "pause it from dec 21 to jan 3": those days skipped.
var pauseRangeRe = regexp.MustCompile(`^(?:pause|hold|suspend|stop|mute)\s+(.+?\s+(?:from|between)\s+.+\s+(?:to|until|till|through|thru|and|-)\s+.+)$`)

var skipPeriodRe = regexp.MustCompile(`\b(?:for\s+)?(?:the\s+)?(?:(this|next)\s+week|(?:(?:for\s+)?(?:the\s+)?(?:next|coming)|for)\s+([0-9]{1,2}|[a-z]+)\s+(days?|weeks?))\b`)

// skipPeriod takes a period out of a skip's words: the words left and the
// period, from start to end, in the sender's zone (weeks run Monday to
// Sunday, NL_SPEC decision 10; "the next 3 days" are 72 hours from now).
func skipPeriod(in selector.Input, words string) (rest string, start, end time.Time, ok bool) {
	now, _ := lifeZone(in)
	if rest, start, end, ok := monthOrWeekOf(in, words, now); ok {
		return rest, start, end, true
	}
	if m := dayRangeRe.FindStringSubmatchIndex(words); m != nil {
		// "from dec 21 to jan 3": both days whole
		from, _, _, ok1 := readInstant(in, words[m[2]:m[3]]+" at 12am")
		to, _, _, ok2 := readInstant(in, words[m[4]:m[5]]+" at 12am")
		if ok1 && ok2 && !from.IsZero() && to.After(from) {
			return strings.TrimSpace(words[:m[0]]), from, to.In(now.Location()).AddDate(0, 0, 1), true
		}
	}
	m := skipPeriodRe.FindStringSubmatchIndex(words)
	if m == nil {
		return words, time.Time{}, time.Time{}, false
	}
	rest = strings.TrimSpace(words[:m[0]] + " " + words[m[1]:])
	if m[2] >= 0 {
		midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
		monday := midnight.AddDate(0, 0, 7-(int(now.Weekday())+6)%7)
		if words[m[2]:m[3]] == "this" {
			return rest, now, monday, true
		}
		return rest, monday, monday.AddDate(0, 0, 7), true
	}
	n, isNumber := number(words[m[4]:m[5]])
	if w := words[m[4]:m[5]]; w == "a" || w == "an" {
		n, isNumber = 1, true // "for a week"
	}
	if !isNumber || n < 1 {
		return words, time.Time{}, time.Time{}, false
	}
	days := n
	if strings.HasPrefix(words[m[6]:m[7]], "week") {
		days = 7 * n
	}
	return rest, now, now.AddDate(0, 0, days), true
}

// weekOfRe: "the week of christmas", "the week of dec 21".
var weekOfRe = regexp.MustCompile(`\b(?:for\s+|during\s+)?the\s+week\s+of\s+(.+)$`)

// monthOrWeekOf reads a month said alone ("december", "in january": its
// next, from now when it is this one) or "the week of <a date>" (Monday
// to Sunday) as a period; a month beside a number is a date, not one.
func monthOrWeekOf(in selector.Input, words string, now time.Time) (rest string, start, end time.Time, ok bool) {
	if m := weekOfRe.FindStringSubmatchIndex(words); m != nil {
		day := strings.NewReplacer("christmas", "dec 25", "xmas", "dec 25").Replace(words[m[2]:m[3]])
		if t, _, _, ok := readInstant(in, day+" at 12am"); ok && !t.IsZero() {
			local := t.In(now.Location())
			monday := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, now.Location()).AddDate(0, 0, -((int(local.Weekday()) + 6) % 7))
			return strings.TrimSpace(words[:m[0]]), monday, monday.AddDate(0, 0, 7), true
		}
		return words, time.Time{}, time.Time{}, false
	}
	toks := lex(words)
	for k, t := range toks {
		mo, isMonth := month(t.s)
		if !isMonth || k+1 < len(toks) && (toks[k+1].kind == tNum || ordinalIn(toks[k+1].s, 1, 31)) || k > 0 && (toks[k-1].kind == tNum || ordinalIn(toks[k-1].s, 1, 31) || toks[k-1].s == "of") {
			continue
		}
		from := k
		if k > 0 && slices.Contains([]string{"in", "for", "during", "all"}, toks[k-1].s) {
			from = k - 1
		}
		year := now.Year()
		if time.Month(mo) < now.Month() {
			year++
		}
		start = time.Date(year, time.Month(mo), 1, 0, 0, 0, 0, now.Location())
		return strings.TrimSpace(words[:toks[from].i] + " " + words[t.j:]), start, start.AddDate(0, 1, 0), true
	}
	return words, time.Time{}, time.Time{}, false
}

// skipRuns is the skip of every run of ref from start to end: the first
// and how many.
func skipRuns(in selector.Input, ref *selector.JobRef, start, end time.Time) (at time.Time, count int, d selector.Decision, ok bool) {
	sp, err := scheduler.NewSpec(ref.ScheduleType, ref.Schedule, time.Time{})
	if err != nil {
		return time.Time{}, 0, unsupported("I can't read the schedule of %s.", jobLabel(ref)), false
	}
	sp.Skip = ref.Skip
	now, _ := lifeZone(in)
	from := start
	if from.Before(now) {
		from = now
	}
	var runs []time.Time
	for t, ok := sp.Next(from); ok && t.Before(end) && len(runs) <= store.MaxSkips; t, ok = sp.Next(t) {
		runs = append(runs, t)
	}
	loc := now.Location()
	period := start.In(loc).Format("Mon 2 Jan") + " to " + end.Add(-time.Minute).In(loc).Format("Mon 2 Jan")
	switch {
	case len(runs) == 0:
		return time.Time{}, 0, unsupported("%s doesn't run from %s.", jobLabel(ref), period), false
	case len(runs) > store.MaxSkips:
		return time.Time{}, 0, unsupported("%s runs more than %d times from %s, more than I can skip. Pause it instead (“pause it”), and resume it after.", jobLabel(ref), store.MaxSkips, period), false
	}
	return runs[0], len(runs), selector.Decision{}, true
}

// lifeJob is the job words name; no words, "it" or "that" are the job
// that fired last (fired) or the one spoken of last.
func lifeJob(in selector.Input, text, words string, fired bool, question string) (string, selector.Decision, bool) {
	if in.LastFiredJobID != "" && (fired || in.ContextJobID == "") {
		in.ContextJobID = in.LastFiredJobID
	}
	if strings.TrimSpace(fillerRe.ReplaceAllString(words, " ")) == "" && in.ContextJobID == "" {
		return "", clarify(in, text, selector.MissingJob, question), false
	}
	return pickJob(in, text, words)
}

// lifeZone is the sender's zone and now in it.
func lifeZone(in selector.Input) (time.Time, string) {
	zone := in.Timezone
	loc, err := scheduler.LoadLocation(zone)
	if err != nil {
		loc, zone = time.UTC, "UTC"
	}
	return in.Now.In(loc), zone
}

// readInstant reads phrase, all of it, as one instant: "tomorrow at 9am",
// "in 10 minutes". question is set when the phrase is a time that needs
// more ("tomorrow" alone).
func readInstant(in selector.Input, phrase string) (t time.Time, hasClock bool, question string, ok bool) {
	now, zone := lifeZone(in)
	toks := lex(phrase)
	if len(toks) == 0 {
		return time.Time{}, false, "", false
	}
	w, ok, _ := parseBlock(toks, when{}, now)
	if !ok || w.rec {
		return time.Time{}, false, "", false
	}
	o := compile(w, now, zone)
	if o.c == nil || o.c.typ != "once" {
		if o.why.ask != nil {
			return time.Time{}, false, o.why.ask.text, true
		}
		return time.Time{}, false, "", false
	}
	t, err := time.Parse(time.RFC3339, o.c.sched["runAt"].(string))
	return t, len(w.clocks) > 0 || w.hasRel, "", err == nil
}

// split finds where the words naming a job end and a time phrase that
// read accepts begins, the longest such phrase first. ok is false when
// no tail of words is one.
func split(words string, read func(tail string) bool) (head string, ok bool) {
	for _, t := range lex(words) {
		if read(strings.TrimSpace(words[t.i:])) {
			return strings.TrimSpace(words[:t.i]), true
		}
	}
	return words, false
}

// occurrence reads "skip the standup on Dec 24" and "unskip it on Friday":
// a job and, optionally, the day (and time) of one of its runs; count > 1
// skips that many runs from it (or from the next).
func occurrence(in selector.Input, text, words, fn string, count int) (selector.Decision, bool) {
	if m := possessiveDayRe.FindStringSubmatch(words); m != nil {
		words = strings.TrimSpace(m[1] + " " + m[3] + " " + m[2]) // "tomorrow's standup": "standup tomorrow"
	}
	var day time.Time
	var timed bool
	var question string
	head, dated := split(words, func(tail string) bool {
		t, clock, q, ok := readInstant(in, tail)
		if !ok || t.IsZero() {
			// a day with no time: any run that day
			if t2, _, _, ok2 := readInstant(in, tail+" at 11:59pm"); ok2 && !t2.IsZero() {
				t, clock, q, ok = t2, false, "", true
			}
		}
		if ok {
			day, timed, question = t, clock, q
		}
		return ok
	})
	if !dated {
		head = words
	}
	if !namesJob(in, head) && strings.TrimSpace(fillerRe.ReplaceAllString(head, " ")) != "" {
		return selector.Decision{}, false // not a job: "skip lunch" may be a message
	}
	if question != "" {
		return clarify(in, text, selector.MissingTime, question), true
	}
	id, d, ok := lifeJob(in, text, head, false, "Which schedule? Give me its name or id.")
	if !ok {
		return d, true
	}
	var ref *selector.JobRef
	for k := range in.Jobs {
		if in.Jobs[k].JobID == id {
			ref = &in.Jobs[k]
		}
	}
	args := map[string]any{"jobId": id}
	if count > 1 {
		args["count"] = count
	}
	switch {
	case dated && ref != nil:
		at, d, ok := runOn(in, text, ref, day, timed)
		now, _ := lifeZone(in)
		if tail := lex(words[len(head):]); ok && !at.After(now) && len(tail) > 0 && len(tail) <= 2 && (len(tail) == 1 || tail[0].s == "on") {
			if _, _, isDay := weekday(tail[len(tail)-1].s); isDay {
				// "skip (it on) friday" on a Friday whose run has passed: next Friday's
				at, d, ok = runOn(in, text, ref, day.AddDate(0, 0, 7), timed)
			}
		}
		if !ok {
			return d, true
		}
		if !at.After(now) {
			return unsupported("Its run of %s has passed already.", at.In(now.Location()).Format("Mon 2 Jan 3:04 PM")), true
		}
		args["at"] = at.UTC().Format(time.RFC3339)
	case fn == "schedule.unskip" && ref != nil:
		now, _ := lifeZone(in)
		var left []time.Time
		for _, t := range ref.Skip {
			if t.After(now) {
				left = append(left, t)
			}
		}
		switch len(left) {
		case 0:
			return unsupported("%s skips no run.", jobLabel(ref)), true
		case 1:
			args["at"] = left[0].UTC().Format(time.RFC3339)
		default:
			var days []string
			for _, t := range left {
				days = append(days, t.In(now.Location()).Format("Mon 2 Jan 3:04 PM"))
			}
			return clarify(in, text, selector.MissingTime, "It skips "+joinAnd(days)+": which one should run again? For example “on "+left[0].In(now.Location()).Format("Jan 2")+"”."), true
		}
	case fn == "schedule.unskip":
		return clarify(in, text, selector.MissingTime, "Which run should come back? For example “unskip the standup on Dec 24”."), true
	}
	return call(fn, args), true
}

// untilRe: the end of a pause said for a while: "until jan 4", "till
// monday", "through the 3rd" (that day included).
var untilRe = regexp.MustCompile(`\b(until|till|til|through|thru)\s+(.+)$`)

// awayRe: a while with no end a job can be given: "for the holidays",
// "while i'm away".
var awayRe = regexp.MustCompile(`\b(?:for|over|during)\s+(?:the\s+)?(?:holidays?|christmas|xmas|break|vacation|summer|winter)\b|\bwhile\s+(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:away|out|off|on\s+(?:vacation|holiday|leave|pto))\b|\bfor\s+a\s+(?:bit|while)\b`)

// pauseWhile reads a pause for a while ("pause the standup next week",
// "stop it until jan 4", "pause it for 2 weeks") as a skip of every run
// till then, so that it comes back by itself; a while with no end ("for
// the holidays") asks until when. ok is false when words say no while.
func pauseWhile(in selector.Input, text, words string) (selector.Decision, bool) {
	if m := awayRe.FindStringIndex(words); m != nil {
		head := strings.TrimSpace(words[:m[0]] + " " + words[m[1]:])
		if namesJob(in, head) || strings.TrimSpace(fillerRe.ReplaceAllString(head, " ")) == "" {
			d := clarify(in, text, selector.MissingTime, "Until when? I'll skip its runs until then, and it comes back by itself: for example “pause it until January 4”. (Or “pause it” to stop it until you resume it.)")
			var away []string
			for _, t := range lex(words[m[0]:m[1]]) {
				away = append(away, t.s)
			}
			d.Pending.Replace = strings.Join(away, " ") // "jan 4" stands in for "over the holidays"
			return d, true
		}
		return selector.Decision{}, false
	}
	m := untilRe.FindStringSubmatchIndex(words)
	if m != nil && isMonthWord(words[m[4]:m[5]]) {
		head := strings.TrimSpace(words[:m[0]])
		if namesJob(in, head) || strings.TrimSpace(fillerRe.ReplaceAllString(head, " ")) == "" {
			// "pause it until january": which day of it?
			mo := strings.TrimSpace(words[m[4]:m[5]])
			d := clarify(in, text, selector.MissingTime, "Until which day? I'll skip its runs until then, and it comes back by itself: for example “until "+capitalize(mo)+" 4”.")
			d.Pending.Replace = strings.ToLower(mo)
			return d, true
		}
	}
	if m == nil || !isMonthWord(words[m[4]:m[5]]) {
		if rest, start, end, ok := skipPeriod(in, words); ok {
			return skipBetween(in, text, rest, start, end) // not "until january", which asks
		}
	}
	if m == nil {
		return selector.Decision{}, false
	}
	if rest, start, end, ok := skipPeriod(in, words[:m[0]]+" from "+words[m[4]:m[5]]); ok && strings.Contains(words[m[4]:], " to ") {
		return skipBetween(in, text, rest, start, end) // "Until when?" "dec 21 to jan 3"
	}
	day, _, _, ok := readInstant(in, words[m[4]:m[5]]+" at 12am")
	if !ok || day.IsZero() {
		return selector.Decision{}, false
	}
	now, _ := lifeZone(in)
	local := day.In(now.Location())
	end := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, now.Location())
	if w := words[m[2]:m[3]]; w == "through" || w == "thru" {
		end = end.AddDate(0, 0, 1)
	}
	return skipBetween(in, text, strings.TrimSpace(words[:m[0]]), now, end)
}

// skipBetween reads "skip the standup next week": every run of the job
// words name from start to end.
func skipBetween(in selector.Input, text, words string, start, end time.Time) (selector.Decision, bool) {
	if !namesJob(in, words) && strings.TrimSpace(fillerRe.ReplaceAllString(words, " ")) != "" {
		return selector.Decision{}, false // not a job: "skip lunch next week" may be a message
	}
	id, d, ok := lifeJob(in, text, words, false, "Which schedule? Give me its name or id.")
	if !ok {
		return d, true
	}
	ref := jobRef(in, id)
	if ref == nil {
		return call("schedule.skip", map[string]any{"jobId": id}), true
	}
	at, count, d, ok := skipRuns(in, ref, start, end)
	if !ok {
		return d, true
	}
	args := map[string]any{"jobId": id, "at": at.UTC().Format(time.RFC3339)}
	if count > 1 {
		args["count"] = count
	}
	return call("schedule.skip", args), true
}

// runOn is the one run of the job on day (in the sender's zone), or at
// day's time when timed.
func runOn(in selector.Input, text string, ref *selector.JobRef, day time.Time, timed bool) (time.Time, selector.Decision, bool) {
	now, _ := lifeZone(in)
	sp, err := scheduler.NewSpec(ref.ScheduleType, ref.Schedule, time.Time{})
	if err != nil {
		return time.Time{}, unsupported("I can't read the schedule of %s.", jobLabel(ref)), false
	}
	local := day.In(now.Location())
	start := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, now.Location())
	end := start.AddDate(0, 0, 1)
	var runs []time.Time
	for t, ok := sp.Next(start.Add(-time.Nanosecond)); ok && t.Before(end) && len(runs) < 1440; t, ok = sp.Next(t) {
		if !timed || t.Equal(day) {
			runs = append(runs, t)
		}
	}
	dayText := local.Format("Mon 2 Jan")
	switch {
	case len(runs) == 1:
		return runs[0], selector.Decision{}, true
	case len(runs) == 0 && timed:
		return time.Time{}, unsupported("%s doesn't run at %s on %s.", jobLabel(ref), scheduler.Clock(local.Hour(), local.Minute()), dayText), false
	case len(runs) == 0:
		return time.Time{}, unsupported("%s doesn't run on %s.", jobLabel(ref), dayText), false
	}
	var clocks []string
	for _, t := range runs[:min(len(runs), 5)] {
		l := t.In(now.Location())
		clocks = append(clocks, scheduler.Clock(l.Hour(), l.Minute()))
	}
	return time.Time{}, clarify(in, text, selector.MissingTime, fmt.Sprintf("%s runs %d times on %s (%s): which one? For example “at %s”.",
		jobLabel(ref), len(runs), dayText, strings.Join(clocks, ", "), strings.ToLower(clocks[0]))), false
}

// snooze reads "snooze that 10 minutes", "snooze the standup until
// tomorrow 9am", "remind me again in an hour".
func snooze(in selector.Input, text, words string) (selector.Decision, bool) {
	if m := bareMinutesRe.FindStringSubmatchIndex(words); m != nil && (m[2] < 0 || !slices.Contains([]string{"until", "till", "til", "to", "at", "by"}, strings.ToLower(words[m[2]:m[3]]))) {
		words += " min" // "snooze it 15": minutes, as a snooze button counts
	}
	var until time.Time
	head, ok := split(words, func(tail string) bool {
		tail = snoozeLeadRe.ReplaceAllString(tail, "")
		tail = strings.TrimPrefix(tail, "at ") // an answer to "until when?" comes as "at 10 minutes"
		if amountRe.MatchString(tail) {
			tail = "in " + tail
		}
		t, _, _, ok := readInstant(in, tail)
		if ok && !t.IsZero() {
			until = t
		}
		return ok && !t.IsZero()
	})
	if !ok {
		head = words
	}
	if !namesJob(in, head) && strings.TrimSpace(fillerRe.ReplaceAllString(head, " ")) != "" {
		return selector.Decision{}, false
	}
	id, d, found := lifeJob(in, text, head, true, "Which reminder should I snooze? Give me its name or id.")
	if !found {
		return d, true
	}
	if !ok {
		return clarify(in, text, selector.MissingTime, "Until when? For example “10 minutes” or “tomorrow at 9am”."), true
	}
	if ref := jobRef(in, id); ref != nil && id != in.LastFiredJobID && ref.ScheduleType == "once" && ref.State == "enabled" {
		// a one-time reminder not fired yet: snoozing it puts it off
		// ("snooze it 5 min": 5 minutes after it was due), never a run
		// before the one due
		now, _ := lifeZone(in)
		if due := ref.Schedule.RunAt; due.After(now) {
			if rest := snoozeLeadRe.ReplaceAllString(strings.TrimSpace(words[len(head):]), ""); amountRe.MatchString(rest) {
				// the amount from now, in whole minutes: the instant read drops
				// now's fraction of a second ("for an hour": 11:00, not 10:59)
				until = due.Add((until.Sub(now) + time.Minute - 1).Truncate(time.Minute))
			}
			if !until.After(due) {
				return unsupported("It is due %s, after that.", due.In(now.Location()).Format("Mon 2 Jan 3:04 PM")), true
			}
			return call("schedule.update", map[string]any{"jobId": id, "schedule": map[string]any{"runAt": until.UTC().Format(time.RFC3339)}}), true
		}
	}
	return call("schedule.snooze", map[string]any{"jobId": id, "until": until.UTC().Format(time.RFC3339)}), true
}

func jobLabel(ref *selector.JobRef) string {
	switch {
	case ref.Name != "":
		return "“" + ref.Name + "”"
	case ref.Text != "":
		return "“" + ref.Text + "”"
	}
	return "Job " + ref.JobID
}

// isMonthWord says whether s is a month's name alone ("january").
func isMonthWord(s string) bool {
	_, ok := month(strings.TrimSpace(s))
	return ok
}
