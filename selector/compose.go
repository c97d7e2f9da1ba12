package selector

import (
	"context"
	"log/slog"
)

// Fallback asks Primary; when Primary fails (the LLM is unreachable) it
// asks Backup, and says so in the log.
type Fallback struct {
	Primary, Backup Selector
	Logger          *slog.Logger
}

// Select implements Selector.
func (f *Fallback) Select(ctx context.Context, in Input) (Decision, error) {
	d, err := f.Primary.Select(ctx, in)
	if err == nil {
		return d, nil
	}
	if f.Logger != nil {
		f.Logger.Warn("selector failed; falling back to the rules", slog.Any("error", err))
	}
	return f.Backup.Select(ctx, in)
}

// Hybrid asks First (the rules) and only when First cannot decide asks
// Second (the LLM); when Second fails or also cannot decide, First's answer
// stands.
type Hybrid struct {
	First, Second Selector
	Logger        *slog.Logger
}

// Undecided reports whether the rules could not read the request at all:
// they found no action, which another reader might. A question about a
// missing time is deliberate and is not handed on (a model might invent
// the time).
func Undecided(d Decision) bool { return d.Clarify != "" && d.Missing == MissingAction }

// Select implements Selector.
func (h *Hybrid) Select(ctx context.Context, in Input) (Decision, error) {
	d, err := h.First.Select(ctx, in)
	if err != nil || !Undecided(d) || in.Text == "" {
		return d, err
	}
	d2, err := h.Second.Select(ctx, in)
	if err != nil {
		if h.Logger != nil {
			h.Logger.Warn("LLM unavailable; keeping the rules' answer", slog.Any("error", err))
		}
		return d, nil
	}
	if d2.IsCall() || d2.Unsupported != "" {
		return d2, nil
	}
	return d, nil
}

// Checked holds every decision of Inner (a model) to Check (the rules'
// leftover-word and verification checks) before anyone acts on it: a
// proposal that drops a word or moves a day comes back as a question.
type Checked struct {
	Inner Selector
	Check func(Input, Decision) Decision
}

// Select implements Selector.
func (c *Checked) Select(ctx context.Context, in Input) (Decision, error) {
	d, err := c.Inner.Select(ctx, in)
	if err != nil {
		return d, err
	}
	return c.Check(in, d), nil
}
