package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// action is what the job does.
type action struct {
	text       string // message.post text
	remindUser string // "remind me" / "remind @ana": a person, not a channel
	workflow   string
	function   string
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
	trimRe     = regexp.MustCompile(`^[\s,.:;!-]+|[\s,.:;!-]+$`)
	trailingRe = regexp.MustCompile(`(?i)(?:\s+(?:and|then|at|on|in|every|each|from|for|by|to|of|the|please))+$`)
	leadingRe  = regexp.MustCompile(`(?i)^(?:(?:and|then|to|that|about|please)\s+)+`)
)

func cleanText(s string) string {
	for {
		t := trimRe.ReplaceAllString(s, "")
		t = trailingRe.ReplaceAllString(t, "")
		t = leadingRe.ReplaceAllString(t, "")
		t = strings.TrimSpace(t)
		if t == s {
			return t
		}
		s = t
	}
}

// takeAction reads what to do from what is left once the schedule and the
// target are taken out. ok is false when the text names no action.
func takeAction(in selector.Input, w *work, quoted string) (action, bool) {
	lower := w.String()
	if g := w.take(workflowRe, false); g != nil {
		id := g[1]
		if id == "" {
			id = g[2]
		}
		return action{workflow: matchID(in.Workflows, id)}, true
	}
	if g := w.take(runFuncRe, false); g != nil && slices.Contains(in.Functions, g[1]) {
		return action{function: g[1]}, true
	}
	if m := startRe.FindStringSubmatch(lower); m != nil {
		if id := matchID(in.Workflows, m[1]); slices.Contains(in.Workflows, id) {
			w.take(startRe, false)
			return action{workflow: id}, true
		}
	}
	// What is left may start with a connector ("… at 9am and remind #team …").
	rest := newWork(leadingRe.ReplaceAllString(w.rest(), ""))
	if g := rest.take(remindRe, true); g != nil {
		a := action{text: cleanText(rest.rest())}
		if quoted != "" {
			a.text = quoted
		}
		who := strings.ToLower(g[1])
		switch {
		case who == "me" || who == "":
			a.remindUser = in.SenderID
		case strings.HasPrefix(who, "<@"):
			a.remindUser = userRe.FindStringSubmatch(g[1])[1]
		}
		if a.remindUser != "" && a.text != "" && who == "me" || who == "" {
			a.text = strings.TrimSpace(a.text)
		}
		return a, a.text != ""
	}
	if rest.take(postVerbRe, true) != nil {
		a := action{text: cleanText(rest.rest())}
		if quoted != "" {
			a.text = quoted
		}
		return a, a.text != ""
	}
	if quoted != "" {
		return action{text: quoted}, true
	}
	return action{}, false
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

// targetRef says where the job posts: the channel the text names, this
// thread, the person reminded, else (in Slack) the channel of the request.
func targetRef(in selector.Input, t target, a action) map[string]any {
	if in.Channel != "slack" {
		if t.channelID != "" {
			return map[string]any{"channel": "slack", "channelId": t.channelID}
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
	case a.remindUser != "":
		ref["channelId"] = a.remindUser
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

// ---- end bounds (decision 8) ----

type endBound struct {
	span  time.Duration // "for 3 weeks"
	count int           // "5 times"
	until time.Time     // "until March": exclusive
}

func takeEnd(w *work, now time.Time) (*endBound, string) {
	if g := w.take(endForRe, false); g != nil {
		n := number(g[1])
		if n <= 0 {
			return nil, ""
		}
		switch {
		case strings.HasPrefix(g[2], "min"):
			return &endBound{span: time.Duration(n) * time.Minute}, ""
		case strings.HasPrefix(g[2], "h"):
			return &endBound{span: time.Duration(n) * time.Hour}, ""
		case strings.HasPrefix(g[2], "day"):
			return &endBound{span: time.Duration(n) * 24 * time.Hour}, ""
		case strings.HasPrefix(g[2], "week"):
			return &endBound{span: time.Duration(n) * 7 * 24 * time.Hour}, ""
		default:
			return &endBound{until: now.AddDate(0, n, 0)}, ""
		}
	}
	if m := w.find(endTimesRe); m != nil && frequencyAfter.Match(w.lower[m[1]:]) {
		if n := string(w.lower[m[0]:m[1]]); !strings.HasPrefix(n, "once") && !strings.HasPrefix(n, "1 ") {
			return nil, "I can't spread several posts over a day or week by themselves yet: give the times (“every day at 9am and 5pm”)."
		}
	} else if m != nil {
		g := []string{"", "", ""}
		for i := 1; i <= 2; i++ {
			if m[2*i] >= 0 {
				g[i] = string(w.lower[m[2*i]:m[2*i+1]])
			}
		}
		w.blank(m[0], m[1])
		n := number(g[1])
		if g[2] != "" {
			n = number(g[2])
		}
		if n <= 0 || n > 10000 {
			return nil, "I can count up to 10,000 runs."
		}
		return &endBound{count: n}, ""
	}
	if g := w.take(untilRe, false); g != nil {
		t, ok := untilInstant(g[1], now)
		if !ok {
			return nil, "I couldn't read when it should end. Try “until March” or “until 2026-12-31”."
		}
		if strings.Contains(g[0], "end of") && untilMonthOnlyRe.MatchString(g[1]) {
			t = t.AddDate(0, 1, 0) // "until the end of March" includes March
		}
		return &endBound{until: t}, ""
	}
	return nil, ""
}

// "once a week", "twice a day": a frequency, not a number of runs.
var frequencyAfter = regexp.MustCompile(`^\s+(?:a|an|per|every|each)\b`)

var untilMonthOnlyRe = regexp.MustCompile(`^` + monthPattern + `$`)

var untilMonthDayRe = regexp.MustCompile(`^(` + monthPattern + `)(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?(?:,?\s+(\d{4}))?$`)

// untilInstant: a month ends the schedule when that month begins; a day
// ends it when the day is over.
func untilInstant(s string, now time.Time) (time.Time, bool) {
	loc := now.Location()
	if m := untilMonthDayRe.FindStringSubmatch(s); m != nil {
		mo := monthIndex[m[1]]
		y := now.Year()
		if m[3] != "" {
			y = number(m[3])
		}
		if m[2] == "" {
			t := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, loc)
			if m[3] == "" && !t.After(now) {
				t = t.AddDate(1, 0, 0)
			}
			return t, true
		}
		t := time.Date(y, time.Month(mo), number(m[2])+1, 0, 0, 0, 0, loc)
		if m[3] == "" && !t.After(now) {
			t = t.AddDate(1, 0, 0)
		}
		return t, true
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t.AddDate(0, 0, 1), true
	}
	switch {
	case strings.Contains(s, "year"):
		return time.Date(now.Year()+1, 1, 1, 0, 0, 0, 0, loc), true
	case s == "tomorrow":
		y, mo, d := now.AddDate(0, 0, 2).Date()
		return time.Date(y, mo, d, 0, 0, 0, 0, loc), true
	case s == "next week":
		days := (8-int(now.Weekday()))%7 + 7
		y, mo, d := now.AddDate(0, 0, days).Date()
		return time.Date(y, mo, d, 0, 0, 0, 0, loc), true
	case s == "next month":
		return time.Date(now.Year(), now.Month()+2, 1, 0, 0, 0, 0, loc), true
	}
	if wd, ok := dayIndex[s]; ok {
		ahead := (wd - int(now.Weekday()) + 7) % 7
		y, mo, d := now.AddDate(0, 0, ahead+1).Date()
		return time.Date(y, mo, d, 0, 0, 0, 0, loc), true
	}
	return time.Time{}, false
}

// resolve turns the bound into an exclusive endAt such that exactly the
// intended fires happen.
func (e *endBound) resolve(scheduleType string, sched map[string]any, now time.Time) (time.Time, string) {
	switch {
	case !e.until.IsZero():
		return e.until, ""
	case e.span > 0:
		// A fire exactly at the end of the span is still within it.
		return now.Add(e.span + time.Second), ""
	}
	s := buildSchedule(scheduleType, sched, now)
	sp, err := scheduler.NewSpec(scheduleType, s, time.Time{})
	if err != nil {
		return time.Time{}, err.Error()
	}
	runs := sp.NextN(now, e.count)
	if len(runs) < e.count {
		return time.Time{}, fmt.Sprintf("That schedule doesn't fire %d times.", e.count)
	}
	return runs[e.count-1].Add(time.Second), ""
}

func buildSchedule(scheduleType string, sched map[string]any, now time.Time) (s store.Schedule) {
	switch scheduleType {
	case "cron":
		s.Cron, s.Timezone = sched["cron"].(string), sched["timezone"].(string)
	case "interval":
		s.EverySeconds, s.StartAt = sched["everySeconds"].(int64), now.UTC().Truncate(time.Second)
	case "once":
		s.RunAt, _ = time.Parse(time.RFC3339, sched["runAt"].(string))
	}
	return s
}
