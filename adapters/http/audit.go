package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// audit pages the audit log of the token's orchestrator, oldest first: a
// read-only view. next is the last event's seq.
func (h *handler) audit(w http.ResponseWriter, r *http.Request, c *caller) error {
	q := r.URL.Query()
	since, err := timeParam(r, "since", false)
	if err != nil {
		return err
	}
	until, err := timeParam(r, "until", false)
	if err != nil {
		return err
	}
	limit, err := limitParam(r, 100, 1000)
	if err != nil {
		return err
	}
	var after uint64
	if cur := q.Get("cursor"); cur != "" {
		if after, err = strconv.ParseUint(cur, 10, 64); err != nil {
			return &functions.FieldError{Field: "cursor", Rule: "not a cursor this API gave"}
		}
	}
	var events []*store.AuditEvent
	err = c.orch.Store.View(r.Context(), func(tx store.Tx) (err error) {
		events, err = tx.AuditList(&store.AuditListParams{JobID: q.Get("job"), Actor: q.Get("actor"), Since: since,
			AfterSeq: after, Limit: limit + 1})
		return err
	})
	if err != nil {
		return err
	}
	out := Page[*store.AuditEvent]{Items: []*store.AuditEvent{}}
	for i, ev := range events {
		if !until.IsZero() && ev.At.After(until) {
			break
		}
		if i == limit {
			out.Next = strconv.FormatUint(events[i-1].Seq, 10)
			break
		}
		out.Items = append(out.Items, ev)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// Verification is what GET /api/v1/audit/verify answers.
type Verification struct {
	OK      bool   `json:"ok"`
	Checked int    `json:"checked"`
	Seq     uint64 `json:"seq,omitempty"` // the first record that does not hold
	Reason  string `json:"reason,omitempty"`
}

func (h *handler) auditVerify(w http.ResponseWriter, r *http.Request, c *caller) error {
	var v Verification
	var err error
	v.Checked, err = c.orch.Store.AuditVerify(r.Context())
	var ce *store.ChainError
	switch {
	case errors.As(err, &ce):
		v.Seq, v.Reason = ce.Seq, ce.Reason
	case err != nil:
		return err
	default:
		v.OK = true
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
