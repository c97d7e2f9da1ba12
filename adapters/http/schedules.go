package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// Page is one page of a listing; Next is the cursor of the one after.
type Page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// limitParam reads ?limit=, 1..max, def when absent.
func limitParam(r *http.Request, def, max int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, &functions.FieldError{Field: "limit", Rule: fmt.Sprintf("must be an integer from 1 to %d, got %q", max, v)}
	}
	return n, nil
}

// listSchedules is schedule.list, with q filtering each page by the job's
// name, description and action text (a page may then hold fewer than
// limit items; next still goes on).
func (h *handler) listSchedules(w http.ResponseWriter, r *http.Request, c *caller) error {
	q := r.URL.Query()
	args := map[string]any{}
	for param, arg := range map[string]string{"state": "state", "createdBy": "createdBy", "channel": "channelId", "cursor": "cursor"} {
		if v := q.Get(param); v != "" {
			args[arg] = v
		}
	}
	limit, err := limitParam(r, store.DefaultListLimit, store.MaxListLimit)
	if err != nil {
		return err
	}
	args["limit"] = limit
	raw, err := c.read(r.Context(), "schedule.list", args)
	if err != nil {
		return renameArg(err, "channelId", "channel")
	}
	var page store.JobPage
	if err := json.Unmarshal(raw, &page); err != nil {
		return err
	}
	out := Page[*store.Job]{Items: []*store.Job{}, Next: page.NextCursor}
	text := strings.ToLower(q.Get("q"))
	for _, j := range page.Jobs {
		if text == "" || strings.Contains(strings.ToLower(j.Name+"\n"+j.Description+"\n"+string(j.TargetAction.FunctionArgs)+"\n"+j.TargetAction.WorkflowID), text) {
			out.Items = append(out.Items, j)
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// renameArg gives a field error the name of the query parameter that
// carried it.
func renameArg(err error, arg, param string) error {
	if fe, ok := err.(*functions.FieldError); ok && fe.Field == arg {
		return &functions.FieldError{Field: param, Rule: fe.Rule}
	}
	return err
}

// createSchedule is schedule.create with the body as its arguments; the
// orchestrator is the token's.
func (h *handler) createSchedule(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := body(r, "application/json")
	if err != nil {
		return err
	}
	raw, err := h.change(r.Context(), r, c, compact(b), func(store.Tx) (functions.Request, error) {
		return functions.Request{Function: "schedule.create", Args: b}, nil
	})
	if err != nil {
		return err
	}
	return writeJob(w, http.StatusCreated, raw)
}

func (h *handler) getSchedule(w http.ResponseWriter, r *http.Request, c *caller) error {
	raw, err := c.read(r.Context(), "schedule.show", map[string]any{"jobId": r.PathValue("id"), "runs": 0})
	if err != nil {
		return err
	}
	return writeJob(w, http.StatusOK, raw)
}

// patchSchedule applies a JSON merge patch (RFC 7396) to the job's
// schedule.update arguments: fields left out are kept, null clears, and
// the objects schedule, targetAction and targetRef merge into the job's
// own (schedule is replaced when the patch changes scheduleType). With
// If-Match, a job changed since that ETag is 412.
func (h *handler) patchSchedule(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := body(r, "application/merge-patch+json", "application/json")
	if err != nil {
		return err
	}
	var patch map[string]json.RawMessage
	if err := json.Unmarshal(b, &patch); err != nil {
		return decodeProblem(err, "a JSON object (a merge patch)")
	}
	if _, ok := patch["jobId"]; ok {
		return &functions.FieldError{Field: "jobId", Rule: "comes from the URL; leave it out of the patch"}
	}
	if len(patch) == 0 {
		return &functions.FieldError{Field: "body", Rule: "an empty patch changes nothing"}
	}
	id := r.PathValue("id")
	raw, err := h.change(r.Context(), r, c, compact(b), func(tx store.Tx) (functions.Request, error) {
		j, err := current(tx, id, r.Header.Get("If-Match"))
		if err != nil {
			return functions.Request{}, err
		}
		args := map[string]json.RawMessage{"jobId": mustJSON(id)}
		for k, v := range patch {
			args[k] = v
		}
		merge := func(field string, cur any) {
			v, ok := patch[field]
			if !ok || cur == nil || !isObject(v) {
				return
			}
			args[field] = mergePatch(mustJSON(cur), v)
		}
		if t, ok := patch["scheduleType"]; !ok || string(t) == `"`+j.ScheduleType+`"` {
			merge("schedule", j.Schedule)
		}
		merge("targetAction", j.TargetAction)
		if j.TargetRef != nil {
			merge("targetRef", j.TargetRef)
		}
		return functions.Request{Function: "schedule.update", Args: mustJSON(args)}, nil
	})
	if err != nil {
		return err
	}
	return writeJob(w, http.StatusOK, raw)
}

// current reads the job a change is about, and checks If-Match (empty:
// none) against its ETag. A job missing or deleted is the functions' to
// report.
func current(tx store.Tx, id, ifMatch string) (*store.Job, error) {
	j, err := tx.JobGet(id)
	if err != nil || j.State == store.JobDeleted {
		if ifMatch != "" && ifMatch != "*" {
			return nil, &Problem{Status: http.StatusPreconditionFailed, Detail: "the job is gone"}
		}
		return &store.Job{JobID: id}, nil
	}
	if ifMatch != "" && ifMatch != "*" {
		match := false
		for _, t := range strings.Split(ifMatch, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			match = match || t == etag(j)
		}
		if !match {
			return nil, &Problem{Status: http.StatusPreconditionFailed,
				Detail: fmt.Sprintf("job %s has changed since that ETag (now %s); read it again", id, etag(j))}
		}
	}
	return j, nil
}

func (h *handler) deleteSchedule(w http.ResponseWriter, r *http.Request, c *caller) error {
	id := r.PathValue("id")
	_, err := h.change(r.Context(), r, c, nil, func(tx store.Tx) (functions.Request, error) {
		if _, err := current(tx, id, r.Header.Get("If-Match")); err != nil {
			return functions.Request{}, err
		}
		return functions.Request{Function: "schedule.delete", Args: mustJSON(map[string]string{"jobId": id})}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// stateChange is pause, resume, trigger (run now) or skip: no body, but
// skip's optional {"at", "count"} (the occurrence to leave out, default
// the next, and how many from it, default 1).
// A body they do not take is refused, never ignored.
func (h *handler) stateChange(fn string) endpoint {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		id := r.PathValue("id")
		args := map[string]any{"jobId": id}
		var b []byte // what an Idempotency-Key's replay must repeat
		if r.ContentLength != 0 {
			var err error
			b, err = body(r, "application/json")
			if err != nil {
				return err
			}
			if len(bytes.TrimSpace(b)) > 0 {
				if fn != "schedule.skip" {
					return &functions.FieldError{Field: "body", Rule: "takes none"}
				}
				var in struct {
					At    string          `json:"at"`
					Count json.RawMessage `json:"count"` // checked by the function's schema
				}
				dec := json.NewDecoder(bytes.NewReader(b))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&in); err != nil {
					return decodeProblem(err, `{"at"?: an RFC 3339 instant, "count"?: runs from it, 1 to 100}`)
				}
				if in.At != "" {
					args["at"] = in.At
				}
				if len(in.Count) > 0 {
					args["count"] = in.Count
				}
			}
		}
		raw, err := h.change(r.Context(), r, c, b, func(tx store.Tx) (functions.Request, error) {
			if _, err := current(tx, id, r.Header.Get("If-Match")); err != nil {
				return functions.Request{}, err
			}
			return functions.Request{Function: fn, Args: mustJSON(args)}, nil
		})
		if err != nil {
			return err
		}
		if fn == "schedule.run_now" {
			var res functions.RunNowResult
			if err := json.Unmarshal(raw, &res); err != nil {
				return err
			}
			writeJSON(w, http.StatusAccepted, map[string]any{"schedule": scheduleOf(res.Job), "run": res.Run})
			return nil
		}
		return writeJob(w, http.StatusOK, raw)
	}
}

// RunView is one run, with how late it was dispatched.
type RunView struct {
	*store.Run
	LatenessSeconds *float64 `json:"latenessSeconds,omitempty"`
}

func runView(run *store.Run) RunView {
	v := RunView{Run: run}
	if !run.DispatchedAt.IsZero() && !run.Manual {
		late := run.DispatchedAt.Sub(run.ScheduledAt).Seconds()
		v.LatenessSeconds = &late
	}
	return v
}

// maxRunOffset bounds how deep the runs of one job page.
const maxRunOffset = 10000

// listRuns pages a job's runs, newest first: a read-only view (the
// functions show the last few only). The job must be one schedule.show
// shows the caller.
func (h *handler) listRuns(w http.ResponseWriter, r *http.Request, c *caller) error {
	id := r.PathValue("id")
	if _, err := c.read(r.Context(), "schedule.show", map[string]any{"jobId": id, "runs": 0}); err != nil {
		return err
	}
	limit, err := limitParam(r, 50, 500)
	if err != nil {
		return err
	}
	offset := 0
	if cur := r.URL.Query().Get("cursor"); cur != "" {
		b, err := base64.RawURLEncoding.DecodeString(cur)
		n, aerr := strconv.Atoi(strings.TrimPrefix(string(b), "o"))
		if err != nil || aerr != nil || n < 0 || n > maxRunOffset || !strings.HasPrefix(string(b), "o") {
			return &functions.FieldError{Field: "cursor", Rule: "not a cursor this API gave"}
		}
		offset = n
	}
	var runs []*store.Run
	err = c.orch.Store.View(r.Context(), func(tx store.Tx) (err error) {
		runs, err = tx.RunList(id, offset+limit+1)
		return err
	})
	if err != nil {
		return err
	}
	out := Page[RunView]{Items: []RunView{}}
	for i := offset; i < len(runs) && i < offset+limit; i++ {
		out.Items = append(out.Items, runView(runs[i]))
	}
	if len(runs) > offset+limit && offset+limit < maxRunOffset {
		out.Next = base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset+limit)))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only values that marshal are passed
	}
	return b
}

func isObject(b json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}

// mergePatch applies patch to target as RFC 7396 says.
func mergePatch(target, patch json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(patch, &p) != nil || p == nil {
		return patch
	}
	var t map[string]json.RawMessage
	if json.Unmarshal(target, &t) != nil || t == nil {
		t = map[string]json.RawMessage{}
	}
	for k, v := range p {
		if string(v) == "null" {
			delete(t, k)
			continue
		}
		if cur, ok := t[k]; ok {
			t[k] = mergePatch(cur, v)
		} else {
			t[k] = mergePatch(nil, v)
		}
	}
	return mustJSON(t)
}
