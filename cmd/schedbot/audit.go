package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "verify" {
		return runAuditVerify(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("audit", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "only this orchestrator (default: all)")
	jobID := fs.String("job", "", "only events of this job")
	actor := fs.String("actor", "", "only events by this sender name or id")
	since := fs.String("since", "", "only events this recent (24h, 7d) or after an RFC 3339 instant")
	limit := fs.Int("limit", 0, "at most N events, the most recent (0: all)")
	asJSON := fs.Bool("json", false, "print events as JSON, one per line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("audit takes no arguments (did you mean `audit verify`?), got %q", pos[0])
	}
	p := &store.AuditListParams{JobID: *jobID, Actor: *actor}
	if *since != "" {
		if p.Since, err = parseSince(*since, time.Now()); err != nil {
			return usagef("--since: %v", err)
		}
	}
	if *limit < 0 {
		return usagef("--limit must be 0 or more")
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	orchs, err := selectOrchestrators(cfg, *orchID)
	if err != nil {
		return err
	}
	var events []*store.AuditEvent
	for _, o := range orchs {
		err := viewStore(ctx, o, func(tx store.Tx) error {
			evs, err := tx.AuditList(p)
			events = append(events, evs...)
			return err
		})
		if err != nil {
			return fmt.Errorf("orchestrator %s: %w", o.ID, err)
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].At.Before(events[j].At) })
	if *limit > 0 && len(events) > *limit {
		events = events[len(events)-*limit:]
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, ev := range events {
			if err := enc.Encode(ev); err != nil {
				return err
			}
		}
		return nil
	}
	if len(events) == 0 {
		fmt.Fprintln(stdout, "No audit events.")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME (UTC)\tORCHESTRATOR\tSEQ\tACTOR\tVIA\tACTION\tJOB\tDETAIL")
	for _, ev := range events {
		who := ev.Actor.Sender
		if who == "" {
			who = ev.Actor.SenderID
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", ev.At.UTC().Format("2006-01-02 15:04:05"), ev.OrchestratorID,
			ev.Seq, orDash(who), ev.Actor.Via, ev.Action, orDash(ev.JobID), truncate(ev.Detail, 60))
	}
	return tw.Flush()
}

// parseSince reads "24h", "90m", "7d" as that long before now, or an RFC 3339 instant.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return time.Time{}, fmt.Errorf("%q is not a number of days", s)
		}
		return now.Add(-time.Duration(n) * 24 * time.Hour), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is neither a duration (24h, 7d) nor an RFC 3339 instant", s)
	}
	return now.Add(-d), nil
}

func selectOrchestrators(cfg *config.Config, id string) ([]*config.Orchestrator, error) {
	if id != "" {
		o, err := cfg.Orchestrator(id)
		if err != nil {
			return nil, err
		}
		return []*config.Orchestrator{o}, nil
	}
	var out []*config.Orchestrator
	for _, id := range cfg.OrchestratorIDs() {
		out = append(out, cfg.Orchestrators[id])
	}
	return out, nil
}

// viewStore reads an orchestrator's store; one that was never created
// reads as empty rather than being created by a read.
func viewStore(ctx context.Context, o *config.Orchestrator, fn func(store.Tx) error) error {
	if _, err := os.Stat(storePath(o)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	st, err := bolt.Open(storePath(o), &bolt.Options{LockTimeout: time.Second})
	if err != nil {
		return err
	}
	defer st.Close()
	return st.View(ctx, fn)
}

func runAuditVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("audit verify", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "only this orchestrator (default: all)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("audit verify takes no arguments, got %q", pos[0])
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	orchs, err := selectOrchestrators(cfg, *orchID)
	if err != nil {
		return err
	}
	failed := false
	for _, o := range orchs {
		var n int
		err := viewStore(ctx, o, func(tx store.Tx) (err error) {
			n, err = tx.AuditVerify()
			return err
		})
		var ce *store.ChainError
		switch {
		case errors.As(err, &ce):
			fmt.Fprintf(stdout, "%s: BROKEN at record %d: %s (%d records before it are intact)\n", o.ID, ce.Seq, ce.Reason, n)
			failed = true
		case err != nil:
			return fmt.Errorf("orchestrator %s: %w", o.ID, err)
		default:
			fmt.Fprintf(stdout, "%s: %d records, hash chain intact\n", o.ID, n)
		}
	}
	if failed {
		return fmt.Errorf("audit log hash chain is broken")
	}
	return nil
}
