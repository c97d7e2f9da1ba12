package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// What the job does and the verb that says it: "post", "remind me",
// "run workflow".

// action is what the job does.
type action struct {
	text      string // message.post text
	remindWho string // "me", "team", "<@U…>", "@ana": who a reminder is for
	tell      bool
	implicit  bool // no verb: "every monday 9am: standup"
	workflow  string
	function  string
	// unclearWho: a reminder names several people or someone Slack
	// cannot know ("remind me and bob", "remind bob to"): ask whom.
	unclearWho bool
}

func (a action) verb() string {
	switch {
	case a.workflow != "":
		return "start workflow " + a.workflow
	case a.function != "":
		return "run " + a.function
	case a.text != "":
		return fmt.Sprintf("post “%s”", a.text)
	}
	return "do that"
}

func (a action) json() map[string]any {
	switch {
	case a.workflow != "":
		return map[string]any{"type": "workflow_start", "workflowId": a.workflow}
	case a.function != "":
		return map[string]any{"type": "command_invoke", "functionId": a.function, "functionArgs": map[string]any{}}
	}
	return map[string]any{"type": "command_invoke", "functionId": "message.post", "functionArgs": map[string]any{"text": a.text}}
}

var (
	slackIDRe = regexp.MustCompile(`^[CG][A-Z0-9]{2,20}$`) // as Slack writes ids: upper case
	userIDRe  = regexp.MustCompile(`^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$`)
	// everyoneRe: Slack's mentions of everyone in a channel
	everyoneRe = regexp.MustCompile(`^(?:@(?:channel|here|everyone)|<!(?:channel|here|everyone)(?:\|[^>]*)?>)$`)
)

// targetRef says where the job posts: the channel the text names, this
// thread, the person reminded, else (in Slack) the channel of the request.
func targetRef(in selector.Input, t target, a action) map[string]any {
	user := ""
	switch {
	case a.remindWho == "me" || a.remindWho == "myself":
		user = in.SenderID
	case userIDRe.MatchString(a.remindWho):
		user = userIDRe.FindStringSubmatch(a.remindWho)[1]
	case strings.HasPrefix(a.remindWho, "<@"):
		user = ""
	}
	if in.Channel != "slack" {
		switch {
		case t.channelID != "":
			return map[string]any{"channel": "slack", "channelId": t.channelID}
		case user != "" && user != in.SenderID:
			return map[string]any{"channel": "slack", "channelId": user} // "remind <@U…> to …"
		case strings.HasPrefix(a.remindWho, "@") && !everyoneRe.MatchString(a.remindWho):
			return map[string]any{"channel": "slack", "channelId": a.remindWho} // "remind @sarah": a Slack person
		}
		return nil
	}
	ref := map[string]any{"channel": "slack", "postingMode": "channel_post"}
	if in.ProfileID != "" {
		ref["channelProfileId"] = in.ProfileID
	}
	switch {
	case t.channelID != "":
		ref["channelId"] = t.channelID
	case everyoneRe.MatchString(a.remindWho):
		// "@channel", "<!here>": everyone in the channel of the request
		if in.ChannelID != "" {
			ref["channelId"] = in.ChannelID
		} else {
			return nil
		}
	case strings.HasPrefix(a.remindWho, "@"):
		ref["channelId"] = a.remindWho // a name: the adapter finds the person
	case user != "":
		ref["channelId"] = user
	case in.ChannelID != "":
		ref["channelId"] = in.ChannelID
	default:
		return nil
	}
	if t.thread && in.ThreadTS != "" {
		ref["postingMode"], ref["threadTs"] = "thread_reply", in.ThreadTS
		if t.channelID == "" {
			ref["channelId"] = in.ChannelID
		}
	}
	return ref
}

var postVerbs = []string{"post", "send", "say", "announce", "share", "write", "message", "msg", "publish", "broadcast", "drop"}

// The words that send a post to its sender, shared by the creates
// ("dm me at 5pm …") and the moves ("dm me instead") that read them.
const (
	dmVerbs     = `(?:dm|message|msg|ping|text)`
	senderWords = `(?:me|myself|my\s+dms?|my\s+direct\s+messages)`
	privately   = `(?:directly|privately|personally|in\s+private)`
)

// dmMeRe and toMeBodyRe: a post to the sender said with another verb
// ("dm me at 5pm to call mom", "send the report to my DMs every
// Monday"), which startReading reads as "remind me".
var (
	// alsoWordsRe: "too", "also", "as well" right after "remind me" or a
	// channel, which say the job is one more.
	alsoWordsRe = regexp.MustCompile(`(?i)(^remind\s+(?:me|us)|#[a-z][\w.-]*|<#[A-Z0-9]+(?:\|[^>]*)?>)\s+(?:too|also|as\s+well)\b,?`)
	dmMeRe      = regexp.MustCompile(`(?i)^(?:` + dmVerbs + `|send)\s+me\b`)
	toMeBodyRe  = regexp.MustCompile(`(?i)^(?:send|post|forward)\s+(.+?)\s+(?:to|in)\s+` + senderWords + `\b(.*)$`)
)

// remindLeadRe: ways of asking to be reminded that name no verb of ours.
var remindLeadRe = regexp.MustCompile(`(?i)^(?:(?:don'?t|do\s+not)\s+let\s+me\s+forget\s+(?:to\s+)?|make\s+sure\s+(?:i|we)\s+(?:remember\s+to\s+)?|help\s+me\s+remember\s+to\s+)`)

// rememberMeRe: "remember me", said for "remind me" in much of the world.
var rememberMeRe = regexp.MustCompile(`(?i)^remember\s+(me|us)\b`)

// reminderAskRe: asking for the noun ("i need a reminder every day at
// 9am to …", "can i get a reminder tomorrow …", "i'd like to be reminded
// to …"); the words before the reminder go, and being reminded is
// "remind me".
var (
	reminderAskRe = regexp.MustCompile(`(?i)^(?:(?:can|could|may)\s+(?:i|we)\s+(?:get|have)|(?:would|will)\s+it\s+be\s+possible\s+to\s+(?:get|have|set\s+up)|(?:so\s+)?(?:basically\s+)?what\s+(?:i|we)\s+(?:need|want)\s+is|(?:i|we)\s+(?:need|want|would\s+like)|(?:i\s+am|i'?m|we\s+are|we'?re)\s+(?:wanting|needing)|(?:i'?d|we'?d)\s+like|need|want|give\s+me|get\s+me|gimme|set\s+me(?:\s+up)?)\s+((?:a|an|another|one\s+more|some)\s+(?:\S+\s+){0,2}?reminders?\b|reminders?\b)` +
		// "set a daily reminder …": the verb goes, the schedule word stays
		`|^(?:(?:can|could|may)\s+(?:i|we)\s+)?(?:set(?:\s+up)?|setup|schedule|create|add|make)(?:\s+me)?\s+((?:a|an)\s+(?:new\s+)?(?:` + strings.Join(frequencyWords, "|") + `)\s+(?:\S+\s+)?reminders?\b)`)
	// reminderForMeRe: "make a reminder for me, every day …": remind me
	reminderForMeRe = regexp.MustCompile(`(?i)^(?:(?:make|set|create|add|schedule)(?:\s+up)?|setup|(?:i|we)\s+(?:need|want))\s+(?:a\s+|an\s+)?reminders?\s+for\s+me\b[,:]?`)
	// remindersRe: reminders asked for in the plural, which is one to
	// start with
	remindersRe = regexp.MustCompile(`(?i)^((?:set|make|create|add|schedule)(?:\s+up)?)\s+(?:some\s+)?reminders\b`)
	// namedChannelRe: a channel said with words before it ("my class
	// channel #period3", "the team channel #eng"), which are its name
	// (namedChannel: never across a word such as "in").
	namedChannelRe = regexp.MustCompile(`(?i)\b(?:my|our|the)\s+((?:[a-z0-9-]+\s+){0,2})channel\s+(#[\w-]+|<#[^>]+>)`)
	// reminderForTeamRe: "set up a reminder for my team …": remind the
	// team, whose channel is asked outside Slack
	reminderForTeamRe = regexp.MustCompile(`(?i)^(?:(?:make|set|create|add|schedule)(?:\s+up)?|setup|(?:i|we)\s+(?:need|want))\s+(?:a\s+|an\s+)?reminders?\s+for\s+(?:my|our|the)\s+team($|[,:]|\s+(?:every|each|on|at|in|to|tomorrow|today|next|this|daily|weekly|that|about)\b)`)
	remindedRe        = regexp.MustCompile(`(?i)^(?:(?:(?:i|we)\s+(?:need|want|would\s+like)|(?:i'?d|we'?d)\s+like)\s+to\s+)?be\s+reminded\b`)
)

// findVerb returns where the action starts in r and where its text may
// start; -1 when there is no action word. A reminder whose recipient is
// unclear returns its start and an action saying so (unclearWho).
func findVerb(in selector.Input, r []tok) (at, textAt int, a action) {
	for k := 0; k < len(r); k++ {
		w := r[k].s
		if r[k].kind != tWord {
			continue
		}
		if k == 0 || k == 1 && r[0].s == "/" {
			w = misspeltVerb(w) // "remnd me to …" (NL_SPEC decision 20)
		}
		nextAt := func(j int) string { return tokAt(r, k+j).s }
		found := false
		switch {
		case w == "remind" || w == "reminding" || w == "rmind" || w == "remid" || w == "reminder" && (nextAt(1) == "to" || nextAt(1) == "for" || nextAt(1) == "that" || nextAt(1) == ":" || opensRequest(r[:k])):
			at, textAt, a, found = remindVerb(r, k, w)
		case slices.Contains(postVerbs, w) && !(w == "message" && k > 0 && (r[k-1].s == "a" || r[k-1].s == "the")) && !(w == "drop" && nextAt(1) != "a" && nextAt(1) != "the" && nextAt(1) != "in"):
			at, textAt, a, found = postVerb(r, k, w)
		case w == "tell" || w == "ping" || w == "notify" || w == "alert" || w == "nudge" || w == "dm":
			at, textAt, a, found = tellVerb(r, k, w)
		case slices.Contains([]string{"schedule", "set", "setup", "create", "add", "make", "queue", "plan"}, w):
			at, textAt, a, found = scheduleVerb(r, k, w)
		case slices.Contains([]string{"run", "start", "trigger", "kick", "launch", "execute", "invoke", "call", "fire"}, w):
			at, textAt, a, found = runVerb(in, r, k, w)
		}
		if found {
			return at, textAt, a
		}
	}
	return -1, -1, action{}
}

// reminderLeads are the words a request may open with before its noun
// "reminder" ("a daily reminder at 9am to …"); the schedule words among
// them are read as its when.
var reminderLeads = wordSet(strings.Fields(`/ a an new quick`), frequencyWords)

// opensRequest: head, the words before a "reminder", opens the request
// with nothing but reminderLeads, so that the noun says what to do
// ("reminder every monday at 9am to submit timesheets").
func opensRequest(head []tok) bool {
	return !slices.ContainsFunc(head, func(t tok) bool { return !reminderLeads[t.s] })
}

// remindVerb reads "remind me to", "/remind #team", "reminder to": who
// is reminded, or that it is unclear ("remind me and bob").
func remindVerb(r []tok, k int, w string) (at, textAt int, a action, found bool) {
	j := k + 1
	at = k
	if k > 0 && r[k-1].s == "/" {
		at = k - 1
	}
	if w == "reminder" {
		if j+1 < len(r) && r[j].s == "for" && (r[j+1].kind == tNum || slices.Contains(relativeDays, r[j+1].s)) {
			j++ // "a reminder for 8am", "… for tomorrow at 9"
		}
		return at, j, action{remindWho: "me"}, true
	}
	who := ""
	if j+1 < len(r) && r[j].s == "to" && slices.Contains([]string{"me", "us"}, r[j+1].s) {
		j++ // "remind to me"
	}
	switch {
	case j < len(r) && r[j].kind == tUser:
		who = r[j].s
		j++
	case j < len(r) && slices.Contains([]string{"me", "us", "everyone", "everybody", "all", "channel", "here", "myself", "yourself", "folks", "people", "y'all"}, r[j].s):
		who = r[j].s
		j++
	case j+1 < len(r) && (r[j].s == "the" || r[j].s == "my" || r[j].s == "our") && slices.Contains([]string{"team", "channel", "group", "room", "crew"}, r[j+1].s):
		who = "team"
		j += 2
	case j < len(r) && r[j].s == "team":
		who = "team"
		j++
	}
	if who != "" && j+1 < len(r) && r[j].s == "2" && textSpeakTo(r[j+1]) {
		j++ // "remind me 2 call dr": text speak for "to"
	}
	// "remind me and bob", "remind bob and alice", "remind bob to":
	// one person or channel per reminder, named so Slack knows them
	if j < len(r) && (r[j].s == "and" || r[j].s == "&" || r[j].s == "," && !startsBlockWord(tokAt(r, j+1)) || r[j].s == "or" || r[j].s == "+") && j+1 < len(r) && r[j+1].s != "to" {
		return at, j, action{unclearWho: true}, true
	}
	if who == "" && namedAlone(r, j, false) {
		return at, j, action{unclearWho: true}, true
	}
	return at, j, action{remindWho: who}, true
}

// textSpeakTo: t after a "2" is a verb, so the "2" says "to" ("2 call",
// "2 wish mom happy birthday"): one of the verbs people remind themselves
// to do, or a word that is no count of things ("2 pills", "2 tickets
// left", "2 mornings a week" keep the number).
func textSpeakTo(t tok) bool {
	if t.kind != tWord {
		return false
	}
	if slices.Contains(textSpeakVerbs, t.s) || slices.Contains(postVerbs, t.s) {
		return true
	}
	_, _, day := weekday(t.s)
	_, mon := month(t.s)
	return !strings.HasSuffix(t.s, "s") && unit(t.s) == "" && !day && !mon && !timeBearing(t) &&
		!slices.Contains(strings.Fields(`am pm a p and or to x o'clock oclock more of in at on every each from before after
			dozen hundred thousand half couple few per`), t.s)
}

// textSpeakVerbs are verbs "2" stands before as "to" though they end in
// "s" or are read as something else.
var textSpeakVerbs = strings.Fields(`call pick take pay check feed walk water clean wash finish submit file study read
	drink eat stretch meet bring return visit go do make fix reply sign ask start stop review update charge put leave
	press pass dress discuss process address access cross toss`)

// namedAlone: r[j] is a person named without "@" ("remind bob to …",
// "tell sarah tomorrow at 10 …"): someone Slack cannot know, so asked.
// Only after tell or dm may a when follow the name: after remind the
// word may begin the message ("/remind #eng standup every day").
func namedAlone(r []tok, j int, whenMayFollow bool) bool {
	return j+1 < len(r) && r[j].kind == tWord && !slices.Contains([]string{"to", "that", "about", "of", "at", "on", "in", "every", "each", "tomorrow", "today", "tonight", "next", "this", "again", "later", "soon", "once", "twice"}, r[j].s) &&
		!startsBlockWord(r[j]) && (r[j+1].s == "to" || r[j+1].s == "and" || r[j+1].s == "that" || r[j+1].s == "about" || whenMayFollow && startsBlockWord(r[j+1]))
}

// postVerb reads "post", "send a message saying", "say".
func postVerb(r []tok, k int, w string) (at, textAt int, a action, found bool) {
	j := k + 1
	// post a message saying X, send the message: X
	if j+2 < len(r) && (r[j].s == "a" || r[j].s == "the" || r[j].s == "this") && slices.Contains([]string{"message", "note", "reminder", "announcement", "post", "msg", "following"}, r[j+1].s) &&
		(r[j+2].s == "saying" || r[j+2].s == ":" || r[j+2].s == "-" || r[j+2].kind == tQuote || r[j+2].s == "that" || r[j+2].s == "to" && r[j+1].s == "reminder") {
		// "post a message saying X"; "post the reminder" is the text
		j += 2
	} else if j+2 < len(r) && r[j].s == "a" && slices.Contains([]string{"message", "msg", "note", "post", "announcement"}, r[j+1].s) && colonAfter(r, j+2) {
		// "send a message to #cs-team at 4pm: X": the words after the
		// colon are the message, what stands before it where and when
		j += 2
	} else if j < len(r) && slices.Contains([]string{"message", "messages", "reminder"}, r[j].s) && j+1 < len(r) && (r[j+1].s == "saying" || r[j+1].s == ":" || r[j+1].kind == tQuote) {
		j++
	}
	if j < len(r) && (r[j].s == "out" && w != "say") {
		j++
	}
	return k, j, action{}, true
}

// colonAfter: a colon follows r[from:] before any quotation, after a
// where or a when ("to #cs-team at 4pm:", "every 2 hours:"), so the words
// after it are the message. After words that lead into a message ("with
// the text:", "saying:", "reminding people:") the request is asked about
// as before.
func colonAfter(r []tok, from int) bool {
	for k := from; k < len(r); k++ {
		switch t := r[k]; {
		case t.kind == tQuote:
			return false
		case t.s == ":":
			return k > from && !slices.Contains(messageLeads, r[k-1].s) && !slices.Contains(postVerbs, r[k-1].s)
		}
	}
	return false
}

// messageLeads are the words that end a lead into a message before a
// colon (with postVerbs: "say:", "message:").
var messageLeads = strings.Fields(`text saying says said with reading reads read that this people them everyone everybody
	all reminding remind note following like as content contents body words team`)

// tellVerb reads "tell", "ping", "notify" with whom.
func tellVerb(r []tok, k int, w string) (at, textAt int, a action, found bool) {
	j := k + 1
	who := ""
	switch {
	case j < len(r) && r[j].kind == tUser:
		who = r[j].s
		j++
	case j < len(r) && slices.Contains([]string{"everyone", "everybody", "us", "me", "all", "people", "folks"}, r[j].s):
		who = r[j].s
		j++
	case j+1 < len(r) && r[j].s == "the" && slices.Contains([]string{"team", "channel", "group"}, r[j+1].s):
		who = "team"
		j += 2
	}
	if who == "" && (w == "tell" || w == "dm") && namedAlone(r, j, true) {
		return k, j, action{unclearWho: true}, true // "tell sarah to …", "dm sarah tomorrow …"
	}
	if who == "" && (w == "tell" || w == "dm") && !(j < len(r) && r[j].s == "to") {
		return 0, 0, action{}, false // "tell #eng to stretch": the channel is the target
	}
	return k, j, action{remindWho: who, tell: true}, true
}

// scheduleVerb reads "schedule a message saying", "set up a reminder
// to", "create a daily post".
func scheduleVerb(r []tok, k int, w string) (at, textAt int, a action, found bool) {
	nextAt := func(j int) string { return tokAt(r, k+j).s }
	j := k + 1
	if w == "set" && nextAt(1) == "up" {
		j++
	}
	if j < len(r) && (r[j].s == "a" || r[j].s == "an" || r[j].s == "the" || r[j].s == "my") {
		j++
	}
	if j < len(r) && (r[j].s == "recurring" || r[j].s == "daily" || r[j].s == "weekly" || r[j].s == "monthly" || r[j].s == "new" || r[j].s == "one-time") {
		// the adjective is read again as part of the schedule
		if j+1 < len(r) && slices.Contains([]string{"message", "post", "reminder", "announcement", "alert", "notification", "note", "ping"}, r[j+1].s) {
			if r[j].s != "new" && r[j].s != "recurring" && r[j].s != "one-time" {
				return 0, 0, action{}, false // "schedule a daily message": the schedule word would be lost
			}
			j++
		}
	}
	if j < len(r) && slices.Contains([]string{"message", "post", "reminder", "announcement", "alert", "notification", "note", "ping"}, r[j].s) {
		kind := r[j].s
		j++
		if j < len(r) && (r[j].s == "saying" || r[j].s == "that" && j+1 < len(r) && r[j+1].s == "says" || r[j].s == ":" || r[j].s == "-" || r[j].s == "for" && kind == "reminder" || r[j].s == "to" && kind == "reminder" || r[j].s == "about") {
			if r[j].s == "that" {
				j++
			}
			j++
		} else if j+1 < len(r) && r[j].s == "to" && r[j+1].s == "say" {
			j += 2
		}
		a := action{}
		if kind == "reminder" {
			a.remindWho = "me"
		}
		return k, j, a, true
	}
	return 0, 0, action{}, false
}

// runVerb reads "run workflow X", "run the daily-report workflow",
// "trigger schedule.list".
func runVerb(in selector.Input, r []tok, k int, w string) (at, textAt int, a action, found bool) {
	nextAt := func(j int) string { return tokAt(r, k+j).s }
	j := k + 1
	if w == "kick" {
		if nextAt(1) != "off" {
			return 0, 0, action{}, false
		}
		j++
	}
	if j < len(r) && r[j].s == "the" {
		j++
	}
	if j < len(r) && r[j].s == "workflow" && j+1 < len(r) {
		id, n := gluedID(r, j+1)
		return k, j + 1 + n, action{workflow: matchID(in.Workflows, id)}, true
	}
	if j < len(r) {
		// a function id is lexed as words and dots: schedule . list
		if j+2 < len(r) && r[j+1].s == "." && r[j+2].i == r[j+1].j && r[j+1].i == r[j].j {
			fn := strings.ToLower(r[j].s + "." + r[j+2].s)
			if slices.Contains(in.Functions, fn) || strings.HasPrefix(fn, "schedule.") || fn == "message.post" {
				return k, j + 3, action{function: fn}, true
			}
		}
		if id, n := gluedID(r, j); n > 0 && j+n < len(r) && r[j+n].s == "workflow" {
			return k, j + n + 1, action{workflow: matchID(in.Workflows, id)}, true // "the nightly-backup workflow"
		}
		if wf := matchWorkflow(in.Workflows, r, j); wf != "" {
			n := strings.Count(wf, "-") * 2
			return k, j + 1 + n, action{workflow: wf}, true
		}
	}
	return 0, 0, action{}, false
}

// gluedID reads an id lexed in pieces ("daily", "-", "report"); n is how
// many tokens it took.
func gluedID(r []tok, j int) (string, int) {
	var b strings.Builder
	k := j
	for k < len(r) && (k == j || r[k].i == r[k-1].j) && (r[k].kind == tWord || r[k].kind == tNum || r[k].s == "-" || r[k].s == "_" || r[k].s == ".") {
		b.WriteString(r[k].s)
		k++
	}
	return strings.TrimRight(b.String(), "-_."), k - j
}

// matchWorkflow: a known workflow id written at r[j] (lexed in pieces:
// daily - report).
func matchWorkflow(known []string, r []tok, j int) string {
	for _, id := range known {
		var b strings.Builder
		k := j
		for k < len(r) && b.Len() < len(id) {
			if k > j && r[k].i != r[k-1].j {
				break
			}
			b.WriteString(r[k].s)
			k++
		}
		if strings.EqualFold(b.String(), id) {
			return id
		}
	}
	return ""
}

// matchID returns the known id that equals s ignoring case, else s.
func matchID(known []string, s string) string {
	for _, k := range known {
		if strings.EqualFold(k, s) {
			return k
		}
	}
	return s
}

// misspeltVerbs are the verbs read when the request starts one edit from
// one of them ("remnd", "poost", "sned"); notVerbs are words of their own
// one edit from one.
var (
	misspeltVerbs = append([]string{"remind"}, postVerbs[:2]...) // remind, post, send
	notVerbs      = map[string]bool{"past": true, "most": true, "host": true, "pose": true, "posh": true, "sent": true, "sand": true,
		"end": true, "lend": true, "bend": true, "mend": true, "tend": true, "rend": true, "seed": true, "pst": true, "pot": true,
		"pest": true, "poet": true, "port": true, "pout": true, "lost": true, "cost": true, "seen": true, "sen": false, "spend": true,
		"pots": true, "stop": true, "spot": true, "sens": true, "wend": true, "fend": true, "vend": true, "pond": true, "posts": true}
)

// misspeltVerb is the verb s is one edit from, or s.
func misspeltVerb(s string) string {
	if len(s) < 3 || notVerbs[s] || slices.Contains(misspeltVerbs, s) {
		return s
	}
	for _, v := range misspeltVerbs {
		if oneEdit(s, v) {
			return v
		}
	}
	return s
}

// hasAction: the text says what to do ("post…", "remind me…").
func hasAction(in selector.Input, text string) bool {
	v, _, _ := findVerb(in, lex(text))
	return v >= 0
}

// leadsWithAction says whether text opens with its action ("post …",
// "please remind me …", "could you send …"), not a noun ("new blog post
// goes live"); "remind" anywhere is a request.
func leadsWithAction(in selector.Input, text string) bool {
	t := lex(text)
	v, _, _ := findVerb(in, t)
	if v < 0 {
		return false
	}
	lead := 0
	for lead < v && slices.Contains(requestOpeners, t[lead].s) {
		lead++
	}
	return v <= lead+1 || strings.HasPrefix(t[v].s, "remind")
}

// requestOpeners are the words a request may open with before its verb.
var requestOpeners = []string{"please", "pls", "plz", "ok", "okay", "hey", "hi", "so", "and", "also", "then", ",",
	"can", "could", "would", "will", "you", "u", "i", "i'd", "want", "need", "like", "to", "now", "actually"}

// namesWhom says whether text, opening with its action, names whom or
// where ("please remind me to call bob", "could you post hi in #eng"): a
// request of its own, never the words of another.
func namesWhom(in selector.Input, text string) bool {
	if !leadsWithAction(in, text) {
		return false
	}
	t := lex(text)
	v, _, _ := findVerb(in, t)
	return slices.ContainsFunc(t[v:], func(x tok) bool { return x.kind == tChannel || x.kind == tUser }) ||
		strings.HasPrefix(t[v].s, "remind") && v+1 < len(t) && (t[v+1].s == "me" || t[v+1].s == "us")
}
