package slack

import (
	"regexp"
	"strings"
)

// Slack writes a message's text in its own markup: links and special
// mentions in angle brackets, and a typed &, < or > as an entity
// (docs.slack.dev, "Formatting text for app surfaces"). plainText turns
// what a person wrote back into what they typed, so that a job posts
// "R&D sync", not "R&amp;D sync", and reads "@here" as the words it is:
//   - a link is its label, with its address when the label differs:
//     <https://x.io/doc|the doc> is "the doc (https://x.io/doc)";
//   - <!here>, <!channel>, <!everyone> are "@here", …; a user group or a
//     date is its label;
//   - user and channel mentions (<@U…>, <#C…|name>) stay: they name a
//     person or a channel, which the selector reads;
//   - what opens a request after the mention of the bot (": ", ", ",
//     "- ") is dropped: "@schedbot: pause it" is "pause it".
func plainText(s string) string {
	s = markupRe.ReplaceAllStringFunc(s, func(m string) string {
		body := m[1 : len(m)-1]
		target, label, labeled := strings.Cut(body, "|")
		switch {
		case strings.HasPrefix(target, "@") || strings.HasPrefix(target, "#"):
			return m
		case strings.HasPrefix(target, "!"):
			switch name := strings.TrimPrefix(target, "!"); {
			case name == "here" || name == "channel" || name == "everyone":
				return "@" + name
			case labeled && label != "":
				return label // <!subteam^S1|@design>, <!date^…|Nov 27>
			}
			return m
		case strings.HasPrefix(target, "mailto:"):
			if labeled && label != "" {
				return label
			}
			return strings.TrimPrefix(target, "mailto:")
		case labeled && label != "" && label != target && "http://"+label != target && "https://"+label != target:
			return label + " (" + target + ")"
		}
		return target
	})
	s = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
	return strings.TrimSpace(leadRe.ReplaceAllString(s, ""))
}

var (
	// markupRe: one piece of Slack markup, <…> with no < or > inside.
	markupRe = regexp.MustCompile(`<[^<>\s][^<>]*>`)
	// leadRe: punctuation between the bot's mention and the request.
	leadRe = regexp.MustCompile(`^[\s:,;.\-–—]+`)
)
