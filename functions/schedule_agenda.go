package functions

import (
	"context"
	_ "embed"
	"sort"
	"time"

	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_agenda.json
var scheduleAgendaSchema []byte

type scheduleAgendaArgs struct {
	From      time.Time `json:"from"`
	Until     time.Time `json:"until"`
	CreatedBy string    `json:"createdBy"`
	ChannelID string    `json:"channelId"`
}

// Agenda bounds: a window of at most a month, and at most MaxAgendaItems
// occurrences in the answer (Truncated says when there were more).
const (
	MaxAgendaWindow = 31 * 24 * time.Hour
	MaxAgendaItems  = 200
)

// AgendaResult is what runs in a window, soonest first.
type AgendaResult struct {
	From      time.Time    `json:"from"`
	Until     time.Time    `json:"until"`
	Items     []AgendaItem `json:"items"`
	Truncated bool         `json:"truncated,omitzero"`
}

// AgendaItem is one occurrence of a job.
type AgendaItem struct {
	At  time.Time  `json:"at"`
	Job *store.Job `json:"job"`
}

func scheduleAgenda() Spec[scheduleAgendaArgs] {
	return Spec[scheduleAgendaArgs]{ID: "schedule.agenda", Schema: scheduleAgendaSchema, Handle: agenda}
}

// agenda expands every enabled job's schedule over the window with the
// scheduler's own rules (DST included). Anyone who may list jobs may see it.
func agenda(ctx context.Context, c *Call, a *scheduleAgendaArgs) (any, error) {
	switch {
	case !a.Until.After(a.From):
		return nil, fieldErr("until", "%s is not after from %s", a.Until.Format(time.RFC3339), a.From.Format(time.RFC3339))
	case a.Until.Sub(a.From) > MaxAgendaWindow:
		return nil, fieldErr("until", "the window is longer than 31 days")
	}
	res := &AgendaResult{From: a.From.UTC(), Until: a.Until.UTC(), Items: []AgendaItem{}}
	err := c.view(ctx, func(tx store.Tx) error {
		p := &store.JobListParams{States: []store.JobState{store.JobEnabled}, CreatedBy: a.CreatedBy, ChannelID: a.ChannelID, Limit: store.MaxListLimit}
		for {
			page, err := tx.JobList(p)
			if err != nil {
				return invalidCursor(err)
			}
			for _, j := range page.Jobs {
				res.add(j)
			}
			if page.NextCursor == "" {
				return nil
			}
			p.Cursor = page.NextCursor
		}
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(res.Items, func(i, k int) bool { return res.Items[i].At.Before(res.Items[k].At) })
	if len(res.Items) > MaxAgendaItems {
		res.Items, res.Truncated = res.Items[:MaxAgendaItems], true
	}
	return res, nil
}

// add appends j's occurrences in the window, at most MaxAgendaItems+1 (one
// more than is shown, so that Truncated can be told), and no more than
// the job has left when it was given a count. A window months ahead of an
// hourly job starts at its first run in the window, not at the next one.
func (r *AgendaResult) add(j *store.Job) {
	sp, err := jobSpec(j)
	if err != nil || j.NextRunAt.IsZero() || !j.NextRunAt.Before(r.Until) {
		return
	}
	t, left := j.NextRunAt, sp.Limit
	if left == 0 && t.Before(r.From) {
		next, ok := sp.Next(r.From.Add(-time.Nanosecond))
		if !ok {
			return
		}
		t = next
	}
	for n := 0; n <= MaxAgendaItems && t.Before(r.Until); left-- {
		if !t.Before(r.From) {
			r.Items = append(r.Items, AgendaItem{At: t, Job: j})
			n++
		}
		next, ok := sp.Next(t)
		if !ok || left == 1 {
			return
		}
		t = next
	}
}
