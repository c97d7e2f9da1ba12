package rules

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/schedbot/schedbot/selector"
)

// A new user's words before the request ("bonjour, I am from france. can
// you remind me at 14h to call the client?", "hi! first time using this
// 😅 remind me tmrw 8am dentist", "ok make one: post 'hi' in #general
// every weekday at 8"): said to the bot, not about the schedule.

// requestOpenRe opens a request said after a preamble.
var requestOpenRe = regexp.MustCompile(`(?i)^(?:(?:so|ok|okay|please|pls|plz|anyway|basically)[,\s]+)*(?:remind|post|send|say|schedule|set\s+(?:up\s+)?(?:a|an|me|us)\b|make\s+(?:a|an)\s+(?:reminder|post)|i\s+(?:need|want|would\s+like|'d\s+like)|i'd\s+like|can\s+(?:you|u)|could\s+(?:you|u)|would\s+(?:you|u)|will\s+(?:you|u)|dm\s+me|ping\s+me|tell\s+me)\b`)

// afterPreamble reads the request after a preamble, when the whole text
// was not a call: the preamble ends at a sentence's end, a colon or an
// emoji, says nothing about when or where, and what follows opens a
// request that reads as a call or asks about the request itself.
func afterPreamble(in selector.Input, text string) (selector.Decision, bool) {
	tries := 0
	for k, r := range text {
		if k == 0 || !(strings.ContainsRune(".!?:;—–", r) || isEmoji(r)) {
			continue
		}
		rest := strings.TrimLeftFunc(text[k:], func(r rune) bool {
			return strings.ContainsRune(".!?:;, —–", r) || isEmoji(r) || unicode.IsSpace(r)
		})
		head := text[:k]
		opens := requestOpenRe.MatchString(rest)
		if rest == "" || !opens && !whenThenVerb(in, rest) || !saysNothing(in, head) {
			continue
		}
		// create, not decide: a preamble inside the rest is not looked
		// for again, so the cost stays one reading a boundary
		d := aboutNew(create(in, rest))
		// a when opening the rest after a colon must make the whole
		// request: in "standup notes: every day at 9 post in #x" the
		// words before the colon are what to post
		if r == ':' && !opens && !d.IsCall() {
			continue
		}
		if d.IsCall() || d.Clarify != "" && (d.Missing != selector.MissingAction || d.Pending != nil && d.Pending.Text != "") {
			return d, true
		}
		if tries++; tries == 3 {
			break
		}
	}
	return selector.Decision{}, false
}

// saysNothing says whether head says nothing a request would use: no number,
// channel, quote or when.
func saysNothing(in selector.Input, head string) bool {
	if strings.ContainsAny(head, "\"“”'‘’") && strings.Count(head, "'") != strings.Count(strings.ToLower(head), "i'") {
		return false
	}
	toks := lex(head)
	return !slices.ContainsFunc(toks, func(t tok) bool {
		return t.kind == tChannel || t.kind == tQuote || strings.ContainsAny(t.s, "0123456789")
	}) && !isWhenWords(in, head)
}

func isEmoji(r rune) bool {
	return r >= 0x1F300 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF
}

// askAfterWhenRe: the asking words of a request ("I'd like you to", "can
// you") after a when that opens it and before its verb.
var askAfterWhenRe = regexp.MustCompile(`(?i)^(.+?),?\s+((?:i'?d\s+like\s+(?:you\s+)?to|i\s+would\s+like\s+(?:you\s+)?to|i\s+(?:want|need)\s+(?:you\s+)?to|(?:can|could|would|will)\s+(?:you|u))(?:\s+please)?\s+|(?:please\s+)?)((?:post|remind|send|run|start|say|ping|message|dm|share|announce)\b.*)$`)

// askAfterWhen drops the asking words between an opening when and the
// verb ("Every Friday at 3pm I'd like you to post in #general …": "Every
// Friday at 3pm post in #general …"), as they are dropped before it.
func askAfterWhen(in selector.Input, body string) string {
	if m := askAfterWhenRe.FindStringSubmatch(body); m != nil && m[2] != "" && isWhenWords(in, m[1]) {
		return m[1] + " " + m[3]
	}
	return body
}

// whenThenVerb says whether rest opens with a when and then a request's
// verb ("Every Friday at 3pm post …", "… at 3pm I'd like you to post").
func whenThenVerb(in selector.Input, rest string) bool {
	m := askAfterWhenRe.FindStringSubmatch(rest)
	return m != nil && isWhenWords(in, m[1])
}

// courtesyRe are the courteous ways of asking, anywhere before the verb,
// that say no more than "can you": "I was wondering, if it is not too
// much trouble, whether you could kindly", "I would be most grateful if
// you could please", "when you have a moment".
var (
	courtesyRe = regexp.MustCompile(`(?i)\b(?:(?:i\s+was|i'?m|just)\s+)?wondering,?\s+(?:if|whether)\s+you\s+(?:could|would|can|might)(?:\s+(?:kindly|possibly|please|maybe))*\b|\bi\s+would\s+be\s+(?:most\s+|very\s+|so\s+|really\s+)?grateful\s+if\s+you\s+(?:could|would)(?:\s+(?:kindly|please|possibly))*\b`)
	// asideCourtesyRe: courtesy said as an aside, which goes
	asideCourtesyRe = regexp.MustCompile(`(?i),?\s*\b(?:when(?:ever)?\s+you\s+(?:have|get|find)\s+a\s+(?:moment|minute|sec(?:ond)?|chance)|if\s+it(?:'s|\s+is)\s+not\s+too\s+much\s+(?:trouble|bother))\b,?`)
)

// courteous writes the courteous ways of asking as "can you", and words
// said for plainer ones ("arvo" for afternoon, "arrange a reminder for
// me" for "remind me").
func courteous(text string) string {
	// only the asking, before the message: "post “I was wondering if you
	// could help”" keeps its words
	head, tail := text, ""
	if m := requestVerbRe.FindStringIndex(text); m != nil {
		head, tail = text[:m[0]], text[m[0]:]
	}
	if q := strings.IndexAny(head, "\"“‘"); q >= 0 {
		head, tail = text[:q], text[q:]
	}
	out := courtesyRe.ReplaceAllString(asideCourtesyRe.ReplaceAllString(head, " "), " can you ")
	if q := strings.IndexAny(tail, "\"“‘"); q < 0 || arrangeAt(tail) < q {
		tail = arrangeRe.ReplaceAllString(tail, "remind me")
	}
	out = everyDashRe.ReplaceAllStringFunc(out+tail, func(m string) string {
		if strings.Contains(m, " ") {
			return m // "the every-day checklist": a word of the message
		}
		return strings.Replace(m, "-", " ", 1) // "every-day"
	})
	out = arvoRe.ReplaceAllString(out, "$1 afternoon") // "thursday arvo"
	if out == text {
		return text
	}
	return strings.Join(strings.Fields(out), " ")
}

// arrangeAt is where arrangeRe first matches in s, or len(s).
func arrangeAt(s string) int {
	if m := arrangeRe.FindStringIndex(s); m != nil {
		return m[0]
	}
	return len(s)
}

var (
	arvoRe = regexp.MustCompile(`(?i)\b((?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|today|this|every)\s+arvo\b`)
	// requestVerbRe: where a request's verb starts
	requestVerbRe = regexp.MustCompile(`(?i)\b(?:remind|post|send|ping|message|dm|announce|schedule|set\s+up|setup|arrange|make|create)\b`)
	everyDashRe   = regexp.MustCompile(`(?i)\b(?:(?:the|a|an|my|our|your|this|that|his|her|their)\s+)?every-(?:day|week|month|year|hour|morning|evening|night|weekday|other)\b`)
	arrangeRe     = regexp.MustCompile(`(?i)\b(?:arrange|set\s+up|setup|make|create|schedule)\s+(?:a\s+)?(?:little\s+|quick\s+|small\s+)?reminder\s+for\s+me\b,?`)
)

var (
	// timerRe and alarmRe: a timer or an alarm asked for, which is a
	// reminder in a while or at a time, with what to post still to ask.
	timerRe = regexp.MustCompile(`(?i)^(?:(?:set|start|make|create|add)\s+(?:me\s+)?)?(?:an?\s+)?(?:timer|countdown|reminder|alarm)\s+(?:for|in)\s+((?:\d+|an?|one|two|three|five|ten|fifteen|twenty|thirty|half\s+an?)\s*-?\s*(?:seconds|secs?|minutes|mins?|m|hours|hrs?|h|minute|hour|second)(?:\s*$|\s+(?:to|that)\s.*|\s*,.*))$`)
	alarmRe = regexp.MustCompile(`(?i)^(?:(?:set|make|create|add)\s+(?:me\s+)?)?(?:an?\s+)?alarm\s+(?:for|at)\s+(.+)$`)
)
