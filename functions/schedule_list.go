package functions

import (
	"context"
	_ "embed"
	"strings"

	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_list.json
var scheduleListSchema []byte

type scheduleListArgs struct {
	State     string `json:"state"`
	CreatedBy string `json:"createdBy"`
	ChannelID string `json:"channelId"`
	Limit     int    `json:"limit"`
	Cursor    string `json:"cursor"`
}

func scheduleList() Spec[scheduleListArgs] {
	return Spec[scheduleListArgs]{ID: "schedule.list", Schema: scheduleListSchema, Handle: listJobs}
}

func listJobs(ctx context.Context, c *Call, a *scheduleListArgs) (any, error) {
	p := &store.JobListParams{CreatedBy: a.CreatedBy, ChannelID: a.ChannelID, Limit: a.Limit, Cursor: a.Cursor}
	switch a.State {
	case "":
	case "all":
		p.States = store.JobStates
	default:
		p.States = []store.JobState{store.JobState(a.State)}
	}
	var page *store.JobPage
	err := c.view(ctx, func(tx store.Tx) (err error) {
		page, err = tx.JobList(p)
		return err
	})
	if err != nil {
		return nil, invalidCursor(err)
	}
	return page, nil
}

// invalidCursor reports a store's cursor complaint as a field error.
func invalidCursor(err error) error {
	if err == nil {
		return nil
	}
	if rule, ok := strings.CutPrefix(err.Error(), "cursor: "); ok {
		return fieldErr("cursor", "%s", rule)
	}
	return err
}
