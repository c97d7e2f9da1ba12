package functions_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// FuzzCallArgs: no argument bytes make a call panic, every failure is a
// validation or lookup error, and a create that succeeds stored a job that
// has a next run.
func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{friday, `{}`, `null`, `[]`, `{"scheduleType":"interval","schedule":{"everySeconds":60},"targetAction":{"type":"workflow_start","workflowId":"daily-report"}}`,
		`{"scheduleType":"once","schedule":{"runAt":"2026-12-01T00:00:00Z"},"targetAction":{"type":"command_invoke","functionId":"schedule.list","functionArgs":{}}}`,
		`{"jobId":"01JDQ3Z1X7Y8W9V0A1B2C3D4E5","name":null}`, "{\"text\":\"\\u0000\"}", `{"scheduleType":"cron","schedule":{"cron":"0 0 31 2 *","timezone":"UTC"}}`} {
		f.Add("schedule.create", []byte(s))
		f.Add("schedule.update", []byte(s))
	}
	f.Fuzz(func(t *testing.T, fn string, args []byte) {
		e := newEnv(t)
		res, err := e.reg.Call(context(), functions.Request{Function: fn, Args: json.RawMessage(args), Actor: cli})
		if err != nil {
			if !errors.Is(err, functions.ErrInvalidArgs) && !errors.Is(err, functions.ErrUnknownFunction) &&
				!errors.Is(err, store.ErrNotFound) && !errors.Is(err, functions.ErrNotAllowed) &&
				!errors.Is(err, functions.ErrConflict) {
				t.Fatalf("%s %q: unexpected error kind: %v", fn, args, err)
			}
			return
		}
		if jr, ok := res.(*functions.JobResult); ok && fn == "schedule.create" {
			got := e.job(t, jr.Job.JobID)
			if got.State != store.JobEnabled || got.NextRunAt.IsZero() || got.Description == "" {
				t.Fatalf("created job without a next run: %+v", got)
			}
		}
	})
}
