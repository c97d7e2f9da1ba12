package rules

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
)

// A request to create reads, in tokens:
//
//	[when] verb [who] [when (to|that|:)] text [when]
//
// where each [when] is a block the grammar reads whole, the target
// ("in #team") may stand anywhere, and the text is one run of what is left.
// The last block is the longest tail of the message that the grammar
// reads to the end; so "post the monday report every friday at 5pm" keeps
// "the monday report" as the text.

// reading is a request to create being read: the sentence, the when its
// blocks have said so far, and the first problem a block found.
type reading struct {
	in   selector.Input
	text string // the message as sent
	body string // the message without its greeting, as lexed
	s    *sentence
	w    when
	why  problem
	now  time.Time // in zone
	zone string
	loc  *time.Location
	// noEnd: the request closed with "until further notice" or the
	// like, taken off so that it is not read as the message's words
	noEnd bool
	// colonText: the text follows a colon after a when ("every monday
	// 9am: office closed from dec 24"), so no when is taken from its end;
	// words about time left in it are asked about
	colonText bool
}

// add reads b as a when block on top of what was read; false when the
// grammar does not read it whole (its problem is kept).
func (r *reading) add(b []tok) bool {
	if len(b) == 0 {
		return true
	}
	nw, ok, y := parseBlock(b, r.w, r.now)
	if !ok {
		if y.found() {
			r.why = y
		}
		return false
	}
	r.w = nw
	r.s.blocks = append(r.s.blocks, b)
	return true
}

// create reads a request to create a job, step by step; each step either
// goes on or decides (a question, a refusal).
func create(in selector.Input, text string) selector.Decision {
	r, d, done := read(in, text)
	if done {
		return d
	}
	if d, done := r.checkText(); done {
		return d
	}
	return r.compileCall()
}

// read reads a request's parts: its target, action, text and when
// blocks; done with a decision when a part cannot be read.
func read(in selector.Input, text string) (r *reading, d selector.Decision, done bool) {
	r, d, done = startReading(in, text)
	if done {
		return nil, d, true
	}
	rest := r.s.rest()
	if d, ok := r.runTogether(rest); ok {
		return nil, d, true
	}
	v, textAt, act := findVerb(in, rest)
	if act.unclearWho {
		d := clarify(in, text, selector.MissingTarget, "Who should I remind? I remind one person or channel per schedule: say “remind me …”, “remind @name …” or “remind #channel …”.")
		if textAt < len(rest) && rest[textAt].kind == tWord && !slices.Contains([]string{"and", "or"}, rest[textAt].s) {
			// "remind bob to …", "dm sarah tomorrow …": the answer ("me",
			// "@sarah") is who, in the place of the verb and the name
			for _, t := range rest[v : textAt+1] {
				d.Pending.Replace = strings.TrimSpace(d.Pending.Replace + " " + t.s)
			}
		}
		return nil, d, true
	}
	region, d, done := r.aroundVerb(rest, v, textAt, act)
	if done {
		return nil, d, true
	}
	textToks, d, done := r.takeTail(region, v)
	if done {
		return nil, d, true
	}
	if d, done := r.takeText(textToks, v); done {
		return nil, d, true
	}
	return r, selector.Decision{}, false
}

var (
	// askedRe: a request asked as a question ("can you …", "could u …").
	askedRe = regexp.MustCompile(`(?i)\b(?:can|could|would|will)\s+(?:you|u)\b`)
	// askedTailRe: what closes such a question ("?", "? thx!").
	askedTailRe = regexp.MustCompile(`(?i)\?+(?:\s*(?:thanks|thank\s+you|thx|ty|pls|please|cheers)?[\s!.]*)$`)
	// noEndTailRe: a request closed by words that name no end.
	rightAtRe = regexp.MustCompile(`(?i)^right\s+at\s`)
	// audienceRe: thanks said to a channel's people ("Thanks everyone!")
	audienceRe = regexp.MustCompile(`(?i)\b(?:everyone|everybody|all|team|folks|guys|y'all|people)\b`)
	// remindMeRe: a reminder to the sender
	remindMeRe = regexp.MustCompile(`(?i)\bremind\s+(?:me|us)\b`)
	// remindPleaseRe: a reminder asked for, "please" closing the request
	remindPleaseRe = regexp.MustCompile(`(?i)^(remind\s.+?)[\s,]+(?:please|pls|plz)[\s.!]*$`)
	// sayWordRe: a word after which "please" is said, not asked
	sayWordRe = regexp.MustCompile(`(?i)\b(?:say|saying|said|says|ask|asking|add|type|write|the|a|an|to|about|and|for|with)$`)
	// needToRemindRe: what the sender must do, then "remind me"
	needToRemindRe = regexp.MustCompile(`(?i)^(?:i\s+(?:need|have|want)\s+to|i\s+must|i\s+should|i\s+gotta|i've\s+got\s+to|gotta)\s+(.+?)[\s,;.]+(?:so\s+)?(?:please\s+|pls\s+|can\s+you\s+)?remind\s+me(?:\s+(?:please|pls|about\s+it|of\s+it))?[\s.!?]*$`)
	// thanksTailRe: thanks said as a sentence of its own after the request
	thanksTailRe = regexp.MustCompile(`(?i)(["”.!?])\s+(?:(?:many\s+)?thanks|thank\s+you|thx|ty|cheers|much\s+appreciated)(?:\s+(?:(?:ever\s+)?so\s+much|a\s+lot|a\s+ton|very\s+much|again|in\s+advance|for\s+(?:your|the)\s+(?:kind\s+)?(?:help|assistance)|heaps|mate|man|bot|all|everyone))*(?:[,!.]*\s*(?:you'?re|you\s+are)\s+(?:a\s+|the\s+)?(?:lifesaver|star|legend|best|awesome|amazing|great))?[\s!.🙏😊]*$`)
	noEndTailRe  = regexp.MustCompile(`(?i)[\s,;—–-]+(?:until|till|til|'til)\s+(?:further\s+notice|cancell?ed|stopped)[\s.!]*$`)
)

// requestBody is a request without the words around it that are not its
// own: a greeting or "can you" before it, and the question mark and
// thanks that close a request asked ("can you remind me about the
// meeting tomorrow? thx"), "actually" and "instead" around a request
// said again ("actually, remind me to call dad instead").
func requestBody(text string) string {
	body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
	if m := thanksTailRe.FindStringSubmatch(body); m != nil && (strings.ContainsAny(m[1], "\"”?") || remindMeRe.MatchString(body) || !audienceRe.MatchString(m[0])) {
		body = thanksTailRe.ReplaceAllString(body, "$1") // `… "Don't forget!" Thanks so much in advance!!`; a post's own thanks stay
	}
	if m := remindPleaseRe.FindStringSubmatch(body); m != nil && !sayWordRe.MatchString(m[1]) {
		body = m[1] // "remind me in 45 mins to stretch pls": asked of the bot
	}
	if m := needToRemindRe.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
		body = "remind me to " + m[1] // "I need to run the test suite at 3pm, remind me"
	}
	if m := timerRe.FindStringSubmatch(body); m != nil {
		body = "remind me in " + m[1] // "set a timer for 10 minutes": a reminder then
	} else if m := alarmRe.FindStringSubmatch(body); m != nil {
		body = "remind me " + m[1] // "alarm for 7am tomorrow"
		if m[1][0] >= '0' && m[1][0] <= '9' {
			body = "remind me at " + m[1]
		}
	}
	if rightAtRe.MatchString(body) {
		body = body[len("right "):] // "right at 9am tomorrow remind #ops …"
	}
	if askedRe.MatchString(prefixRe.FindString(text)) {
		body = strings.TrimRight(askedTailRe.ReplaceAllString(body, ""), " ")
	}
	if rest := correctionLeadRe.ReplaceAllString(body, ""); rest != body && startsAction(strings.ToLower(rest)) {
		body = strings.TrimSpace(correctionTailRe.ReplaceAllString(rest, ""))
	}
	return body
}

// startReading lexes the message, takes its targets and its timezone.
func startReading(in selector.Input, text string) (r *reading, d selector.Decision, done bool) {
	// "… to stretch until further notice": said, and taken off the text
	// too, so that an answer to a question joins the request's words
	noEnd := false
	if m := noEndTailRe.FindStringIndex(text); m != nil && m[0] > 0 && !strings.Contains(text[:m[0]], ":") {
		text, noEnd = text[:m[0]], true // not after a colon: "…: closed until further notice" is the message
	}
	body := requestBody(text)
	if m := noEndTailRe.FindStringIndex(body); m != nil && m[0] > 0 && !strings.Contains(body[:m[0]], ":") {
		body, noEnd = body[:m[0]], true
	}
	body = askAfterWhen(in, body) // "Every Friday at 3pm I'd like you to post …"
	// "don't let me forget to X", "make sure I X": remind me to X
	body = remindLeadRe.ReplaceAllString(rememberMeRe.ReplaceAllString(body, "remind $1"), "remind me to ")
	body = reminderForTeamRe.ReplaceAllString(body, "remind the team$1")
	body = remindersRe.ReplaceAllString(body, "$1 a reminder") // "can u set reminders"
	body = namedChannel(body)                                  // "my class channel #period3": #period3
	// "i need a reminder …", "i'd like to be reminded …"
	body = remindedRe.ReplaceAllString(reminderAskRe.ReplaceAllString(body, "$1$2"), "remind me")
	body = reminderForMeRe.ReplaceAllString(body, "remind me")
	// "dm me …", "send me …": remind me …; "send the report to me (or to
	// my DMs) every Monday": remind me the report every Monday
	body = dmMeRe.ReplaceAllString(body, "remind me")
	// "remind me as well to …", "in #ops too every Friday": an addition
	// said, not a word of the message
	body = alsoWordsRe.ReplaceAllString(body, "$1")
	if m := toMeBodyRe.FindStringSubmatch(body); m != nil {
		body = "remind me " + m[1] + m[2]
	}
	s := &sentence{toks: lex(body), body: body}
	for k := 0; k < len(s.toks) && s.toks[k].kind == tOther && !isURLAt(s.toks[k].s, 0); k++ {
		s.used = append(s.used, true) // a leading emoji says nothing
	}
	if len(s.toks) > 400 {
		return nil, unsupported("That message is too long to read as a schedule. Tell me in a sentence what to post, where and when."), true
	}
	s.used = append(s.used, make([]bool, len(s.toks)-len(s.used))...)
	if why := s.takeTargets(); why != "" {
		return nil, unsupported("%s", why), true
	}
	zone := in.Timezone
	if zone == "" {
		zone = "UTC"
	}
	loc, err := scheduler.LoadLocation(zone)
	if err != nil {
		loc, zone = time.UTC, "UTC"
	}
	s.dropPoliteEnd()
	return &reading{in: in, text: text, body: body, s: s, now: in.Now.In(loc), zone: zone, loc: loc, noEnd: noEnd}, selector.Decision{}, false
}

// aroundVerb reads a when before the action ("every weekday at 9am remind
// #team to …") and between the action and its text ("remind me at 3pm to
// call mom"), or, with no action word, a when before a colon ("every
// monday 9am: standup"). It returns where the text and a trailing when
// may be.
func (r *reading) aroundVerb(rest []tok, v, textAt int, act action) (region []tok, d selector.Decision, done bool) {
	in, text, s := r.in, r.text, r.s
	switch {
	case v >= 0:
		head := trimConnectors(rest[:v])
		if len(head) > 0 && (head[0].s == "a" || head[0].s == "an") && rest[v].s == "reminder" {
			head = head[1:] // "a daily reminder to …": "daily" is the when
		}
		if q := clauseBefore(r.body, rest[:v], r.w, r.now); q != "" {
			// the answer is read with the request from its action on
			return nil, clarify(in, withoutPronoun(rest[v:], r.body), selector.MissingAction, q), true
		}
		if len(head) > 0 && !r.add(head) && !chatter(head) {
			return nil, s.notUnderstood(in, text, r.w, head, r.why), true
		}
		s.act = act
		region = rest[textAt:]
		if len(region) > 0 {
			for k := len(region) - 1; k >= 1; k-- {
				if !slices.Contains([]string{"to", "that", ":", "about"}, region[k].s) && region[k].kind != tQuote {
					continue
				}
				head := r.whenHead(region[:k])
				if _, ok, y := parseBlock(head, r.w, r.now); ok {
					r.add(head)
					region, r.colonText = region[k:], region[k].s == ":"
					break
				} else if y.found() && !r.why.found() {
					r.why = y // "every February 30 at 9am": said why it cannot be
				}
			}
		}
		r.colonText = r.colonText || len(region) > 1 && region[0].s == ":" && len(s.blocks) > 0
		region = trimLeadConnectors(region)
	default:
		// no action word: "every monday 9am: standup -> #team", or a quote
		region = rest
		for k, t := range rest {
			if (t.s == ":" || t.s == "-") && k > 0 && k+1 < len(rest) {
				if _, ok, _ := parseBlock(rest[:k], r.w, r.now); ok {
					r.add(rest[:k])
					region, r.colonText = rest[k+1:], t.s == ":"
					s.act.implicit = true
					break
				}
			}
		}
	}
	return region, selector.Decision{}, false
}

// takeTail reads the longest tail of region the grammar reads as a when
// (or, after a verb and with no when yet, the longest head: "/remind #eng
// in 30 minutes deploy window opens"), and returns what is left for the
// text.
func (r *reading) takeTail(region []tok, v int) (textToks []tok, d selector.Decision, done bool) {
	in, text, s := r.in, r.text, r.s
	if r.colonText && whole(r.w) {
		return trimTrailConnectors(region), selector.Decision{}, false
	}
	r.colonText = false // "remind me tomorrow: dentist at 3pm": the time is still to come
	tail := -1
	lo := 0
	if len(region) > 60 {
		lo = len(region) - 60
	}
	for k := max(lo, 0); k < len(region); k++ {
		if !startsBlock(region[k]) {
			continue
		}
		if k >= 2 && region[k-1].s == "-" && region[k-1].j == region[k].i && region[k-2].j == region[k-1].i && region[k-2].kind == tWord {
			continue // "semi-monthly", "check-in": one word
		}
		if k > 0 && region[k].s == "in" && tokAt(region, k+1).s == "every" && particleIn(region[max(0, k-4):k]) && !learnersEvery(region[k+1:]) {
			continue // "check in every 2 weeks", "let the dog in every 3 hours": the message's "in"
		}
		if k+1 < len(region) && region[k+1].kind == tPunct && region[k].kind == tWord && slices.Contains([]string{"!", ".", "?"}, region[k+1].s) {
			continue // "Happy Friday! every Friday at 9am": the day ends the text
		}
		if (atMostDaily(r.w) || r.w.unit == "" && slices.ContainsFunc(region[:k], func(t tok) bool { return t.s == "every" || t.s == "each" }) &&
			!slices.ContainsFunc(region[:k], func(t tok) bool { u := unit(t.s); return u == "minute" || u == "hour" })) && r.dayWord(region[k:]) {
			continue // "every day at 5pm to plan tomorrow": the message's day
		}
		if nw, ok, y, first := parseBlockFirst(region[k:], r.w, r.now); ok {
			if region[k].s == "for" && shortSpan(nw) {
				continue // "every day at 9pm to read for 30 minutes": the message's, no end
			}
			// "what went well in March every Friday": a month or a date
			// that the rest of the when does not need may end the text
			if rest, ok2, _ := parseBlock(region[k+first:], r.w, r.now); k > 0 && first > 0 && ok2 && (rest.rec || len(rest.dows) > 0 || rest.date != nil || rest.hasDay) &&
				!slices.Contains([]string{"during", "throughout", "every", "each"}, region[k].s) {
				amb := r.body[region[k].i:region[k+first-1].j]
				return nil, clarify(in, text, selector.MissingTime, fmt.Sprintf("Is “%s” part of the message or of the schedule? If it is the message, put the message in quotes.", amb)), true
			}
			tail = k
			break
		} else if y.found() && !r.why.found() {
			r.why = y
		}
	}
	textToks = region
	if tail > 0 {
		if d, done := qualifiedWhen(in, text, r.body, region, tail); done {
			return nil, d, true
		}
	}
	if tail >= 0 {
		textToks = region[:tail]
		r.add(region[tail:])
	}
	if v >= 0 && len(s.blocks) == 0 && tail < 0 || v < 0 && !s.act.implicit && len(textToks) > 1 {
		// "/remind #eng in 30 minutes deploy window opens": the when
		// first; with no action word ("every monday standup reminder at
		// 9am", "daily standup reminder"), its words are no message, and
		// what stands first is the when the question repeats
		for k := min(len(textToks)-1, 12); k >= 1; k-- {
			if v < 0 {
				if bad, _ := leftover(textToks[k:], r.now, true); bad != "" {
					continue // the words left are no message either: not understood
				}
			}
			if _, ok, _ := parseBlock(textToks[:k], r.w, r.now); ok && r.add(textToks[:k]) {
				textToks = textToks[k:]
				if len(textToks) > 1 && textToks[0].s == "," && slices.Contains(textConnectors, textToks[1].s) {
					textToks = textToks[2:] // "every day at 7am, to take medicine"
				}
				s.whenBeforeText = true
				break
			}
		}
	}
	return trimTrailConnectors(textToks), selector.Decision{}, false
}

// takeText sets the sentence's text from textToks: a quote, or the words
// as written; what stands beside a quote is read as a when.
func (r *reading) takeText(textToks []tok, v int) (selector.Decision, bool) {
	in, text, s, body := r.in, r.text, r.s, r.body
	var quote *tok
	for k := range textToks {
		if textToks[k].kind == tQuote {
			quote = &textToks[k]
			break
		}
	}
	switch {
	case quote != nil:
		s.text, s.quoted = quote.s, true
		var others []tok
		for _, t := range textToks {
			if t.kind != tQuote && !slices.Contains([]string{"message", "text", "the", "a", ":", ",", "saying", "with", "reminder", "note"}, t.s) {
				others = append(others, t)
			}
		}
		if len(others) > 0 {
			if nw, ok, _ := parseBlock(others, r.w, r.now); ok {
				r.w = nw
				s.blocks = append(s.blocks, others)
			} else if v >= 0 && textToks[0].kind != tQuote {
				// "book the “9am train”": the quote is part of the text,
				// and what is not quoted is checked as any text is
				s.text, s.quoted = cleanText(body[textToks[0].i:textToks[len(textToks)-1].j], s, textToks), false
				s.textToks = slices.DeleteFunc(slices.Clone(textToks), func(t tok) bool { return t.kind == tQuote })
			} else {
				return s.notUnderstood(in, text, r.w, others, r.why), true
			}
		}
	case len(textToks) > 0:
		if (s.act.remindWho != "" || strings.HasPrefix(strings.ToLower(r.body), "remind")) && len(textToks) > 1 && textToks[0].s == "for" && !slices.ContainsFunc(textToks[1:], func(t tok) bool { return t.kind == tNum || unit(t.s) != "" }) {
			textToks = textToks[1:] // "a reminder … for pipeline updates"
		}
		if s.toSender() {
			textToks = aboutAfter(textToks) // a channel's post keeps its words
		}
		s.text = cleanText(body[textToks[0].i:textToks[len(textToks)-1].j], s, textToks)
		s.textToks = textToks
	}
	if v < 0 && quote == nil && !s.act.implicit {
		s.text, s.dropped = "", textToks
	}
	if s.text == "" && v < 0 && quote == nil && !s.act.implicit {
		// nothing to post
		if len(s.blocks) == 0 {
			if r.why.found() {
				return s.notUnderstood(in, text, r.w, nil, r.why), true
			}
			return clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: post “standup in 5” in #team every weekday at 9:25am."), true
		}
	}
	if !s.quoted && placeholderTexts[strings.ToLower(s.text)] && s.act.workflow == "" && s.act.function == "" {
		// "post something in #random every friday": no words yet; the
		// answer to "What should I post?" takes their place
		s.text, s.dropped = "", textToks
	}
	if !s.quoted && pronounTexts[strings.ToLower(s.text)] && s.act.workflow == "" && s.act.function == "" {
		return clarify(in, text, selector.MissingAction, fmt.Sprintf("What should the post say? “%s” points at something I can't see: I post the text I'm given and can't fetch or compute things. Tell me the words to post, in quotes.", s.text)), true
	}
	return selector.Decision{}, false
}

// checkText holds the text to having nothing about time left in it and
// nothing the rules refuse, and reads the blocks again in a zone they
// name.
func (r *reading) checkText() (selector.Decision, bool) {
	in, text, s := r.in, r.text, r.s
	if bad, y := leftover(s.textToks, r.now, s.whenBeforeText); bad != "" && !(atMostDaily(r.w) && r.dayWord(lex(bad))) && !r.movesAround(bad) && !r.forAWhile(bad) {
		if !y.found() || r.why.ask != nil && y.refusal != "" {
			// what a longer reading found ("February 30 doesn't exist"), or
			// asked: "every second Monday" is no interval of a second
			y = r.why
		}
		if understood, unread, ok := r.unreadAfterWhen(bad); ok && !y.found() && len(s.blocks) == 0 && !s.whenBeforeText && unsupportedIn(text, s, true) == "" {
			if d, ok := r.topicAfterWhen(understood, unread); ok {
				return d, true // "… tomorrow at 9am about the contract"
			}
			// "every day at 9am local time": the when reads, what follows
			// it does not, and that is what the question quotes
			d := clarify(in, text, selector.MissingTime, fmt.Sprintf("I understood “%s” but not “%s”. Could you say it another way? (Put the message in quotes if those words are part of it.)", understood, unread))
			d.Pending.Unread = true
			return d, true
		}
		return s.notUnderstood(in, text, r.w, nil, y, bad), true
	}
	if len(s.blocks) == 0 && r.why.found() {
		return s.notUnderstood(in, text, r.w, nil, r.why), true
	}
	if reason := unsupportedIn(text, s, false); reason != "" {
		return unsupported("%s", reason), true
	}
	if r.w.zone != "" && r.w.zone != r.zone {
		senderLoc := r.loc
		r.zone = r.w.zone
		r.loc, _ = scheduler.LoadLocation(r.zone)
		r.now = in.Now.In(r.loc)
		// the blocks are read again in the zone they name
		w2 := when{}
		for _, b := range s.blocks {
			nw, ok, _ := parseBlock(b, w2, r.now)
			if !ok {
				return clarify(in, text, selector.MissingTime, "I couldn't read that time in "+r.zone+". Could you say it another way?"), true
			}
			w2 = nw
		}
		r.w = senderDays(w2, in.Now.In(senderLoc), r.now)
	}
	return selector.Decision{}, false
}

// unreadAfterWhen splits the message's words from where span (a
// time-bearing leftover) begins: the longest when that reads from there,
// and the words after it to the end, as written. ok is false when no
// when reads from there or nothing follows it.
func (r *reading) unreadAfterWhen(span string) (understood, unread string, ok bool) {
	t := r.s.textToks
	for i := range t {
		if !strings.HasPrefix(spanText(t[i:]), span) {
			continue
		}
		// the when ends before an aside or a question mark ("at 2pm (for
		// the Berlin team)")
		end := len(t) - 1
		for k := i; k < end; k++ {
			if t[k].s == "(" || t[k].s == "?" || t[k].s == "!" {
				end = k
			}
		}
		for k := end; k > i; k-- {
			if _, ok, _ := parseBlock(t[i:k], when{}, r.now); !ok || t[len(t)-1].j > len(r.body) {
				continue
			}
			unread = strings.TrimLeft(r.body[t[k].i:t[len(t)-1].j], ",;?! ")
			if first, _, _ := strings.Cut(strings.ToLower(unread), " "); unread == "" || first == "to" || first == "that" || unread[0] == ':' {
				return "", "", false // the message goes on: the when is inside it
			}
			return r.body[t[i].i:t[k-1].j], unread, true
		}
		return "", "", false
	}
	return "", "", false
}

// compileCall compiles the when, verifies its fires and makes the call.
func (r *reading) compileCall() selector.Decision {
	in, text, s, now, zone := r.in, r.text, r.s, r.now, r.zone
	r.w.noEnd = r.w.noEnd || r.noEnd
	out := compile(r.w, now, zone)
	s.act.text = s.text
	hasAction := s.text != "" || s.act.workflow != "" || s.act.function != ""
	switch {
	case out.why.refusal != "":
		return unsupported("%s", out.why.refusal)
	case out.why.ask != nil:
		if !hasAction && len(s.blocks) > 0 {
			return s.askAction(in, text, "What should I post? "+out.why.ask.text)
		}
		return askQuestion(in, text, out.why.ask)
	case out.none:
		if !hasAction && s.act.remindWho == "me" && len(s.blocks) == 0 && s.tgt.channelID == "" {
			// "i need a reminder": the answers that follow are a reminder's
			return clarify(in, "remind me", selector.MissingAction, "What should I remind you of, and when? For example “to call mom tomorrow at 5pm”.")
		}
		if !hasAction && s.act.remindWho != "" && len(s.blocks) == 0 {
			// "remind the team", "remind #sales": the answers that follow
			// are that reminder's
			who := "them"
			if strings.HasPrefix(s.act.remindWho, "@") {
				who = s.act.remindWho
			}
			return clarify(in, r.body, selector.MissingAction, "What should I remind "+who+" of, and when? For example “to submit timesheets every Friday at 4pm”.")
		}
		if ch := s.tgt.channelID; !hasAction && len(s.blocks) == 0 && strings.HasPrefix(ch, "#") && s.act.remindWho == "" && !strings.HasPrefix(strings.ToLower(r.body), "remind") {
			// "post in #eng": where, so far, kept for the answers (as
			// pending.go keeps "#eng" said alone)
			return clarify(in, "post in "+ch, selector.MissingAction, "What should I post in "+ch+", and when? For example “standup in 15 every weekday at 9:45am”.")
		}
		if !hasAction {
			return clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: post “standup in 5” in #team every weekday at 9:25am.")
		}
		if msg, while, ok := whileSaid(s.act.text); ok && !s.quoted {
			// "water the plants in a bit": the while is asked about, and
			// the answer takes its place
			a := s.act
			a.text = msg
			return askQuestion(in, text, &question{missing: selector.MissingTime, replace: strings.Fields(while),
				text: fmt.Sprintf("When should I %s? “%s” could be any time: say a time or a while, such as “at 3pm” or “in 20 minutes”.", a.verb(), while)})
		}
		return clarify(in, text, selector.MissingTime, fmt.Sprintf("When should I %s? For example “every Friday at 9am” or “tomorrow at 3pm”.", s.act.verb()))
	}
	c := out.c
	if !hasAction {
		return s.askAction(in, text, fmt.Sprintf("What should I post%s %s?", s.tgt.where(), describe(c, now)))
	}
	if d, ok := r.askRepeat(c); ok {
		return d
	}
	if msg := verify(r.w, s, c, now); msg != "" {
		return clarify(in, text, selector.MissingTime, msg)
	}
	ref := targetRef(in, s.tgt, s.act)
	if to, _ := ref["channelId"].(string); in.NoSlack && to != "" && !strings.HasPrefix(to, "#") {
		// a person, whom only Slack reaches: who instead, the answer in
		// the place of "remind @dana"
		d := clarify(in, text, selector.MissingTarget, fmt.Sprintf("I can't reach %s from the terminal: that needs Slack. Who should I remind instead: “me”, or a #name such as #team?", cmp.Or(s.act.remindWho, to)))
		if who := "remind " + strings.ToLower(s.act.remindWho); replaced(text, who, "x") != "" {
			d.Pending.Replace = who
		}
		return d
	}
	if in.Channel != "slack" && s.tgt.channelID == "" && slices.Contains([]string{"team", "everyone", "everybody", "us", "all", "channel", "here", "folks", "people"}, s.act.remindWho) {
		return clarify(in, text, selector.MissingTarget, "Which channel should I remind them in? For example “remind #team to …”.")
	}
	args := map[string]any{"scheduleType": c.typ, "schedule": c.sched, "targetAction": s.act.json()}
	if c.typ == "once" || c.typ == "interval" {
		c.sched["timezone"] = zone // the zone its times are shown in
	}
	if ref != nil {
		args["targetRef"] = ref
	}
	if !c.startAt.IsZero() {
		args["startAt"] = c.startAt.UTC().Format(time.RFC3339)
	}
	if c.count > 0 && c.typ != "once" {
		args["count"] = c.count // runs, not a date: it holds when the days change
	}
	if !c.endAt.IsZero() && (c.count == 0 || c.typ == "once" || !c.endAt.Equal(c.countEnd)) {
		args["endAt"] = c.endAt.UTC().Format(time.RFC3339)
	}
	return call("schedule.create", args)
}
