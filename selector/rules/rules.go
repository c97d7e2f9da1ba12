package rules

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/schedbot/schedbot/selector"
)

// MaxText is the longest message the rules read; longer is refused.
const MaxText = 4000

// Selector is the rules selector.
type Selector struct{}

// New returns the rules selector.
func New() *Selector { return &Selector{} }

var _ selector.Selector = (*Selector)(nil)

// Select decides what in.Text asks for. It never fails: what it cannot
// read becomes a question or an "unsupported".
func (s *Selector) Select(_ context.Context, in selector.Input) (selector.Decision, error) {
	return Decide(in), nil
}

// Decide is Select without the interface.
func Decide(in selector.Input) selector.Decision {
	text := strings.TrimSpace(in.Text)
	if in.Pending != nil && !in.Now.After(in.Pending.Expires) && text != "" && len(text) <= MaxText {
		return decidePending(in, text)
	}
	return decide(in, text)
}

func unsupported(format string, args ...any) selector.Decision {
	return selector.Decision{Unsupported: fmt.Sprintf(format, args...)}
}

func clarify(in selector.Input, text, missing, question string) selector.Decision {
	return selector.Decision{Clarify: question, Missing: missing,
		Pending: &selector.Pending{Text: text, Missing: missing, Expires: in.Now.Add(selector.PendingTTL), Question: question}}
}

// askQuestion asks q about text, the request it is about.
func askQuestion(in selector.Input, text string, q *question) selector.Decision {
	d := clarify(in, text, q.missing, q.text)
	d.Pending.Replace = strings.Join(q.replace, " ")
	return d
}

func call(fn string, args map[string]any) selector.Decision {
	b, _ := json.Marshal(args)
	return selector.Decision{Function: fn, Args: b}
}

var (
	codeRe      = regexp.MustCompile("(?i)(```|<script|\\bselect\\s+.+\\s+from\\b|\\bdrop\\s+table\\b|\\brm\\s+-rf\\b|;\\s*--|\\$\\(|\\bfunction\\s*\\(|=>\\s*\\{|\\{\\s*\")")
	injectionRe = regexp.MustCompile(`(?i)\b(ignore (?:all |the |your )?(?:previous|prior|above|earlier) (?:instructions|prompts?|rules)|system prompt|you are now|act as|jailbreak|developer mode|orchestratorid|disregard (?:all |the )?(?:previous|prior|above))\b`)
	jobIDRe     = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
	prefixRe    = regexp.MustCompile(`(?i)^(?:(?:hey|hi|hello|ok|okay|yo|alright|fine)(?:\s+(?:bot|schedbot|there|then))?[,!]?\s+|(?:great|perfect|awesome|cool|nice|thanks|thank\s+you|thx)[,.!]+\s+)?(?:<@[A-Z0-9]+(?:\|[^>]*)?>[,:]?\s*)?(?:@?schedbot\b[,:]?\s*)?(?:(?:please|pls|plz|kindly|just|do\s+the\s+needful(?:\s+and)?|can\s+(?:you|u)|could\s+(?:you|u)|would\s+(?:you|u)|will\s+(?:you|u)|i\s+want\s+(?:you\s+)?to|i\s+want\s+that\s+you|i\s+need\s+(?:you\s+)?to|i'd\s+like\s+(?:you\s+)?to|i\s+would\s+like\s+(?:you\s+)?to|go\s+ahead\s+and|help\s+me)\s+)*`)
)

func decide(in selector.Input, text string) selector.Decision {
	text = courteous(text) // "when you have a moment", "whether you could kindly"
	switch {
	case text == "":
		return aboutNew(clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: post “standup in 5” in #team every weekday at 9:25am."))
	case len(text) > MaxText:
		return unsupported("That message is too long (%d characters). Tell me in a sentence what to schedule, up to %d characters.", len(text), MaxText)
	case !utf8.ValidString(text):
		return unsupported("I could not read that message (it is not valid text).")
	case languageRe.MatchString(strings.TrimSpace(text)) || in.Pending == nil && otherLanguageRe.MatchString(outsideQuotes(text)) && !englishRequestRe.MatchString(text):
		return selector.Decision{Reply: "I read English only. Tell me in English what to schedule, for example: remind me to call mom tomorrow at 6pm."}
	case isHelp(text):
		return selector.Decision{Reply: helpFor(in)}
	case accessRe.MatchString(strings.TrimSpace(prefixRe.ReplaceAllString(strings.ToLower(text), ""))):
		return selector.Decision{Reply: accessText}
	case remindWhenRe.MatchString(strings.TrimSpace(text)):
		return unsupported("I can't react to events (“%s”); I run things on a schedule (a time, a day, an interval). Tell me when to remind you instead.", remindWhenRe.FindStringSubmatch(strings.TrimSpace(text))[1])
	case cannotRe.MatchString(strings.TrimSpace(text)):
		return selector.Decision{Reply: cannotText}
	case keepRe.MatchString(strings.TrimSpace(text)):
		return selector.Decision{Reply: keepText}
	case stopAllRe.MatchString(strings.TrimSpace(text)):
		return selector.Decision{Reply: "I change one schedule a message, so that nothing stops by mistake: say “list my schedules”, then “pause the standup” (or “delete it”) for each one."}
	case zoneQuestionRe.MatchString(strings.TrimSpace(text)):
		return selector.Decision{Reply: fmt.Sprintf("I read times in your timezone, %s, unless you name another in the request (“9am London time”, “5pm PT”).", cmp.Or(in.Timezone, "UTC"))}
	case thanksRe.MatchString(strings.TrimSpace(text)):
		return selector.Decision{Reply: "You're welcome! Say “list my schedules” any time to see them."}
	case okayRe.MatchString(strings.TrimSpace(text)):
		return selector.Decision{Reply: "👍 Anything else? Say “help” for what I can do."}
	}
	if d, ok := continued(in, text); ok {
		return d // "and sunday" after "skip tomorrow"
	}
	if d, ok := correction(in, text); ok {
		return d
	}
	if m := retractLeadRe.FindStringIndex(text); m != nil && m[1] < len(text) {
		// "never mind, remind me at 4pm to call alice": the request after
		// it, without an "instead" that closes it (requestBody's rule)
		rest := text[m[1]:]
		if startsAction(strings.ToLower(rest)) {
			rest = strings.TrimSpace(correctionTailRe.ReplaceAllString(rest, ""))
		}
		if d := decide(in, rest); d.IsCall() || d.Reply != "" || d.Clarify != "" && hasAction(in, rest) {
			return d
		}
	}
	switch {
	case retractOnlyRe.MatchString(text) && jobRef(in, in.ContextJobID) != nil && in.Pending == nil:
		// "never mind, forget it" right after a job: it is still there
		j := jobRef(in, in.ContextJobID)
		if j.State == "paused" {
			return selector.Decision{Reply: "OK, nothing new. “" + j.Text + "” is paused; say “resume it” to start it again."}
		}
		return selector.Decision{Reply: "OK, nothing new. “" + j.Text + "” (" + lowerFirst(j.Description) + ") is still set; say “delete it” to remove it."}
	case retractRe.MatchString(outsideQuotes(text)):
		return aboutNew(clarify(in, "", selector.MissingAction, "It sounds like you changed your mind. What should I schedule? Say it again in one message."))
	case !hasLetters(text):
		return aboutNew(clarify(in, "", selector.MissingAction, "What would you like me to schedule? For example: remind me to stretch every day at 3pm."))
	case strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }):
		return unsupported("I could not read that message (it has control characters).")
	case codeRe.MatchString(text):
		return unsupported("That looks like code. I schedule messages and workflows: tell me what to post, where and when.")
	case injectionRe.MatchString(text):
		return unsupported("I can only schedule, list and change jobs; I can't take other instructions.")
	}
	if d, ok := elsewhere(in, text); ok {
		return d // "email the team every monday at 9am …"
	}
	if d, ok := manage(in, text); ok {
		if !d.IsCall() {
			if cut, ok := asideCut(in, text); ok {
				return cut // "stop it, too noisy": the change, without why
			}
		}
		return d
	}
	d := aboutNew(create(in, text))
	if q, ok := personalDay(in, text, d); ok {
		return aboutNew(q) // "on my birthday": when is it?
	}
	if q, ok := endOfWhat(in, text, d); ok {
		return aboutNew(q) // "until the end of the semester": when is that?
	}
	if t, ok := createdText(d); ok && holidayRe.MatchString(t) {
		// "remind me at noon on christmas day to call my aunt": the day
		// was left in the message, the post made for today
		if dated, ok := holidayDated(in, text); ok {
			return dated
		}
	}
	if !d.IsCall() && !runTogetherRe.MatchString(text) {
		if after, ok := afterPreamble(in, text); ok {
			return after // "hi! first time using this 😅 remind me tmrw 8am dentist"
		}
		if dated, ok := holidayDated(in, text); ok {
			return dated // "remind me xmas eve at 6pm to wrap the presents"
		}
	}
	if i := strings.LastIndex(text, ", "); !d.IsCall() && i > 0 && in.ContextJobID != "" && reasonRe.MatchString(text[:i]) && !hasAction(in, text[:i]) &&
		!isWhenWords(in, text[:i]) && !namesJob(in, text[:i]) && !slices.ContainsFunc(lex(text[:i]), func(t tok) bool { return timeBearing(t) || t.kind == tChannel }) {
		// "I'm on lates next week, skip it next week": why, then the change
		if after := decide(in, text[i+2:]); after.IsCall() && after.Function != "schedule.create" {
			return after
		}
	}
	if !d.IsCall() {
		if cut, ok := asideCut(in, text); ok {
			return cut // "drop wednesdays, we don't have standup then"
		}
		if again, ok := restated(in, text); ok {
			return again // "at 17:00 (5pm)"
		}
		if spelt, ok := respelt(in, text); ok {
			return spelt // "tommorow at 8am": did you mean tomorrow?
		}
		if event, ok := eventStart(in, text); ok {
			return event // "Tue, Dec 8, 2026, 2:00 PM – 3:00 PM EST"
		}
		if d.Pending != nil && workHoursRe.MatchString(d.Pending.Replace) {
			// "every 90 minutes during business hours": whichever the hours,
			// a step that cannot be kept is refused now (NL_SPEC 13)
			if r := replaced(text, d.Pending.Replace, "from 9am to 5pm"); r != "" {
				if probe := decide(in, r); probe.Unsupported != "" {
					return probe
				}
			}
		}
	}
	return d
}

// retractOnlyRe: a message that only takes back ("never mind, forget
// it", "ok cancel that"); reasonRe: words that open a reason ("I'm on
// lates next week, skip it").
var (
	retractOnlyRe = regexp.MustCompile(`(?i)^\W*(?:(?:oh|ok|okay|actually|no|ugh|hmm+)[\s,.!]+)*(?:never\s?mind|nvm|forget\s+(?:it|that|about\s+it)|cancel\s+that|ignore\s+that|scratch\s+that|undo(?:\s+(?:it|that|this))?)(?:[\s,.!]+(?:forget\s+(?:it|that)|never\s?mind|thanks|thx|lol|pls|please))*[\s.!]*$`)
	reasonRe      = regexp.MustCompile(`(?i)^(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i'?ve|we'?ve|i\s+have|we\s+have|i\s+(?:already|just|took|did|had|got|ate|went|made|was|finished|forgot)|we\s+(?:already|just|did|had|were)|too|because|since|it'?s\s+too)\b`)
)

// asideRe: where a reason or a comment joins a change ("stop it, too
// noisy", "pause it because I'm traveling", "run it now to test it").
// limitWordRe: an aside that limits the change ("just for tomorrow",
// "the next one only", "only this once"): more than why.
var limitWordRe = regexp.MustCompile(`(?i)\b(?:only|just|once|this\s+time|for\s+now|temporar(?:y|ily)|I\s+mean|i\s+meant)\b`)

var asideRe = regexp.MustCompile(`(?i)(?:\s*[,;(]\s*|\s+[—–-]+\s+|\s+(?:because|since|cause|cuz|bc|as)\s+|\s+to\s+(?:test|check|try|see)\b|\s+so\s+(?:that\s+)?(?:i|we|you|they)\s+can\b)`)

// listSepRe splits a list of jobs ("the weekly report and the daily
// report").
var listSepRe = regexp.MustCompile(`\s*(?:,|&|\band\b)\s*`)

// asideCut is the change said before an aside, when that is a change of
// a job (never a new one: "post lunch at noon, bring snacks" posts all of
// it) and what follows says nothing of when or where.
func asideCut(in selector.Input, text string) (selector.Decision, bool) {
	// the aside follows the words quoted, if any ("change its text to
	// \"…, cc @ops\", the old one was confusing")
	from := 0
	if q := strings.LastIndexAny(text, "\"”"); q >= 0 {
		_, n := utf8.DecodeRuneInString(text[q:])
		from = q + n
	}
	m := asideRe.FindStringIndex(text[from:])
	if m == nil || from+m[0] == 0 {
		return selector.Decision{}, false
	}
	head, aside := text[:from+m[0]], text[from+m[1]:]
	at := lex(aside)
	if strings.ContainsAny(aside, "\"“”") || from == 0 && slices.ContainsFunc(lex(text), func(t tok) bool { return t.kind == tQuote }) ||
		len(at) > 0 && (isWhenWords(in, aside) || hasAction(in, aside) || slices.ContainsFunc(listSepRe.Split(aside, -1), func(part string) bool { return namesJob(in, part) }) || from > 0 && limitWordRe.MatchString(aside) ||
			slices.Contains([]string{"then", "no", "and", "or", "also", "plus", "actually", "instead", "not"}, at[0].s)) ||
		slices.ContainsFunc(at, func(t tok) bool {
			return t.kind == tChannel || t.kind == tUser || t.kind == tQuote || t.kind == tNum || timeBearing(t) && t.s != "one" || strongTime(t) // "as of monday" says when; "the old one" does not
		}) {
		// a quote may hold commas; "then pause it", "no 11", "the weekly
		// report and …" say more than why
		return selector.Decision{}, false
	}
	if d, ok := correction(in, head); ok && d.Function != "schedule.create" && (d.IsCall() || d.Unsupported != "") {
		return d, true
	}
	d, ok := manage(in, head)
	return d, ok && d.Function != "schedule.create" && (d.IsCall() || d.Unsupported != "")
}

// aboutNew marks a question about a new job as such (Pending.Create).
func aboutNew(d selector.Decision) selector.Decision {
	if d.Pending != nil {
		d.Pending.Create = true
	}
	return d
}

// retractRe: the sender takes the request back ("… actually no"). "cancel
// that" followed by a word of its own names a job ("cancel that
// reminder"), which manage reads.
var retractRe = regexp.MustCompile(`(?i)\b(?:actually\s+no|no\s+wait|wait\s+no|never\s?mind|nvm|scratch\s+that|forget\s+(?:it|that)|ignore\s+(?:that|this|me)|disregard\s+(?:that|this))\b|\bcancel\s+that(?:\s+(?:one|please|pls|thanks))?\s*(?:[.!,;:—–-]|$)|\bcancel\s+that\s+\w+\s+and\b`)

// retractLeadRe: words taking back what came before, opening a message
// that goes on ("never mind, post hi at 5pm").
var retractLeadRe = regexp.MustCompile(`(?i)^(?:(?:oh|ah|ugh|no|nah|sorry|ok|okay|wait|actually|hmm+)[\s,.!]+)*(?:never\s?mind|nvm|scratch\s+that|forget\s+(?:it|that)|no\s+wait|wait\s+no|actually\s+no)[\s,.!:;—–-]+`)

// outsideQuotes is s without what it quotes: a quoted message may say
// anything.
func outsideQuotes(s string) string {
	var b strings.Builder
	for _, t := range lex(s) {
		if t.kind != tQuote {
			b.WriteString(t.s)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func hasLetters(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

var helpRe = regexp.MustCompile(`(?i)^(?:/?remind\s+)?(?:help|\?+|h|commands|usage|how\s+(?:do\s+i\s+use\s+(?:this|you|it|schedbot)|does\s+(?:this|it|schedbot)\s+work|can\s+i\s+use\s+(?:this|you))|what\s+(?:else\s+)?(?:can|do)\s+(?:you|u)\s+do(?:\s+for\s+(?:me|us))?|what\s+(?:kinds?|sorts?|types?)\s+of\s+(?:things|stuff|reminders|schedules|jobs)\s+(?:can|do)\s+(?:you|u)\s+(?:do|handle|schedule|understand|make)|what\s+(?:u|you)\s+can\s+do|what\s+can\s+u\s+do|what\s+can\s+i\s+(?:ask|tell|say\s+to)\s+you|what\s+are\s+(?:the|your)\s+(?:commands|options)|list\s+(?:the|your)\s+commands|how\s+(?:do|can)\s+i\s+(?:set|create|make|add|schedule)\s+(?:up\s+)?(?:a|an)\s+(?:(?:new|recurring|repeating|regular|daily|weekly|monthly|one-time|one-off)\s+)?(?:reminder|schedule|job|post|message)|what\s+(?:commands|phrases|things)\s+do\s+you\s+(?:understand|know|support|take)|help\s+(?:please|pls|me\s+out)|please\s+help|how\s+do\s+(?:i|you)\s+(?:use\s+(?:this|you|it)|schedule\s+(?:something|a\s+(?:message|post|reminder)))|(?:can|could|does|will)\s+(?:it|you|u|this|schedbot|the\s+bot)\s+(?:also\s+)?(?:post|send|remind|message|dm|ping|schedule|repeat|handle|do)(?:\s+(?:in|to|on|for|with|messages|reminders|things|stuff|channels|slack|dms?|private|any|people|other|several|multiple|more|recurring|repeating|one-time|a|an|the)){0,4}\s*\?|what\s+are\s+you|who\s+are\s+you|what\s+(?:is|'s)\s+this(?:\s+(?:bot|thing|app|tool))?|is\s+this\s+(?:thing\s+)?(?:on|working|live)|are\s+(?:you|u)\s+(?:there|on|working|alive|awake|live)|(?:you|u)\s+there|any(?:one|body)\s+(?:there|home)|good\s+(?:morning|afternoon|evening|day)|(?:can|could)\s+(?:you|u)\s+help(?:\s+me)?|first\s+time(?:\s+(?:using|trying)\s+(?:this|you|it))?|what\s+(?:commands|can\s+i\s+(?:say|ask|do))|show\s+(?:me\s+)?(?:the\s+)?help|i\s+need\s+help|help\s+me|examples?|menu|start|(?:hello|hi|hey|hiya|howdy)(?:\s+(?:there|all|everyone|folks))?|help\s+(?:with\s+)?(?:reminders?|schedules?|jobs?|remind|scheduling|posts?|commands?))[\s?!.\p{So}]*$`)

func isHelp(text string) bool {
	t := strings.TrimSpace(prefixRe.ReplaceAllString(strings.TrimSpace(text), ""))
	if t == "" {
		t = strings.TrimSpace(text)
	}
	return helpRe.MatchString(t) || helpRe.MatchString(strings.TrimSpace(text))
}

// languageRe: a question about the languages read ("do you understand
// spanish?", "can I write in french?").
var languageRe = regexp.MustCompile(`(?i)^(?:do|can|could)\s+(?:you|u|i|we)\s+(?:understand|speak|read|write(?:\s+(?:to\s+you\s+)?in)?|use|talk\s+in)\s+(?:other\s+languages|another\s+language|any\s+other\s+language|languages|spanish|french|german|portuguese|italian|dutch|hindi|chinese|japanese|korean|arabic|russian|polish|turkish)(?:\s+(?:too|as\s+well|also|at\s+all))?\s*\??$`)

// otherLanguageRe: a request in Portuguese, Spanish, French, German or
// Italian, by its words for "remind me" and "tomorrow".
var otherLanguageRe = regexp.MustCompile(`(?i)\b(?:me\s+lembr[ae]|me\s+avis[ae]|lembrete|amanhã|recuérdame|recordatorio|mañana|rappelle-moi|rappelle\s+moi|demain|erinnere\s+mich|erinnerung|morgen\s+um|ricordami|promemoria|domani\s+alle)\b`)

// remindWhenRe: a reminder asked for when something happens ("can you
// remind me when my package arrives?"), with no time.
var remindWhenRe = regexp.MustCompile(`(?i)^(?:(?:can|could|would|will)\s+(?:you|u)\s+)?(?:please\s+)?(?:remind|ping|tell|notify|alert)\s+(?:me|us)\s+(when\s+(?:my|our|the|his|her|their)\s+[^0-9]+?)[?.!]*$`)

// cannotRe, keepRe and stopAllRe: what it cannot do, what it keeps, how
// to stop everything.
var (
	cannotRe  = regexp.MustCompile(`(?i)^(?:so\s+)?what\s+(?:can'?t|cannot|can\s+not|don'?t)\s+(?:you|u)\s+(?:do|handle|schedule)\s*\??$|^what\s+are\s+(?:your|the)\s+limit(?:s|ations)\s*\??$`)
	keepRe    = regexp.MustCompile(`(?i)^(?:do|will|does)\s+(?:you|u|this|it|schedbot)\s+(?:store|keep|save|log|record|read|remember|track)\s+(?:my|our|the|all)?\s*(?:messages?|data|chats?|conversations?|info(?:rmation)?|history|stuff)\b.*\??$|^(?:what|which)\s+(?:data|info(?:rmation)?)\s+do\s+you\s+(?:store|keep|collect|save)\b.*$`)
	stopAllRe = regexp.MustCompile(`(?i)^(?:how\s+(?:do|can)\s+i\s+(?:stop|pause|cancel|delete|turn\s+off|disable)\s+(?:everything|all\s+of\s+(?:it|them)|it\s+all|all\s+(?:my\s+|the\s+)?(?:schedules|reminders|jobs|posts)))\s*\??$`)
	// englishRequestRe: words of a request in English
	englishRequestRe = regexp.MustCompile(`(?i)\b(?:remind|post|send|schedule|every|tomorrow|today|please|ping|the|to|at|in|on|my|and|for|it|one|pause|rename|delete|message)\b`)
)

// cannotText says what schedbot cannot do.
const cannotText = "I can't send email, texts or calls, post outside Slack, react to events (“when the build fails”), follow holidays that move from year to year, or run more often than once a minute. " +
	"I schedule posts, reminders and workflows here; say “help” for examples."

// keepText says what schedbot keeps.
const keepText = "I keep what your schedules need: each one's message, where and when it posts, and its runs, and an audit log of who made or changed it. " +
	"Say “list my schedules” to see them, and “delete …” to remove one."

// thanksRe and okayRe: a thank-you or an acknowledgement, said as the
// whole message ("thanks!", "great, thanks", "ok", "👍"): answered as
// such, never read as a request.
var (
	thanksRe = regexp.MustCompile(`(?i)^(?:(?:ok(?:ay)?|great|perfect|awesome|cool|nice|brilliant|amazing|excellent)[,!.]*\s+)?(?:thanks|thank\s+you|thx|ty|tysm|cheers|much\s+appreciated|appreciate\s+it)(?:\s+(?:so\s+much|a\s+lot|a\s+ton|very\s+much|again|bot|schedbot|man|mate))?[\s!.🙏🙌👍😊]*$`)
	okayRe   = regexp.MustCompile(`(?i)^(?:ok(?:ay)?|k|kk|yes|yep|yup|yeah|yea|sure|cool|great|perfect|awesome|nice(?:\s+one)?|neat|sweet|lol|haha|got\s+it|sounds\s+good|looks\s+good|all\s+good|good|excellent|brilliant|amazing|alright|👍|🙏|🙌|👌|✅|😊|🎉)[\s!.🙏🙌👍😊]*$`)
)

// zoneQuestionRe: a question about the timezone times are read in
// ("wait whats the time zone you use?", "which timezone is that in?").
var zoneQuestionRe = regexp.MustCompile(`(?i)^(?:(?:wait|so|hey|um+|and|also|btw|quick\s+question)[,\s]+)*(?:what|which)(?:'?s|\s+is)?\s+(?:the\s+|your\s+|my\s+|that\s+)?(?:time\s*zone|tz)(?:\s+(?:you\s+use|do\s+you\s+use|are\s+you\s+(?:using|in|on)|is\s+(?:this|that|it)(?:\s+in)?|please|pls))?\s*\?*$|^(?:(?:wait|so|hmm+|um+|oh)[,\s]+)?(?:what|which)\s+(?:time\s*zone|tz)\s+(?:is\s+(?:that|this|it)|are\s+(?:you|times)|do\s+you|will\s+(?:that|this|it)|would\s+(?:that|this|it)|does\s+(?:that|this|it))\b[^.!]*\?*$`)

// accessRe: who may see or change schedules and their posts ("who can
// see this?", "can others edit my reminders?", "is this private?").
var accessRe = regexp.MustCompile(`^(?:who\s+(?:else\s+)?(?:can|could|will|gets\s+to|is\s+able\s+to)\s+(?:see|view|read|change|edit|delete|cancel|pause|manage)|(?:can|could|will)\s+(?:anyone|others|other\s+people|everyone|people|my\s+team|my\s+(?:boss|manager)|the\s+(?:team|channel))(?:\s+else)?\s+(?:see|view|read|change|edit|delete|cancel)|is\s+(?:this|it|that|my\s+\w+)\s+(?:private|public|visible|secret)|(?:can|could|will)\s+my\s+(?:coworkers|co-workers|colleagues|teammates|team\s*mates|friends)\s+(?:see|view|read|change|edit|delete))\b[^?]*\??$`)

// accessText says who sees and who may change what (DESIGN.md: authority).
const accessText = "A post goes only where its schedule says: everyone in that channel sees it, and a reminder to you is a DM only you see. " +
	"Anyone who can talk to me here can list and show the schedules; only the person who made one, or an admin, can change, pause or delete it, " +
	"and the person a reminder is for can stop, skip or snooze it."

// helpFor is the help: examples of what can be said, a workflow's only
// where the orchestrator has one to start.
func helpFor(in selector.Input) string {
	wf := ""
	if len(in.Workflows) > 0 {
		wf = "• run workflow " + in.Workflows[0] + " every day at 8am\n"
	}
	what := "posts"
	if wf != "" {
		what = "posts and workflows"
	}
	return "I schedule " + what + ", and change them when you ask. Try:\n" +
		"• post “standup in 5” in #team every weekday at 9:25am\n" +
		"• remind me to send the invoices on the 1st of every month at 10am\n" +
		"• remind #design Design review every other Tuesday at 12:30\n" +
		"• remind @ana to send the report tomorrow at 9am\n" + wf +
		"• list my schedules · show the standup job\n" +
		"• move the standup to 10am · pause the standup · resume it\n" +
		"• run the standup now · delete the standup\n" +
		"Times are read in your timezone unless you name one (“9am London time”). I read English only."
}
