package rules

import (
	"regexp"
	"slices"

	"github.com/schedbot/schedbot/selector"
)

// wholeJobRe says a change of days and time is meant for the job whole:
// said so ("only", "instead", "every friday at 9:15"), or as a move ("move the standup to 10am
// on fridays" is every Friday at 10).
var wholeJobRe = regexp.MustCompile(`(?i)\b(?:only|just|instead|every|each|move|moving|change|switch|reschedule)\b`)

// someDaysAt asks about a new time said for some of a repeating job's
// days ("make it 9:15 on fridays" of a weekday job): one job has one time
// for all its days, and read as said it would drop the others. Yes makes
// it those days only; a second job gives them a time of their own.
func someDaysAt(in selector.Input, text, part string, w when, job *selector.JobRef, old []int, recurring bool) (selector.Decision, bool) {
	if !recurring || job == nil || len(w.clocks) == 0 || len(w.dows) == 0 || len(w.dows) >= len(uniq(old)) || wholeJobRe.MatchString(text) ||
		slices.ContainsFunc(w.dows, func(d int) bool { return !slices.Contains(old, d) }) {
		return selector.Decision{}, false
	}
	hm, q := resolvedClocks(w)
	if q != "" {
		return selector.Decision{}, false
	}
	var days []string
	for _, x := range uniq(w.dows) {
		days = append(days, capitalize(dayNames[x])+"s")
	}
	d := clarify(in, text, selector.MissingTime, "Should it run only on "+joinAnd(days)+" at "+clockText(hm[0])+" from now on, and no longer on its other days? (yes or no) "+
		"A job has one time for all its days: for a time of their own, make a second job for "+joinAnd(days)+".")
	d.Pending.Yes = "change " + job.JobID + " to " + part + " only"
	return d, true
}

func resolvedClocks(w when) ([][2]int, string) {
	var hm [][2]int
	for _, c := range w.clocks {
		h, amb := c.resolved(w.part)
		if amb {
			return nil, "Is that " + itoa(c.h) + " in the morning or in the afternoon? Say " + itoa(c.h) + "am or " + itoa(c.h) + "pm."
		}
		hm = append(hm, [2]int{h, c.m})
	}
	return hm, ""
}
