package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// Block Kit's limits: a text object, the blocks of a message and of a
// view, a select's options and an actions block's elements.
const (
	maxText          = 3000
	maxMessageBlocks = 50
	maxViewBlocks    = 100
	maxOptions       = 100
	maxElements      = 25
	// pageJobs is how many jobs a listing shows a page: a section and
	// its buttons each, with room for the header and the pager.
	pageJobs = 15
)

// clip cuts s to n characters (runes), marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// sections splits text into sections of at most maxText characters, at
// line ends where it can.
func sections(text string) []slack.Block {
	var out []slack.Block
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, slack.NewSectionBlock(mrkdwn(cur.String()), nil, nil))
			cur.Reset()
		}
	}
	for _, line := range strings.Split(text, "\n") {
		for len([]rune(line)) > maxText {
			flush()
			r := []rune(line)
			out = append(out, slack.NewSectionBlock(mrkdwn(string(r[:maxText])), nil, nil))
			line = string(r[maxText:])
		}
		if len([]rune(cur.String()))+len([]rune(line))+1 > maxText {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteByte('\n')
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

// blocks renders an outgoing message: a fired reminder with its buttons,
// a confirmation with its job's buttons and next runs in each reader's
// own time, or a listing a page at a time. Nil: plain text will do.
func (a *Adapter) blocks(ctx context.Context, d *orchestrator.Delivery, text string) []slack.Block {
	prof := d.Target.ChannelProfileID
	switch {
	case len(d.ListJobs) > 0:
		return a.listBlocks(ctx, prof, d.ListArgs, text, d.ListJobs, 0)
	case d.ReplyJobID == "" && d.JobID != "" && d.ExecutionID != "" && a.opt.Backend != nil:
		j, err := a.opt.Backend.Job(ctx, prof, d.JobID)
		if err != nil {
			return nil
		}
		blocks := sections(text)
		if b := a.firedButtons(prof, j, d.ExecutionID); b != nil {
			blocks = append(blocks, b)
		}
		return blocks[:min(len(blocks), maxMessageBlocks)]
	case d.ReplyJobID == "" || len(d.Actions) == 0:
		if len([]rune(text)) > maxText {
			return limit(sections(text), maxMessageBlocks)
		}
		return nil
	}
	body := text
	if i := strings.Index(body, " Next: "); i >= 0 && len(d.NextRuns) > 0 {
		var dates []string
		for _, t := range d.NextRuns {
			dates = append(dates, slackDate(t, "{date_short_pretty} at {time}"))
		}
		rest := body[i+len(" Next: "):]
		after := ""
		if j := strings.Index(rest, ". Job "); j >= 0 {
			after = rest[j:]
		}
		body = body[:i] + " Next: " + strings.Join(dates, ", ") + after
	}
	blocks := sections(body)
	var j *store.Job
	if a.opt.Backend != nil {
		j, _ = a.opt.Backend.Job(ctx, prof, d.ReplyJobID)
	}
	if j == nil { // no backend to read it: the buttons of an enabled job
		j = &store.Job{JobID: d.ReplyJobID, State: store.JobEnabled}
	}
	if b := jobButtons(j); b != nil {
		blocks = append(blocks, b)
	}
	if j.TargetRef != nil && j.TargetRef.Channel == "slack" {
		if warn := a.notMember(ctx, j.TargetRef.ChannelID); warn != "" {
			blocks = append(blocks, slack.NewContextBlock("", mrkdwn("⚠️ "+warn)))
		}
	}
	return limit(blocks, maxMessageBlocks)
}

func limit(blocks []slack.Block, n int) []slack.Block {
	return blocks[:min(len(blocks), n)]
}

// listBlocks renders a page of a listing from its offset: the header
// line, a section and the buttons of each job of the page, and a Next
// page button carrying the listing's arguments when more follow.
func (a *Adapter) listBlocks(ctx context.Context, profileID string, listArgs json.RawMessage, text string, ids []string, offset int) []slack.Block {
	lines := strings.Split(text, "\n")
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(lines[0]), nil, nil)}
	byID := map[string]string{}
	for _, line := range lines[1:] {
		if rest, ok := strings.CutPrefix(line, "• "); ok && len(rest) >= 26 {
			byID[rest[:26]] = line
		}
	}
	end := min(len(ids), offset+pageJobs)
	for _, id := range ids[offset:end] {
		line := byID[id]
		if line == "" {
			continue
		}
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(line), nil, nil))
		var j *store.Job
		if a.opt.Backend != nil {
			j, _ = a.opt.Backend.Job(ctx, profileID, id)
		}
		if j == nil {
			j = &store.Job{JobID: id, State: store.JobEnabled}
		}
		if b := jobButtons(j); b != nil {
			blocks = append(blocks, b)
		}
	}
	if end < len(ids) {
		blocks = append(blocks, slack.NewActionBlock("page",
			button(actionPage, clip(strconv.Itoa(end)+"|"+string(listArgs), 2000), fmt.Sprintf("Next %d (of %d)", min(pageJobs, len(ids)-end), len(ids)))))
	} else if strings.HasPrefix(lines[len(lines)-1], "(more:") {
		blocks = append(blocks, slack.NewContextBlock("", mrkdwn(lines[len(lines)-1])))
	}
	return limit(blocks, maxMessageBlocks)
}

// nextPage answers a listing's Next page button: the listing asked again
// (as the clicker, through schedule.list) and shown from the offset, in
// place of the page clicked.
func (a *Adapter) nextPage(ctx context.Context, cb slack.InteractionCallback, value string) {
	off, args, ok := strings.Cut(value, "|")
	offset, err := strconv.Atoi(off)
	prof := a.profileFor(cb.Team.ID, cb.Channel.ID)
	if !ok || err != nil || offset < 0 || prof == nil || a.opt.Backend == nil {
		return
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil || m == nil {
		m = map[string]any{}
	}
	delete(m, "cursor")
	m["limit"] = store.MaxListLimit
	raw, _ := json.Marshal(m)
	res, err := a.opt.Backend.Call(ctx, prof.ID, functions.Request{Function: "schedule.list", Args: raw, Actor: a.actor(ctx, prof, cb.User.ID)})
	if err != nil {
		a.say(ctx, cb, "Sorry — "+err.Error()+".")
		return
	}
	page, ok := res.(*store.JobPage)
	if !ok {
		return
	}
	text := escape(conversation.Describe("schedule.list", page))
	var ids []string
	for _, j := range page.Jobs {
		ids = append(ids, j.JobID)
	}
	if offset >= len(ids) {
		offset = 0
	}
	blocks := a.listBlocks(ctx, prof.ID, json.RawMessage(args), text, ids, offset)
	payload := map[string]any{"replace_original": true, "text": clip(strings.SplitN(text, "\n", 2)[0], maxText), "blocks": blocks}
	if cb.ResponseURL != "" {
		if err := a.respond(ctx, cb.ResponseURL, payload); err != nil {
			a.say(ctx, cb, "Sorry, I couldn't show the next page: "+err.Error())
		}
	}
}
