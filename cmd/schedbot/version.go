package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/schedbot/schedbot/app"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func runVersion(w io.Writer) error {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok && v == "" {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintf(w, "schedbot %s %s %s/%s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

func runFunctions(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("functions", stderr)
	var common commonFlags
	common.register(fs)
	orchID := fs.String("orchestrator", "", "orchestrator id")
	asJSON := fs.Bool("json", false, "print the tool definitions (JSON schemas) as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("functions takes no arguments")
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	o, _, err := app.PickOrchestrator(cfg, *orchID, "")
	if err != nil {
		return err
	}
	oc, err := app.OpenOrch(cfg, o, discardLogger(), nil)
	if err != nil {
		return err
	}
	defer oc.Close()
	tools := oc.Reg.Tools()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(tools)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, t := range tools {
		desc, _, _ := strings.Cut(t.Description, ". ")
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, strings.TrimSuffix(desc, "."))
	}
	return tw.Flush()
}
