package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// ParseRequest is POST /api/v1/parse.
type ParseRequest struct {
	Text string `json:"text"`
	TZ   string `json:"tz,omitempty"`
	Now  string `json:"now,omitempty"` // RFC 3339; read here, so a bad one is named
}

// ParseResult is the selector's decision and, for a schedule.create, what
// the schedule would be: its description and next runs, or why the
// functions would refuse it.
type ParseResult struct {
	Decision    selector.Decision `json:"decision"`
	Description string            `json:"description,omitempty"`
	Timezone    string            `json:"timezone,omitempty"`
	NextRuns    []time.Time       `json:"nextRuns,omitempty"`
	Invalid     *Problem          `json:"invalid,omitempty"`
}

// parse asks the selector what a text would do, as chat would for the
// token's sender, and changes nothing.
func (h *handler) parse(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := body(r, "application/json")
	if err != nil {
		return err
	}
	var req ParseRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return decodeProblem(err, `{"text", "tz"?, "now"?}`)
	}
	switch {
	case req.Text == "":
		return &functions.FieldError{Field: "text", Rule: "is required"}
	case utf8.RuneCountInString(req.Text) > functions.MaxTextLen:
		return &functions.FieldError{Field: "text", Rule: "at most 4000 characters"}
	}
	now := h.opts.Now()
	if req.Now != "" {
		if now, err = time.Parse(time.RFC3339, req.Now); err != nil {
			return &functions.FieldError{Field: "now", Rule: "must be an RFC 3339 time such as 2026-11-27T09:00:00Z"}
		}
		if y := now.Year(); y < 1970 || y > 9000 {
			// the next runs of a later now cannot be written (RFC 3339 ends at 9999)
			return &functions.FieldError{Field: "now", Rule: "must be between 1970 and 9000"}
		}
	}
	_, tz, err := c.zone(req.TZ)
	if err != nil {
		return err
	}
	jobs, err := conversation.JobRefs(r.Context(), c.orch.Store)
	if err != nil {
		return err
	}
	in := selector.Input{Text: req.Text, SenderID: c.tok.SenderID, Sender: c.tok.SenderID, ProfileID: c.profile.ID,
		Channel: c.profile.Channel, Timezone: tz, Now: now.UTC(), Jobs: jobs, Workflows: c.orch.Workflows,
		Functions: c.orch.Registry.Allowed()}
	d, err := c.orch.Selector.Select(r.Context(), in)
	if err != nil {
		return err
	}
	res := ParseResult{Decision: d}
	if d.Function == "schedule.create" {
		err := c.orch.Registry.Validate(functions.Request{Function: d.Function, Args: d.Args, Actor: c.actor})
		if err != nil {
			p, known := problemOf(err)
			if !known {
				return err
			}
			res.Invalid = p
		} else if err := preview(&res, d.Args, c.orch.Timezone, now.UTC()); err != nil {
			p, _ := problemOf(err)
			res.Invalid = p
		}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// previewCreate answers what a schedule.create with the body as its
// arguments would make — description, zone and next runs — or the
// problem the functions would report, and changes nothing: the console's
// structured form shows it as a person fills the form in.
func (h *handler) previewCreate(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := body(r, "application/json")
	if err != nil {
		return err
	}
	if !json.Valid(b) || !isObject(b) {
		return &functions.FieldError{Field: "body", Rule: "must be a JSON object: the schedule.create arguments"}
	}
	now := h.opts.Now().UTC()
	res := ParseResult{Decision: selector.Decision{Function: "schedule.create", Args: compact(b)}}
	if err := c.orch.Registry.Validate(functions.Request{Function: "schedule.create", Args: b, Actor: c.actor}); err != nil {
		p, known := problemOf(err)
		if !known {
			return err
		}
		res.Invalid = p
	} else if err := preview(&res, b, c.orch.Timezone, now); err != nil {
		p, _ := problemOf(err)
		res.Invalid = p
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// preview fills what a schedule.create's job would be: the defaults
// create fills (zone, interval anchor, rrule anchor), then its
// description and next runs from now.
func preview(res *ParseResult, args json.RawMessage, zone string, now time.Time) error {
	var a struct {
		ScheduleType string         `json:"scheduleType"`
		Schedule     store.Schedule `json:"schedule"`
		StartAt      time.Time      `json:"startAt"`
		EndAt        time.Time      `json:"endAt"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return err
	}
	s := a.Schedule
	if a.ScheduleType != store.ScheduleCron && s.Timezone == "" {
		s.Timezone = zone
	}
	if a.ScheduleType == store.ScheduleInterval && s.StartAt.IsZero() {
		s.StartAt = now
		if a.StartAt.After(now) {
			s.StartAt = a.StartAt
		}
	}
	if a.ScheduleType == store.ScheduleRRule && s.Dtstart == "" {
		loc, err := scheduler.LoadLocation(s.Timezone)
		if err != nil {
			return &functions.FieldError{Field: "schedule.timezone", Rule: err.Error()}
		}
		if s.Dtstart, err = scheduler.AnchorRRule(s.RRule, loc, now); err != nil {
			return &functions.FieldError{Field: "schedule.rrule", Rule: err.Error()}
		}
	}
	sp, err := jobSpec(&store.Job{ScheduleType: a.ScheduleType, Schedule: s, StartAt: a.StartAt, EndAt: a.EndAt})
	if err != nil {
		var ie *scheduler.InvalidError
		if errors.As(err, &ie) {
			return &functions.FieldError{Field: ie.Field, Rule: ie.Rule}
		}
		return err
	}
	res.Description, res.Timezone = sp.DescribeWithZone(), s.Timezone
	res.NextRuns = sp.NextN(now, nextRunsShown)
	return nil
}
