package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

func runCron(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("cron needs a subcommand: next or describe")
	}
	switch args[0] {
	case "next":
		return runCronNext(args[1:], stdout, stderr)
	case "describe":
		return runCronDescribe(args[1:], stdout, stderr)
	}
	return usagef("unknown cron subcommand %q (next, describe)", args[0])
}

// cronArgs reads EXPR (one argument, or the five fields unquoted) and the zone.
func cronArgs(pos []string, tz string) (*scheduler.Cron, *time.Location, error) {
	if len(pos) == 0 {
		return nil, nil, usagef("an EXPR is required, e.g. '0 9 * * 5'")
	}
	if tz == "" {
		return nil, nil, usagef("--tz is required (an IANA zone such as America/New_York)")
	}
	loc, err := scheduler.LoadLocation(tz)
	if err != nil {
		return nil, nil, fmt.Errorf("--tz: %w", err)
	}
	c, err := scheduler.ParseCron(strings.Join(pos, " "))
	if err != nil {
		return nil, nil, fmt.Errorf("cron: %w", err)
	}
	return c, loc, nil
}

func runCronNext(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cron next", stderr)
	tz := fs.String("tz", "", "IANA timezone the expression is evaluated in (required)")
	after := fs.String("after", "", "start after this RFC 3339 instant (default now)")
	count := fs.Int("count", 5, "how many instants to print (1-1000)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	t, err := afterAndCount(*after, *count)
	if err != nil {
		return err
	}
	c, loc, err := cronArgs(pos, *tz)
	if err != nil {
		return err
	}
	for range *count {
		next, ok := c.Next(t, loc)
		if !ok {
			break
		}
		fmt.Fprintln(stdout, next.UTC().Format(time.RFC3339))
		t = next
	}
	return nil
}

func runCronDescribe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cron describe", stderr)
	tz := fs.String("tz", "UTC", "IANA timezone to name in the description")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	c, loc, err := cronArgs(pos, *tz)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s)\n", c.Describe(), loc)
	return nil
}

// afterAndCount reads the --after and --count flags of `next` and `cron
// next`: the instant to start after (default now) and how many to print.
func afterAndCount(after string, count int) (time.Time, error) {
	if count < 1 || count > 1000 {
		return time.Time{}, usagef("--count must be between 1 and 1000")
	}
	if after == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, after)
	if err != nil {
		return time.Time{}, usagef("--after: %q is not RFC 3339 (2026-11-22T12:00:00Z)", after)
	}
	return t, nil
}
