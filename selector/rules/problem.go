package rules

import "github.com/schedbot/schedbot/selector"

// question is what the rules ask when the person can settle a reading by
// answering: its text, and what it asks for (selector.Missing*).
type question struct {
	text    string
	missing string
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

// found reports whether there is a problem.
func (p problem) found() bool { return p.refusal != "" || p.ask != nil }
