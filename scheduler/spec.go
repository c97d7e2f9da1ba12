package scheduler

import (
	"fmt"
	"sync"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Interval bounds (docs/DESIGN.md section 4).
const (
	MinInterval = 60 * time.Second
	MaxInterval = 366 * 24 * time.Hour
)

// InvalidError is a schedule that breaks a rule; Field is the argument path
// ("schedule.cron") and Rule what is wrong with it.
type InvalidError struct{ Field, Rule string }

func (e *InvalidError) Error() string { return e.Field + ": " + e.Rule }

// Spec is a job's schedule, ready to compute fire instants.
type Spec struct {
	Type  string
	Loc   *time.Location
	Cron  *Cron
	Every time.Duration
	Start time.Time // interval anchor: fires at Start + k*Every
	RunAt time.Time
	RRule *RRule
	End   time.Time // exclusive; zero: none
	// NotBefore is the job's startAt: Next never returns an instant before
	// it, whatever the type. Zero: none. NewSpec leaves it zero; callers set it.
	NotBefore time.Time
	// Skip lists occurrences left out (the job's skip): Next passes over
	// them as if the schedule had none there. NewSpec leaves it empty.
	Skip []time.Time
	// Limit, when above zero, is how many more fires there are (a job's
	// remaining count): NextN returns at most that many and Describe says
	// it; Next does not know how many have fired and ignores it. Below
	// zero the count is spent: Next returns none.
	Limit int64
}

// LoadLocation loads an IANA zone, refusing the empty name and "Local"
// (whose meaning depends on the machine).
func LoadLocation(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%q is not an IANA timezone", name)
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown timezone %q (want an IANA id such as America/New_York)", name)
	}
	zones.Store(name, loc)
	return loc, nil
}

// zones caches the zones loaded: time.LoadLocation reads the zone files
// on every call, and a burst or a message loads the same few zones again
// and again. Only zones that exist are kept, so the cache stays as small
// as the IANA list.
var zones sync.Map

// NewSpec checks a schedule's shape and returns its Spec. It does not check
// that the schedule lies in the future; see Validate.
func NewSpec(scheduleType string, s store.Schedule, endAt time.Time) (*Spec, error) {
	sp := &Spec{Type: scheduleType, End: endAt, Loc: time.UTC}
	if s.Timezone != "" {
		loc, err := LoadLocation(s.Timezone)
		if err != nil {
			return nil, &InvalidError{"schedule.timezone", err.Error()}
		}
		sp.Loc = loc
	}
	switch scheduleType {
	case store.ScheduleCron:
		if s.EverySeconds != 0 || !s.RunAt.IsZero() || !s.StartAt.IsZero() || s.RRule != "" || s.Dtstart != "" {
			return nil, &InvalidError{"schedule", "a cron schedule takes only cron and timezone"}
		}
		if s.Timezone == "" {
			return nil, &InvalidError{"schedule.timezone", "required for a cron schedule (an IANA id such as America/New_York)"}
		}
		c, err := ParseCron(s.Cron)
		if err != nil {
			return nil, &InvalidError{"schedule.cron", err.Error()}
		}
		sp.Cron = c
	case store.ScheduleInterval:
		if s.Cron != "" || !s.RunAt.IsZero() || s.RRule != "" || s.Dtstart != "" {
			return nil, &InvalidError{"schedule", "an interval schedule takes only everySeconds, startAt and timezone"}
		}
		d := time.Duration(s.EverySeconds) * time.Second
		if s.EverySeconds < int64(MinInterval/time.Second) || s.EverySeconds > int64(MaxInterval/time.Second) {
			return nil, &InvalidError{"schedule.everySeconds", fmt.Sprintf("must be between 60 and %d (366 days), got %d", int64(MaxInterval/time.Second), s.EverySeconds)}
		}
		if s.StartAt.IsZero() {
			return nil, &InvalidError{"schedule.startAt", "required for an interval schedule"}
		}
		sp.Every, sp.Start = d, s.StartAt.UTC()
	case store.ScheduleOnce:
		if s.Cron != "" || s.EverySeconds != 0 || !s.StartAt.IsZero() || s.RRule != "" || s.Dtstart != "" {
			return nil, &InvalidError{"schedule", "a once schedule takes only runAt and timezone"}
		}
		if s.RunAt.IsZero() {
			return nil, &InvalidError{"schedule.runAt", "required for a once schedule (RFC 3339)"}
		}
		sp.RunAt = s.RunAt.UTC()
	case store.ScheduleRRule:
		if s.Cron != "" || s.EverySeconds != 0 || !s.StartAt.IsZero() || !s.RunAt.IsZero() {
			return nil, &InvalidError{"schedule", "an rrule schedule takes only rrule, timezone and dtstart (the job's startAt bounds it)"}
		}
		if s.Timezone == "" {
			return nil, &InvalidError{"schedule.timezone", "required for an rrule schedule (an IANA id such as America/New_York)"}
		}
		if s.Dtstart == "" {
			return nil, &InvalidError{"schedule.dtstart", "required to evaluate an rrule (schedule.create fills it: see AnchorRRule)"}
		}
		dt, err := ParseWall(s.Dtstart)
		if err != nil {
			return nil, &InvalidError{"schedule.dtstart", err.Error()}
		}
		r, err := ParseRRule(s.RRule, dt)
		if err != nil {
			return nil, &InvalidError{"schedule.rrule", err.Error()}
		}
		sp.RRule = r
	default:
		return nil, &InvalidError{"scheduleType", fmt.Sprintf("must be cron, interval, once or rrule, got %q", scheduleType)}
	}
	return sp, nil
}

// JobSpec is the Spec of a job's schedule as it fires: bounded by its
// startAt and endAt, without the occurrences it skips, and limited to the
// fires it has left.
func JobSpec(j *store.Job) (*Spec, error) {
	sp, err := NewSpec(j.ScheduleType, j.Schedule, j.EndAt)
	if err != nil {
		return nil, err
	}
	sp.NotBefore, sp.Skip, sp.Limit = j.StartAt, j.Skip, j.Remaining
	return sp, nil
}

// Next returns the first fire instant strictly after after, at or after
// NotBefore and before End, and not in Skip;
// ok is false when there is none.
func (sp *Spec) Next(after time.Time) (time.Time, bool) {
	if sp.Limit < 0 {
		return time.Time{}, false
	}
	for {
		t, ok := sp.next(after)
		if !ok || !sp.Skipped(t) {
			return t, ok
		}
		after = t
	}
}

// Skipped says whether t is one of the occurrences the spec leaves out.
func (sp *Spec) Skipped(t time.Time) bool {
	for _, s := range sp.Skip {
		if s.Equal(t) {
			return true
		}
	}
	return false
}

// next is Next with no occurrence left out.
func (sp *Spec) next(after time.Time) (t time.Time, ok bool) {
	if !sp.NotBefore.IsZero() && after.Before(sp.NotBefore) {
		after = sp.NotBefore.Add(-time.Nanosecond) // strictly after this: at or after NotBefore
	}
	switch sp.Type {
	case store.ScheduleCron:
		t, ok = sp.Cron.Next(after, sp.Loc)
	case store.ScheduleInterval:
		if after.Before(sp.Start) {
			t, ok = sp.Start, true
		} else {
			floor, _ := gridFloor(sp.Start, after, sp.Every)
			t, ok = floor.Add(sp.Every), true
		}
	case store.ScheduleOnce:
		t, ok = sp.RunAt, sp.RunAt.After(after)
	case store.ScheduleRRule:
		t, ok = sp.RRule.Next(after, sp.Loc)
	}
	if ok && !sp.End.IsZero() && !t.Before(sp.End) {
		return time.Time{}, false
	}
	return t.UTC(), ok
}

// gridFloor is the last instant start+k·every at or before t (t not
// before start), and k. t.Sub(start) stops at 292 years (time.Duration's
// range), which would leave the grid behind t for an anchor centuries
// back: the start is moved up a century of whole periods at a time first.
func gridFloor(start, t time.Time, every time.Duration) (time.Time, int64) {
	const century = 100 * 365 * 24 * time.Hour
	var k int64
	if n := century / every; n > 0 {
		for t.Sub(start) > century {
			start = start.Add(n * every)
			k += int64(n)
		}
	}
	m := t.Sub(start) / every
	return start.Add(m * every), k + int64(m)
}

// NextN returns up to n fire instants after after.
func (sp *Spec) NextN(after time.Time, n int) []time.Time {
	var out []time.Time
	if sp.Limit > 0 && int64(n) > sp.Limit {
		n = int(sp.Limit)
	}
	for len(out) < n {
		t, ok := sp.Next(after)
		if !ok {
			break
		}
		out = append(out, t)
		after = t
	}
	return out
}

// Local formats t as a wall time in the spec's zone, with no offset, as the
// Job's nextRunAtLocal.
func (sp *Spec) Local(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(sp.Loc).Format("2006-01-02T15:04:05")
}
