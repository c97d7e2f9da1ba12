package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// runParse prints the selector's decision for one text and changes
// nothing. The text is the last argument, taken as written even when it
// starts with "-" (a message can be "--help").
func runParse(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("parse needs TEXT as its last argument")
	}
	text := args[len(args)-1]
	fs := newFlagSet("parse", stderr)
	var common commonFlags
	common.register(fs)
	nowFlag := fs.String("now", "", "the instant to read the text at (RFC 3339; default now)")
	tz := fs.String("tz", "", "the sender's IANA timezone (default the profile's, else the orchestrator's)")
	profileID := fs.String("profile", "", "channel profile the text comes through (default: the terminal profile)")
	pos, err := parseFlags(fs, args[:len(args)-1])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("parse takes one TEXT, as its last argument (quote it)")
	}
	now := time.Now()
	if *nowFlag != "" {
		if now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			return usagef("--now: %q is not RFC 3339", *nowFlag)
		}
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	in, err := selectorInput(cfg, *profileID, *tz, now)
	if err != nil {
		return err
	}
	in.Text = text
	// References ("pause the standup job") resolve against the
	// orchestrator's jobs, as in chat.
	p, _ := cfg.Profile(in.ProfileID)
	if in.Jobs, err = parseJobRefs(ctx, cfg, p.OrchestratorID); err != nil {
		return err
	}
	d, err := rules.New().Select(ctx, in)
	if err != nil {
		return err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, string(b))
	return nil
}

// parseJobRefs reads an orchestrator's jobs without changing anything:
// through the running daemon when it holds the store, else from the store
// opened read-only (a store never created has no jobs).
func parseJobRefs(ctx context.Context, cfg *config.Config, orchID string) ([]selector.JobRef, error) {
	c, err := localapi.Dial(cfg)
	if err != nil {
		return nil, err
	}
	if c != nil {
		args, _ := json.Marshal(map[string]any{"limit": store.MaxListLimit})
		var page store.JobPage
		if err := c.Do(ctx, "/v1/call", localapi.CallRequest{Orchestrator: orchID, Function: "schedule.list", Args: args}, &page); err != nil {
			return nil, err
		}
		var refs []selector.JobRef
		for _, j := range page.Jobs {
			refs = append(refs, selector.RefOf(j))
		}
		return refs, nil
	}
	o, err := cfg.Orchestrator(orchID)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(app.StorePath(o)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	st, err := bolt.Open(app.StorePath(o), &bolt.Options{ReadOnly: true, LockTimeout: time.Second})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return conversation.JobRefs(ctx, st)
}

// selectorInput fills what the selector knows of a profile: its zone, its
// orchestrator's workflows and functions.
func selectorInput(cfg *config.Config, profileID, tz string, now time.Time) (selector.Input, error) {
	if profileID == "" {
		profileID = app.DefaultTarget(cfg, firstOrchestrator(cfg)).ChannelProfileID
	}
	p, err := cfg.Profile(profileID)
	if err != nil {
		return selector.Input{}, usagef("--profile: %v", err)
	}
	o, err := cfg.Orchestrator(p.OrchestratorID)
	if err != nil {
		return selector.Input{}, err
	}
	zone := tz
	if zone == "" {
		zone = p.Timezone
	}
	if zone == "" {
		zone = o.Timezone
	}
	if _, err := time.LoadLocation(zone); err != nil || zone == "Local" {
		return selector.Input{}, usagef("--tz: unknown timezone %q", zone)
	}
	in := selector.Input{ProfileID: p.ID, Channel: p.Channel, Timezone: zone, Now: now}
	for id := range o.Workflows {
		in.Workflows = append(in.Workflows, id)
	}
	for _, fn := range app.KnownFunctions() {
		if config.MatchFunction(o.Functions, fn) {
			in.Functions = append(in.Functions, fn)
		}
	}
	return in, nil
}

func firstOrchestrator(cfg *config.Config) string {
	if o, err := cfg.DefaultOrchestrator(); err == nil {
		return o.ID
	}
	return cfg.OrchestratorIDs()[0]
}
