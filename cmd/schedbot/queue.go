package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/store"
)

func runQueue(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("queue", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "only this orchestrator (default: all)")
	queue := fs.String("queue", "", "only this queue: incoming, processing, outgoing, done or dead (default: all but done)")
	limit := fs.Int("limit", 50, "at most N items per queue")
	asJSON := fs.Bool("json", false, "print as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("queue takes no arguments")
	}
	if *limit < 1 || *limit > store.MaxListLimit {
		return usagef("--limit must be between 1 and %d", store.MaxListLimit)
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	var reports []app.QueueReport
	c, err := localapi.Dial(cfg)
	if err != nil {
		return err
	}
	if c != nil {
		err = c.Do(ctx, "/v1/queue", localapi.QueueRequest{Orchestrator: *orchID, Queue: store.QueueName(*queue), Limit: *limit}, &reports)
	} else {
		reports, err = app.QueueItems(ctx, cfg, app.ViewDirect, *orchID, store.QueueName(*queue), *limit)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reports)
	}
	for _, r := range reports {
		fmt.Fprintf(stdout, "%s: incoming %d, processing %d, outgoing %d, dead %d, done %d\n", r.Orchestrator,
			r.Counts[store.QueueIncoming], r.Counts[store.QueueProcessing], r.Counts[store.QueueOutgoing],
			r.Counts[store.QueueDead], r.Counts[store.QueueDone])
		if len(r.Items) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  QUEUE\tITEM\tKIND\tJOB\tATTEMPTS\tNEXT TRY\tLAST ERROR")
		for _, it := range r.Items {
			next := "now"
			if it.NotBefore.After(time.Now()) {
				next = it.NotBefore.UTC().Format(time.RFC3339)
			}
			if it.Queue == store.QueueDead || it.Queue == store.QueueDone {
				next = "—"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\t%s\n", it.Queue, it.ItemID, it.Kind, orDash(it.JobID), it.Attempts, next, truncate(orDash(it.LastError), 60))
		}
		tw.Flush()
	}
	return nil
}
