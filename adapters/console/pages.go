package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

// jobRow is one job in the schedules list.
type jobRow struct {
	ID, Title, Description, State, Channel, Creator, Next string
}

func rowOf(j *store.Job, tz string) jobRow {
	r := jobRow{ID: j.JobID, Title: httpapi.Title(j), Description: j.Description, State: string(j.State),
		Creator: actorName(j.CreatedBy)}
	if j.TargetRef != nil {
		r.Channel = j.TargetRef.ChannelID
	}
	if !j.NextRunAt.IsZero() && j.State == store.JobEnabled {
		r.Next = inZone(j.NextRunAt, tz)
	}
	return r
}

func actorName(a store.Actor) string {
	who := a.Sender
	if who == "" {
		who = a.SenderID
	}
	if who == "" {
		who = a.Via
	}
	if a.ChannelProfileID != "" {
		who += " (" + a.ChannelProfileID + ")"
	}
	return who
}

func (c *Console) schedulesPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	params := url.Values{"limit": {"200"}}
	for _, k := range []string{"q", "state", "channel", "createdBy", "cursor"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			params.Set(k, v)
		}
	}
	var page httpapi.Page[*store.Job]
	if err := c.call(r.Context(), s, "GET", "/schedules?"+params.Encode(), nil, &page); err != nil {
		return err
	}
	rows := make([]jobRow, 0, len(page.Items))
	for _, j := range page.Items {
		rows = append(rows, rowOf(j, s.tz))
	}
	next := ""
	if page.Next != "" {
		params.Set("cursor", page.Next)
		params.Del("limit")
		next = "/console/schedules?" + params.Encode()
	}
	c.render(w, s, "schedules", "Schedules", map[string]any{"Rows": rows, "Next": next, "Q": q.Get("q"),
		"State": q.Get("state"), "Channel": q.Get("channel"), "CreatedBy": q.Get("createdBy"),
		"States": []string{"enabled", "paused", "disabled", "deleted", "all"}})
	return nil
}

// runRow is one run on the job page.
type runRow struct {
	Scheduled, Status, Lateness, Error, Done string
	Manual                                   bool
}

type auditRow struct {
	Seq                                 uint64
	At, Actor, Action, Job, Detail, Via string
	Before, After                       string
}

func auditRowOf(e *store.AuditEvent, tz string) auditRow {
	return auditRow{Seq: e.Seq, At: inZone(e.At, tz), Actor: actorName(e.Actor), Action: e.Action, Job: e.JobID,
		Detail: e.Detail, Via: e.Actor.Via, Before: string(e.Before), After: string(e.After)}
}

func (c *Console) jobPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	var sc httpapi.Schedule
	if err := c.call(r.Context(), s, "GET", "/schedules/"+url.PathEscape(id), nil, &sc); err != nil {
		return err
	}
	j := sc.Job
	jobTZ := j.Schedule.Timezone
	if jobTZ == "" {
		jobTZ = "UTC"
	}
	type next struct{ Viewer, Job string }
	var nexts []next
	for _, t := range sc.NextRuns {
		nexts = append(nexts, next{Viewer: inZone(t, s.tz), Job: inZone(t, jobTZ)})
	}
	var runs httpapi.Page[httpapi.RunView]
	if err := c.call(r.Context(), s, "GET", "/schedules/"+url.PathEscape(id)+"/runs?limit=20", nil, &runs); err != nil {
		return err
	}
	var runRows []runRow
	for _, rv := range runs.Items {
		rr := runRow{Scheduled: inZone(rv.ScheduledAt, s.tz), Status: string(rv.Status), Error: rv.Error, Manual: rv.Manual}
		if rv.LatenessSeconds != nil {
			rr.Lateness = (time.Duration(*rv.LatenessSeconds * float64(time.Second))).Round(time.Millisecond).String()
		}
		if rv.DoneBy != nil {
			rr.Done = actorName(*rv.DoneBy) + " at " + inZone(rv.DoneAt, s.tz)
		}
		runRows = append(runRows, rr)
	}
	var audit httpapi.Page[*store.AuditEvent]
	if err := c.call(r.Context(), s, "GET", "/audit?limit=1000&job="+url.QueryEscape(id), nil, &audit); err != nil {
		return err
	}
	var trail []auditRow
	for _, e := range slices.Backward(audit.Items) { // newest first
		if len(trail) == 50 {
			break
		}
		trail = append(trail, auditRowOf(e, s.tz))
	}
	def, _ := json.MarshalIndent(struct {
		ScheduleType string             `json:"scheduleType"`
		Schedule     store.Schedule     `json:"schedule"`
		TargetAction store.TargetAction `json:"targetAction"`
		TargetRef    *store.TargetRef   `json:"targetRef,omitempty"`
	}{j.ScheduleType, j.Schedule, j.TargetAction, j.TargetRef}, "", "  ")
	var skips []string
	for _, t := range j.Skip {
		skips = append(skips, inZone(t, s.tz))
	}
	moveAt := ""
	if j.ScheduleType == store.ScheduleOnce && !j.Schedule.RunAt.IsZero() {
		if loc, err := loadZone(s.tz); err == nil {
			moveAt = j.Schedule.RunAt.In(loc).Format("2006-01-02T15:04")
		}
	}
	c.render(w, s, "job", httpapi.Title(j), map[string]any{"Job": j, "Row": rowOf(j, s.tz), "Next": nexts, "JobTZ": jobTZ,
		"Runs": runRows, "Audit": trail, "Definition": string(def), "Skips": skips, "MoveAt": moveAt,
		"Enabled": j.State == store.JobEnabled, "Paused": j.State == store.JobPaused, "Deleted": j.State == store.JobDeleted,
		"Message": r.URL.Query().Get("done")})
	return nil
}

// jobActions are the buttons of the job page, each one API call.
var jobActions = map[string]string{"pause": "pause", "resume": "resume", "run": "trigger", "skip": "skip"}

// jobAction is a button of the job page: pause, resume, run now, skip
// next, delete (after its confirmation page), or move a one-time job
// (the calendar's drag, and the job page's keyboard equivalent).
func (c *Console) jobAction(w http.ResponseWriter, r *http.Request, s *session) error {
	id, op := r.PathValue("id"), r.PathValue("op")
	path := "/schedules/" + url.PathEscape(id)
	done := map[string]string{"pause": "Paused.", "resume": "Resumed.", "run": "Running now.", "skip": "The next run is skipped.",
		"delete": "Deleted.", "move": "Moved."}[op]
	switch op {
	case "delete":
		if err := c.call(r.Context(), s, "DELETE", path, nil, nil); err != nil {
			return err
		}
	case "move":
		at, err := wallTime(r.PostFormValue("at"), s.tz)
		if err != nil {
			return err
		}
		patch := map[string]any{"schedule": map[string]any{"runAt": at.UTC().Format(time.RFC3339)}}
		var sc httpapi.Schedule
		if err := c.call(r.Context(), s, "PATCH", path, patch, &sc); err != nil {
			return err
		}
		if r.Header.Get("X-CSRF-Token") != "" { // the calendar's script: it reloads itself
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"runAt": sc.Job.Schedule.RunAt, "runAtLocal": inZone(sc.Job.Schedule.RunAt, s.tz)})
			return nil
		}
	default:
		ep, ok := jobActions[op]
		if !ok {
			return userErrorf("there is no %q button", op)
		}
		if err := c.call(r.Context(), s, "POST", path+"/"+ep, nil, nil); err != nil {
			return err
		}
	}
	http.Redirect(w, r, "/console/schedules/"+url.PathEscape(id)+"?done="+url.QueryEscape(done), http.StatusSeeOther)
	return nil
}

// wallTime reads a datetime-local value ("2027-03-12T09:30") as a wall
// time in zone tz. A time the clocks skip is refused, not guessed.
func wallTime(v, tz string) (time.Time, error) {
	loc, err := loadZone(tz)
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.ParseInLocation("2006-01-02T15:04", v, loc)
	if err != nil {
		return time.Time{}, userErrorf("at must be a date and time (YYYY-MM-DDTHH:MM), not %q", v)
	}
	if t.Format("2006-01-02T15:04") != v {
		return time.Time{}, userErrorf("%s does not exist in %s: the clocks skip it", strings.Replace(v, "T", " ", 1), tz)
	}
	return t, nil
}

func (c *Console) deletePage(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	var sc httpapi.Schedule
	if err := c.call(r.Context(), s, "GET", "/schedules/"+url.PathEscape(id), nil, &sc); err != nil {
		return err
	}
	c.render(w, s, "confirm", "Delete?", map[string]any{"Row": rowOf(sc.Job, s.tz)})
	return nil
}

// newPage is create: a text box whose preview comes from /api/v1/parse as
// the person types, and a structured form previewed by /api/v1/preview.
func (c *Console) newPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	d := map[string]any{"Text": q.Get("text"), "At": q.Get("at"), "Type": "once", "Tz": s.tz}
	if q.Get("at") == "" {
		d["Type"] = "cron"
	}
	c.render(w, s, "new", "New schedule", d)
	return nil
}

// create makes the job: from the text, as the selector reads it (a
// question or a refusal is shown, and nothing is made), or from the
// structured form's fields.
func (c *Console) create(w http.ResponseWriter, r *http.Request, s *session) error {
	f := r.PostForm
	var args json.RawMessage
	data := map[string]any{"Text": f.Get("text"), "Tz": s.tz, "Type": f.Get("type"), "Expr": f.Get("expr"),
		"At": f.Get("at"), "Channel": f.Get("channel"), "Message": f.Get("message"), "Start": f.Get("start"),
		"End": f.Get("end"), "Count": f.Get("count"), "FormTz": f.Get("tz")}
	if f.Get("mode") == "text" {
		var res httpapi.ParseResult
		if err := c.call(r.Context(), s, "POST", "/parse", map[string]any{"text": f.Get("text"), "tz": s.tz}, &res); err != nil {
			return err
		}
		d := res.Decision
		switch {
		case d.Function == "schedule.create" && res.Invalid == nil:
			args = d.Args
		case res.Invalid != nil:
			data["Problem"] = (&apiError{*res.Invalid}).Error()
		case d.Function != "":
			data["Problem"] = "That asks for " + d.Function + ", not a new schedule: use the chat or the schedules page for it."
		default:
			data["Problem"] = firstOf(d.Clarify, d.Unsupported, d.Reply, "I could not read that as a schedule.")
		}
	} else {
		a, err := formArgs(f, s)
		if err != nil {
			data["Problem"] = err.Error()
		}
		args = a
	}
	if args != nil {
		var sc httpapi.Schedule
		err := c.call(r.Context(), s, "POST", "/schedules", args, &sc)
		if err == nil {
			http.Redirect(w, r, "/console/schedules/"+url.PathEscape(sc.Job.JobID)+"?done=Created.", http.StatusSeeOther)
			return nil
		}
		if _, ok := err.(*apiError); !ok {
			return err
		}
		data["Problem"] = err.Error()
	}
	w.WriteHeader(http.StatusBadRequest)
	c.render(w, s, "new", "New schedule", data)
	return nil
}

// previewForm is the structured form's live preview: the arguments the
// form would create, described by /api/v1/preview, as JSON for console.js.
func (c *Console) previewForm(w http.ResponseWriter, r *http.Request, s *session) error {
	var res httpapi.ParseResult
	args, err := formArgs(r.PostForm, s)
	if err == nil {
		err = c.call(r.Context(), s, "POST", "/preview", args, &res)
	}
	if err != nil {
		ae, ok := err.(*apiError)
		if !ok {
			ue, isUser := err.(*userError)
			if !isUser {
				return err
			}
			ae = &apiError{httpapi.Problem{Status: http.StatusBadRequest, Detail: ue.msg}}
		}
		res.Invalid = &ae.Problem
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(res)
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// formArgs builds schedule.create's arguments from the structured form;
// a channel is one of the session's profile.
func formArgs(f url.Values, s *session) (json.RawMessage, error) {
	tz := firstOf(strings.TrimSpace(f.Get("tz")), s.tz)
	typ, expr := f.Get("type"), strings.TrimSpace(f.Get("expr"))
	sched := map[string]any{"timezone": tz}
	switch typ {
	case "cron":
		sched["cron"] = expr
	case "rrule":
		sched["rrule"] = expr
	case "interval":
		d, err := time.ParseDuration(expr)
		if err != nil {
			return nil, userErrorf("every: a duration such as 90m or 2h, not %q", expr)
		}
		sched = map[string]any{"everySeconds": int64(d / time.Second)}
	case "once":
		at, err := wallTime(f.Get("at"), tz)
		if err != nil {
			return nil, err
		}
		sched = map[string]any{"runAt": at.UTC().Format(time.RFC3339), "timezone": tz}
	default:
		return nil, userErrorf("type must be cron, rrule, interval or once, not %q", typ)
	}
	args := map[string]any{"scheduleType": typ, "schedule": sched,
		"targetAction": map[string]any{"type": "command_invoke", "functionId": "message.post",
			"functionArgs": map[string]any{"text": f.Get("message")}}}
	if ch := strings.TrimSpace(f.Get("channel")); ch != "" {
		args["targetRef"] = map[string]any{"channel": s.profile.Channel, "channelProfileId": s.profile.ID, "channelId": ch}
	}
	for _, k := range []string{"start", "end"} {
		if v := f.Get(k); v != "" {
			t, err := wallTime(v, tz)
			if err != nil {
				return nil, err
			}
			args[k+"At"] = t.UTC().Format(time.RFC3339)
		}
	}
	if v := strings.TrimSpace(f.Get("count")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, userErrorf("count: a whole number of times, 1 or more, not %q", v)
		}
		args["count"] = n
	}
	return json.Marshal(args)
}

func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	params, err := auditParams(q, s.tz)
	if err != nil {
		return err
	}
	params.Set("limit", "200")
	var page httpapi.Page[*store.AuditEvent]
	if err := c.call(r.Context(), s, "GET", "/audit?"+params.Encode(), nil, &page); err != nil {
		return err
	}
	action := q.Get("action")
	var rows []auditRow
	for _, e := range page.Items {
		if action == "" || strings.HasPrefix(e.Action, action) {
			rows = append(rows, auditRowOf(e, s.tz))
		}
	}
	var v httpapi.Verification
	if err := c.call(r.Context(), s, "GET", "/audit/verify", nil, &v); err != nil {
		return err
	}
	next := ""
	if page.Next != "" {
		nq := url.Values{}
		for k, vs := range q {
			nq[k] = vs
		}
		nq.Set("cursor", page.Next)
		next = "/console/audit?" + nq.Encode()
	}
	export := url.Values{}
	for _, k := range []string{"job", "actor", "action", "since", "until"} {
		if v := q.Get(k); v != "" {
			export.Set(k, v)
		}
	}
	c.render(w, s, "audit", "Audit log", map[string]any{"Rows": rows, "Verify": v, "Next": next,
		"Export": "/console/audit/export?" + export.Encode(), "Job": q.Get("job"), "Actor": q.Get("actor"),
		"Action": action, "Since": q.Get("since"), "Until": q.Get("until"),
		"Actions": []string{"job.", "run.", "trigger.", "job.created", "job.updated", "job.paused", "job.resumed",
			"job.deleted", "job.triggered", "job.skipped", "job.snoozed"}})
	return nil
}

// auditParams turns the audit page's filters (dates in the viewer's
// zone) into the API's.
func auditParams(q url.Values, tz string) (url.Values, error) {
	out := url.Values{}
	for _, k := range []string{"job", "actor", "cursor"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			out.Set(k, v)
		}
	}
	loc, err := loadZone(tz)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"since", "until"} {
		v := q.Get(k)
		if v == "" {
			continue
		}
		t, err := time.ParseInLocation("2006-01-02", v, loc)
		if err != nil {
			return nil, userErrorf("%s must be a date, YYYY-MM-DD, not %q", k, v)
		}
		if k == "until" {
			t = t.AddDate(0, 0, 1)
		}
		out.Set(k, t.UTC().Format(time.RFC3339))
	}
	return out, nil
}

// maxExport bounds an export: 100 pages of the API's largest.
const maxExport = 100

// auditExport downloads the filtered log as JSON lines, one record each,
// exactly as stored (hashes included, so a copy can be checked).
func (c *Console) auditExport(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	params, err := auditParams(q, s.tz)
	if err != nil {
		return err
	}
	action := q.Get("action")
	params.Set("limit", "1000")
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="schedbot-audit-%s.jsonl"`,
		c.opts.Now().UTC().Format("20060102-150405")))
	enc := json.NewEncoder(w)
	for range maxExport {
		var page httpapi.Page[*store.AuditEvent]
		if err := c.call(r.Context(), s, "GET", "/audit?"+params.Encode(), nil, &page); err != nil {
			return err
		}
		for _, e := range page.Items {
			if action == "" || strings.HasPrefix(e.Action, action) {
				enc.Encode(e)
			}
		}
		if page.Next == "" {
			break
		}
		params.Set("cursor", page.Next)
	}
	return nil
}
