package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/store"
)

// runDoctor lists the records of each store that cannot be read (the
// scheduler sets their jobs aside and fires the others) and, with
// --repair, fixes or removes them, saying what it did and auditing it.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "only this orchestrator (default: all)")
	repair := fs.Bool("repair", false, "fix or remove what does not read (serve stopped, for a bolt store)")
	asJSON := fs.Bool("json", false, "print the problems as JSON, one per line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("doctor takes no arguments, got %q", pos[0])
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	orchs, err := app.SelectOrchestrators(cfg, *orchID)
	if err != nil {
		return err
	}
	left := 0
	for _, o := range orchs {
		if !app.StoreExists(o) {
			fmt.Fprintf(stdout, "%s: no store yet\n", o.ID)
			continue
		}
		problems, err := app.Doctor(ctx, o.ID, func() (store.Store, error) { return app.OpenStore(o) }, *repair)
		if err != nil {
			return fmt.Errorf("orchestrator %s: %w", o.ID, err)
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			for _, p := range problems {
				if err := enc.Encode(struct {
					Orchestrator string `json:"orchestrator"`
					store.Problem
				}{o.ID, p}); err != nil {
					return err
				}
			}
		} else {
			printProblems(stdout, o.ID, problems, *repair)
		}
		if !*repair {
			left += len(problems)
		}
	}
	if left > 0 {
		return fmt.Errorf("%d record(s) do not read; `schedbot doctor --repair` fixes or removes them", left)
	}
	return nil
}

func printProblems(w io.Writer, orchID string, problems []store.Problem, repaired bool) {
	if len(problems) == 0 {
		fmt.Fprintf(w, "%s: every record reads\n", orchID)
		return
	}
	verb := "do not read"
	if repaired {
		verb = "did not read"
	}
	fmt.Fprintf(w, "%s: %d record(s) %s\n", orchID, len(problems), verb)
	for _, p := range problems {
		fmt.Fprintf(w, "  %s %q: %s\n", p.Kind, p.ID, p.Error)
		if len(p.Bytes) > 0 {
			b := string(p.Bytes)
			if len(b) > 400 {
				b = b[:400] + "…"
			}
			fmt.Fprintf(w, "    bytes: %s\n", strings.TrimSpace(fmt.Sprintf("%q", b)))
		}
		if p.Repair != "" {
			fmt.Fprintf(w, "    repaired: %s\n", p.Repair)
		}
	}
}
