package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// Entry is one calendar entry: a past run with its result, or a future
// occurrence the scheduler will fire.
type Entry struct {
	JobID       string          `json:"jobId"`
	Name        string          `json:"name,omitempty"`
	Title       string          `json:"title"` // the name, else what it posts, else the workflow
	Description string          `json:"description"`
	At          time.Time       `json:"at"`
	AtLocal     string          `json:"atLocal"` // wall time in the requested zone
	Kind        string          `json:"kind"`    // run | occurrence
	ExecutionID string          `json:"executionId,omitempty"`
	Status      store.RunStatus `json:"status,omitempty"`
	Error       string          `json:"error,omitempty"`
	Lateness    *float64        `json:"latenessSeconds,omitempty"`
	// ScheduleType and JobState are the job's: an occurrence of a paused
	// job is shown, though it will not fire while the job stays paused.
	ScheduleType string         `json:"scheduleType"`
	JobState     store.JobState `json:"jobState"`
	// DST says the clocks of the job's zone change within a day of this
	// entry, in words ("clocks go forward 1h in America/New_York on Sun 14
	// Mar"); empty otherwise.
	DST string `json:"dst,omitempty"`
}

// Calendar is what GET /api/v1/calendar answers.
type Calendar struct {
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Timezone  string    `json:"timezone"`
	Entries   []Entry   `json:"entries"`
	Truncated bool      `json:"truncated"`
}

func timeParam(r *http.Request, name string, required bool) (time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		if required {
			return time.Time{}, &functions.FieldError{Field: name, Rule: "is required (RFC 3339, e.g. 2026-11-27T00:00:00Z)"}
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, &functions.FieldError{Field: name, Rule: fmt.Sprintf("must be RFC 3339 (2026-11-27T00:00:00Z), got %q", v)}
	}
	return t.UTC(), nil
}

// zone is the tz parameter, else the profile's zone, else the orchestrator's.
func (c *caller) zone(tz string) (*time.Location, string, error) {
	if tz == "" {
		tz = c.profile.Timezone
	}
	if tz == "" {
		tz = c.orch.Timezone
	}
	if tz == "" {
		tz = "UTC"
	}
	loc, err := scheduler.LoadLocation(tz)
	if err != nil {
		return nil, "", &functions.FieldError{Field: "tz", Rule: err.Error()}
	}
	return loc, tz, nil
}

// jobs lists every job the caller may see, through schedule.list.
func (c *caller) jobs(ctx context.Context) ([]*store.Job, error) {
	var out []*store.Job
	cursor := ""
	for range 100 { // at most 50,000 jobs
		args := map[string]any{"limit": store.MaxListLimit}
		if cursor != "" {
			args["cursor"] = cursor
		}
		raw, err := c.read(ctx, "schedule.list", args)
		if err != nil {
			return nil, err
		}
		var page store.JobPage
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Jobs...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return out, nil
}

// calendar answers past runs and future occurrences of every schedule in
// [start, end): runs from the run history, occurrences from the job's
// nextRunAt on, with the scheduler's own Next (DST as it fires).
func (h *handler) calendar(w http.ResponseWriter, r *http.Request, c *caller) error {
	start, err := timeParam(r, "start", true)
	if err != nil {
		return err
	}
	end, err := timeParam(r, "end", true)
	if err != nil {
		return err
	}
	if !end.After(start) {
		return &functions.FieldError{Field: "end", Rule: "must be after start"}
	}
	if end.Sub(start) > maxRange {
		return &functions.FieldError{Field: "end", Rule: "at most 400 days after start"}
	}
	loc, tz, err := c.zone(r.URL.Query().Get("tz"))
	if err != nil {
		return err
	}
	jobs, err := c.jobs(r.Context())
	if err != nil {
		return err
	}
	now := h.opts.Now().UTC()
	cal := Calendar{Start: start, End: end, Timezone: tz, Entries: []Entry{}}
	err = c.orch.Store.View(r.Context(), func(tx store.Tx) error {
		for _, j := range jobs {
			entries, cut, err := jobEntries(tx, j, start, end, now, loc)
			if err != nil {
				return err
			}
			cal.Truncated = cal.Truncated || cut
			cal.Entries = append(cal.Entries, entries...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(cal.Entries, func(a, b int) bool { return cal.Entries[a].At.Before(cal.Entries[b].At) })
	if len(cal.Entries) > maxCalendar {
		cal.Entries, cal.Truncated = cal.Entries[:maxCalendar], true
	}
	writeJSON(w, http.StatusOK, cal)
	return nil
}

// jobEntries are one job's entries in [start, end), at most
// maxPerSchedule; cut says some were left out.
func jobEntries(tx store.Tx, j *store.Job, start, end, now time.Time, loc *time.Location) ([]Entry, bool, error) {
	var out []Entry
	title := Title(j)
	entry := func(at time.Time) Entry {
		return Entry{JobID: j.JobID, Name: j.Name, Title: title, Description: j.Description, At: at,
			AtLocal: at.In(loc).Format("2006-01-02T15:04:05"), ScheduleType: j.ScheduleType, JobState: j.State,
			DST: dstNear(j, at)}
	}
	if start.Before(now) {
		runs, err := tx.RunList(j.JobID, 1000)
		if err != nil {
			return nil, false, err
		}
		for i := len(runs) - 1; i >= 0; i-- { // oldest first
			run := runs[i]
			if run.ScheduledAt.Before(start) || !run.ScheduledAt.Before(end) {
				continue
			}
			e := entry(run.ScheduledAt)
			v := runView(run)
			e.Kind, e.ExecutionID, e.Status, e.Error, e.Lateness = "run", run.ExecutionID, run.Status, run.Error, v.LatenessSeconds
			out = append(out, e)
		}
	}
	enabled := j.State == store.JobEnabled && !j.NextRunAt.IsZero()
	if enabled || j.State == store.JobPaused {
		sp, err := jobSpec(j)
		if err != nil {
			return out, false, nil // a job the scheduler cannot read fires nothing
		}
		t, ok := j.NextRunAt, true
		if !enabled { // paused: what it would fire from now, were it resumed
			t, ok = sp.Next(now)
		}
		if t.Before(start) {
			t, ok = sp.Next(start.Add(-time.Nanosecond))
		}
		for ; ok && t.Before(end); t, ok = sp.Next(t) {
			if len(out) >= maxPerSchedule {
				return out, true, nil
			}
			if !t.Before(start) {
				e := entry(t)
				e.Kind = "occurrence"
				out = append(out, e)
			}
		}
	}
	if len(out) > maxPerSchedule {
		return out[:maxPerSchedule], true, nil
	}
	return out, false, nil
}

// dstNear describes a change of the job's zone's UTC offset within a day
// either side of at, or is empty. Interval jobs keep no wall clock.
func dstNear(j *store.Job, at time.Time) string {
	if j.ScheduleType == store.ScheduleInterval || j.Schedule.Timezone == "" {
		return ""
	}
	loc, err := scheduler.LoadLocation(j.Schedule.Timezone)
	if err != nil {
		return ""
	}
	from, to := at.Add(-24*time.Hour), at.Add(24*time.Hour)
	_, off0 := from.In(loc).Zone()
	_, off1 := to.In(loc).Zone()
	if off0 == off1 {
		return ""
	}
	// Find the change by halving: offsets are constant between changes.
	for to.Sub(from) > time.Minute {
		mid := from.Add(to.Sub(from) / 2)
		if _, o := mid.In(loc).Zone(); o == off0 {
			from = mid
		} else {
			to = mid
		}
	}
	dir, d := "forward", time.Duration(off1-off0)*time.Second
	if d < 0 {
		dir, d = "back", -d
	}
	return fmt.Sprintf("clocks go %s %s in %s on %s", dir, shortDuration(d), j.Schedule.Timezone, to.In(loc).Format("Mon 2 Jan"))
}

func shortDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dmin", d/time.Minute)
}

// Title is how a job is named in a list: its name, else the text it
// posts, else its workflow or function.
func Title(j *store.Job) string {
	if j.Name != "" {
		return j.Name
	}
	var a struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(j.TargetAction.FunctionArgs, &a) == nil && a.Text != "" {
		return a.Text
	}
	if j.TargetAction.WorkflowID != "" {
		return j.TargetAction.WorkflowID
	}
	return j.TargetAction.FunctionID
}
