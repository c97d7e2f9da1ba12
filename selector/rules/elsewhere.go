package rules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/selector"
)

// Requests to reach someone a way schedbot has not (NL_SPEC decision 1):
// email, text messages, calls. schedbot posts in Slack and reminds people,
// so it says so and offers the reminder to do it instead.

// elsewhereRe opens a request with a way schedbot cannot send by: a verb
// ("email the team …", "call mom at 5pm") or a thing sent ("send a text
// to john at 3pm").
var elsewhereRe = regexp.MustCompile(`(?i)^(?:(e-?mail|mail|sms|text|txt|whatsapp|call|phone|tweet|fax)\s+(\S+)|send\s+(?:an?\s+|some\s+)?(e-?mails?|sms(?:es)?|texts?(?:\s+messages?)?|whatsapps?(?:\s+messages?)?|tweets?|fax(?:es)?|letters?)\b)`)

// platformRe: a post asked for somewhere other than Slack, the site right
// after what is posted ("post it on instagram", "post our update on
// linkedin"); "post follow us on instagram" is a message. platformNames
// spell them.
var (
	platformRe    = regexp.MustCompile(`(?i)^(?:please\s+|pls\s+)?(?:post|share|put|publish|upload|tweet)\s+(?:(?:it|this|that|them|these|(?:the|my|our|a|an)\s+[a-z]+(?:\s+[a-z]+)?)\s+)?(?:on|to)\s+(?:(?:our|my|the|your)\s+)?(instagram|insta|facebook|fb|linkedin|tiktok|twitter|reddit|discord|mastodon|bluesky)\b`)
	platformNames = map[string]string{"instagram": "Instagram", "insta": "Instagram", "facebook": "Facebook", "fb": "Facebook", "linkedin": "LinkedIn",
		"tiktok": "TikTok", "twitter": "X (Twitter)", "reddit": "Reddit", "discord": "Discord", "mastodon": "Mastodon", "bluesky": "Bluesky"}
)

// elsewhereWhat is what schedbot cannot do, by the word that asked it.
var elsewhereWhat = map[string]string{
	"email": "send email", "mail": "send email", "sms": "send text messages", "text": "send text messages",
	"whatsapp": "send WhatsApp messages", "call": "make phone calls", "phone": "make phone calls",
	"tweet": "post to X (Twitter)", "fax": "send faxes", "letter": "send letters",
}

// elsewhere refuses a request to send by email, text or call, offering
// the reminder to do it instead: "yes" makes it. ok is false when the
// request is none of those ("text me at 5pm …" is a reminder here, "call
// schedule.list" runs a function).
func elsewhere(in selector.Input, text string) (selector.Decision, bool) {
	body := requestBody(text)
	if m := platformRe.FindStringSubmatch(outsideQuotes(body)); m != nil {
		name := platformNames[strings.ToLower(m[1])]
		return unsupported("I can't post to %s: I post in Slack channels and remind people.", name), true
	}
	m := elsewhereRe.FindStringSubmatch(body)
	if m == nil {
		for _, o := range otherDeeds {
			if o.re.MatchString(outsideQuotes(body)) {
				return offerReminder(in, text, body, []string{body[:0], "", "", "", ""}, "I can't "+o.what+": I post in Slack channels and remind people.")
			}
		}
		return selector.Decision{}, false
	}
	word, object := strings.ToLower(m[1]+m[3]), strings.ToLower(m[2])
	switch {
	case m[1] != "" && (object == "me" || object == "myself") && (word == "text" || word == "txt"):
		return selector.Decision{}, false // "text me at 5pm to …": a reminder here
	case word == "call" && (strings.Contains(object, ".") || object == "workflow" || object == "the" && strings.Contains(strings.ToLower(body), "workflow")):
		return selector.Decision{}, false // "call schedule.list", "call the daily-report workflow"
	case word == "call" && (slices.Contains(backReferences, object) || object == "off" || namesJob(in, body[len(m[0])-len(m[2]):])):
		return selector.Decision{}, false // "call it friday numbers", "call it off": a name, a stop
	}
	what := ""
	for k, v := range elsewhereWhat {
		if strings.HasPrefix(strings.ReplaceAll(word, "-", ""), k) || word == "txt" && k == "text" {
			what = v
		}
	}
	if what == "" {
		return selector.Decision{}, false
	}
	return offerReminder(in, text, body, m, fmt.Sprintf("I can't %s: I post in Slack channels and remind people.", what))
}

// otherDeeds are things people ask that schedbot cannot do, other than
// sending: it says so and offers the reminder, as for an email.
var otherDeeds = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(?i)^(?:book|reserve)\s+(?:a|an|the|my|our)\s+(?:\S+\s+)?(?:room|table|desk|flight|hotel|appointment|slot|spot|court|car|taxi|cab|ticket)s?\b`), "make bookings"},
	{regexp.MustCompile(`(?i)^(?:add|put)\s+.+?\s+(?:to|in|on|into)\s+(?:my|our|the)\s+(?:google\s+|outlook\s+|work\s+|shared\s+|team\s+)?calendar\b`), "add events to a calendar"},
	{regexp.MustCompile(`(?i)^(?:schedule|set\s+up|setup|arrange|organi[sz]e|book|start)\s+(?:a|an)\s+(?:zoom|teams|google\s+meet|meet|video|phone|conference|1:1|one-on-one)\s+(?:call|meeting|chat)\b`), "set up calls or meetings"},
}

// offerReminder says what schedbot cannot do (lead) and offers the
// reminder to do it instead, with what and when where they read: yes
// makes it. m is what elsewhereRe matched (m[0] empty for otherDeeds).
func offerReminder(in selector.Input, text, body string, m []string, lead string) (selector.Decision, bool) {
	object := strings.ToLower(m[2])
	// being reminded to do it: "remind me to email the team …"; "email me
	// at 5pm to call mom" is "remind me at 5pm to call mom"
	yes := "remind me to " + body
	if m[1] != "" && (object == "me" || object == "myself") {
		yes = "remind me" + body[len(m[0]):]
	}
	probe := in
	probe.Pending = nil
	d := decide(probe, yes)
	if !d.IsCall() {
		// "book a table for friday at 7pm": the when is for the reminder
		if m := forWhenRe.FindStringSubmatchIndex(yes); m != nil {
			if d2 := decide(probe, yes[:m[0]]+" "+yes[m[2]:]); d2.IsCall() {
				yes, d = yes[:m[0]]+" "+yes[m[2]:], d2
			}
		}
	}
	const remindTo = "remind me to "
	for _, re := range []*regexp.Regexp{saidWordsRe, purposeRe} {
		if d.IsCall() || !strings.HasPrefix(yes, remindTo) {
			break
		}
		m := re.FindStringSubmatchIndex(yes[len(remindTo):])
		if m == nil {
			continue
		}
		m[0] += len(remindTo)
		// "text my wife at 6pm that I'll be late", "call the dentist at
		// 3pm on monday to book a cleaning": the when is before the words
		// said or the purpose, which the reminder keeps whole, quoted
		head := yes[len(remindTo):m[0]]
		if t, ok := createdText(decide(probe, remindTo+head)); ok && strings.HasPrefix(strings.ToLower(head), strings.ToLower(t)) && len(head) > len(t) {
			said := strings.TrimSpace(yes[m[0]:])
			if !strings.HasPrefix(said, ":") {
				said = " " + said // "… that I'll be late"; "…: running late" joins as said
			}
			quoted := "remind me " + strings.TrimSpace(head[len(t):]) + " to “" + t + said + "”"
			if d2 := decide(probe, quoted); d2.IsCall() {
				yes, d = quoted, d2
			}
		}
	}
	if d.Unsupported != "" {
		return unsupported("%s %s", lead, d.Unsupported), true
	}
	if rest := strings.Trim(strings.ToLower(body[len(m[0]):]), " ?!."); !d.IsCall() && m[3] != "" && (rest == "" || rest == "for me" || rest == "for us") &&
		askedRe.MatchString(text) && strings.HasSuffix(strings.TrimSpace(text), "?") {
		return selector.Decision{Reply: lead}, true // "can you send emails?": a question, answered
	}
	q := lead + " Should I remind you here instead? (yes or no)"
	if post, when, ok := describeCreate(d, in.Now); ok {
		q = fmt.Sprintf("%s Should I remind you “%s” %s instead? (yes or no)", lead, post, when)
	}
	c := clarify(in, text, selector.MissingAction, q)
	c.Pending.Yes, c.Pending.Create = yes, true
	if m := saidWordsRe.FindStringSubmatch(body); m != nil {
		c.Pending.Words = strings.Trim(m[1], " .!")
	}
	return c, true
}

// saidWordsRe: the words a message to someone says ("… that the shop is
// closed", "… saying timesheets are due").
var saidWordsRe = regexp.MustCompile(`(?i)\b(?:that|saying|:)\s+(.+)$`)

// forWhenRe: "for" before the when of a booking ("a table for friday
// at 7pm"); group 1 is the when.
var forWhenRe = regexp.MustCompile(`(?i)\s+for\s+((?:tomorrow|today|tonight|next|this|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b.*)$`)

// purposeRe: what a call or a message is for ("… to book a cleaning").
var purposeRe = regexp.MustCompile(`(?i)\s+(?:to|about|re|regarding)\s+(.+)$`)

// createdText is the text a create call posts.
func createdText(d selector.Decision) (string, bool) {
	if d.Function != "schedule.create" {
		return "", false
	}
	var a struct {
		TargetAction struct {
			FunctionArgs struct{ Text string } `json:"functionArgs"`
		} `json:"targetAction"`
	}
	if json.Unmarshal(d.Args, &a) != nil || a.TargetAction.FunctionArgs.Text == "" {
		return "", false
	}
	return a.TargetAction.FunctionArgs.Text, true
}
