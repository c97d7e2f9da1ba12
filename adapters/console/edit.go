package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

// Editing a job: the create form, filled in from the job, saved as a
// merge patch of schedule.update (PATCH /api/v1/schedules/{id}) with the
// ETag it was read at, so that a change made meanwhile is not overwritten.

func (c *Console) editPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	var sc httpapi.Schedule
	hdr, err := c.exchange(r.Context(), s, "GET", "/schedules/"+url.PathEscape(id), nil, &sc, nil)
	if err != nil {
		return err
	}
	d := formOf(sc.Job, s.tz)
	d["ETag"] = hdr.Get("ETag")
	c.render(w, s, "new", "Edit", d)
	return nil
}

// formOf is the form's fields for job j, wall times in the job's zone.
func formOf(j *store.Job, viewerTZ string) map[string]any {
	tz := firstOf(j.Schedule.Timezone, viewerTZ)
	loc, err := loadZone(tz)
	if err != nil {
		loc = time.UTC
	}
	wall := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.In(loc).Format("2006-01-02T15:04")
	}
	d := map[string]any{"Edit": true, "JobID": j.JobID, "EditTitle": httpapi.Title(j), "Type": j.ScheduleType,
		"FormTz": tz, "Tz": viewerTZ, "Start": wall(j.StartAt), "End": wall(j.EndAt)}
	switch j.ScheduleType {
	case store.ScheduleCron:
		d["Expr"] = j.Schedule.Cron
	case store.ScheduleRRule:
		d["Expr"] = j.Schedule.RRule
	case store.ScheduleInterval:
		d["Expr"] = (time.Duration(j.Schedule.EverySeconds) * time.Second).String()
	case store.ScheduleOnce:
		d["At"] = wall(j.Schedule.RunAt)
	}
	var a struct {
		Text string `json:"text"`
	}
	json.Unmarshal(j.TargetAction.FunctionArgs, &a)
	d["Message"] = a.Text
	if j.TargetRef != nil {
		d["Channel"] = j.TargetRef.ChannelID
	}
	return d
}

func (c *Console) edit(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	path := "/schedules/" + url.PathEscape(id)
	var sc httpapi.Schedule
	read, err := c.exchange(r.Context(), s, "GET", path, nil, &sc, nil)
	if err != nil {
		return err
	}
	data := formOf(sc.Job, s.tz)
	data["ETag"] = r.PostForm.Get("etag")
	for k, f := range map[string]string{"Type": "type", "Expr": "expr", "At": "at", "FormTz": "tz", "Start": "start",
		"End": "end", "Count": "count", "Channel": "channel", "Message": "message"} {
		data[k] = r.PostForm.Get(f)
	}
	raw, err := formArgs(r.PostForm, s)
	if tag := r.PostForm.Get("etag"); tag != "" && tag != read.Get("ETag") {
		err = userErrorf("someone changed this job since you opened it; open it again to see their change")
	}
	if err == nil {
		var patch map[string]any
		json.Unmarshal(raw, &patch)
		if sc.Job.TargetAction.FunctionID != "message.post" {
			delete(patch, "targetAction") // a workflow's inputs are not this form's
		}
		for _, k := range []string{"startAt", "endAt"} {
			if _, ok := patch[k]; !ok {
				patch[k] = nil
			}
		}
		// Where it posts stays, unless the channel changed: then the
		// job's own profile, not necessarily the editor's, carries it.
		ch := r.PostForm.Get("channel")
		switch ref := sc.Job.TargetRef; {
		case ch == "" || ref != nil && ch == ref.ChannelID:
			delete(patch, "targetRef")
		case ref != nil:
			patch["targetRef"] = map[string]any{"channel": ref.Channel, "channelProfileId": ref.ChannelProfileID, "channelId": ch}
		}
		_, err = c.exchange(r.Context(), s, "PATCH", path, patch, nil, http.Header{"If-Match": {read.Get("ETag")}})
		if err == nil {
			http.Redirect(w, r, "/console/schedules/"+url.PathEscape(id)+"?done=Saved.", http.StatusSeeOther)
			return nil
		}
	}
	switch err.(type) {
	case *apiError, *userError:
		data["Problem"] = err.Error()
	default:
		return err
	}
	w.WriteHeader(http.StatusBadRequest)
	c.render(w, s, "new", "Edit", data)
	return nil
}
