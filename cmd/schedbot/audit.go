package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/store"
)

func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "verify" {
		return runAuditVerify(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "export" {
		return runAuditExport(ctx, args[1:], stdout, stderr)
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
	q := app.AuditQuery{Orchestrator: *orchID, JobID: *jobID, Actor: *actor, Limit: *limit}
	if *since != "" {
		if q.Since, err = parseSince(*since, time.Now()); err != nil {
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
	var events []*store.AuditEvent
	c, err := localapi.Dial(cfg)
	if err != nil {
		return err
	}
	if c != nil {
		err = c.Do(ctx, "/v1/audit", q, &events)
	} else {
		events, err = app.AuditEvents(ctx, cfg, app.ViewDirect, q)
	}
	if err != nil {
		return err
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

func runAuditVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("audit verify", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "only this orchestrator (default: all)")
	head := fs.String("head", "", "a head hash published before (log, metrics): check the chain still holds it")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("audit verify takes no arguments, got %q", pos[0])
	}
	if *head != "" && !isHash(*head) {
		return usagef("--head: %q is not a hash (64 hex digits, as the log and metrics publish it)", *head)
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	var results []app.VerifyResult
	c, err := localapi.Dial(cfg)
	if err != nil {
		return err
	}
	if c != nil {
		err = c.Do(ctx, "/v1/audit/verify", app.AuditQuery{Orchestrator: *orchID, Head: *head}, &results)
	} else {
		results, err = app.VerifyAudit(ctx, cfg, app.ViewDirect, *orchID, *head)
	}
	if err != nil {
		return err
	}
	broken, headless := false, false
	for _, r := range results {
		what := "hash chain intact"
		if r.Keyed {
			what = "hash chain and every record's MAC intact"
		}
		switch {
		case r.BrokenAt > 0:
			fmt.Fprintf(stdout, "%s: BROKEN at record %d: %s (%d records before it are intact)\n", r.Orchestrator, r.BrokenAt, r.Reason, r.Records)
			broken = true
		case *head != "" && r.HeadFound == 0:
			fmt.Fprintf(stdout, "%s: %d records, %s, but head %s is %s\n", r.Orchestrator, r.Records, what, *head, r.HeadReason)
			headless = true
		case *head != "":
			fmt.Fprintf(stdout, "%s: %d records, %s; head %s is record %d (head now %d %s)\n", r.Orchestrator, r.Records, what, *head, r.HeadFound, r.HeadSeq, r.HeadHash)
		default:
			fmt.Fprintf(stdout, "%s: %d records, %s; head %d %s\n", r.Orchestrator, r.Records, what, r.HeadSeq, r.HeadHash)
		}
	}
	if broken {
		return fmt.Errorf("audit log hash chain is broken")
	}
	if headless {
		return fmt.Errorf("audit log does not hold the head given")
	}
	return nil
}

// isHash reports whether s is a SHA-256 in hex.
func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// runAuditExport writes the audit records older than --until as JSON
// lines and, with --prune, deletes them from the store in the same
// transaction, appending a checkpoint that names the last one, so that
// `audit verify` still passes on what is left.
func runAuditExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("audit export", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "the orchestrator whose log to export (default: the only one, or default)")
	until := fs.String("until", "", "export records before this instant: RFC 3339, a date (2026-01-31, UTC midnight), or an age (90d)")
	out := fs.String("out", "", "write to this file (created, never overwritten) rather than standard output")
	prune := fs.Bool("prune", false, "then delete the records exported, leaving a checkpoint (serve stopped, for a bolt store)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("audit export takes no arguments, got %q", pos[0])
	}
	if *until == "" {
		return usagef("--until is required: the records before it are exported")
	}
	end, err := parseUntil(*until, time.Now())
	if err != nil {
		return usagef("--until: %v", err)
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	o, err := cfg.DefaultOrchestrator()
	if *orchID != "" {
		o, err = cfg.Orchestrator(*orchID)
	}
	if err != nil {
		return err
	}
	if !app.StoreExists(o) {
		return fmt.Errorf("orchestrator %s has no store yet: nothing to export", o.ID)
	}
	w := stdout
	var f *os.File
	if *out != "" {
		if f, err = os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer f.Close()
		w = f
	}
	evs, sealed, err := app.ArchiveAudit(ctx, o, w, f, end)
	if err != nil {
		if f != nil {
			os.Remove(*out) // an archive of a log that did not verify
		}
		return err
	}
	n, pruned := len(evs), 0
	var through uint64
	if *prune && n > 0 {
		through = evs[n-1].Seq
		st, err := app.OpenStore(o)
		if err != nil {
			return err
		}
		defer st.Close()
		pruned, err = app.PruneAudit(ctx, st, o.ID, evs, end)
		if err != nil {
			return fmt.Errorf("prune: %w (the archive is written)", err)
		}
	}
	if !sealed {
		fmt.Fprintf(stderr, "%s: records were written without the audit key; the archive holds the first of them on, checked by their hashes alone\n", o.ID)
	}
	switch {
	case *prune && pruned > 0:
		fmt.Fprintf(stderr, "%s: %d records exported; records up to %d pruned, a checkpoint appended\n", o.ID, n, through)
	default:
		fmt.Fprintf(stderr, "%s: %d records exported\n", o.ID, n)
	}
	return nil
}

// parseUntil reads an RFC 3339 instant, a date (midnight UTC) or an age
// before now ("90d", "48h").
func parseUntil(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return parseSince(s, now)
}
