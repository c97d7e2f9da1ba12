package rules

import (
	"slices"
	"strings"
)

// The text of a message: what stands between the action and its text,
// and what is trimmed from it.

// textConnectors stand between the action and its text.
var textConnectors = []string{"to", "that", "about", "of", ":", "-", "saying", "with", "re", "regarding"}

// dropPoliteEnd drops "thanks!", "ty", "🙏" and :emoji: that end a message
// after its when or target ("… every friday at 4pm thanks!").
func (s *sentence) dropPoliteEnd() {
	t := s.toks
	end := len(t)
	for end > 0 && (t[end-1].s == "?" || t[end-1].s == "!") {
		end--
	}
	for _, q := range closingQuestions {
		if n := len(q); s.toSender() && end >= n+1 && slices.Equal(spanWords(t[end-n:end]), q) && t[end-n-1].s == "," {
			// "…, does that make sense?": asked of the bot, not the message's
			for x := end - n - 1; x < len(t); x++ {
				s.used[x] = true
			}
			t = t[:end-n-1]
			break
		}
	}
	end = len(t)
	// a closing aside that says nothing about time: "(urgent)"
	if end > 0 && t[end-1].s == ")" {
		for k := end - 2; k >= 0; k-- {
			if t[k].s == "(" {
				aside := t[k+1 : end-1]
				if !slices.ContainsFunc(aside, func(x tok) bool {
					return timeBearing(x) || strongTime(x) || zoneWords[x.s] != "" || zoneAbbrev[x.s] != "" || leadWords[x.s] || recurWords[x.s]
				}) {
					end = k
				}
				break
			}
		}
	}
	for end > 0 {
		x := t[end-1]
		switch {
		case x.kind == tOther && !isURLAt(x.s, 0), x.s == "!" || x.s == "." || x.s == "," || x.s == "-" || x.s == "🙏",
			x.kind == tWord && slices.Contains([]string{"thanks", "thx", "ty", "tia", "cheers", "please", "pls", "plz", "thankyou"}, x.s),
			x.s == "you" && end >= 2 && t[end-2].s == "thank":
			if x.s == "you" {
				end--
			}
			end--
			continue
		}
		break
	}
	if end == len(t) || end == 0 {
		return
	}
	// only right after something that says when or where ("… at 4pm
	// thanks!", "… in #team 🙏"); after the message's own words ("… on
	// GitHub :rocket:") it is the message's
	last := t[end-1]
	_, _, isDay := weekday(last.s)
	_, isMonth := month(last.s)
	if end > 1 && (last.kind == tNum || last.kind == tChannel || isDay || isMonth || unit(last.s) != "" && len(last.s) > 1 ||
		recurWords[last.s] || zoneAbbrev[last.s] != "" || zoneWords[last.s] != "" || slices.Contains([]string{"am", "pm", "hour", "weekdays", "weekends", "month", "year"}, last.s) ||
		last.s == "time" && end > 2 && (zoneWords[t[end-2].s] != "" || zoneAbbrev[t[end-2].s] != "")) {
		for x := end; x < len(t); x++ {
			s.used[x] = true
		}
	}
}

func trimConnectors(r []tok) []tok {
	r = trimLeadConnectors(r)
	return trimTrailConnectors(r)
}

func trimLeadConnectors(r []tok) []tok {
	for len(r) > 0 && (slices.Contains(textConnectors, r[0].s) || slices.Contains([]string{",", "and", "then", "please", "pls", "out"}, r[0].s)) && r[0].kind != tQuote {
		r = r[1:]
	}
	return r
}

func trimTrailConnectors(r []tok) []tok {
	// only what joins the text to a when: "stand by", "check in" keep
	// their last word
	for len(r) > 0 && r[len(r)-1].kind != tQuote && slices.Contains([]string{",", ";", "and", "then", ":", "-", "—", "–", "&", "->", ".", "?", "just", "but"}, r[len(r)-1].s) {
		if r[len(r)-1].s == "?" && asksItself(r) {
			break // "ask the team: did everyone update the changelog?"
		}
		r = r[:len(r)-1]
	}
	return r
}

// askedWords open a question.
var askedWords = wordSet(strings.Fields(`is are was were did does can could will would should has who what when where
	why how which anyone anybody everyone`))

// asksItself says whether the message r is a question to post: it opens
// with a question word, or one follows a colon in it.
func asksItself(r []tok) bool {
	for k, x := range r {
		if (k == 0 || r[k-1].s == ":" || k == 1 && r[0].s == "to") && askedWords[x.s] {
			return true
		}
	}
	return false
}

// cleanText is the message as written between its first and last token,
// without the target's words, with spaces folded.
func cleanText(raw string, s *sentence, toks []tok) string {
	if len(toks) == 0 {
		return ""
	}
	base := toks[0].i
	b := []byte(raw)
	for k, t := range s.toks {
		if s.used[k] && t.i >= toks[0].i && t.j <= toks[len(toks)-1].j {
			for x := t.i - base; x < t.j-base; x++ {
				b[x] = ' '
			}
		}
	}
	out := strings.Join(strings.Fields(string(b)), " ")
	return strings.Trim(out, " ,;")
}

// pronounTexts are messages that only point at something said before
// them ("… and post it"): schedbot posts the text it is given.
var pronounTexts = map[string]bool{"it": true, "them": true, "that": true, "this": true, "those": true, "these": true,
	"the result": true, "the results": true, "the output": true,
	"it out": true, "that out": true, "this out": true, "them out": true} // "send it out at 8"

// placeholderTexts stand for a message not given yet ("post something
// in #random every friday").
var placeholderTexts = wordSet([]string{"something", "anything", "stuff", "smth", "sth", "a message", "a reminder", "a note",
	"a post", "something nice", "some text", "a msg"})

// withoutPronoun is the request from its action on with the pronoun that
// stood for the message left out ("post it to #eng at 8" -> "post to #eng
// at 8"), so that an answer naming the message completes it.
func withoutPronoun(r []tok, body string) string {
	out := body[r[0].i:]
	for k := 1; k < len(r) && k < 4; k++ {
		if pronounTexts[r[k].s] && r[k].j <= len(body) {
			return strings.TrimSpace(body[r[0].i:r[k].i] + body[r[k].j:])
		}
	}
	return strings.TrimSpace(out)
}

// closingQuestions are what a request may close with, asked of the bot
// after a comma ("…, does that make sense?").
var closingQuestions = [][]string{{"does", "that", "make", "sense"}, {"is", "that", "ok"}, {"is", "that", "okay"},
	{"is", "that", "possible"}, {"if", "possible"}, {"if", "you", "can"}, {"can", "you", "do", "that"}}

// spanWords are the words of t.
func spanWords(t []tok) []string {
	out := make([]string, len(t))
	for k, x := range t {
		out[k] = x.s
	}
	return out
}

// aboutAfter cuts a sentence about the request off its message: after a
// "?" that ends the message, words that open with a pronoun ("…to call my
// grandma? she lives alone and loves the calls") were said to the bot.
func aboutAfter(t []tok) []tok {
	for k := 2; k+1 < len(t); k++ {
		if t[k].s == "?" && !slices.ContainsFunc(t[:k], func(x tok) bool { return x.s == ":" }) && slices.Contains([]string{"she", "he", "they", "it", "i", "we", "i'm", "she's", "he's", "it's", "they're"}, t[k+1].s) &&
			!slices.ContainsFunc(t[k+1:], func(x tok) bool { return timeBearing(x) || strongTime(x) }) {
			return t[:k]
		}
	}
	return t
}

// toSender says whether the request is a reminder to its sender, with no
// channel or person named and no colon: a channel's post keeps every word
// ("…, does that make sense?" asked of the team).
func (s *sentence) toSender() bool {
	return strings.Contains(strings.ToLower(s.body), "remind") && !slices.ContainsFunc(s.toks, func(t tok) bool {
		return t.kind == tChannel || t.kind == tUser || t.s == ":"
	})
}
