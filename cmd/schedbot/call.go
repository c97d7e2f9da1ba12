package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/store"
)

func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("call", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "orchestrator id (default: the only one, or \"default\")")
	profileID := fs.String("profile", "", "channel profile to act through (sets the orchestrator)")
	argsJSON := fs.String("args", "", "arguments as a JSON object")
	argsFile := fs.String("args-file", "", "read the arguments from FILE (- for standard input)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	requestID := fs.String("request-id", "", "idempotency key: a retry with the same id returns the first result instead of acting twice (default: a new id each call)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("call takes one FUNCTION (e.g. schedule.list), got %d arguments", len(pos))
	}
	if *argsJSON != "" && *argsFile != "" {
		return usagef("--args and --args-file cannot both be given")
	}
	raw := []byte(*argsJSON)
	if *argsFile != "" {
		var rerr error
		if *argsFile == "-" {
			raw, rerr = io.ReadAll(io.LimitReader(os.Stdin, functions.MaxArgsBytes+1))
		} else {
			raw, rerr = readLimited(*argsFile, functions.MaxArgsBytes+1)
		}
		if rerr != nil {
			return fmt.Errorf("--args-file: %w", rerr)
		}
	}
	if *requestID == "" {
		*requestID = app.NewRequestID()
	} else if err := app.CheckRequestID(*requestID); err != nil {
		return err
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	o, _, err := app.PickOrchestrator(cfg, *orchID, *profileID)
	if err != nil {
		return err
	}
	res := app.ResultFor(pos[0])
	c, err := localapi.Dial(cfg)
	if err != nil {
		return err
	}
	if c != nil {
		// serve holds the store: go through it, so its scheduler wakes too.
		// Its request carries args as JSON, which must be JSON to be sent.
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = []byte("{}")
		} else if err := json.Unmarshal(raw, new(any)); err != nil {
			return &functions.FieldError{Field: "args", Rule: "not valid JSON: " + err.Error()}
		}
		err = c.Do(ctx, "/v1/call", localapi.CallRequest{Orchestrator: o.ID, Profile: *profileID, Function: pos[0], Args: json.RawMessage(raw), RequestID: *requestID}, res)
		var cut *localapi.CutError
		if errors.As(err, &cut) {
			return fmt.Errorf("%w\nThe daemon may or may not have made the call. Retrying it with --request-id %s is safe: it returns the first result and never acts twice.", err, *requestID)
		}
	} else {
		var oc *app.Orch
		if oc, err = app.OpenOrch(cfg, o, discardLogger(), nil); err != nil {
			return err
		}
		defer oc.Close()
		var out json.RawMessage
		if out, err = app.CallOnce(ctx, oc, *profileID, functions.Request{Function: pos[0], Args: raw, Actor: app.CLIActor(*profileID)}, *requestID); err == nil {
			err = json.Unmarshal(out, res)
		}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printResult(stdout, pos[0], res)
	return nil
}

func readLimited(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// printResult writes a result for a person to read.
func printResult(w io.Writer, fn string, res any) {
	switch r := res.(type) {
	case *functions.JobResult:
		verb := map[string]string{
			"schedule.create": "Created", "schedule.update": "Updated", "schedule.pause": "Paused",
			"schedule.resume": "Resumed", "schedule.delete": "Deleted",
			"schedule.skip": "Skipped runs of", "schedule.unskip": "Restored a run of",
			"schedule.snooze": "Snoozed", "schedule.complete": "Marked a run done of",
		}[fn]
		printJob(w, verb, r)
	case *store.JobPage:
		printJobs(w, r)
	case *functions.RunNowResult:
		fmt.Fprintf(w, "Queued a manual run of job %s (execution %s, item %s).\n", r.Job.JobID, r.Run.ExecutionID, r.ItemID)
		fmt.Fprintln(w, "It runs when `schedbot serve` picks it up; the next scheduled run is unchanged.")
	case *functions.MessagePostResult:
		fmt.Fprintf(w, "Queued the message for delivery (item %s in %s).\n", r.ItemID, r.Queue)
	default:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	}
}

func zoneOf(j *store.Job) *time.Location {
	if loc, err := time.LoadLocation(j.Schedule.Timezone); err == nil && j.Schedule.Timezone != "" {
		return loc
	}
	return time.UTC
}

func localTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
}

func actionText(a store.TargetAction) string {
	switch a.Type {
	case store.ActionWorkflowStart:
		return "start workflow " + a.WorkflowID
	case store.ActionCommandInvoke:
		if a.FunctionID == "message.post" {
			var m functions.MessagePostArgs
			if json.Unmarshal(a.FunctionArgs, &m) == nil {
				return fmt.Sprintf("post %q", truncate(m.Text, 60))
			}
		}
		return "call " + a.FunctionID + " " + truncate(string(a.FunctionArgs), 60)
	}
	return a.Type
}

func targetText(r *store.TargetRef, created store.Actor) string {
	switch {
	case r == nil && created.ChannelProfileID != "":
		return "where it was created (profile " + created.ChannelProfileID + ")"
	case r == nil:
		return "the orchestrator's default channel"
	case r.Channel == "slack" && r.PostingMode == store.PostThread:
		return "slack " + r.ChannelID + " in thread " + r.ThreadTS
	case r.Channel == "slack":
		return "slack " + r.ChannelID
	}
	return r.Channel
}

func truncate(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func printJob(w io.Writer, verb string, r *functions.JobResult) {
	j := r.Job
	loc := zoneOf(j)
	title := "Job " + j.JobID
	if j.Name != "" {
		title += " “" + j.Name + "”"
	}
	if verb != "" {
		title = verb + " " + strings.ToLower(title[:1]) + title[1:]
	}
	fmt.Fprintf(w, "%s — %s\n", title, j.State)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "  When:\t%s\n", j.Description)
	fmt.Fprintf(tw, "  Action:\t%s\n", actionText(j.TargetAction))
	fmt.Fprintf(tw, "  Target:\t%s\n", targetText(j.TargetRef, j.CreatedBy))
	if len(r.NextRuns) > 0 {
		var next []string
		for _, t := range r.NextRuns {
			next = append(next, localTime(t, loc))
		}
		fmt.Fprintf(tw, "  Next:\t%s\n", strings.Join(next, ", "))
	}
	if !j.LastRunAt.IsZero() {
		last := localTime(j.LastRunAt, loc)
		if j.LastResult != nil {
			last += " (" + j.LastResult.Status + ")"
		}
		fmt.Fprintf(tw, "  Last run:\t%s, %d runs in all\n", last, j.RunCount)
	}
	fmt.Fprintf(tw, "  Created:\t%s by %s via %s\n", j.CreatedAt.Format(time.RFC3339), orDash(j.CreatedBy.Sender), j.CreatedBy.Via)
	tw.Flush()
	if len(r.Runs) > 0 {
		fmt.Fprintln(w, "  Recent runs:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    SCHEDULED\tSTATUS\tEXECUTION\tNOTE")
		for _, run := range r.Runs {
			note := run.Error
			if note == "" {
				note = run.Reason
			}
			if run.Manual {
				note = strings.TrimSpace("manual " + note)
			}
			if run.DoneBy != nil {
				note = strings.TrimSpace("done by " + orDash(run.DoneBy.Sender) + " " + localTime(run.DoneAt, loc) + " " + note)
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", localTime(run.ScheduledAt, loc), run.Status, run.ExecutionID, truncate(note, 60))
		}
		tw.Flush()
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func printJobs(w io.Writer, p *store.JobPage) {
	if len(p.Jobs) == 0 {
		fmt.Fprintln(w, "No jobs.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB ID\tSTATE\tNEXT RUN\tNAME\tWHEN\tACTION")
	for _, j := range p.Jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", j.JobID, j.State, localTime(j.NextRunAt, zoneOf(j)),
			orDash(j.Name), j.Description, actionText(j.TargetAction))
	}
	tw.Flush()
	if p.NextCursor != "" {
		fmt.Fprintf(w, "More: --args '{\"cursor\":%q}'\n", p.NextCursor)
	}
}
