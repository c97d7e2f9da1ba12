package console

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

// The calendar page: week (default), month or day, in the viewer's zone,
// from GET /api/v1/calendar. The server lays out days and entries; the
// script places entries at their minute, draws the current-time line and
// lets a one-time job be dragged to another slot.

// Limits of what one day shows; the rest is counted ("+12 more").
const (
	maxPerDayWeek  = 60
	maxPerDayMonth = 4
)

type calDay struct {
	Date    string // 2006-01-02, in the viewer's zone
	Label   string // "Fri 12"
	Long    string // "Friday 12 March 2027", for screen readers
	Today   bool
	Outside bool // a month view's day of the month before or after
	Entries []calEntry
	More    int
	DayURL  string
	NowMin  int // minutes since midnight now, when Today
}

type calEntry struct {
	JobID  string
	Time   string // 15:04
	Minute int    // since the day's midnight, for placing it
	Title  string
	State  string // scheduled | paused | running | completed | failed | skipped | missed
	Once   bool   // a one-time job's occurrence: it may be dragged
	DST    string
	Label  string // for screen readers and the tooltip
}

type calPage struct {
	View      string // week | month | day
	Heading   string
	Days      []calDay
	Weeks     [][]calDay // month view
	Hours     []int
	PrevURL   string
	NextURL   string
	TodayURL  string
	ViewURLs  map[string]string
	Truncated bool
	NowDate   string
}

func (c *Console) calendarPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	view := q.Get("view")
	switch view {
	case "":
		view = "week"
	case "week", "month", "day":
	default:
		return userErrorf("view must be week, month or day, not %q", view)
	}
	loc, err := loadZone(s.tz)
	if err != nil {
		return err
	}
	now := c.opts.Now().In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	day := today
	if d := q.Get("date"); d != "" {
		if day, err = time.ParseInLocation("2006-01-02", d, loc); err != nil {
			return userErrorf("date must be YYYY-MM-DD, not %q", d)
		}
	}
	var first time.Time
	var n int
	var prev, next time.Time
	switch view {
	case "week":
		first = monday(day)
		n, prev, next = 7, first.AddDate(0, 0, -7), first.AddDate(0, 0, 7)
	case "day":
		first = day
		n, prev, next = 1, day.AddDate(0, 0, -1), day.AddDate(0, 0, 1)
	case "month":
		m := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, loc)
		first = monday(m)
		n, prev, next = 42, m.AddDate(0, -1, 0), m.AddDate(0, 1, 0)
	}
	last := first.AddDate(0, 0, n)
	var cal httpapi.Calendar
	path := "/calendar?" + url.Values{"start": {first.UTC().Format(time.RFC3339)}, "end": {last.UTC().Format(time.RFC3339)},
		"tz": {s.tz}}.Encode()
	if err := c.call(r.Context(), s, "GET", path, nil, &cal); err != nil {
		return err
	}
	link := func(v string, d time.Time) string {
		return "/console/calendar?" + url.Values{"view": {v}, "date": {d.Format("2006-01-02")}}.Encode()
	}
	p := calPage{View: view, Truncated: cal.Truncated, PrevURL: link(view, prev), NextURL: link(view, next),
		TodayURL: link(view, today), NowDate: today.Format("2006-01-02"),
		ViewURLs: map[string]string{"day": link("day", day), "week": link("week", day), "month": link("month", day)}}
	byDate := map[string]int{}
	for i := range n {
		d := first.AddDate(0, 0, i)
		cd := calDay{Date: d.Format("2006-01-02"), Label: d.Format("Mon 2"), Long: d.Format("Monday 2 January 2006"),
			Today: d.Equal(today), DayURL: link("day", d)}
		if view == "month" {
			cd.Label = d.Format("2")
			cd.Outside = d.Month() != day.Month()
		}
		if cd.Today {
			cd.NowMin = now.Hour()*60 + now.Minute()
		}
		byDate[cd.Date] = i
		p.Days = append(p.Days, cd)
	}
	limit := maxPerDayWeek
	if view == "month" {
		limit = maxPerDayMonth
	}
	for _, e := range cal.Entries {
		at := e.At.In(loc)
		i, ok := byDate[at.Format("2006-01-02")]
		if !ok {
			continue
		}
		d := &p.Days[i]
		if len(d.Entries) >= limit {
			d.More++
			continue
		}
		ce := calEntry{JobID: e.JobID, Time: at.Format("15:04"), Minute: at.Hour()*60 + at.Minute(), Title: e.Title,
			State: entryState(e), Once: e.Kind == "occurrence" && e.ScheduleType == store.ScheduleOnce &&
				e.JobState == store.JobEnabled, DST: e.DST}
		ce.Label = fmt.Sprintf("%s %s, %s: %s", at.Format("Mon 2 Jan 15:04"), at.Format("MST"), ce.State, e.Title)
		if e.DST != "" {
			ce.Label += " (" + e.DST + ")"
		}
		d.Entries = append(d.Entries, ce)
	}
	switch view {
	case "month":
		m := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, loc)
		p.Heading = m.Format("January 2006")
		for i := 0; i < n; i += 7 {
			p.Weeks = append(p.Weeks, p.Days[i:i+7])
		}
	case "week":
		p.Heading = "Week of " + first.Format("Mon 2 January 2006")
	case "day":
		p.Heading = day.Format("Monday 2 January 2006")
	}
	for h := range 24 {
		p.Hours = append(p.Hours, h)
	}
	c.render(w, s, "calendar", "Calendar", p)
	return nil
}

// monday is the Monday on or before d, at midnight.
func monday(d time.Time) time.Time {
	back := (int(d.Weekday()) + 6) % 7
	return time.Date(d.Year(), d.Month(), d.Day()-back, 0, 0, 0, 0, d.Location())
}

// entryState is the color an entry is drawn in.
func entryState(e httpapi.Entry) string {
	if e.Kind == "occurrence" {
		if e.JobState == store.JobPaused {
			return "paused"
		}
		return "scheduled"
	}
	switch e.Status {
	case store.RunDispatched, store.RunRunning:
		return "running"
	case "":
		return "scheduled"
	}
	return string(e.Status)
}
