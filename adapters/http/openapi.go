package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/schedbot/schedbot/functions"
)

// The OpenAPI 3.1 document, built from the functions' own JSON schemas:
// the request bodies of create and update and the list filters are the
// schemas chat's selector and the CLI are validated with.

type obj = map[string]any

// OpenAPI returns the API's OpenAPI 3.1 document, with schemas from reg.
func OpenAPI(reg *functions.Registry) ([]byte, error) {
	schema := func(id string) (obj, error) {
		var m obj
		err := json.Unmarshal(reg.Schema(id), &m)
		return m, err
	}
	create, err := schema("schedule.create")
	if err != nil {
		return nil, err
	}
	update, err := schema("schedule.update")
	if err != nil {
		return nil, err
	}
	list, err := schema("schedule.list")
	if err != nil {
		return nil, err
	}
	// A patch is update's arguments less jobId, which the URL gives.
	patch := obj{}
	for k, v := range update {
		patch[k] = v
	}
	props := obj{}
	for k, v := range update["properties"].(obj) {
		if k != "jobId" {
			props[k] = v
		}
	}
	patch["properties"], patch["minProperties"] = props, 1
	delete(patch, "required")
	listProps := list["properties"].(obj)

	ref := func(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }
	jsonBody := func(s obj) obj { return obj{"application/json": obj{"schema": s}} }
	resp := func(desc string, s obj) obj {
		r := obj{"description": desc}
		if s != nil {
			r["content"] = jsonBody(s)
		}
		return r
	}
	problems := func(codes ...string) obj {
		out := obj{}
		for _, c := range append([]string{"400", "401", "429"}, codes...) {
			out[c] = obj{"$ref": "#/components/responses/Problem"}
		}
		return out
	}
	with := func(base obj, more obj) obj {
		for k, v := range more {
			base[k] = v
		}
		return base
	}
	query := func(name, desc string, s any, required bool) obj {
		return obj{"name": name, "in": "query", "description": desc, "required": required, "schema": s}
	}
	idParam := obj{"name": "id", "in": "path", "required": true, "description": "The job's id.", "schema": obj{"type": "string"}}
	idemParam := obj{"name": "Idempotency-Key", "in": "header", "required": false,
		"description": "A retry with the same key gets the first result back (the CLI's --request-id).",
		"schema":      obj{"type": "string", "maxLength": 100, "pattern": "^[A-Za-z0-9._:-]+$"}}
	ifMatch := obj{"name": "If-Match", "in": "header", "required": false,
		"description": "The ETag last read; 412 when the job changed since.", "schema": obj{"type": "string"}}
	limit := query("limit", "Page size.", obj{"type": "integer", "minimum": 1, "maximum": 500}, false)
	cursor := query("cursor", "next of the previous page.", obj{"type": "string"}, false)
	action := func(summary string, status string, out obj) obj {
		return obj{"post": obj{"summary": summary, "operationId": summary, "parameters": []any{idParam, idemParam, ifMatch},
			"responses": with(problems("403", "404", "409", "412"), obj{status: resp("Done.", out)})}}
	}
	doc := obj{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": obj{"title": "schedbot HTTP API", "version": "1",
			"description": "Schedules, runs, a calendar, the audit log and a preview of what a text would do. A token acts as one sender of one channel profile, with the authority chat gives them."},
		"security": []any{obj{"bearer": []any{}}},
		"paths": obj{
			"/api/v1/schedules": obj{
				"get": obj{"summary": "List schedules", "operationId": "listSchedules",
					"parameters": []any{
						query("state", "Default: every state but deleted.", listProps["state"], false),
						query("createdBy", "Sender id of the creator.", listProps["createdBy"], false),
						query("channel", "Only jobs that post to this channel.", listProps["channelId"], false),
						query("q", "Text in the job's name, description or action.", obj{"type": "string"}, false),
						limit, cursor},
					"responses": with(problems(), obj{"200": resp("A page of jobs.", ref("JobPage"))})},
				"post": obj{"summary": "Create a schedule (schedule.create)", "operationId": "createSchedule",
					"parameters":  []any{idemParam},
					"requestBody": obj{"required": true, "content": jsonBody(ref("schedule.create"))},
					"responses": with(problems("403", "409", "413", "415"), obj{"201": with(resp("Created.", ref("Schedule")),
						obj{"headers": obj{"Location": obj{"schema": obj{"type": "string"}}, "ETag": obj{"schema": obj{"type": "string"}}}})})},
			},
			"/api/v1/schedules/{id}": obj{
				"get": obj{"summary": "Show a schedule", "operationId": "getSchedule", "parameters": []any{idParam},
					"responses": with(problems("404"), obj{"200": with(resp("The schedule.", ref("Schedule")),
						obj{"headers": obj{"ETag": obj{"schema": obj{"type": "string"}}}})})},
				"patch": obj{"summary": "Change a schedule (a JSON merge patch of schedule.update)", "operationId": "patchSchedule",
					"parameters": []any{idParam, idemParam, ifMatch},
					"requestBody": obj{"required": true, "content": obj{"application/merge-patch+json": obj{"schema": ref("SchedulePatch")},
						"application/json": obj{"schema": ref("SchedulePatch")}}},
					"responses": with(problems("403", "404", "409", "412", "413", "415"), obj{"200": resp("Changed.", ref("Schedule"))})},
				"delete": obj{"summary": "Delete a schedule", "operationId": "deleteSchedule", "parameters": []any{idParam, idemParam, ifMatch},
					"responses": with(problems("403", "404", "412"), obj{"204": obj{"description": "Deleted."}})},
			},
			"/api/v1/schedules/{id}/pause":   action("pauseSchedule", "200", ref("Schedule")),
			"/api/v1/schedules/{id}/resume":  action("resumeSchedule", "200", ref("Schedule")),
			"/api/v1/schedules/{id}/skip":    action("skipNext", "200", ref("Schedule")),
			"/api/v1/schedules/{id}/trigger": action("triggerSchedule", "202", obj{"type": "object", "properties": obj{"schedule": ref("Schedule"), "run": ref("Run")}}),
			"/api/v1/schedules/{id}/runs": obj{"get": obj{"summary": "A schedule's runs, newest first", "operationId": "listRuns",
				"parameters": []any{idParam, limit, cursor},
				"responses":  with(problems("404"), obj{"200": resp("A page of runs.", ref("RunPage"))})}},
			"/api/v1/calendar": obj{"get": obj{"summary": "Past runs and future occurrences in a range", "operationId": "calendar",
				"parameters": []any{
					query("start", "RFC 3339.", obj{"type": "string", "format": "date-time"}, true),
					query("end", "RFC 3339, after start, at most 400 days on.", obj{"type": "string", "format": "date-time"}, true),
					query("tz", "IANA zone of atLocal; default the profile's.", obj{"type": "string"}, false)},
				"responses": with(problems(), obj{"200": resp("The calendar.", ref("Calendar"))})}},
			"/api/v1/calendar.ics": obj{"get": obj{"summary": "An iCalendar (RFC 5545) feed of the schedules", "operationId": "calendarFeed",
				"security":   []any{obj{"bearer": []any{}}, obj{"feedToken": []any{}}},
				"parameters": []any{query("token", "A feed token (token create --feed).", obj{"type": "string"}, false)},
				"responses": with(problems(), obj{"200": obj{"description": "The feed.",
					"content": obj{"text/calendar": obj{"schema": obj{"type": "string"}}}}})}},
			"/api/v1/audit": obj{"get": obj{"summary": "The audit log, oldest first", "operationId": "audit",
				"parameters": []any{
					query("since", "RFC 3339.", obj{"type": "string", "format": "date-time"}, false),
					query("until", "RFC 3339.", obj{"type": "string", "format": "date-time"}, false),
					query("job", "A job's id.", obj{"type": "string"}, false),
					query("actor", "A sender id or name.", obj{"type": "string"}, false),
					limit, cursor},
				"responses": with(problems(), obj{"200": resp("A page of events.", ref("AuditPage"))})}},
			"/api/v1/audit/verify": obj{"get": obj{"summary": "Check the audit log's hash chain", "operationId": "auditVerify",
				"responses": with(problems(), obj{"200": resp("The verdict.", ref("Verification"))})}},
			"/api/v1/parse": obj{"post": obj{"summary": "What a text would do; changes nothing", "operationId": "parse",
				"requestBody": obj{"required": true, "content": jsonBody(ref("ParseRequest"))},
				"responses":   with(problems("413", "415"), obj{"200": resp("The selector's decision.", ref("ParseResult"))})}},
			"/api/v1/preview": obj{"post": obj{"summary": "What a schedule.create would make; changes nothing", "operationId": "preview",
				"requestBody": obj{"required": true, "content": jsonBody(ref("schedule.create"))},
				"responses":   with(problems("413", "415"), obj{"200": resp("Its description and next runs, or the problem.", ref("ParseResult"))})}},
			"/api/v1/openapi.json": obj{"get": obj{"summary": "This document", "operationId": "openapi", "security": []any{},
				"responses": obj{"200": resp("OpenAPI 3.1.", obj{"type": "object"})}}},
		},
		"components": obj{
			"securitySchemes": obj{
				"bearer":    obj{"type": "http", "scheme": "bearer", "description": "schedbot token create"},
				"feedToken": obj{"type": "apiKey", "in": "query", "name": "token", "description": "schedbot token create --feed"},
			},
			"responses": obj{"Problem": obj{"description": "An RFC 9457 problem.",
				"content": obj{"application/problem+json": obj{"schema": ref("Problem")}}}},
			"schemas": obj{
				"schedule.create": create,
				"schedule.update": update,
				"schedule.list":   list,
				"SchedulePatch":   patch,
				"Job":             obj{"type": "object", "required": []any{"jobId", "state", "scheduleType", "schedule"}},
				"Run":             obj{"type": "object", "required": []any{"executionId", "jobId", "scheduledAt", "status"}},
				"Schedule": obj{"type": "object", "required": []any{"job", "description", "nextRuns"}, "properties": obj{
					"job": ref("Job"), "description": obj{"type": "string"},
					"nextRuns":       obj{"type": "array", "maxItems": nextRunsShown, "items": obj{"type": "string", "format": "date-time"}},
					"nextRunAtLocal": obj{"type": "string"}}},
				"JobPage":   page(ref("Job")),
				"RunPage":   page(ref("Run")),
				"AuditPage": page(obj{"type": "object"}),
				"Calendar": obj{"type": "object", "required": []any{"entries", "truncated"}, "properties": obj{
					"start": obj{"type": "string", "format": "date-time"}, "end": obj{"type": "string", "format": "date-time"},
					"timezone":  obj{"type": "string"},
					"truncated": obj{"type": "boolean"},
					"entries": obj{"type": "array", "items": obj{"type": "object", "required": []any{"jobId", "at", "kind"}, "properties": obj{
						"jobId": obj{"type": "string"}, "at": obj{"type": "string", "format": "date-time"}, "atLocal": obj{"type": "string"},
						"kind": obj{"enum": []any{"run", "occurrence"}}, "status": obj{"type": "string"}}}}}},
				"Verification": obj{"type": "object", "required": []any{"ok", "checked"}, "properties": obj{
					"ok": obj{"type": "boolean"}, "checked": obj{"type": "integer"}, "seq": obj{"type": "integer"}, "reason": obj{"type": "string"}}},
				"ParseRequest": obj{"type": "object", "additionalProperties": false, "required": []any{"text"}, "properties": obj{
					"text": obj{"type": "string", "maxLength": functions.MaxTextLen}, "tz": obj{"type": "string"},
					"now": obj{"type": "string", "format": "date-time"}}},
				"ParseResult": obj{"type": "object", "required": []any{"decision"}, "properties": obj{
					"decision": obj{"type": "object"}, "description": obj{"type": "string"}, "timezone": obj{"type": "string"},
					"nextRuns": obj{"type": "array", "items": obj{"type": "string", "format": "date-time"}},
					"invalid":  ref("Problem")}},
				"Problem": obj{"type": "object", "required": []any{"type", "title", "status"}, "properties": obj{
					"type": obj{"type": "string"}, "title": obj{"type": "string"}, "status": obj{"type": "integer"},
					"detail": obj{"type": "string"},
					"errors": obj{"type": "array", "items": obj{"type": "object", "required": []any{"field", "rule"},
						"properties": obj{"field": obj{"type": "string"}, "rule": obj{"type": "string"}}}}}},
			},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func page(item obj) obj {
	return obj{"type": "object", "required": []any{"items"}, "properties": obj{
		"items": obj{"type": "array", "items": item}, "next": obj{"type": "string"}}}
}

func (h *handler) openAPI(w http.ResponseWriter, r *http.Request) {
	ids := make([]string, 0, len(h.opts.Orchestrators))
	for id := range h.opts.Orchestrators {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		writeProblem(w, &Problem{Status: http.StatusNotFound})
		return
	}
	b, err := OpenAPI(h.opts.Orchestrators[ids[0]].Registry)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
