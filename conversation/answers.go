package conversation

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/schedbot/schedbot/selector"
)

// settlement is what a reply does to an open question before any selector
// reads it: drops it (drop is the answer), or settles it (text is the
// request to decide now, jobID the job a "Which one?" was answered with).
// The zero value leaves the reply to the selector. These are the same
// whatever selector runs, so they live here.
type settlement struct{ drop, text, jobID string }

var (
	// cancelRe: what drops a question, with the words around it people
	// say ("ugh never mind lol", "nah, forget it", "cancel pls").
	cancelRe = regexp.MustCompile(`^` + asideLead + `(?:cancel|cancel (?:it|that|this)|never ?mind|nvm|forget (?:it|that|about it)|stop|abort|quit|drop it|scratch that|no thanks|no thank you|not now|leave it|skip it|ignore (?:it|that)|actually no|wait no|no wait)(?:[ ,]+(?:lol|haha|thanks|thank you|thx|ty|pls|please|then|for now|after all))*$`)
	yesRe    = regexp.MustCompile(`^(?:y|yes|yep|yeah|yup|sure|ok|okay|please do|do it|go ahead|correct|right|that's right|confirm|affirmative|yes please)$`)
	noRe     = regexp.MustCompile(`^(?:n|no|nope|nah|no thanks|don't|do not|negative)$`)
	// messageRe: "it's the message", answering "is “in 5” part of the
	// message or of the schedule?" (Pending.Message).
	messageRe = regexp.MustCompile(`^(?:(?:yes|yeah|yep|yup|ok|okay)[,\s]+)?(?:(?:it'?s|its|it is|they'?re|they are|that'?s|thats|that is)\s+)?(?:(?:all\s+)?part\s+of\s+)?(?:the\s+|my\s+)?(?:message|msg|text|post)(?:\s+(?:one|part|please|pls))?$`)
	// firstRe and secondRe pick one of two sayings (Pending.Yes and No).
	firstRe  = regexp.MustCompile(`^(?:the )?(?:first|former|1st)(?: one)?$`)
	secondRe = regexp.MustCompile(`^(?:the )?(?:second|latter|2nd|other)(?: one)?$`)
	// onceRe and repeatRe answer "Should this repeat?" (Pending.No and
	// Yes) in its own words.
	onceRe   = regexp.MustCompile(`^(?:(?:no|nope|nah)[ ,]+)?(?:just |only )?(?:once|one time|one-time|a one-off|one-off|the once)(?: (?:only|please|pls))?$`)
	repeatRe = regexp.MustCompile(`^(?:(?:yes|yeah|yep|y)[ ,]+)?(?:repeat(?: it)?|keep repeating|recurring|make it recurring|it repeats)(?: please| pls)?$`)
	// namesItRe: the cancel words that name a job, "it" (NL_SPEC 14, 38):
	// with no question open they are that job's delete or skip.
	namesItRe = regexp.MustCompile(`^(?:cancel (?:it|this)|drop it|skip it)$`)
	// deleteItRe: a delete of "it" or "that", which, while a question
	// about a new job waits, is that request.
	deleteItRe = regexp.MustCompile(`^` + asideLead + `(?:(?:never ?mind|nvm)[ ,]+)?(?:delete|remove|cancel|stop|drop|scrap|ditch|discard|trash|kill|erase|nuke|get rid of|forget about|undo)(?: all)? (?:it|that|this|that one|this one)$`)
)

// asideLead: the interjections that may open a cancel ("oh", "nah,").
const asideLead = `(?:(?:oh|ah|ugh|nah|no|actually|wait|ok|okay|hmm+|um+|sorry|oops)[ ,]+)*`

// nothingToCancel is the answer to a cancel word when no question is
// open: it cancels nothing, and a job changes only when words name it.
const nothingToCancel = "There's nothing to cancel — I wasn't waiting for an answer, and this changed nothing. " +
	"To undo a change, say the change back (“move it back to 9am”, “resume it”); to delete or pause a schedule, name it: “delete the standup”, “pause it”."

// bareCancel reports whether reply, with no question open, is a cancel
// word that names no job ("cancel", "stop", "never mind"): it must not
// reach a selector, which could read "cancel" as delete and "stop" as
// pause of the job last spoken of.
func bareCancel(reply string) bool {
	t := plain(reply)
	return cancelRe.MatchString(t) && !namesItRe.MatchString(t)
}

// settle reads reply against the open question p.
func settle(p *selector.Pending, jobs []selector.JobRef, reply string) settlement {
	t := plain(reply)
	nothing := "nothing scheduled"
	if p.Missing == selector.MissingJob || p.Yes != "" && !p.Create {
		nothing = "nothing changed"
	}
	if p.Yes != "" {
		switch {
		case yesRe.MatchString(t):
			return settlement{text: p.Yes}
		case p.No != "" && repeatRe.MatchString(t):
			return settlement{text: p.Yes}
		case p.No != "" && (noRe.MatchString(t) || onceRe.MatchString(t)):
			return settlement{text: p.No}
		case p.No != "" && firstRe.MatchString(t):
			return settlement{text: p.Yes} // "Is the first right?" "the first one"
		case p.No != "" && secondRe.MatchString(t):
			return settlement{text: p.No}
		case (noRe.MatchString(t) || cancelRe.MatchString(t)) && p.Create:
			return settlement{drop: "OK — nothing scheduled."} // "Should I remind you … instead?"
		case noRe.MatchString(t) || cancelRe.MatchString(t):
			return settlement{drop: "OK — I've left it as it is."}
		}
	}
	if p.Message != "" && messageRe.MatchString(t) {
		return settlement{text: p.Message}
	}
	if cancelRe.MatchString(t) || noRe.MatchString(t) || p.Create && deleteItRe.MatchString(t) {
		return settlement{drop: "OK, dropped — " + nothing + "."}
	}
	if len(p.Candidates) > 0 {
		if id := pickCandidate(p.Candidates, jobs, t); id != "" {
			return settlement{text: p.Text, jobID: id}
		}
	}
	return settlement{}
}

// plain is reply lowercased, without surrounding punctuation and with
// runs of spaces folded.
func plain(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) && r != '#' || unicode.IsSpace(r) })
	return strings.Join(strings.Fields(s), " ")
}

var ordinalWords = map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
	"fifth": 5, "5th": 5, "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8, "ninth": 9, "9th": 9,
	"tenth": 10, "10th": 10, "two": 2, "three": 3, "four": 4, "five": 5}

// pickFiller are the words of a pick that name no job: "the second one",
// "number 2", "the one in #ops".
var pickFiller = map[string]bool{"the": true, "one": true, "ones": true, "job": true, "schedule": true, "reminder": true,
	"post": true, "number": true, "no": true, "no.": true, "nr": true, "#": true, "option": true, "that": true, "this": true,
	"in": true, "to": true, "for": true, "at": true, "on": true, "please": true, "pls": true, "i": true, "mean": true,
	"meant": true, "it's": true, "its": true, "is": true, "which": true, "posts": true, "goes": true, "with": true,
	"about": true, "called": true, "named": true, "message": true, "a": true}

// oneRe is "one" said as a number: alone, "number one", "option one".
// Elsewhere "one" is a filler ("the second one", "the one in #ops").
var oneRe = regexp.MustCompile(`^(?:(?:number|option|nr|#)\s*)?one(?:\s+(?:please|pls))?$`)

var clockRe = regexp.MustCompile(`\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?\b`)

// pickCandidate finds the one candidate a reply names: by its place in the
// list ("2", "the second one", "the last one"), or by words all of which
// are in that candidate alone (its text, name, channel, time: "the 9am
// one", "the one in #ops", "the backup check B"). "" when the reply names
// none or several.
func pickCandidate(cands []string, jobs []selector.JobRef, t string) string {
	if oneRe.MatchString(t) && len(cands) > 0 {
		return cands[0]
	}
	t = clockRe.ReplaceAllStringFunc(t, func(m string) string {
		g := clockRe.FindStringSubmatch(m)
		if g[2] == "" || g[2] == "00" {
			return g[1] + g[3] + "m"
		}
		return g[1] + ":" + g[2] + g[3] + "m"
	})
	var words []string
	pos := 0
	for _, w := range strings.Fields(t) {
		w = strings.Trim(w, ".,!?:;()“”\"'")
		if n, err := strconv.Atoi(strings.TrimPrefix(w, "#")); err == nil && n >= 1 && n <= len(cands) && len(w) <= 3 {
			pos = n
			continue
		}
		if n := ordinalWords[w]; n > 0 && n <= len(cands) {
			pos = n
			continue
		}
		if w == "last" || w == "latter" {
			pos = len(cands)
			continue
		}
		if w == "former" {
			pos = 1
			continue
		}
		if !pickFiller[w] && w != "" {
			words = append(words, w)
		}
	}
	if pos > 0 && len(words) == 0 {
		return cands[pos-1]
	}
	if len(words) == 0 {
		return ""
	}
	found := ""
	for k, id := range cands {
		j := refByID(jobs, id)
		if j == nil {
			continue
		}
		hay := candidateWords(j)
		all := true
		for _, w := range words {
			if !hay[w] && !hay[strings.TrimPrefix(w, "#")] {
				all = false
				break
			}
		}
		if !all || pos > 0 && pos != k+1 {
			continue
		}
		if found != "" {
			return "" // several match: the question stands
		}
		found = id
	}
	return found
}

func refByID(jobs []selector.JobRef, id string) *selector.JobRef {
	for k := range jobs {
		if jobs[k].JobID == id {
			return &jobs[k]
		}
	}
	return nil
}

func onlyJob(jobs []selector.JobRef, id string) []selector.JobRef {
	if j := refByID(jobs, id); j != nil {
		return []selector.JobRef{*j}
	}
	return nil
}

var descClockRe = regexp.MustCompile(`\b(\d{1,2}):(\d{2}) ([AP])M\b`)

// candidateWords are the words a person may pick a job by: those of its
// text, name, channel and description, and its times written the ways
// people write them ("9am", "9:00am", "9:00", "09:00", "21:00").
func candidateWords(j *selector.JobRef) map[string]bool {
	out := map[string]bool{}
	src := strings.ToLower(strings.Join([]string{j.Text, j.Name, j.ChannelID, j.Description, strings.ToLower(j.JobID)}, " "))
	for _, w := range strings.FieldsFunc(src, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' }) {
		out[w] = true
		for _, part := range strings.Split(w, "-") {
			out[part] = true
		}
	}
	for _, m := range descClockRe.FindAllStringSubmatch(j.Description, -1) {
		h, _ := strconv.Atoi(m[1])
		ap := strings.ToLower(m[3]) + "m"
		h24 := h % 12
		if ap == "pm" {
			h24 += 12
		}
		out[m[1]+":"+m[2]+ap] = true
		out[m[1]+":"+m[2]] = true
		out[strconv.Itoa(h24)+":"+m[2]] = true
		out[twoDigits(h24)+":"+m[2]] = true
		if m[2] == "00" {
			out[m[1]+ap] = true
			out[m[1]] = true
		}
	}
	return out
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
