package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// Problem is an error answer: an RFC 9457 problem document, with the
// fields and rules a request broke.
type Problem struct {
	Type   string         `json:"type"`
	Title  string         `json:"title"`
	Status int            `json:"status"`
	Detail string         `json:"detail,omitempty"`
	Errors []FieldProblem `json:"errors,omitempty"`
}

// FieldProblem is one broken rule, with the argument path the CLI uses
// ("schedule.cron").
type FieldProblem struct {
	Field string `json:"field"`
	Rule  string `json:"rule"`
}

func (p *Problem) Error() string { return p.Detail }

// problemTypes name each status's problem.
var problemTypes = map[int]string{
	400: "invalid-request", 401: "unauthorized", 403: "forbidden", 404: "not-found", 409: "conflict",
	412: "precondition-failed", 413: "too-large", 415: "unsupported-media-type", 429: "rate-limited",
	500: "internal", 503: "busy",
}

// complete fills a problem's type and title from its status.
func (p *Problem) complete() *Problem {
	if p.Title == "" {
		p.Title = http.StatusText(p.Status)
	}
	if p.Type == "" {
		p.Type = "https://schedbot.dev/problems/" + problemTypes[p.Status]
	}
	return p
}

func writeProblem(w http.ResponseWriter, p *Problem) {
	p.complete()
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	json.NewEncoder(w).Encode(p)
}

// problemOf turns an error from the functions, the store or this package
// into what the client may see. Anything unforeseen is a 500 that says
// nothing of its cause.
func problemOf(err error) (*Problem, bool) {
	p, known := problemFor(err)
	return p.complete(), known
}

func problemFor(err error) (*Problem, bool) {
	var p *Problem
	var fe *functions.FieldError
	var ae *functions.AuthorityError
	switch {
	case errors.As(err, &p):
		return p, true
	case errors.As(err, &fe):
		status := http.StatusBadRequest
		if fe.Conflict {
			status = http.StatusConflict // valid, but taken: a job's name
		}
		return &Problem{Status: status, Detail: fe.Error(), Errors: []FieldProblem{{Field: fe.Field, Rule: fe.Rule}}}, true
	case errors.As(err, &ae):
		return &Problem{Status: http.StatusForbidden, Detail: ae.Error()}, true
	case errors.Is(err, functions.ErrForbidden), errors.Is(err, functions.ErrNotAllowed):
		return &Problem{Status: http.StatusForbidden, Detail: err.Error()}, true
	case errors.Is(err, store.ErrNotFound):
		return &Problem{Status: http.StatusNotFound, Detail: notFoundDetail(err)}, true
	case errors.Is(err, functions.ErrConflict), errors.Is(err, functions.ErrQuota), errors.Is(err, store.ErrExists):
		return &Problem{Status: http.StatusConflict, Detail: err.Error()}, true
	case errors.Is(err, functions.ErrInvalidArgs):
		return &Problem{Status: http.StatusBadRequest, Detail: err.Error()}, true
	}
	return &Problem{Status: http.StatusInternalServerError, Detail: "the request could not be completed; the server's log says why"}, false
}

// notFoundDetail keeps the first clause of a store's not-found error
// ("job 01J…: not found"), which names what is missing and nothing else.
func notFoundDetail(err error) string {
	s := err.Error()
	if i := strings.Index(s, store.ErrNotFound.Error()); i >= 0 {
		return s[:i+len(store.ErrNotFound.Error())]
	}
	return "not found"
}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	p, known := problemOf(err)
	if !known {
		h.opts.Logger.Error("http api", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
	}
	writeProblem(w, p)
}

// decodeProblem says what a JSON body got wrong in the client's terms:
// the field and the JSON it must be, or the body's shape; never the Go
// types it was decoded into.
func decodeProblem(err error, shape string) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return &functions.FieldError{Field: te.Field, Rule: "must be " + functions.JSONKind(te.Type)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return &functions.FieldError{Field: strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), Rule: "unknown field"}
	case errors.As(err, &se):
		return &functions.FieldError{Field: "body", Rule: fmt.Sprintf("not valid JSON (at byte %d); must be %s", se.Offset, shape)}
	}
	return &functions.FieldError{Field: "body", Rule: "must be " + shape}
}
