package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// A one-time post whose message opens with how often ("post daily standup
// notes at 9am", "send weekly report on friday at 4pm"): the word may be
// the message's or the schedule's, so it is asked about (NL_SPEC decision
// 9), never guessed.

// dayFixingWords name the day of a one-time when, which then cannot be a
// recurrence ("post daily notes tomorrow at 9am" is once).
var dayFixingWords = wordSet(relativeDays, strings.Fields(`next this in from now`))

// askRepeat asks whether a one-time post whose text opens with a
// frequency word repeats; "yes" makes it repeat, "no" posts it once.
// ok is false when there is nothing to ask.
func (r *reading) askRepeat(c *compiled) (selector.Decision, bool) {
	s := r.s
	if c.typ != "once" || s.quoted || len(s.textToks) < 2 || !slices.Contains(frequencyWords, s.textToks[0].s) ||
		slices.ContainsFunc(s.blocks, fixesDay) {
		return selector.Decision{}, false
	}
	body, t := r.body, s.textToks
	once := body[:t[0].i] + "“" + s.text + "”" + body[t[len(t)-1].j:]
	repeat := once + " " + t[0].s
	in := r.in
	in.Pending = nil
	rd, _, done := read(in, repeat)
	if done || !decide(in, repeat).IsCall() {
		return selector.Decision{}, false
	}
	out := compile(rd.w, rd.now, rd.zone)
	if out.c == nil || out.c.typ == "once" {
		return selector.Decision{}, false
	}
	d := clarify(r.in, r.text, selector.MissingTime, fmt.Sprintf("Should this repeat? Say yes to post “%s” %s, or no to post it once, %s.",
		s.text, describe(out.c, rd.now), describe(c, r.now)))
	d.Pending.Yes, d.Pending.No = repeat, once
	return d, true
}

// fixesDay: a when block names its day ("tomorrow", "next friday", "Dec
// 3", "in 2 hours").
func fixesDay(b []tok) bool {
	return slices.ContainsFunc(b, func(t tok) bool {
		_, isMonth := month(t.s)
		return dayFixingWords[t.s] || isMonth || t.kind == tNum && strings.ContainsAny(t.s, "/-")
	})
}
