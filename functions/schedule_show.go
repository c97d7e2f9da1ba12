package functions

import (
	"cmp"
	"context"
	_ "embed"

	"github.com/schedbot/schedbot/store"
)

//go:embed schedule_show.json
var scheduleShowSchema []byte

type scheduleShowArgs struct {
	JobID string `json:"jobId"`
	Runs  *int   `json:"runs"`
	Next  int    `json:"next"`
}

func scheduleShow() Spec[scheduleShowArgs] {
	return Spec[scheduleShowArgs]{ID: "schedule.show", Schema: scheduleShowSchema, Handle: showJob}
}

func showJob(ctx context.Context, c *Call, a *scheduleShowArgs) (any, error) {
	n := 10
	if a.Runs != nil {
		n = *a.Runs
	}
	var res *JobResult
	err := c.view(ctx, func(tx store.Tx) error {
		j, err := getJob(tx, a.JobID, true)
		if err != nil {
			return err
		}
		res = c.resultNext(j, cmp.Or(a.Next, NextRunsShown))
		if n > 0 {
			res.Runs, err = tx.RunList(j.JobID, n)
		}
		return err
	})
	return res, err
}
