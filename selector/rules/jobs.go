package rules

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
)

// Finding the job a message names, and asking which one when several
// match.

// namesJob reports whether words name a job: an id, "it", or words that
// match one of the jobs.
func namesJob(in selector.Input, words string) bool {
	if jobIDRe.MatchString(strings.ToUpper(words)) {
		return true
	}
	lead := strings.Fields(words)
	if len(lead) > 0 && slices.Contains(backReferences, lead[0]) && (len(lead) == 1 || len(lead) < 4) {
		return true
	}
	if (positionRe.MatchString(strings.TrimSpace(words)) || lastMadeRe.MatchString(strings.TrimSpace(words))) && len(liveJobs(in.Jobs)) > 0 {
		return true // "the second one": asked which, by number; "the last one I made"
	}
	_, _, ok := matchJobs(in.Jobs, words)
	return ok && strings.TrimSpace(fillerRe.ReplaceAllString(words, " ")) != ""
}

// pickJob finds the one job words name.
func pickJob(in selector.Input, text, words string) (string, selector.Decision, bool) {
	if id := jobIDRe.FindString(strings.ToUpper(words)); id != "" {
		if in.Jobs != nil && !slices.ContainsFunc(in.Jobs, func(j selector.JobRef) bool { return j.JobID == id }) {
			return "", clarify(in, text, selector.MissingJob, "I don't know a job "+id+". Which schedule? (Say “list my schedules” to see them.)"), false
		}
		return id, selector.Decision{}, true
	}
	if lastMadeRe.MatchString(strings.TrimSpace(words)) {
		// "the last one I made": ids are made in time order (ULIDs)
		var last string
		for _, j := range in.Jobs {
			if j.State != "deleted" && (j.CreatedBy == in.SenderID || in.SenderID == "") && j.JobID > last {
				last = j.JobID
			}
		}
		if last != "" {
			return last, selector.Decision{}, true
		}
	}
	if positionRe.MatchString(strings.TrimSpace(words)) {
		// "the second one", "#1": of which list is not known (the jobs as
		// made, or as last listed), so the jobs are listed and numbered
		// for the answer, unless there is only one
		switch ids := liveJobs(in.Jobs); {
		case len(ids) == 1:
			return ids[0], selector.Decision{}, true
		case len(ids) > 1 && len(ids) <= maxCandidates:
			return "", whichOne(in, text, ids), false
		}
	}
	stripped := strings.TrimSpace(fillerRe.ReplaceAllString(words, " "))
	if stripped == "" {
		if in.ContextJobID != "" {
			return in.ContextJobID, selector.Decision{}, true
		}
		return "", whichSchedule(in, text), false
	}
	ids, _, ok := matchJobs(in.Jobs, words)
	switch {
	case !ok:
		return "", unsupported("I couldn't find a schedule matching “%s”. Say “list my schedules” to see them.", strings.TrimSpace(words)), false
	case len(ids) > 1:
		return "", whichOne(in, text, ids), false
	}
	return ids[0], selector.Decision{}, true
}

// lastMadeRe: the job the sender made last ("the last one I made", "the
// one I just made"); "my latest reminder" names a kind of job, and is
// matched by its words as any other.
var lastMadeRe = regexp.MustCompile(`(?i)^(?:the\s+|my\s+)?(?:last\s+(?:one|job|schedule)\s+(?:i|we)\s+(?:made|created|set(?:\s+up)?|added|scheduled)|(?:latest|newest|most\s+recent)\s+(?:one|job|schedule)(?:\s+(?:i|we)\s+(?:made|created|set(?:\s+up)?|added|scheduled))?|(?:one|job|schedule)\s+(?:i|we)\s+just\s+(?:made|created|set(?:\s+up)?|added|scheduled))$`)

// positionRe: a job named by its place in a list ("the second one",
// "#1", "number 2", "the last one").
var positionRe = regexp.MustCompile(`(?i)^(?:the\s+)?(?:(?:first|second|third|fourth|fifth|sixth|last|1st|2nd|3rd|4th|5th|6th)(?:\s+(?:one|job|reminder|schedule|post))?|#\d{1,2}|(?:number|no\.?|job|reminder)\s*#?\d{1,2})$`)

// pickJobToChange is pickJob for a change that loses something when it
// hits the wrong job (delete, pause, update): words that single out no
// job ("delete the", "pause one", "delete the post") ask which one,
// never fall back on the job last spoken of, which takes "it" or "that"
// (NL_SPEC 14).
func pickJobToChange(in selector.Input, text, words string) (string, selector.Decision, bool) {
	if strings.TrimSpace(fillerRe.ReplaceAllString(words, " ")) != "" || jobIDRe.MatchString(strings.ToUpper(words)) || refersBack(words) {
		if in.PickedJobID != "" && positionRe.MatchString(strings.TrimSpace(words)) {
			return in.PickedJobID, selector.Decision{}, true // the answer to "Which one?"
		}
		return pickJob(in, text, words)
	}
	if in.PickedJobID != "" { // the answer to this question
		return in.PickedJobID, selector.Decision{}, true
	}
	if ids := liveJobs(in.Jobs); len(ids) > 0 && len(ids) <= maxCandidates {
		return "", whichOne(in, text, ids), false
	}
	return "", whichSchedule(in, text), false
}

// whichSchedule asks which job words that name none mean; with no job at
// all, there is nothing to ask.
func whichSchedule(in selector.Input, text string) selector.Decision {
	if len(in.Jobs) == 0 && in.Pending == nil {
		return unsupported("There are no schedules here yet. Tell me what to schedule, for example: remind me to stretch every day at 3pm.")
	}
	return clarify(in, text, selector.MissingJob, "Which schedule? Give me its name or id (say “list my schedules” to see them).")
}

// maxCandidates is the most jobs a "Which one?" lists.
const maxCandidates = 10

// refersBack reports whether words point back to the job last spoken of
// ("it", "that one").
func refersBack(words string) bool {
	return slices.ContainsFunc(strings.Fields(strings.ToLower(words)), func(w string) bool {
		return slices.Contains(backReferences, strings.Trim(w, ".,!?;:“”\"'"))
	})
}

// liveJobs are the ids of the jobs not deleted, in the order given.
func liveJobs(jobs []selector.JobRef) []string {
	var ids []string
	for _, j := range jobs {
		if j.State != "deleted" {
			ids = append(ids, j.JobID)
		}
	}
	return ids
}

// whichOne asks which of several jobs the words meant, each numbered and
// told by what it posts, where and when, so that "2", "the 9am one" or
// "the one in #ops" answers.
func whichOne(in selector.Input, text string, ids []string) selector.Decision {
	var b strings.Builder
	b.WriteString("Which one?")
	for k, id := range ids {
		for _, j := range in.Jobs {
			if j.JobID == id {
				b.WriteString("\n" + itoa(k+1) + ". " + JobLabel(j))
			}
		}
	}
	b.WriteString("\nSay its number, or words like “the 9am one”.")
	d := clarify(in, text, selector.MissingJob, b.String())
	d.Pending.Candidates = ids
	return d
}

// JobLabel tells a job by what it does, where and when, then its id:
// post “standup” in #team — every weekday at 9:00 AM (UTC) · 01M8….
func JobLabel(j selector.JobRef) string {
	what := "post “" + j.Text + "”"
	if strings.HasPrefix(j.Text, "workflow ") {
		what = "start " + j.Text
	}
	if j.Name != "" {
		what = "“" + j.Name + "”: " + what
	}
	if j.ChannelID != "" {
		what += " in " + j.ChannelID
	}
	desc := j.Description
	if desc != "" {
		desc = strings.ToLower(desc[:1]) + desc[1:]
	}
	if j.State == "paused" {
		desc += ", paused"
	}
	return what + " — " + desc + " · " + j.JobID
}

// matchJobs scores each job by how many of the significant words appear
// in its name, description, action text or channel; every word must match
// and the best wins.
func matchJobs(jobs []selector.JobRef, words string) (ids []string, names []string, ok bool) {
	// a job's exact name wins ("nightly-build" over "nightly build check")
	if j, ok := namedJob(jobs, words); ok {
		return []string{j.JobID}, []string{j.Name}, true
	}
	// "nightly-build" is the name's two words, as the job's are split
	words = strings.NewReplacer("-", " ", "_", " ").Replace(words)
	words = oclockRe.ReplaceAllString(words, "$1:00") // "the 12 o'clock one"
	sig := strings.Fields(fillerRe.ReplaceAllString(strings.ToLower(strings.Trim(words, "“”\"'")), " "))
	if len(sig) == 0 {
		return nil, nil, false
	}
	best := 0
	for _, j := range jobs {
		if j.State == "deleted" {
			continue
		}
		hay := strings.FieldsFunc(strings.ToLower(strings.Join([]string{j.Name, j.Description, j.Text, j.ChannelID, j.JobID}, " ")),
			func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		score := 0
		if len(sig) > 1 && slices.Contains(hay, strings.Join(sig, "")) {
			score = len(sig) // "stand up", "stand-up": the job's one word
		}
		for _, w := range sig {
			if score == len(sig) {
				break
			}
			w = strings.Trim(w, "#“”\"',.!?")
			if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
				w = "" // an emoji, a mark: no word of the job's
			}
			if d, _, ok := weekday(w); ok && len(w) > 2 {
				// "the tuesday one": a job that runs that day
				if slices.Contains(hay, dayNames[d]) || slices.Contains(hay, dayNames[d][:3]) {
					score++
				}
				continue
			}
			if h, m, ampm, ok := clockWord(w); ok {
				// "my 9:25 reminder", "the 6pm one": a time it fires at
				if firesAt(j, h, m, ampm) || slices.Contains(hay, w) {
					score++
				}
				continue
			}
			stem := w
			if len(w) > 3 {
				stem = strings.TrimSuffix(w, "s")
			}
			if verb, ok := strings.CutSuffix(stem, "ing"); ok && len(verb) >= 4 && slices.Contains(hay, verb) {
				score++ // "the watering reminder": the job's own word, whole
				continue
			}
			// a word of the job, or the start of one ("stand" for standup),
			// or two of its words said as one ("standup" for "stand-up")
			if w == "" || slices.ContainsFunc(hay, func(h string) bool { return strings.HasPrefix(h, stem) || sameStem(h, stem) }) ||
				twoAsOne(hay, w) {
				score++
			}
		}
		if score < len(sig) { // every word must match
			continue
		}
		label := j.JobID + " (" + j.Description
		if j.Name != "" {
			label = j.JobID + " “" + j.Name + "” (" + j.Description
		}
		label += ")"
		if score > best {
			best, ids, names = score, []string{j.JobID}, []string{label}
		} else if score == best {
			ids, names = append(ids, j.JobID), append(names, label)
		}
	}
	return ids, names, len(ids) > 0
}

// twoAsOne: w is two words of hay side by side, written as one.
func twoAsOne(hay []string, w string) bool {
	for k := 0; k+1 < len(hay); k++ {
		if hay[k]+hay[k+1] == w {
			return true
		}
	}
	return false
}

// sameStem: two forms of one word, as "meditation" is of "meditate" and
// "invoicing" of "invoices": six letters or more in common from the start,
// three quarters of the shorter ("standard" is not "standup").
func sameStem(a, b string) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 6 && 4*n >= 3*min(len(a), len(b))
}

// oclockRe: an hour said with "o'clock".
var oclockRe = regexp.MustCompile(`(?i)\b(\d{1,2})\s*o'?\s?clock\b`)

// clockRe: a time of day as job words write it: "9:25", "9.25", "925",
// "6pm", "9:25am", "1400".
var clockRe = regexp.MustCompile(`^(\d{1,2})(?:[:.](\d{2}))?(am|pm|a|p)?$|^(\d{1,2})(\d{2})(am|pm)?$`)

// clockWord reads w as a time of day; ampm is "am", "pm" or "" (either).
// A bare hour ("the 9 one") is left to the job's words, as it was.
func clockWord(w string) (h, m int, ampm string, ok bool) {
	switch w {
	case "noon", "midday":
		return 12, 0, "pm", true // "the noon one"
	case "midnight":
		return 0, 0, "", true
	}
	g := clockRe.FindStringSubmatch(w)
	switch {
	case g == nil:
		return 0, 0, "", false
	case g[1] != "":
		if g[2] == "" && g[3] == "" {
			return 0, 0, "", false
		}
		h, m, ampm = valueOf(g[1]), valueOf(g[2]), g[3]
	default:
		h, m, ampm = valueOf(g[4]), valueOf(g[5]), g[6]
	}
	switch ampm {
	case "a":
		ampm = "am"
	case "p":
		ampm = "pm"
	}
	if h > 23 || m > 59 || ampm != "" && (h == 0 || h > 12) {
		return 0, 0, "", false
	}
	return h, m, ampm, true
}

// firesAt reports whether j fires at h:m of its zone's day; without am
// or pm, h may be either.
func firesAt(j selector.JobRef, h, m int, ampm string) bool {
	loc, err := scheduler.LoadLocation(j.Schedule.Timezone)
	if err != nil || j.Schedule.Timezone == "" {
		loc = time.UTC
	}
	want := []int{h}
	switch {
	case ampm == "am" && h == 12:
		want = []int{0}
	case ampm == "pm" && h < 12:
		want = []int{h + 12}
	case ampm == "" && h >= 1 && h <= 11:
		want = append(want, h+12)
	}
	return slices.ContainsFunc(oldTimes(j.ScheduleType, j.Schedule, loc), func(hm [2]int) bool {
		return hm[1] == m && slices.Contains(want, hm[0])
	})
}

// namedJob is the job whose name words are ("the nightly-build job").
func namedJob(jobs []selector.JobRef, words string) (selector.JobRef, bool) {
	name := strings.TrimSpace(strings.ToLower(strings.Trim(words, "“”\"' ")))
	name = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(name, "the "), "job "))
	for _, suffix := range []string{" job", " schedule", " reminder", " post"} {
		name = strings.TrimSuffix(name, suffix)
	}
	bare := strings.Join(strings.Fields(fillerRe.ReplaceAllString(name, " ")), " ")
	for _, j := range jobs {
		if j.State != "deleted" && j.Name != "" && (strings.EqualFold(j.Name, name) || strings.EqualFold(j.Name, bare)) {
			return j, true
		}
	}
	return selector.JobRef{}, false
}
