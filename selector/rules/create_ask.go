package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/selector"
)

// The questions a create asks about its own words: what to post, and
// words it did not read as part of the schedule.

// askAction asks what to post; the answer takes the place of the words
// the request said with no action word.
func (s *sentence) askAction(in selector.Input, text, q string) selector.Decision {
	d := clarify(in, text, selector.MissingAction, q)
	if d.Pending != nil && len(s.dropped) > 0 {
		words := make([]string, len(s.dropped))
		for k, t := range s.dropped {
			words[k] = t.s
		}
		d.Pending.Replace = strings.Join(words, " ")
	}
	return d
}

// bareWhileRe: "in 20" with no unit, closing a request.
var bareWhileRe = regexp.MustCompile(`(?i)^in\s+([2-9]|[1-9]\d)$`)

// notUnderstood asks, saying what was understood and quoting what was not.
func (s *sentence) notUnderstood(in selector.Input, text string, w when, bad []tok, why problem, quoted ...string) selector.Decision {
	if why.ask != nil && !(why.ask.soft && len(s.blocks) > 0 && (len(w.clocks) > 0 || w.hasRel)) {
		return askQuestion(in, text, why.ask)
	}
	if why.refusal != "" {
		return unsupported("%s", why.refusal)
	}
	what := ""
	if len(quoted) > 0 {
		what = quoted[0]
		// quoted in the user's words, as written
		body := s.body
		if i := strings.Index(strings.ToLower(body), what); i >= 0 && len(body[i:]) >= len(what) && strings.ToLower(body[i:i+len(what)]) == what {
			what = body[i : i+len(what)]
		}
	} else if len(bad) > 0 {
		if bad[len(bad)-1].j <= len(s.body) {
			what = s.body[bad[0].i:bad[len(bad)-1].j]
		}
	}
	if reason := unsupportedIn(text, s, true); reason != "" {
		return unsupported("%s", reason)
	}
	if m := bareWhileRe.FindStringSubmatch(what); m != nil && strings.HasSuffix(strings.TrimRight(strings.ToLower(s.body), " .!?"), strings.ToLower(what)) {
		// "… to check the oven in 20": minutes or hours, asked as "in 20
		// to …" is (offsets.go); the answer takes the place of "in 20"
		return askQuestion(in, text, &question{missing: selector.MissingTime, replace: []string{"in", m[1]},
			text: fmt.Sprintf("In %s minutes or %s hours? Say “in %s minutes” or “in %s hours”.", m[1], m[1], m[1], m[1])})
	}
	q := fmt.Sprintf("I didn't understand “%s” as part of the schedule. Could you say when another way? For example “every Monday and Wednesday at 2pm”.", what)
	if len(s.blocks) > 0 && what != "" {
		// "every monday at 9 and every friday at 5pm": two schedules
		other, joined := lex(what), false
		if len(other) > 0 && (other[0].s == "and" || other[0].s == "," || other[0].s == "&") {
			// "and 10am on weekends to": the words of a second when, joined
			other, joined = trimLeadConnectors(other), true
			for len(other) > 0 && (other[len(other)-1].s == "to" || other[len(other)-1].s == "that") {
				other = other[:len(other)-1]
			}
		}
		if lw, ok, _ := parseBlock(other, when{}, in.Now); ok && len(other) > 0 && (lw.rec || lw.hasDay || lw.date != nil || joined && len(lw.dows) > 0 && len(lw.clocks) > 0) && (w.rec || w.hasDay || w.date != nil) {
			if also := alsoOnDays(s.body); also != "" {
				if d := create(in, also); d.IsCall() {
					return d // "every friday at 6pm, and also on mondays": one job
				}
			}
			return unsupported("That is two schedules, “%s” and “%s”; I make one per message. Ask for each separately.", what[other[0].i:other[len(other)-1].j], blockText(s.body, s.blocks))
		}
	}
	switch {
	case len(s.blocks) > 0 && s.text != "" && strings.Contains(s.text, what):
		// words about time in what would be the message: "message" says
		// they are, and makes the request with the message in quotes
		understood, post := blockText(s.body, s.blocks), fmt.Sprintf("post “%s”%s %s", s.text, s.tgt.where(), blockText(s.body, s.blocks))
		quoted := s.textQuoted()
		if !create(in, quoted).IsCall() {
			q = fmt.Sprintf("I understood “%s”, but is “%s” part of the message or of the schedule? If it is the message, put it in quotes: %s.", understood, what, post)
			break
		}
		q = fmt.Sprintf("I understood “%s”, but is “%s” part of the message or of the schedule? Say “message” to %s, or say the schedule another way.", understood, what, post)
		d := clarify(in, text, selector.MissingTime, q)
		d.Pending.Unread, d.Pending.Message = true, quoted
		return d
	case len(s.blocks) > 0:
		q = fmt.Sprintf("I understood “%s” but not “%s”. Could you say when another way? (Put the message in quotes if those words are part of it.)", blockText(s.body, s.blocks), what)
	}
	d := clarify(in, text, selector.MissingTime, q)
	d.Pending.Unread = true
	if len(s.blocks) == 0 && what != "" {
		// "when she is online": the when said another way takes its place
		d.Pending.Replace = whenSpan(text, what)
	}
	return d
}

// whenLeads are the words before a when not read that belong to it ("in a
// couple of days": "couple of days" was quoted).
var whenLeads = wordSet(strings.Fields(`in a an the at on by for next this from until till after before around about`), everyWords)

// eventWords open a when said by an event, whose words run on to the
// message ("before the meeting to call").
var eventWords = wordSet(strings.Fields(`before after when once until till whenever`))

// whenSpan is what, as lexed words, with the whenLeads before it in text:
// the words an answer to "say when another way" takes the place of.
func whenSpan(text, what string) string {
	all, part := lex(text), lex(what)
	for k := len(all) - len(part); k >= 0; k-- {
		match := true
		for n := range part {
			if all[k+n].s != part[n].s {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		for k > 0 && (whenLeads[all[k-1].s] || all[k-1].kind == tNum || unit(all[k-1].s) != "") {
			k-- // "in a couple of days", "an hour before the meeting"
			part = append([]tok{all[k]}, part...)
		}
		if eventWords[part[len(part)-1].s] || eventWords[part[0].s] && part[len(part)-1].s != "to" {
			// "10 minutes before the meeting to call": the event, up to the message
			for e := k + len(part); e < len(all) && all[e].s != "to" && all[e].s != "that" && all[e].s != ":" && all[e].s != ","; e++ {
				part = append(part, all[e])
			}
		}
		break
	}
	words := make([]string, len(part))
	for n, t := range part {
		words[n] = t.s
	}
	return strings.Join(words, " ")
}

// blockText is the when as written: the blocks' words in body, the
// message as lexed.
func blockText(body string, blocks [][]tok) string {
	var parts []string
	for _, b := range blocks {
		if len(b) > 0 && b[len(b)-1].j <= len(body) {
			parts = append(parts, body[b[0].i:b[len(b)-1].j])
		}
	}
	return strings.Join(parts, " … ")
}

// textQuoted is the request as said, with its message in quotes, so that
// no word of it is read as part of the schedule.
func (s *sentence) textQuoted() string {
	t := s.textToks
	if len(t) == 0 || t[len(t)-1].j > len(s.body) {
		return ""
	}
	return s.body[:t[0].i] + "“" + s.text + "”" + s.body[t[len(t)-1].j:]
}

// topicRe opens words after a when that can only be the message's: what
// it is about ("… tomorrow at 9am about the contract").
var topicRe = regexp.MustCompile(`(?i)^(?:about|regarding|re:?|concerning|for|with)\s+\S`)

// topicAfterWhen reads a request whose message goes on after its when
// with what it is about, as if those words came before the when: "remind
// me to email bob tomorrow at 9am about the contract" posts "email bob
// about the contract". Only words that name no time move ("for the
// whole week" is a bound the grammar did not read: it asks), and only
// when the request then reads whole.
func (r *reading) topicAfterWhen(understood, unread string) (selector.Decision, bool) {
	aside := strings.HasPrefix(unread, "(") && strings.HasSuffix(unread, ")") // "(for the Berlin team)"
	if !topicRe.MatchString(unread) && !aside {
		return selector.Decision{}, false
	}
	words := lex(strings.Trim(unread, "()"))
	if namesZone(words) || slices.ContainsFunc(words, func(t tok) bool {
		return t.kind != tWord && t.kind != tOther || strongTime(t) || timeBearing(t) || unit(t.s) != "" || zoneAbbrev[t.s] != "" ||
			slices.Contains(relativeDays, t.s) || slices.Contains(dayParts, t.s) || slices.Contains([]string{"weekend", "weekends", "holidays", "holiday", "now", "while", "bit", "ever", "forever", "good", "long", "rest", "time", "moment"}, t.s)
	}) {
		return selector.Decision{}, false
	}
	at := strings.LastIndex(r.body, understood)
	end := strings.LastIndex(r.body, unread)
	if at < 0 || end < at+len(understood) {
		return selector.Decision{}, false
	}
	moved := strings.TrimSpace(r.body[:at]) + " " + unread + " " + understood + r.body[end+len(unread):]
	if d := create(r.in, moved); d.IsCall() {
		return d, true
	}
	return selector.Decision{}, false
}

// dayWord says whether t is only a day said from today ("tomorrow",
// "today"): in the words of a job that repeats, the message's ("every
// day at 5pm to plan tomorrow").
func (r *reading) dayWord(t []tok) bool {
	w, ok, _ := parseBlock(t, when{}, r.now)
	return ok && w.hasDay && len(w.clocks) == 0 && !w.rec && w.part == ""
}

// qualifiedWhen asks or refuses when the when that starts region[tail] is
// qualified by a word the grammar does not read: "call Sam before 5pm",
// "some Tuesday at 10am", "Black Friday".
func qualifiedWhen(in selector.Input, text, body string, region []tok, tail int) (selector.Decision, bool) {
	prev, first := region[tail-1], region[tail]
	if d, ok := dueBy(in, text, body, region, tail); ok {
		return d, true
	}
	_, _, bareDay := weekday(first.s)
	_, bareMonth := month(first.s)
	bare := bareDay || bareMonth || first.kind == tNum || first.s == "week" || first.s == "month" || first.s == "tomorrow" || first.s == "today" || first.s == "tonight"
	if slices.Contains([]string{"before", "after", "by", "around", "about", "approximately", "approx", "roughly", "since", "past", "near", "circa", "~", "or"}, prev.s) && first.kind == tNum ||
		slices.Contains([]string{"some", "any", "a", "an", "another", "one", "whichever", "or", "either"}, prev.s) && bareDay ||
		qualifiers[prev.s] && bare || bare && nearDayWord(prev.s) && !(tail >= 2 && slices.Contains([]string{"the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "that"}, region[tail-2].s)) ||
		bareDay && slices.Contains([]string{"happy", "good", "merry", "great", "black", "cyber", "ash", "holy", "maundy", "palm", "easter", "bowl", "giving", "shrove", "whit", "fun", "casual", "tgif", "fresh", "freaky", "flashback", "throwback", "motivation", "wellness", "taco", "pizza"}, prev.s) {
		if holidayDays[prev.s+" "+first.s] {
			return unsupported("I can't follow holidays that move from year to year (%s). I can schedule a fixed date instead.", body[prev.i:first.j]), true
		}
		return clarify(in, text, selector.MissingTime, fmt.Sprintf("When exactly? I can't schedule “%s”: give a day and a time, such as “on Tuesday at 10am”.", body[prev.i:first.j])), true
	}
	return selector.Decision{}, false
}

// dueBy asks when to remind of something due "by" a time ("remind me to
// submit the report by 4pm today"): a deadline is no time to post at, and
// a reminder at it may come too late. The answer ("at 3pm") takes the place of "by
// 4pm", the day kept.
func dueBy(in selector.Input, text, body string, region []tok, tail int) (selector.Decision, bool) {
	prev, first := region[tail-1], region[tail]
	from := 0
	if region[0].s == "to" {
		from = 1
	}
	if prev.s != "by" || first.kind != tNum || tail-1 <= from || !strings.HasPrefix(strings.ToLower(body), "remind") {
		// a post's deadline ("timesheets due by 5pm") is its words'
		return selector.Decision{}, false
	}
	w, ok, _ := parseBlock(region[tail:], when{}, in.Now)
	if !ok || len(w.clocks) != 1 || w.rec {
		return selector.Decision{}, false
	}
	msg := strings.TrimSpace(body[region[from].i:prev.i])
	due := body[prev.i:region[len(region)-1].j]
	return askQuestion(in, text, &question{missing: selector.MissingTime, replace: []string{prev.s, first.s},
		text: fmt.Sprintf("When should I post “%s”? It is due “%s”: say the time to post it, such as “at %s” or earlier.", msg, due, body[first.i:first.j])}), true
}

// runTogether asks about a request that opens with "remind" run into who
// ("remindme to send the invoice on monday") or shortened ("rmd me …"):
// yes makes it as spelled out. Read as it stands, its verb would be the action and its text cut.
func (r *reading) runTogether(rest []tok) (selector.Decision, bool) {
	if len(rest) > 1 && rest[0].s == "/" {
		rest = rest[1:] // "/remindme …"
	}
	if len(rest) > 1 && (rest[0].s == "rmd" || rest[0].s == "rmnd") && (rest[1].s == "me" || rest[1].s == "us") && rest[0].j <= len(r.body) {
		// "rmd me tmrw 10am dentist": more than one edit from "remind"
		// (NL_SPEC 28), so asked, spelled out
		fixed := r.body[:rest[0].i] + "remind" + r.body[rest[0].j:]
		if d := decide(r.in, fixed); d.IsCall() && d.Function == "schedule.create" {
			d := clarify(r.in, r.text, selector.MissingAction, "Did you mean “"+fixed+"”? (yes or no)")
			d.Pending.Yes, d.Pending.Create = fixed, true
			return d, true
		}
		return selector.Decision{}, false
	}
	if len(rest) == 0 || rest[0].kind != tWord || rest[0].s != "remindme" && rest[0].s != "remindus" || rest[0].j > len(r.body) {
		return selector.Decision{}, false
	}
	fixed := r.body[:rest[0].i] + "remind " + r.body[rest[0].i+6:]
	d := clarify(r.in, r.text, selector.MissingAction, "Did you mean “"+fixed+"”? (yes or no)")
	d.Pending.Yes, d.Pending.Create = fixed, true
	return d, true
}

// movesAround says whether bad, an "around" ending the message after a
// verb of moving, is the message's ("walk around every hour"); before
// another when it approximates ("call the plumber around tuesday",
// "stretch around every 30 minutes") and is asked about.
func (r *reading) movesAround(bad string) bool {
	t := r.s.textToks
	if bad != "around" || len(t) < 2 || t[len(t)-1].s != "around" || len(r.s.blocks) == 0 || len(r.s.blocks[0]) == 0 {
		return false
	}
	first := r.s.blocks[0][0].s
	return (first == "every" || first == "each") && slices.Contains([]string{"walk", "move", "look", "turn", "run", "stroll", "wander", "get", "play", "poke", "drive", "dance", "jump", "shop", "ask"}, t[len(t)-2].s)
}

// shortSpan says whether w, a job that repeats daily or less often, was
// given a span shorter than a day ("every day at 9pm … for 30 minutes"):
// no end of it, but how long the thing reminded of takes.
func shortSpan(w when) bool {
	return w.rec && w.span > 0 && w.span < 24*time.Hour && w.unit != "minute" && w.unit != "hour"
}

// forAWhile says whether bad, words left in the message, are such a span
// ("read for 30 minutes"): the message's.
func (r *reading) forAWhile(bad string) bool {
	t := lex(bad)
	if len(t) == 0 || t[0].s != "for" {
		return false
	}
	w, ok, _ := parseBlock(t, r.w, r.now)
	return ok && shortSpan(w)
}

// atMostDaily says whether w repeats no more often than once a day: a
// lone "tomorrow" in its message is the message's, where in a job every
// 15 minutes it would be all that bounds it.
func atMostDaily(w when) bool {
	return w.rec && w.unit != "minute" && w.unit != "hour" && w.window == nil && len(w.mins) == 0 && !w.onHour
}

// whole says whether w names both when in the day and which days: after
// it, a colon opens the message ("every monday at 10: office closed from
// dec 24"), where "tomorrow: dentist at 3pm" still needs its time.
func whole(w when) bool {
	return (len(w.clocks) > 0 || w.hasRel) && (w.rec || w.hasDay || w.date != nil || len(w.dows) > 0 || w.hasRel)
}

// runTogetherRe opens a request with "remind" run into who: its question
// (runTogether) stands, not a request read after it ("remindme: send …").
var runTogetherRe = regexp.MustCompile(`(?i)^\W*remind(?:me|us)\b`)

// whenHead is the when said between a reminder's who and "to", as the
// grammar reads it: "remind me for next wednesday at 10am to …" without
// its "for", "on the 5/1 at 9" without "the", "1st and 15th at 9am"
// with "on the" it leaves out. head itself when none of them reads.
func (r *reading) whenHead(head []tok) []tok {
	if _, ok, _ := parseBlock(head, r.w, r.now); ok || len(head) < 2 {
		return head
	}
	var tries [][]tok
	if head[0].s == "for" {
		tries = append(tries, head[1:])
	}
	if k := slices.IndexFunc(head, func(t tok) bool { return t.s == "the" }); k >= 0 && k+1 < len(head) && head[k+1].kind == tNum && strings.Contains(head[k+1].s, "/") {
		tries = append(tries, append(slices.Clone(head[:k]), head[k+1:]...))
	}
	if _, isOrd := ordinal(head[0].s); isOrd && head[0].kind == tNum { // "1st and 15th", not "first"
		tries = append(tries, append(lex("on the"), head...))
	}
	for _, t := range tries {
		if _, ok, y := parseBlock(t, r.w, r.now); ok || y.found() {
			return t
		}
	}
	return head
}

// clauseBefore asks what the post should say when a clause before the
// action does something ("check the build and post it to #eng …",
// "remnd me to send …"): its words would be dropped, and schedbot cannot
// fetch or compute what the clause names. head is what comes before the
// action.
func clauseBefore(body string, head []tok, w when, now time.Time) string {
	for len(head) > 0 && (head[len(head)-1].s == "," || head[len(head)-1].s == ".") {
		head = head[:len(head)-1]
	}
	if len(head) == 0 {
		return ""
	}
	quote := func(ts []tok) string {
		if ts[len(ts)-1].j > len(body) {
			return spanText(ts)
		}
		return body[ts[0].i:ts[len(ts)-1].j]
	}
	last := head[len(head)-1].s
	joined := last == "and" || last == "then" || last == "&"
	if joined {
		clause := trimConnectors(head)
		for len(clause) > 0 && (clause[len(clause)-1].s == "and" || clause[len(clause)-1].s == "then") {
			clause = clause[:len(clause)-1]
		}
		if len(clause) == 0 {
			return ""
		}
		if _, ok, _ := parseBlock(clause, w, now); ok {
			return "" // "every monday at 9 and post …": a when
		}
		if chatter(clause) && !slices.ContainsFunc(clause, func(t tok) bool { return t.kind == tWord && len(t.s) > 2 }) {
			return ""
		}
		return fmt.Sprintf("What should the post say? I post the text I'm given; I can't do “%s” myself (fetch, check or compute things). Tell me the words to post, in quotes.", quote(clause))
	}
	// "remnd me to send …", "xyzzy me to send …": a word in the place of
	// the verb that is not one
	if last == "to" && len(head) >= 2 && (head[len(head)-2].s == "me" || head[len(head)-2].s == "us" || head[len(head)-2].kind == tChannel || head[len(head)-2].kind == tUser) {
		clause := trimTrailConnectors(head[:len(head)-1])
		if _, ok, _ := parseBlock(clause, w, now); ok {
			return ""
		}
		return fmt.Sprintf("I didn't understand “%s”: which verb did you mean? Say it again, such as “remind %s to …”.", quote(head), head[len(head)-2].s)
	}
	return ""
}

// namesZone says whether words name a zone: a city does alone or a word
// or two before "time" ("Berlin", "Berlin local time", "London office
// time"), not in "for the Berlin team".
func namesZone(words []tok) bool {
	for k, x := range words {
		if zoneWords[x.s] != "" && (len(words) <= 2 || tokAt(words, k+1).s == "time" || tokAt(words, k+2).s == "time") {
			return true
		}
	}
	return false
}
