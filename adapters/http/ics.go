package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedbot/schedbot/store"
)

// The calendar feed (RFC 5545): one VEVENT with an RRULE for each schedule
// whose fires an RRULE says exactly, expanded occurrences for the others,
// each in the job's zone with a VTIMEZONE built from Go's zone data.

// feedHorizon is how far ahead an expanded schedule's occurrences go.
const feedHorizon = 90 * 24 * time.Hour

// calendarICS serves the feed to a bearer token, or to a feed token in
// ?token= (calendar apps cannot send headers; API tokens never go in a URL).
func (h *handler) calendarICS(w http.ResponseWriter, r *http.Request) {
	var c *caller
	if auth, ok := bearer(r); ok {
		c = h.authenticate(r.Context(), strings.TrimSpace(auth), false)
	} else if tok := r.URL.Query().Get("token"); tok != "" {
		c = h.authenticate(r.Context(), tok, true)
	}
	if c == nil {
		unauthorized(w)
		return
	}
	if wait := h.take(c.tok.Hash); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		writeProblem(w, &Problem{Status: http.StatusTooManyRequests, Detail: "this token's rate limit is reached"})
		return
	}
	jobs, err := c.jobs(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Write([]byte(ICS(jobs, h.opts.Now().UTC())))
}

// ICS renders jobs as an iCalendar feed at now: enabled jobs only (a
// paused one has no future).
func ICS(jobs []*store.Job, now time.Time) string {
	var b icsWriter
	b.line("BEGIN:VCALENDAR")
	b.line("VERSION:2.0")
	b.line("PRODID:-//schedbot//HTTP API//EN")
	b.line("CALSCALE:GREGORIAN")
	b.line("X-WR-CALNAME:schedbot")
	zones := map[string]bool{}
	var events icsWriter
	stamp := now.UTC().Format("20060102T150405Z")
	for _, j := range jobs {
		if j.State != store.JobEnabled || j.NextRunAt.IsZero() {
			continue
		}
		sp, err := jobSpec(j)
		if err != nil {
			continue
		}
		tz := j.Schedule.Timezone
		if tz == "" || sp.Loc == nil {
			tz = "UTC"
		}
		loc := sp.Loc
		summary := j.Name
		if summary == "" {
			summary = actionText(j)
		}
		event := func(uid string, at time.Time, rrule, dtstart string) {
			events.line("BEGIN:VEVENT")
			events.line("UID:" + uid + "@schedbot")
			events.line("DTSTAMP:" + stamp)
			if dtstart == "" {
				dtstart = at.In(loc).Format("20060102T150405")
			}
			events.line("DTSTART;TZID=" + tz + ":" + dtstart)
			if rrule != "" {
				events.line("RRULE:" + rrule)
			}
			events.line("SUMMARY:" + icsText(summary))
			events.line("DESCRIPTION:" + icsText(j.Description+"\n"+actionText(j)))
			events.line("END:VEVENT")
		}
		zones[tz] = true
		if rule, dtstart, ok := asRRule(j, sp.Loc); ok && exact(sp, loc, j.NextRunAt, now) {
			event(j.JobID, j.NextRunAt, rule, dtstart)
			continue
		}
		n := 0
		for t, ok := j.NextRunAt, true; ok && n < maxPerSchedule && t.Before(now.Add(feedHorizon)); t, ok = sp.Next(t) {
			event(j.JobID+"-"+t.UTC().Format("20060102T150405Z"), t, "", "")
			n++
		}
	}
	for _, tz := range slices.Sorted(func(yield func(string) bool) {
		for z := range zones {
			if !yield(z) {
				return
			}
		}
	}) {
		vtimezone(&b, tz, now)
	}
	b.WriteString(events.String())
	b.line("END:VCALENDAR")
	return b.String()
}

// exact says the scheduler's next year of fires has none at a clock
// change: an RRULE reader would put a wall time in a gap elsewhere
// (RFC 5545 moves it by the gap; schedbot fires at the jump).
func exact(sp interface {
	Next(time.Time) (time.Time, bool)
}, loc *time.Location, from, now time.Time) bool {
	n := 0
	for t, ok := from, true; ok && n < 2000 && t.Before(now.Add(366*24*time.Hour)); t, ok = sp.Next(t) {
		_, before := t.Add(-time.Second).In(loc).Zone()
		_, at := t.In(loc).Zone()
		if before != at {
			return false
		}
		n++
	}
	return true
}

// asRRule is the RRULE (and DTSTART wall time, empty: the first fire's)
// that says a job's fires, when one does: an rrule schedule as written,
// and a cron of one fixed time a day on every day, some weekdays or some
// days of the month. Bounds (startAt, endAt) and other crons expand.
func asRRule(j *store.Job, loc *time.Location) (rule, dtstart string, ok bool) {
	if !j.StartAt.IsZero() || !j.EndAt.IsZero() {
		return "", "", false
	}
	switch j.ScheduleType {
	case store.ScheduleRRule:
		dt := strings.NewReplacer("-", "", ":", "").Replace(j.Schedule.Dtstart)
		if len(dt) == len("20060102T1504") {
			dt += "00"
		}
		return j.Schedule.RRule, dt, true
	case store.ScheduleCron:
		f := strings.Fields(j.Schedule.Cron)
		if len(f) != 5 || f[3] != "*" {
			return "", "", false
		}
		m, err1 := strconv.Atoi(f[0])
		hr, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return "", "", false
		}
		clock := fmt.Sprintf(";BYHOUR=%d;BYMINUTE=%d", hr, m)
		switch {
		case f[2] == "*" && f[4] == "*":
			return "FREQ=DAILY" + clock, "", true
		case f[2] == "*":
			days, ok := weekdays(f[4])
			return "FREQ=WEEKLY;BYDAY=" + days + clock, "", ok
		case f[4] == "*":
			for _, d := range strings.Split(f[2], ",") {
				if n, err := strconv.Atoi(d); err != nil || n < 1 || n > 31 {
					return "", "", false
				}
			}
			return "FREQ=MONTHLY;BYMONTHDAY=" + f[2] + clock, "", true
		}
	}
	return "", "", false
}

var dayCodes = map[string]string{"0": "SU", "7": "SU", "1": "MO", "2": "TU", "3": "WE", "4": "TH", "5": "FR", "6": "SA",
	"sun": "SU", "mon": "MO", "tue": "TU", "wed": "WE", "thu": "TH", "fri": "FR", "sat": "SA"}

// weekdays turns a cron day-of-week list of single days into BYDAY.
func weekdays(field string) (string, bool) {
	var out []string
	for _, d := range strings.Split(strings.ToLower(field), ",") {
		code, ok := dayCodes[d]
		if !ok {
			return "", false
		}
		if !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	return strings.Join(out, ","), true
}

// actionText is what a job does, in words: its message or its workflow.
func actionText(j *store.Job) string {
	a := j.TargetAction
	if a.Type == store.ActionWorkflowStart {
		return "workflow " + a.WorkflowID
	}
	var p struct {
		Text string `json:"text"`
	}
	if a.FunctionID == "message.post" && json.Unmarshal(a.FunctionArgs, &p) == nil && p.Text != "" {
		return p.Text
	}
	return a.FunctionID
}

// vtimezone writes tz's clock changes from a year before now to two
// years after, as Go's zone data has them.
func vtimezone(b *icsWriter, tz string, now time.Time) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return
	}
	b.line("BEGIN:VTIMEZONE")
	b.line("TZID:" + tz)
	from, to := now.AddDate(-1, 0, 0), now.AddDate(2, 0, 0)
	name, off := from.In(loc).Zone()
	wrote := false
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		n2, off2 := t.In(loc).Zone()
		if off2 == off {
			continue
		}
		// the change is within the hour before t: find its second
		lo, hi := t.Add(-time.Hour), t
		for hi.Sub(lo) > time.Second {
			mid := lo.Add(hi.Sub(lo) / 2)
			if _, o := mid.In(loc).Zone(); o == off {
				lo = mid
			} else {
				hi = mid
			}
		}
		zoneComponent(b, hi.In(loc).IsDST(), n2, hi.Add(time.Duration(off)*time.Second).UTC(), off, off2)
		name, off, wrote = n2, off2, true
	}
	if !wrote {
		zoneComponent(b, false, name, time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), off, off)
	}
	b.line("END:VTIMEZONE")
}

// zoneComponent is one STANDARD or DAYLIGHT observance starting at the
// wall time start (in the offset before it).
func zoneComponent(b *icsWriter, dst bool, name string, start time.Time, from, to int) {
	kind := "STANDARD"
	if dst {
		kind = "DAYLIGHT"
	}
	b.line("BEGIN:" + kind)
	b.line("DTSTART:" + start.Format("20060102T150405"))
	b.line("TZOFFSETFROM:" + offset(from))
	b.line("TZOFFSETTO:" + offset(to))
	b.line("TZNAME:" + icsText(name))
	b.line("END:" + kind)
}

func offset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d%02d", sign, sec/3600, sec%3600/60)
}

// icsText escapes a TEXT value.
func icsText(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s)
}

// icsWriter writes content lines folded at 75 octets, CRLF-ended.
type icsWriter struct{ strings.Builder }

func (w *icsWriter) line(s string) {
	for width := 75; len(s) > width; width = 74 { // a folded line starts with a space
		cut := width
		for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		w.WriteString(s[:cut] + "\r\n ")
		s = s[cut:]
	}
	w.WriteString(s + "\r\n")
}
