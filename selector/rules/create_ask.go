package rules

import (
	"fmt"
	"strings"

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

// notUnderstood asks, saying what was understood and quoting what was not.
func (s *sentence) notUnderstood(in selector.Input, text string, w when, bad []tok, why problem, quoted ...string) selector.Decision {
	if why.ask != nil {
		return askQuestion(in, text, why.ask)
	}
	if why.refusal != "" {
		return unsupported("%s", why.refusal)
	}
	what := ""
	if len(quoted) > 0 {
		what = quoted[0]
		// quoted in the user's words, as written
		body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
		if i := strings.Index(strings.ToLower(body), what); i >= 0 && len(body[i:]) >= len(what) && strings.ToLower(body[i:i+len(what)]) == what {
			what = body[i : i+len(what)]
		}
	} else if len(bad) > 0 {
		body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
		if bad[len(bad)-1].j <= len(body) {
			what = body[bad[0].i:bad[len(bad)-1].j]
		}
	}
	if reason := unsupportedIn(text, s, true); reason != "" {
		return unsupported("%s", reason)
	}
	q := fmt.Sprintf("I didn't understand “%s” as part of the schedule. Could you say when another way? For example “every Monday and Wednesday at 2pm”.", what)
	if len(s.blocks) > 0 && what != "" {
		// "every monday at 9 and every friday at 5pm": two schedules
		if lw, ok, _ := parseBlock(lex(what), when{}, in.Now); ok && (lw.rec || lw.hasDay || lw.date != nil) && (w.rec || w.hasDay || w.date != nil) {
			return unsupported("That is two schedules, “%s” and “%s”; I make one per message. Ask for each separately.", what, blockText(text, s.blocks))
		}
	}
	switch {
	case len(s.blocks) > 0 && s.text != "" && strings.Contains(s.text, what):
		// words about time in what would be the message: "message" says
		// they are, and makes the request with the message in quotes
		understood, post := blockText(text, s.blocks), fmt.Sprintf("post “%s”%s %s", s.text, s.tgt.where(), blockText(text, s.blocks))
		quoted := s.textQuoted()
		if !decide(in, quoted).IsCall() {
			q = fmt.Sprintf("I understood “%s”, but is “%s” part of the message or of the schedule? If it is the message, put it in quotes: %s.", understood, what, post)
			break
		}
		q = fmt.Sprintf("I understood “%s”, but is “%s” part of the message or of the schedule? Say “message” to %s, or say the schedule another way.", understood, what, post)
		d := clarify(in, text, selector.MissingTime, q)
		d.Pending.Unread, d.Pending.Message = true, quoted
		return d
	case len(s.blocks) > 0:
		q = fmt.Sprintf("I understood “%s” but not “%s”. Could you say when another way? (Put the message in quotes if those words are part of it.)", blockText(text, s.blocks), what)
	}
	d := clarify(in, text, selector.MissingTime, q)
	d.Pending.Unread = true
	return d
}

func blockText(text string, blocks [][]tok) string {
	body := strings.TrimSpace(prefixRe.ReplaceAllString(text, ""))
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
