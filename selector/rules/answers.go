package rules

import (
	"regexp"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// The words of an answer: what a reply to a question adds to the
// request asked about ("9", "say: hi all", "every day" to "What should I
// post?").

// recursRe: an answer that says a recurrence.
var recursRe = regexp.MustCompile(`(?i)\b(?:every|each|other|monthly|weekly|biweekly|fortnightly)\b`)

var timeWordRe = regexp.MustCompile(`(?i)\b(at|on|every|each|in|tomorrow|today|tonight|daily|weekly|noon|midnight)\b`)

// looksLikeAnswer: short replies ("9am", "the backup one") answer a question.
func looksLikeAnswer(text string) bool { return len(strings.Fields(text)) <= 6 }

func answerText(p *selector.Pending, text string) string {
	missing := p.Missing
	if missing == selector.MissingTime && !timeWordRe.MatchString(text) {
		if t := lex(text); len(t) > 0 && (t[0].kind == tNum || len(t) == 1 && numberIn(t[0].s, 1, 23)) {
			return "at " + text // "9", "nine"
		}
	}
	if missing == selector.MissingMessage && !isChannelWords(text) {
		return "say " + text // a job's new message, as "make it say …" gives one ("#eng" moves it)
	}
	if missing == selector.MissingAction {
		msg, said := messageAnswer(p.Text, text)
		if v, _, _ := findVerb(selector.Input{}, lex(text)); v < 0 || said {
			// the text asked for: after a colon, quoted, so it is read as
			// the message whatever words it holds
			return ": “" + msg + "”"
		}
	}
	return text
}

// answerLeadRe: the words before a message given as an answer: "say:"
// or "say" before quotes; "to", "about" after "remind …" ("to call mom",
// "about the dentist"), as the request would have said them.
var answerLeadRe = regexp.MustCompile(`(?i)^(?:say\s*:\s*|say\s+(["“'‘])|(to|about)\s+)`)

// quoteAfterRe: a message in quotes after words that only lead to it
// ("something like '…'", "a reminder is fine, say '…'", "it should read
// “…”"); the groups are the quote's words.
var quoteAfterRe = regexp.MustCompile(`(?i)^.*\b(?:say|says|saying|like|read|reads|post|with)\s*:?\s*(?:"([^"]+)"|“([^”]+)”|'([^']+)'|‘([^’]+)’)[\s.!]*$`)

// messageAnswer is the message an answer to "What should I post?" gives
// for request, the words that asked: the answer whole, without the words
// that lead to it or the quotes around it. said: it was said as the
// message ("say: …"), which is then no request.
func messageAnswer(request, text string) (msg string, said bool) {
	msg = strings.TrimSpace(text)
	if m := answerLeadRe.FindStringSubmatchIndex(msg); m != nil {
		switch {
		case m[4] >= 0: // "to call mom": a reminder's words
			if strings.HasPrefix(strings.ToLower(requestBody(request)), "remind") {
				msg = msg[m[1]:]
			}
		case m[2] >= 0: // say “…”: from the quote
			msg, said = msg[m[2]:], true
		default: // say: …
			msg, said = msg[m[1]:], true
		}
	}
	if m := quoteAfterRe.FindStringSubmatch(msg); m != nil {
		msg, said = m[1]+m[2]+m[3]+m[4], true // "something like 'have a great weekend!'": the quote
	}
	for _, q := range []string{`""`, "“”", "''", "‘’"} {
		open, close := string([]rune(q)[0]), string([]rune(q)[1])
		if len(msg) > len(open)+len(close) && strings.HasPrefix(msg, open) && strings.HasSuffix(msg, close) {
			msg = msg[len(open) : len(msg)-len(close)]
			break
		}
	}
	return msg, said
}

// whenForAction reads an answer to "What should I post?" that says when,
// not what ("every day", "of december", "in the morning ofc", "uhh 10 i
// think"): it is added to the request's when, and what to post is asked
// again, of the request as it now reads. ok is false for words to post.
func whenForAction(in selector.Input, p *selector.Pending, text string) (selector.Decision, bool) {
	if p.Missing != selector.MissingAction {
		return selector.Decision{}, false
	}
	core := answerCore(selector.MissingTime, text)
	if d, ok := eventStart(in, strings.TrimSpace(requestBody(p.Text)+" "+core)); ok {
		return d, true // a calendar line ("Tuesday, December 8, 2026 · 10:00 – 10:30am"): its start
	}
	if !isWhenWords(in, core) && !isWhenWords(in, "at "+core) && !monthOfRe.MatchString(core) {
		return selector.Decision{}, false
	}
	combined := requestBody(p.Text) + " " + answerText(&selector.Pending{Missing: selector.MissingTime}, core)
	d := decide(in, combined)
	if d.IsCall() || d.Missing != selector.MissingAction {
		return selector.Decision{}, false
	}
	d.Pending.Text = combined
	return d, true
}

// monthOfRe: the month of a day said before it ("on the 3rd" + "of
// december").
var monthOfRe = regexp.MustCompile(`(?i)^of\s+[a-z]+$`)

// messageWithTime reads an answer to "What should I post? What time …?"
// that gives both ("submit timesheet at 9am", "to call mom at 9"): the
// request with the answer's words read as its text and its when.
func messageWithTime(in selector.Input, p *selector.Pending, text string) (selector.Decision, bool) {
	if p.Missing != selector.MissingAction || !answerShaped(selector.MissingTime, text) ||
		decide(in, p.Text+" : “x”").Missing != selector.MissingTime {
		return selector.Decision{}, false
	}
	msg, _ := messageAnswer(p.Text, text)
	combined := p.Text + " " + msg
	whenAlone := isWhenWords(in, text) // "at 9": the time, and the message still to ask
	if v, _, act := findVerb(in, lex(p.Text)); v >= 0 && act.remindWho != "" && !whenAlone {
		combined = p.Text + " to " + msg // "remind me tomorrow to submit timesheet at 9am"
	}
	d := decide(in, combined)
	if d.IsCall() || d.Clarify != "" && (d.Missing != selector.MissingAction || whenAlone) && !d.Pending.Unread {
		if d.Pending != nil {
			d.Pending.Text = combined
		}
		return d, true
	}
	return selector.Decision{}, false
}

// yeahRe: a yes before what a reminder is of, which is no word of it.
var yeahRe = regexp.MustCompile(`(?i)^(?:(?:yeah|yea|yep|yup|yes|sure|um+|uh+)[\s,!.]+)+`)

// teamRe: a reminder of a team whose channel is not known yet.
var teamRe = regexp.MustCompile(`(?i)\bremind\s+(?:the|my|our)\s+(?:team|group|class|crew|folks)\b`)

// channelAnswerRe: an answer that names the channel first ("its for
// #sales, every monday at 9am …", "in #ops: …").
var channelAnswerRe = regexp.MustCompile(`(?i)^(?:(?:it'?s|that'?s|this\s+is)\s+)?(?:for|in|to)\s+(#[\w-]+|<#[^>]+>)[\s,:;—–-]+(.+)$`)

// withChannel is a request posted in ch: the team it reminds is ch
// ("remind the team about the offsite", "#general"), else "in ch" is
// added.
func withChannel(request, ch string) string {
	if teamRe.MatchString(request) {
		return teamRe.ReplaceAllString(request, "remind "+ch)
	}
	return request + " in " + ch
}

// greetingRe: a greeting, which alone is help but answers "What should
// I post?" as the words to post ("good morning!").
var greetingRe = regexp.MustCompile(`(?i)^(?:good\s+(?:morning|afternoon|evening|day)|(?:hello|hi|hey|hiya|howdy)(?:\s+(?:there|all|everyone|folks))?)[\s!.\p{So}]*$`)

// halfDayLeadRe: an answer to "in the morning or in the afternoon?" that
// opens with it and goes on about why.
var halfDayLeadRe = regexp.MustCompile(`(?i)^(am|pm|a\.m\.|p\.m\.|morning|afternoon|evening)\b[\s,!.;-]+\S`)

// answerMoreRe: what says more than why after such an answer ("pm and
// every day", "pm, but make it 5:30", "pm in #family"): the whole answer
// is read then.
var answerMoreRe = regexp.MustCompile(`(?i)[0-9#@]|\b(?:every|each|daily|weekly|monthly|also|and|but|make|actually|instead|remind|post|send|in|on|at)\b`)
