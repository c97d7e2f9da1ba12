// Package rules is the offline, deterministic selector: a tokenizer and a
// small grammar for the phrasings in docs/NL_SPEC.md, which proves its reading
// before it answers (every word is the message, the target or part of the
// when; every day, month, date and time named is among the fires). It
// never touches the network.
//
// A message goes through: rules.go (Decide: refusals, help, then
// management or a create), lex.go (tokens), create.go with targets.go,
// action.go and blocks.go (the sentence: target, verb, text, when
// blocks), grammar.go (each block read by the productions table),
// compile.go (a when to one schedule), then leftover.go, verify.go and
// unsupported.go (nothing about time left in the text, the fires contain
// every day and time named, nothing the rules refuse). A problem found
// on the way is a question or a refusal (problem.go).
//
// The phrasing families, one file each, with the productions they add
// to the table in grammar.go:
//
//	times.go        clocks, parts of the day            clocks, part
//	hours.go        "on the hour", "from 9 to 5"        hour-minute, window
//	zones.go        "PST", "London time"                zone
//	days.go         weekdays, their lists and ranges    day-range, days
//	dates.go        "March 3", "3/4", ISO dates         date, date-said
//	monthdays.go    "the 1st and 15th", "in April"      dom-list, months
//	nth.go          "the first Monday", month's end     nth, month-start-end
//	offsets.go      "in 2 hours", "tomorrow"            relative, casual-day
//	recurrences.go  "every …", "daily", "twice a week"  every, frequency, times-per
//	bounds.go       "for 3 weeks", "until", "except"    for, count, until, start, except
//	unsupported.go  holidays, sunrise, events           unsupported
//
// compile_recurring.go compiles a recurrence; bounds.go applies bounds
// to what was compiled. Management: manage.go (the verbs), jobs.go
// (which job), update.go (a new schedule), ask.go (questions about jobs),
// life.go (skip, snooze, done). Verification: leftover.go, verify.go,
// check.go (another reader's proposal held to the same standard).
// Replies to a question: pending.go, splice.go (an answer into the
// words it replaces). Corrections: correct.go, moved.go (to another
// channel). The text of a message: text.go.
// Shared word lists: words.go.
//
// To add a phrasing family, write its productions in a new file, add
// them to the productions table in grammar.go, put its words in that
// file (or build them from words.go), and add rows to a phrasings table
// under testdata; docs/DEVELOPMENT.md says more.
package rules
