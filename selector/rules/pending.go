package rules

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Replies to an open question: an answer, a new request, or neither.

// decidePending reads a message while a question waits. A complete new
// request is that request (the question is dropped, and the person told);
// an answer completes the question; a new request that is itself
// incomplete asks its own question; anything else asks the open question
// again, so that no reply is mistaken for an answer it is not.
func decidePending(in selector.Input, text string) selector.Decision {
	p := in.Pending
	if ch, ok := channelNamed(in, text); p.Missing == selector.MissingTarget && ok {
		text = "in #" + ch // "Which channel?" "eng", "the eng channel"
	}
	if p.Missing == selector.MissingTarget && in.Channel != "slack" && hereRe.MatchString(strings.TrimSpace(text)) {
		// "Which channel should I remind them in?" "here": outside Slack,
		// this conversation, where a reminder to the sender goes
		if d := decide(in, remindThemRe.ReplaceAllString(p.Text, "remind me")); d.IsCall() {
			return d
		}
	}
	if m := whoAnswerRe.FindStringSubmatch(strings.TrimSpace(text)); m != nil && p.Missing == selector.MissingTarget && p.Replace != "" {
		// "Who should I remind?" "me", "@sarah", "remind me instead"
		if r := replaced(p.Text, p.Replace, "remind "+m[1]); r != "" {
			if d := decide(in, r); d.IsCall() || d.Clarify != "" && d.Missing != selector.MissingTarget {
				return d
			}
		}
	}
	if p.Words != "" && itPostRe.MatchString(text) {
		// "I can't send text messages …" "ok post it in #staff then, on
		// dec 20 at 10am": what it said, posted there
		said := answerFillerTailRe.ReplaceAllString(answerFillerLeadRe.ReplaceAllString(strings.TrimSpace(text), ""), "")
		said = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(said), "instead"))
		post := itPostRe.ReplaceAllString(said, "$1 “"+p.Words+"”")
		d := decide(in, post)
		if d.Missing == selector.MissingTime {
			// the when of the refused request, if the reply says none
			if when := whenAtEnd(in, strings.TrimSuffix(requestBody(p.Text), p.Words)); when != "" {
				d = decide(in, post+" "+when)
			}
		}
		if d.IsCall() || d.Clarify != "" {
			return d
		}
	}
	if m := quoteAfterRe.FindStringSubmatch(strings.TrimSpace(text)); m != nil && p.Yes != "" && p.Create {
		// "Should I remind you here instead?" "a reminder is fine, say
		// 'wake up!!'": yes, with that message
		if d := decide(in, p.Yes+" : “"+m[1]+m[2]+m[3]+m[4]+"”"); d.IsCall() {
			return d
		}
	}
	if strings.TrimSpace(p.Text) == "" && p.Missing == selector.MissingAction && isChannelWords(strings.TrimSpace(text)) {
		// "What would you like me to schedule?" "#eng": where, so far
		ch := strings.TrimSpace(text)
		d := clarify(in, "post in "+ch, selector.MissingAction, "What should I post in "+ch+", and when? For example “standup in 15 every weekday at 9:45am”.")
		d.Pending.Create = true
		return d
	}
	if ch := strings.TrimSpace(text); strings.TrimSpace(p.Text) != "" && p.Missing == selector.MissingTime && isChannelWords(ch) && !slices.ContainsFunc(lex(p.Text), func(t tok) bool { return t.kind == tChannel }) {
		// "When should I post “the offsite”?" "#general": where, the
		// question asked again of the request with it
		if d := decide(in, withChannel(p.Text, ch)); d.IsCall() || d.Clarify != "" && d.Missing != selector.MissingTarget {
			return d
		}
	}
	if m := channelAnswerRe.FindStringSubmatch(strings.TrimSpace(text)); m != nil && p.Missing == selector.MissingAction && teamRe.MatchString(p.Text) {
		// "What should I remind them of?" "its for #sales, every monday
		// at 9am, 'update the CRM'": the team is that channel
		if d := decide(in, withChannel(p.Text, m[1])+" "+m[2]); d.IsCall() || d.Clarify != "" {
			return d
		}
	}
	if ch, ok := strings.CutPrefix(p.Text, "post in "); ok && isChannelWords(ch) && p.Missing == selector.MissingAction {
		// "What should I post in #eng, and when?": a complete answer is
		// posted there, unless it names a channel of its own
		post := "post " + strings.TrimSpace(text)
		if hasAction(in, text) {
			post = strings.TrimSpace(text) // "post hello every friday"
		}
		if d := decide(in, post+" in "+ch); d.IsCall() && !slices.ContainsFunc(lex(text), func(t tok) bool { return t.kind == tChannel }) {
			return d
		}
	}
	if p.Message != "" && scheduleAnswerRe.MatchString(strings.TrimSpace(text)) {
		return stillAsking(in) // "the schedule": which it is, said another way, is still to come
	}
	alone := decide(in, text)
	greets := greetingRe.MatchString(strings.TrimSpace(text)) && (p.Missing == selector.MissingAction || p.Missing == selector.MissingMessage)
	if alone.Reply != "" && !greets && !ackRe.MatchString(strings.TrimSpace(text)) && !okayRe.MatchString(strings.TrimSpace(text)) && !thanksRe.MatchString(strings.TrimSpace(text)) {
		// "help", "who can see this?": answered, and the question still waits
		again := stillAsking(in)
		alone.Reply, alone.Pending = alone.Reply+"\n"+again.Clarify, again.Pending
		return alone
	}
	if alone.Unsupported != "" && manageAskedRe.MatchString(strings.TrimSpace(text)) && len(strings.Fields(text)) > 1 &&
		p.Missing != selector.MissingAction && p.Missing != selector.MissingMessage {
		// "delete all my reminders", "pause the standup" (none): no
		// answer; why not is said, and the question still waits
		again := stillAsking(in)
		return selector.Decision{Reply: alone.Unsupported + "\n" + again.Clarify, Pending: again.Pending}
	}
	if alone.IsCall() || alone.Unsupported != "" && !looksLikeAnswer(text) {
		alone.Dropped = p.Asked()
		return alone
	}
	if amended, ok := amended(in, p, text); ok {
		// "actually monday", "i meant #ops": the request asked about, changed
		return decide(in, amended)
	}
	text = answerCore(p.Missing, text) // "like 8:30", "ok 9am then": 8:30, 9am
	if m := halfDayLeadRe.FindStringSubmatch(text); m != nil && strings.Contains(p.Question, "in the morning or in the afternoon") && !answerMoreRe.MatchString(text[len(m[1]):]) {
		text = m[1] // "pm obviously, he works mornings": pm
	}
	if rest := yeahRe.ReplaceAllString(text, ""); p.Missing == selector.MissingAction && rest != "" && strings.HasPrefix(strings.ToLower(p.Text), "remind ") {
		text = rest // "What should I remind you of?" "yeah pay the electric bill …"
	}
	if p.Create && alone.Missing == selector.MissingJob {
		// "pause it" while a new job is asked about: "it" is that request,
		// which is no job yet; a "Which one?" is a new request's question.
		if alone.Pending != nil && len(alone.Pending.Candidates) > 0 {
			alone.Dropped = p.Asked()
			return alone
		}
		return stillAsking(in)
	}
	// "Is 5:00 PM right?" of a when said twice takes yes, no, or the time
	timeToo := p.Missing == selector.MissingTime && p.Replace != "" && isWhenWords(in, text)
	if p.Yes != "" && !quotedAlone(text) && !timeToo || p.Missing == selector.MissingMessage && !answerShaped(p.Missing, text) {
		// A yes/no question takes yes or no (settled before this) or the
		// words in quotes; "what should it say?" any words but "ok",
		// "what?", "thanks": they would become the job's message.
		if alone.Clarify != "" && alone.Missing != selector.MissingAction && hasAction(in, text) {
			alone.Dropped = p.Asked() // a new request, itself incomplete
			return alone
		}
		return stillAsking(in)
	}
	if d, ok := whenForAction(in, p, text); ok {
		return d // "What should I post at 9:15?" "every day": the when, and the question again
	}
	if p.Missing == selector.MissingAction && !answerShaped(p.Missing, text) && !hasAction(in, text) {
		return stillAsking(in) // "huh?", "ok": no words to post
	}
	if p.Missing == selector.MissingAction && alone.Clarify != "" && alone.Missing != selector.MissingAction && namesWhom(in, text) {
		alone.Dropped = p.Asked() // "please remind me to call bob tomorrow": a new request, not the words to post
		return alone
	}
	if d, ok := messageWithTime(in, p, text); ok {
		return d
	}
	// A reading whose words would be posted ("morning", "what timezone is
	// that in?") is no answer (leaked); checked only of a reading about to
	// be given, as it reads the request again.
	type reading struct {
		d        selector.Decision
		combined string
	}
	var asks []reading
	for _, combined := range answered(in, p, text) {
		d := decide(in, combined)
		if d.Pending != nil && !(d.Missing == selector.MissingAction && d.Pending.Text != "") {
			d.Pending.Text = combined // a question of what to post keeps the request it names ("remind me")
		}
		if !d.IsCall() {
			asks = append(asks, reading{d, combined})
		} else if !leaked(in, p, text, combined, d) {
			return d
		}
	}
	if alone.Clarify != "" && alone.Missing != selector.MissingAction && hasAction(in, text) && (p.Missing != selector.MissingAction || leadsWithAction(in, text)) {
		alone.Dropped = p.Asked() // a new request, itself incomplete ("new blog post goes live today!" answers what to post)
		return alone
	}
	if answerShaped(p.Missing, text) {
		for _, r := range asks {
			if leaked(in, p, text, r.combined, r.d) {
				continue
			}
			if r.d.Pending == nil || !r.d.Pending.Unread {
				return r.d
			}
			break
		}
	}
	// Neither an answer nor a request: the question again, and the
	// request as it was ("nine", "ok 9am" are not glued onto it).
	return stillAsking(in)
}

var (
	// hereRe: "here" as where to post ("in here", "this chat").
	hereRe = regexp.MustCompile(`(?i)^(?:(?:right\s+|in\s+)?here|this\s+(?:chat|channel|conversation))[.!]?$`)
	// remindThemRe: a reminder for a group ("remind the team", "remind
	// everyone"), which outside Slack needs a channel.
	remindThemRe = regexp.MustCompile(`(?i)\bremind\s+(?:the\s+(?:team|channel|group|crew)|my\s+team|our\s+team|team|everyone|everybody|all|folks|people|us|channel|here)\b`)
)

// scheduleAnswerRe: "the schedule", answering "is “in 5” part of the
// message or of the schedule?".
// whenAtEnd is the longest run of words that ends s and reads as a when
// ("email the team every monday at 9am:" -> "every monday at 9am").
func whenAtEnd(in selector.Input, s string) string {
	t := lex(strings.TrimRight(strings.TrimSpace(s), ":,;-"))
	for k := range t {
		if w := strings.TrimSpace(spanText(t[k:])); isWhenWords(in, w) {
			return w
		}
	}
	return ""
}

// itPostRe: the words a refused request gave, posted after all ("post it
// in #staff"); group 1 is the verb.
var itPostRe = regexp.MustCompile(`(?i)\b(post|send|put|share)\s+(?:it|that|this)\b`)

// whoAnswerRe: who to remind, said as an answer ("me", "@sarah", "ok
// remind me instead"); group 1 is who.
var whoAnswerRe = regexp.MustCompile(`(?i)^(?:(?:just|ok|okay|then|fine)[,\s]+)*(?:(?:remind|dm|tell|ping|in)\s+)?(me|myself|us|@\S+|<@[A-Z0-9]+(?:\|[^>]*)?>|#\S+|<#[^>]+>)(?:\s+(?:instead|then|please|pls))?[.!]?$`)

var scheduleAnswerRe = regexp.MustCompile(`(?i)^(?:(?:it'?s|its|it is)\s+)?(?:part\s+of\s+)?(?:the\s+)?(?:schedule|time|when)[.!]?$`)

var (
	// answerLeadRe, answerTailRe: the words people put around an answer
	// to "What time?" or "Which channel?" that are not part of it.
	answerFillerLeadRe = regexp.MustCompile(`(?i)^(?:(?:[a-z]+(?:\s+[a-z]+)?\s+or\s+[a-z]+(?:\s+[a-z]+)?\s*\?|oh|oops|whoops|sorry|my\s+bad|wait|actually|ok(?:ay)?|k|so|well|fine|alright|all\s+right|right|great|cool|um+|uh+|hmm+|like|maybe|probably|obv(?:iously|s)?|of\s+course|ofc|duh|i\s+guess|i\s+think|let'?s\s+(?:say|do|go\s+with)|say|how\s+about|what\s+about|idk|dunno|whenever(?:\s+works)?|any\s+time|anytime|then|yeah|yes|sure|(?:wait\s+)?(?:that|it)\s+should\s+be|should\s+be|it'?s|i\s+mean)(?:[\s,.!:;]+|\s*[—–-]\s*))+`)
	answerFillerTailRe = regexp.MustCompile(`(?i)(?:[\s,]+(?:then|actually|i\s+guess|i\s+think|maybe|probably|obv(?:iously|s)?|of\s+course|ofc|duh|lol|lmao|haha|sorry|my\s+bad|oops|please|pls|thanks|thx|ty|sir|ma'?am|madam|bro|dude|mate|i\s+mean|or\s+so|or\s+something|is\s+fine|works|would\s+be\s+(?:good|great|fine)|ideally|if\s+possible))+[\s.!?]*$`)
	// ishRe: "9ish", "around 9": a time given loosely, read as said.
	ishRe = regexp.MustCompile(`(?i)\b(\d{1,2}(?::\d{2})?(?:\s*[ap]m)?)-?ish\b`)
)

// leaked reports whether an answer about when or where became words of
// the message: a word of it is posted more often than the request alone
// says it. d is combined's decision; a question's message is found by
// completing its request.
func leaked(in selector.Input, p *selector.Pending, answer, combined string, d selector.Decision) bool {
	if p.Missing != selector.MissingTime && p.Missing != selector.MissingTarget {
		return false
	}
	posted, ok := callText(d)
	if !ok {
		// a question: completed by what it asks for, the message it would post
		more := " at 9am"
		if p.Missing == selector.MissingTarget {
			more = " in #probe"
		}
		in.Pending, in.ContextJobID = nil, ""
		if posted, ok = callText(decide(in, combined+more)); !ok {
			return false
		}
	}
	count := func(s string) map[string]int {
		n := map[string]int{}
		for _, t := range lex(s) {
			if t.kind == tWord || t.kind == tNum {
				n[t.s]++
			}
		}
		return n
	}
	said, out := count(p.Text), count(posted)
	for w := range count(answer) {
		if out[w] > said[w] {
			return true
		}
	}
	return false
}

// callText is the message a create posts; ok is false for anything else.
func callText(d selector.Decision) (string, bool) {
	var args struct {
		TargetAction struct {
			FunctionArgs struct {
				Text string `json:"text"`
			} `json:"functionArgs"`
		} `json:"targetAction"`
	}
	if d.Function != "schedule.create" || json.Unmarshal(d.Args, &args) != nil {
		return "", false
	}
	return args.TargetAction.FunctionArgs.Text, true
}

// answerCore is an answer to a question about missing (a time, a
// channel) without the words around it ("like 8:30", "ok 9am then",
// "9ish", "wait that should be 2pm"); text as it is when nothing is left
// or the question is about anything else (a message is taken whole).
func answerCore(missing, text string) string {
	if missing != selector.MissingTime && missing != selector.MissingTarget {
		return text
	}
	core := strings.TrimRight(strings.TrimSpace(ishRe.ReplaceAllString(text, "$1")), "!.")
	core = strings.TrimSpace(answerFillerTailRe.ReplaceAllString(answerFillerLeadRe.ReplaceAllString(core, ""), ""))
	if m := answerAsideRe.FindStringSubmatchIndex(core); m != nil && !asideCorrectsRe.MatchString(core[m[0]:]) {
		if first := strings.TrimSpace(answerFillerTailRe.ReplaceAllString(core[:m[0]], "")); answerShaped(missing, first) {
			core = first // "3pm please, they get out at 3:15": why, after the answer
		}
	}
	if core == "" || !answerShaped(missing, core) {
		return text
	}
	return core
}

// bareChannelRe: a channel named without its "#", as an answer to
// "Which channel?" ("eng", "in eng", "the eng channel"): group 1 or 3
// says it is a channel, group 2 is its name.
var bareChannelRe = regexp.MustCompile(`(?i)^((?:in|to|on)\s+)?(?:the\s+)?([a-z0-9][a-z0-9_.-]{0,79})(\s+channel)?[.!]?$`)

// notChannels are words that answer "Which channel?" without naming one.
var notChannels = wordSet(strings.Fields(`the a channel here there me myself it that this what why huh idk dunno whatever none
	any all both same default dm dms private public nowhere later skip tbd who sorry slack everyone mine`))

// channelNamed reads a channel named without its "#": a word that a job
// already posts to ("eng" for #eng), or one said to be a channel ("in
// eng", "the eng channel"); never a word that names none ("idk").
func channelNamed(in selector.Input, text string) (string, bool) {
	m := bareChannelRe.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil || notChannels[strings.ToLower(m[2])] || ackRe.MatchString(m[2]) {
		return "", false
	}
	known := slices.ContainsFunc(in.Jobs, func(j selector.JobRef) bool { return strings.EqualFold(j.ChannelID, "#"+m[2]) })
	return m[2], known || m[1] != "" || m[3] != ""
}

// manageAskedRe: a change of jobs asked for, which answers no question.
var manageAskedRe = regexp.MustCompile(`(?i)^(?:please\s+|pls\s+)?(?:delete|remove|cancel|pause|resume|unpause|run|list|show|skip|snooze)\s`)

// confusedRe: a reply that asks back instead of answering; askedBackRe
// one that asks the bot something ("why do you need that?", "can you
// just pick a time?"), which is no message to post either.
var (
	confusedRe  = regexp.MustCompile(`(?i)^(?:what|huh|why|how|eh|sorry|pardon|come\s+again|what\s+do\s+you\s+mean|i\s+don'?t\s+(?:know|understand)|idk|dunno|\?+)\W*$`)
	askedBotRe  = regexp.MustCompile(`(?i)^(?:why\s+do\s+(?:you|u)\s+need|why\s+(?:are\s+you\s+)?ask|what\s+time\s+is\s+it|(?:can|could)\s+(?:you|u)\s+(?:just\s+)?(?:pick|choose|decide)|what\s+do\s+(?:you|u)\s+need)\b.*\?\s*$`)
	askedBackRe = regexp.MustCompile(`(?i)^(?:why\b.*|what\s+time\s+is\s+it\b.*|(?:what|which|how|can|could|do|does|will|would|should|is|are)\b.*\b(?:you|your)\b.*)\?\s*$`)
	// answerAsideRe: a reason said after an answer, from a comma on ("3pm
	// please, they get out at 3:15"; "tomorrow at 10, it's the budget
	// meeting").
	// asideCorrectsRe: words after the comma that change the answer
	// ("3pm, i mean 4pm", "they changed it to 4pm") or name its zone
	// ("it's pacific time"): not a reason to drop.
	asideCorrectsRe = regexp.MustCompile(`(?i)\b(?:mean|meant|actually|chang\w*|mov\w*|instead|rather|not|no|wait|sorry|make\s+it|time|zone|utc|gmt|[a-z][sd]t|et|pt|ct|mt|cet|ist)\b`)
	answerAsideRe   = regexp.MustCompile(`(?i)\s*[,;]\s*(?:it'?s|it\s+is|that'?s|they|they'?re|he|she|we|i'?m|i|because|since|cause|cuz|as|my|our|the\s+\w+\s+(?:is|starts|ends))\b`)
)

// answerShaped says whether a reply can answer a question about missing:
// a time names one, a target a channel, a message is any text that is not
// a puzzled question back.
func answerShaped(missing, text string) bool {
	if confusedRe.MatchString(strings.TrimSpace(text)) {
		return false
	}
	if back := askedBackRe.MatchString(strings.TrimSpace(text)); back && missing != selector.MissingMessage && missing != selector.MissingAction ||
		askedBotRe.MatchString(strings.TrimSpace(text)) {
		return false // a message may ask its readers ("are you coming to lunch?"), not the bot
	}
	toks := lex(text)
	switch missing {
	case selector.MissingTime:
		for _, t := range toks {
			if timeBearing(t) || timeWordRe.MatchString(t.s) || vagueTimes[t.s] {
				return true
			}
		}
		return false
	case selector.MissingTarget:
		for _, t := range toks {
			if t.kind == tChannel || t.s == "here" || t.s == "me" {
				return true
			}
		}
		return false
	case selector.MissingJob:
		return false // a job is named by words a call resolves, or picked from the list
	case selector.MissingMessage, selector.MissingAction:
		return !ackRe.MatchString(strings.TrimSpace(text)) // "ok", "thanks": no words to post
	}
	return true
}

// ackRe: a reply that acknowledges, hesitates or thanks, and so says no
// words to post.
var ackRe = regexp.MustCompile(`(?i)^(?:ok(?:ay)?|k|yes|yeah|yep|yup|sure|no|nope|thanks|thank\s+you|thx|ty|hmm+|um+|uh+|wait|maybe|cool|great|lol|\.+)[\s.!?]*$`)

// quotedAlone: text is one quoted stretch and nothing else.
func quotedAlone(text string) bool {
	toks := lex(text)
	return len(toks) == 1 && toks[0].kind == tQuote
}

var vagueTimes = wordSet(dayParts, strings.Fields(`am pm a.m. p.m. noon midnight lunchtime hourly weekly monthly yearly
	annually weekdays weekends now`))

// stillAsking asks the open question again, saying how to drop it.
func stillAsking(in selector.Input) selector.Decision {
	p := *in.Pending
	q := p.Question
	if q == "" {
		q = map[string]string{
			selector.MissingTime:   "When should it run? For example “every Friday at 9am” or “tomorrow at 3pm”.",
			selector.MissingAction: "What should I post?",
			selector.MissingTarget: "Where should I post it? For example “in #team”.",
			selector.MissingJob:    "Which schedule do you mean?",
		}[p.Missing]
	}
	p.Expires = in.Now.Add(selector.PendingTTL)
	about := "I'm still asking about “" + p.Asked() + "”: "
	if asked := strings.TrimSpace(p.Asked()); asked == "" || asked == "remind me" {
		about = "I'm still asking: " // "What would you like me to schedule?" is about no request yet
	}
	return selector.Decision{Clarify: about + q + " (Or say “cancel” to drop it.)", Missing: p.Missing, Pending: &p}
}

// answered are the readings of a request with its answer in it: the
// answer added at the end, and, when the question was about one part
// ("5: am or pm?", "3/4: which?", "afternoon: what time?"), the request
// with that part replaced by the answer or settled by it.
func answered(in selector.Input, p *selector.Pending, answer string) []string {
	out := []string{requestBody(p.Text) + " " + answerText(p, answer)}
	if ch, rest, ok := channelAndWhen(answer); ok && p.Missing == selector.MissingTime && isWhenWords(in, rest) {
		// "What time?" "in #eng-team at 3pm": the channel first, where it
		// is a target, and the when after
		out = append([]string{"in " + ch + " " + requestBody(p.Text) + " " + rest}, out...)
	}
	if p.Missing == selector.MissingTarget && isChannelWords(answer) {
		// "Which channel should I remind them in?" "#eng": said first, it
		// is where they are reminded, not words of the reminder
		out = append([]string{answer + " " + requestBody(p.Text)}, out...)
	}
	if p.Missing == selector.MissingAction && p.Replace != "" {
		// "standup reminder every monday at 9am": the answer is the
		// message, in the place of the words that were none
		msg, _ := messageAnswer(p.Text, answer)
		if r := replaced(p.Text, p.Replace, "“"+msg+"”"); r != "" {
			out = append([]string{r}, out...)
		}
	} else if r := replaced(p.Text, hoursLead(p.Text, p.Replace), untilAnswer(p.Replace, answer)); r != "" && p.Missing != selector.MissingTarget && (!strings.HasPrefix(p.Replace, "every ") && !strings.Contains(p.Replace, "weekly") || recursRe.MatchString(answer)) {
		// a recurrence asked about is replaced by a recurrence only ("every
		// other Monday"): "9am" answers nothing about it
		out = append([]string{r}, out...)
	}
	if p.Missing != selector.MissingTime {
		return out
	}
	toks := lex(p.Text)
	at := lex(answer)
	if len(at) == 0 {
		return out
	}
	if from, to, ok := workdayTime(toks); ok {
		// "by eod", "before lunch": the answer is the time ("5pm")
		answer := strings.TrimSpace(answer)
		if at[0].kind == tNum || at[0].s == "noon" {
			answer = "at " + answer
		}
		out = append(out, p.Text[:from]+answer+p.Text[to:])
	}
	for k, t := range toks {
		vague := false
		switch {
		case t.kind == tNum && (numberIn(t.s, 1, 12) || clockHourIn(t.s, 1, 12)) && k > 0 && toks[k-1].s == "at":
			// "at 5": answered "pm" or "5pm"
			if len(at) == 1 && (at[0].s == "am" || at[0].s == "pm" || at[0].s == "a.m." || at[0].s == "p.m.") {
				out = append(out, p.Text[:t.j]+at[0].s+p.Text[t.j:])
				continue
			}
			if len(at) == 1 && slices.Contains(dayParts, at[0].s) {
				// "afternoon", as the question offers it
				out = append(out, p.Text[:t.j]+" in the "+at[0].s+p.Text[t.j:])
				continue
			}
			vague = !strings.Contains(t.s, ":") // "at 3:15" answered "9am" is no am or pm of it
		case t.kind == tNum && strings.ContainsAny(t.s, "/."):
			vague = true // 3/4
		case t.s == "morning" || t.s == "afternoon" || t.s == "evening" || t.s == "night" || t.s == "lunchtime" || t.s == "lunch" || t.s == "eod":
			vague = true
		}
		if vague && t.kind == tNum && len(at) == 1 && numberIn(at[0].s, 1, 12) && !strings.ContainsAny(t.s, "/.") {
			// "at 5: am or pm?" answered "6": another hour, read first
			out = append([]string{p.Text[:t.i] + answer + p.Text[t.j:]}, out...)
		} else if vague {
			a := answer
			if len(at) > 1 && at[0].s == "at" && k > 0 && toks[k-1].s == "at" {
				a = strings.TrimSpace(answer[at[0].j:]) // "at 3" answered "at 4pm": "at" once
			}
			out = append(out, p.Text[:t.i]+a+p.Text[t.j:])
			if t.kind != tNum && k > 0 && (toks[k-1].s == "this" || toks[k-1].s == "the" || toks[k-1].s == "in") {
				// "friday afternoon" -> "friday at 3pm"
				out = append(out, p.Text[:t.i]+"at "+answer+p.Text[t.j:])
			}
		}
	}
	return out
}

// clockHourIn: s is a time written h:mm whose hour is from lo to hi
// ("3:15").
func clockHourIn(s string, lo, hi int) bool {
	h, m, ok := strings.Cut(s, ":")
	return ok && len(m) == 2 && numberIn(h, lo, hi) && numberIn(m, 0, 59)
}

// workdayTime finds a time of the working day only its speaker knows
// ("eod", "lunch", "close of business") and the word before it that says
// at, by or around it: where they start and end in the text.
func workdayTime(toks []tok) (from, to int, ok bool) {
	p := &parser{t: toks}
	for k := range toks {
		p.i = k
		if n := p.vagueTime(0); n > 0 && !p.is(0, "later", "soon", "sometime", "asap") {
			from, before := toks[k].i, k-1
			if before >= 0 && toks[before].s == "the" {
				from, before = toks[before].i, before-1 // "at the end of the day"
			}
			if before >= 0 && slices.Contains([]string{"at", "by", "before", "after", "around", "until", "till"}, toks[before].s) {
				from = toks[before].i
			}
			return from, toks[k+n-1].j, true
		}
	}
	return 0, 0, false
}
