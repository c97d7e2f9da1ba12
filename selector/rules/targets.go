package rules

import (
	"slices"
	"strings"
)

// Where a message goes: "in #team", "to @ana", "-> #ops".

// sentence is a message taken apart.
type sentence struct {
	toks   []tok
	body   string // what toks index
	used   []bool // consumed by a target
	tgt    target
	act    action
	text   string
	quoted bool
	blocks [][]tok // the when blocks, in order
	// the text's tokens, for the check that nothing time-like is left in it
	textToks []tok
	// whenBeforeText: a when stands right before the text ("remind me at
	// 9am Mars time to …"), so a zone-like word there belongs to it
	whenBeforeText bool
	// dropped: the words of a request with no action word, which are no
	// message ("standup reminder every monday at 9am"); an answer to
	// "What should I post?" takes their place
	dropped []tok
}

// afterWhenWords is where the words that say when, from j, end, if a
// channel and the message follow them ("remind me at 3pm in #eng to
// deploy"); j otherwise.
func afterWhenWords(t []tok, j int) int {
	k := j
	for k < len(t) && k < j+8 && (t[k].kind == tNum || timeBearing(t[k]) || recurWords[t[k].s] || unit(t[k].s) != "" ||
		slices.Contains(whenPreps, t[k].s) || slices.Contains([]string{"am", "pm", "noon", "midnight", "tomorrow", "today", "tonight", "a", "an"}, t[k].s)) {
		if (t[k].s == "in" || t[k].s == "on") && k+1 < len(t) && (t[k+1].kind == tChannel || t[k+1].s == "the" && k+2 < len(t) && t[k+2].kind == tChannel) {
			c := k + 1
			if t[c].s == "the" {
				c++
			}
			if c+1 < len(t) && slices.Contains([]string{"to", "that", ":", "about", "channel", "room"}, t[c+1].s) {
				return k
			}
			return j
		}
		k++
	}
	return j
}

// target is where the job posts.
type target struct {
	channelID string
	thread    bool
}

// where is " in #eng" (as Slack links an id: " in <#C024BE91L>") for a
// question that repeats the target; "" when none was named.
func (t target) where() string {
	switch {
	case strings.HasPrefix(t.channelID, "#"):
		return " in " + t.channelID
	case t.channelID != "":
		return " in <#" + t.channelID + ">"
	}
	return ""
}

var targetPreps = []string{"in", "to", "into", "on", "at", "for", "->", ">", "=>", "via"}

// takeTargets marks the channel references and the words that lead to
// them. ok is false with a reason when the target is not one Slack writes
// or there are two.
func (s *sentence) takeTargets() (why string) {
	t := s.toks
	// "remind me to tell #eng about it": after the one reminded, channels
	// are the message's words; "remind #eng to …" names the target first
	textFrom := len(t)
	for k := 0; k+1 < len(t); k++ {
		if t[k].s == "remind" || t[k].s == "reminding" {
			textFrom = k + 1
			// "remind me in #eng to …", "remind @here in the #eng channel
			// …": where they are reminded is the target (a person named
			// by @ stays the target, and the channel is in the text)
			j := k + 2
			if k+1 < len(t) && (t[k+1].s == "me" || everyoneRe.MatchString(t[k+1].s)) {
				j = afterWhenWords(t, j) // "remind me in 5 minutes in #eng to …"
			}
			if j+1 < len(t) && (t[k+1].s == "me" || everyoneRe.MatchString(t[k+1].s)) && (t[j].s == "in" || t[j].s == "on") {
				if t[j+1].s == "the" && j+2 < len(t) {
					j++
				}
				if t[j+1].kind == tChannel {
					textFrom = j + 2
					if j+2 < len(t) && slices.Contains([]string{"channel", "room"}, t[j+2].s) {
						textFrom = j + 3
					}
					break
				}
			}
			// "remind everyone in #eng", "the #eng team", "all of #eng",
			// "us in #eng": the group named by its channel is the target
			for j := k + 1; j < len(t) && j <= k+5; j++ {
				if t[j].kind == tChannel {
					for x := k + 1; x < j; x++ {
						s.used[x] = true
					}
					textFrom = j + 1
					if j+1 < len(t) && slices.Contains([]string{"channel", "team", "room", "folks", "people", "crew"}, t[j+1].s) {
						s.used[j+1] = true
						textFrom = j + 2
					}
					break
				}
				if !slices.Contains([]string{"everyone", "everybody", "folks", "people", "the", "team", "us", "all", "of", "in", "my", "our", "guys", "y'all", "whole"}, t[j].s) {
					break
				}
			}
			break
		}
	}
	for k := 0; k < len(t); k++ {
		switch {
		case t[k].kind == tChannel && k >= textFrom:
			// part of the reminder's text
		case t[k].kind == tChannel:
			var id string
			if strings.HasPrefix(t[k].s, "<#") {
				inner := strings.TrimSuffix(strings.TrimPrefix(t[k].s, "<#"), ">")
				inner, _, _ = strings.Cut(inner, "|")
				if !slackIDRe.MatchString(inner) {
					return "That channel link is not one Slack writes. Name the channel as #name."
				}
				id = inner
			} else {
				id = "#" + strings.TrimPrefix(t[k].s, "#")
				if len(id) > 81 {
					return "That channel name is too long."
				}
			}
			if s.tgt.channelID != "" && s.tgt.channelID != id {
				return "I post each schedule to one channel. Ask once for each channel."
			}
			s.tgt.channelID = id
			s.used[k] = true
			// "in the #eng channel", "in channel #eng"
			if k+1 < len(t) && slices.Contains([]string{"channel", "room"}, t[k+1].s) {
				s.used[k+1] = true
			}
			p := k - 1 // where the preposition would be
			if p >= 0 && slices.Contains([]string{"the", "channel"}, t[p].s) && !s.used[p] && p > 0 && slices.Contains(targetPreps, t[p-1].s) {
				s.used[p] = true
				p--
			}
			if p >= 0 && slices.Contains(targetPreps, t[p].s) && !s.used[p] {
				s.used[p] = true
				if p > 0 && t[p-1].s == "-" && t[p].s == ">" {
					s.used[p-1] = true
				}
			}
		case (t[k].s == "in" || t[k].s == "to") && k+2 < len(t) && t[k+1].s == "this" && t[k+2].s == "thread",
			t[k].s == "in" && k+2 < len(t) && t[k+1].s == "the" && t[k+2].s == "thread":
			s.tgt.thread = true
			s.used[k], s.used[k+1], s.used[k+2] = true, true, true
		case t[k].s == "in" && k+1 < len(t) && t[k+1].s == "here" && t[k+1].kind == tWord:
			s.used[k], s.used[k+1] = true, true
		case (t[k].s == "in" || t[k].s == "to") && k+2 < len(t) && t[k+1].s == "this" && t[k+2].s == "channel":
			s.used[k], s.used[k+1], s.used[k+2] = true, true, true
		case t[k].s == "here" && k == len(t)-1:
			s.used[k] = true
		}
	}
	return ""
}

// rest is the tokens no target took.
func (s *sentence) rest() []tok {
	var out []tok
	for k, t := range s.toks {
		if !s.used[k] {
			out = append(out, t)
		}
	}
	return out
}

// namedChannel writes "my class channel #period3" as "#period3": the
// words before "channel" name it, unless one of them is a preposition
// ("the survey in channel #eng" is a message and a place).
func namedChannel(body string) string {
	return namedChannelRe.ReplaceAllStringFunc(body, func(m string) string {
		g := namedChannelRe.FindStringSubmatch(m)
		for _, w := range strings.Fields(strings.ToLower(g[1])) {
			if slices.Contains([]string{"in", "to", "on", "at", "for", "of", "into"}, w) {
				return m
			}
		}
		return g[2]
	})
}
