package main

import (
	"context"
	"fmt"
	"io"

	"github.com/schedbot/schedbot/app"
)

// runStore runs `schedbot store SUBCOMMAND`.
func runStore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "copy" {
		return usagef("store takes one subcommand: copy --from-config OLD.yaml --to-config NEW.yaml [--orchestrator ID]")
	}
	fs := newFlagSet("store copy", stderr)
	from := fs.String("from-config", "", "the config whose stores are read")
	to := fs.String("to-config", "", "the config whose stores are written (each must be empty)")
	orchID := fs.String("orchestrator", "", "only this orchestrator (default: every one in --from-config)")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("store copy takes no arguments, got %q", pos[0])
	}
	if *from == "" || *to == "" {
		return usagef("store copy needs --from-config and --to-config")
	}
	src, err := loadConfig(commonFlags{config: *from})
	if err != nil {
		return err
	}
	dst, err := loadConfig(commonFlags{config: *to})
	if err != nil {
		return err
	}
	orchs, err := app.SelectOrchestrators(src, *orchID)
	if err != nil {
		return err
	}
	// Every pair is checked before anything is written.
	for _, o := range orchs {
		d := dst.Orchestrators[o.ID]
		if d == nil {
			return fmt.Errorf("orchestrator %s: not in %s", o.ID, dst.Source)
		}
		if same, err := app.SameStore(o, d); err != nil {
			return err
		} else if same {
			return fmt.Errorf("orchestrator %s: --from-config and --to-config name the same store", o.ID)
		}
	}
	for _, o := range orchs {
		n, err := app.CopyOrchestrator(ctx, o, dst.Orchestrators[o.ID])
		if err != nil {
			return fmt.Errorf("orchestrator %s: %w", o.ID, err)
		}
		fmt.Fprintf(stdout, "%s: copied %d jobs, %d runs, %d queue items, %d audit events (%s -> %s); audit chain verified\n",
			o.ID, n.Jobs, n.Runs, n.Items, n.Events, app.Driver(o), app.Driver(dst.Orchestrators[o.ID]))
	}
	return nil
}
