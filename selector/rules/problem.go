package rules

import "github.com/schedbot/schedbot/selector"

// question is what the rules ask when the person can settle a reading by
// answering: its text, and what it asks for (selector.Missing*).
type question struct {
	text    string
	missing string
	// replace is the words of the request the answer replaces (a time
	// that does not exist), as lexed; none: the answer is added.
	replace []string
	// soft: asked only when nothing else in the request says when ("in
	// 20 to", "3ish"); beside another when those words are the message's
	soft bool
}

// problem is what a reading found that cannot be scheduled as written:
// a question when an answer can settle it, else a refusal. The zero
// problem is none.
type problem struct {
	refusal string
	ask     *question
}

// refusal is a problem no answer settles ("April 31 doesn't exist").
func refusal(text string) problem { return problem{refusal: text} }

// askTime is a problem an answer about the time settles ("25:00: which
// time did you mean?").
func askTime(text string) problem {
	return problem{ask: &question{text: text, missing: selector.MissingTime}}
}

// askTimeFor is askTime about the words of replace: the answer takes
// their place in the request.
func askTimeFor(replace []tok, text string) problem {
	p := askTime(text)
	for _, t := range replace {
		p.ask.replace = append(p.ask.replace, t.s)
	}
	return p
}

// found reports whether there is a problem.
func (p problem) found() bool { return p.refusal != "" || p.ask != nil }
