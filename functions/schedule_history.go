package functions

import (
	"context"
	_ "embed"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_history.json
var scheduleHistorySchema []byte

type scheduleHistoryArgs struct {
	JobID     string    `json:"jobId"`
	ChannelID string    `json:"channelId"`
	Action    string    `json:"action"`
	Since     time.Time `json:"since"`
	Until     time.Time `json:"until"`
	Limit     int       `json:"limit"`
}

// HistoryResult is who did what to jobs, newest first, with each job named
// as it is now (or was when deleted).
type HistoryResult struct {
	Events []*store.AuditEvent   `json:"events"`
	Jobs   map[string]*store.Job `json:"jobs"`
}

// DefaultHistorySince is how far back schedule.history looks when since is
// not given.
const DefaultHistorySince = 30 * 24 * time.Hour

func scheduleHistory() Spec[scheduleHistoryArgs] {
	return Spec[scheduleHistoryArgs]{ID: "schedule.history", Schema: scheduleHistorySchema, Handle: history}
}

// history reads the audit log for people's changes to jobs. Anyone who may
// list and show a job may see who changed it, as in chat.
func history(ctx context.Context, c *Call, a *scheduleHistoryArgs) (any, error) {
	if a.JobID != "" {
		if err := checkJobID(a.JobID); err != nil {
			return nil, err
		}
	}
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Since.IsZero() {
		a.Since = c.Now.Add(-DefaultHistorySince)
	}
	res := &HistoryResult{Events: []*store.AuditEvent{}, Jobs: map[string]*store.Job{}}
	err := c.view(ctx, func(tx store.Tx) error {
		var ids []string // the jobs asked about; none: all
		switch {
		case a.JobID != "":
			if _, err := getJob(tx, a.JobID, true); err != nil {
				return err
			}
			ids = []string{a.JobID}
		case a.ChannelID != "":
			p := &store.JobListParams{States: store.JobStates, ChannelID: a.ChannelID, Limit: store.MaxListLimit}
			page, err := tx.JobList(p)
			if err != nil {
				return err
			}
			for _, j := range page.Jobs {
				ids = append(ids, j.JobID)
			}
			if len(ids) == 0 {
				return nil
			}
		}
		var evs []*store.AuditEvent
		if ids == nil {
			ids = []string{""}
		}
		for _, id := range ids {
			list, err := tx.AuditList(&store.AuditListParams{JobID: id, Since: a.Since})
			if err != nil {
				return err
			}
			for _, ev := range list {
				if peopleChange(ev) && (a.Action == "" || ev.Action == a.Action) && (a.Until.IsZero() || ev.At.Before(a.Until)) {
					evs = append(evs, ev)
				}
			}
		}
		slices.SortFunc(evs, func(x, y *store.AuditEvent) int { return int(y.Seq) - int(x.Seq) })
		if len(evs) > a.Limit {
			evs = evs[:a.Limit]
		}
		res.Events = append(res.Events, evs...)
		for _, ev := range evs {
			if _, ok := res.Jobs[ev.JobID]; ok || ev.JobID == "" {
				continue
			}
			if j, err := tx.JobGet(ev.JobID); err == nil {
				res.Jobs[ev.JobID] = j
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// peopleChange: an event a person caused on a job (job.*, and what people
// do to runs), not the scheduler's bookkeeping.
func peopleChange(ev *store.AuditEvent) bool {
	return ev.JobID != "" && ev.Actor.Via != "" && ev.Actor.Via != store.ViaScheduler &&
		(strings.HasPrefix(ev.Action, "job.") || strings.HasPrefix(ev.Action, "run."))
}
