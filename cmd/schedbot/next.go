package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// isRRule tells an RRULE (FREQ=…, RRULE:FREQ=…, any NAME=VALUE parts) from a cron.
func isRRule(expr string) bool {
	return strings.HasPrefix(strings.ToUpper(strings.TrimSpace(expr)), "RRULE:") || strings.Contains(expr, "=")
}

// exprSpec builds the Spec of EXPR (a cron, or an RRULE) in zone tz, as a
// job created at now would have it: an RRULE without --dtstart is anchored
// at its first occurrence after now (scheduler.AnchorRRule).
func exprSpec(pos []string, tz, dtstart string, now time.Time) (*scheduler.Spec, error) {
	if len(pos) == 0 {
		return nil, usagef("an EXPR is required: a cron such as '0 9 * * 5' or an RRULE such as 'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0'")
	}
	expr := strings.Join(pos, " ")
	// An iCalendar pair "DTSTART[;TZID=zone]:20261124T100000" + "RRULE:…"
	// (newline- or space-separated) gives the anchor and, with no --tz, the zone.
	if strings.Contains(strings.ToUpper(expr), "DTSTART") {
		var rule []string
		for _, f := range strings.Fields(expr) {
			up := strings.ToUpper(f)
			if !strings.HasPrefix(up, "DTSTART") {
				rule = append(rule, f)
				continue
			}
			head, val, _ := strings.Cut(f, ":")
			if _, zone, ok := strings.Cut(head, "TZID="); ok && tz == "" {
				tz = zone
			}
			if dtstart == "" {
				dtstart = val
			}
		}
		expr = strings.Join(rule, " ")
	}
	if tz == "" {
		return nil, usagef("--tz is required (an IANA zone such as America/New_York)")
	}
	loc, err := scheduler.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("--tz: %w", err)
	}
	if dtstart != "" {
		w, err := parseLocal(dtstart, loc)
		if err != nil {
			return nil, usagef("--dtstart: %v", err)
		}
		dtstart = w
	}
	if !isRRule(expr) {
		if dtstart != "" {
			return nil, usagef("--dtstart applies to an RRULE, not to a cron")
		}
		sp, err := scheduler.NewSpec(store.ScheduleCron, store.Schedule{Cron: expr, Timezone: tz}, time.Time{})
		if err != nil {
			return nil, fmt.Errorf("cron: %w", err)
		}
		return sp, nil
	}
	if dtstart == "" {
		if dtstart, err = scheduler.AnchorRRule(expr, loc, now); err != nil {
			return nil, fmt.Errorf("rrule: %w", err)
		}
	}
	sp, err := scheduler.NewSpec(store.ScheduleRRule, store.Schedule{RRule: expr, Timezone: tz, Dtstart: dtstart}, time.Time{})
	var ie *scheduler.InvalidError
	if errors.As(err, &ie) {
		return nil, fmt.Errorf("%s: %s", strings.TrimPrefix(ie.Field, "schedule."), ie.Rule)
	} else if err != nil {
		return nil, err
	}
	return sp, nil
}

// parseLocal reads a local wall time as schedule.dtstart takes it
// (2026-11-24T10:00[:00]), or in iCalendar's form (20261124T100000, or a
// date alone, meaning midnight), and returns it in the first form. An
// instant (RFC 3339 with an offset, or iCalendar's …Z) becomes its wall
// time in loc.
func parseLocal(s string, loc *time.Location) (string, error) {
	if _, err := scheduler.ParseWall(s); err == nil {
		return s, nil
	}
	for _, layout := range []string{"20060102T150405", "20060102T1504", "20060102", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01-02T15:04:05"), nil
		}
	}
	for _, layout := range []string{time.RFC3339, "20060102T150405Z"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.In(loc).Format("2006-01-02T15:04:05"), nil
		}
	}
	return "", fmt.Errorf("%q is not a local wall time (2026-11-24T10:00:00, or 20261124T100000)", s)
}

// runNext prints the next fire instants of a cron or an RRULE, one RFC 3339
// UTC instant a line.
func runNext(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("next", stderr)
	tz := fs.String("tz", "", "IANA timezone the expression is evaluated in (required)")
	after := fs.String("after", "", "start after this RFC 3339 instant (default now)")
	count := fs.Int("count", 5, "how many instants to print (1-1000)")
	dtstart := fs.String("dtstart", "", "RRULE anchor, a local wall time 2006-01-02T15:04[:05] (default: its first occurrence after --after)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	t, err := afterAndCount(*after, *count)
	if err != nil {
		return err
	}
	sp, err := exprSpec(pos, *tz, *dtstart, t)
	if err != nil {
		return err
	}
	for _, next := range sp.NextN(t, *count) {
		fmt.Fprintln(stdout, next.UTC().Format(time.RFC3339))
	}
	return nil
}

// runDescribe says in English when a cron or an RRULE fires.
func runDescribe(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("describe", stderr)
	tz := fs.String("tz", "UTC", "IANA timezone to name in the description")
	dtstart := fs.String("dtstart", "", "RRULE anchor, a local wall time (default: its first occurrence from now)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	sp, err := exprSpec(pos, *tz, *dtstart, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, sp.DescribeWithZone())
	return nil
}
