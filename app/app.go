// Package app holds the operations behind schedbot's commands: open an
// orchestrator's store and function registry from the config, make a call
// at most once per request id, read the audit log and the queue, change
// the HTTP API's tokens; and, with serve stopped, archive and prune the
// audit log, check and repair a store, copy one store into another. The
// CLI runs them on stores it opens for the moment; `schedbot serve` runs
// the first ones on the stores it holds, for the CLI's calls through its
// local API.
package app

import (
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// Orch is one orchestrator opened for a command: its config, store and
// function registry.
type Orch struct {
	Cfg    *config.Orchestrator
	Store  store.Store
	Reg    *functions.Registry
	Worker *orchestrator.Worker // set while serve or chat runs it
	Conv   *conversation.Conversations
}

func (o *Orch) Close() error { return o.Store.Close() }

// CheckFunctions rejects an allowlist entry or workflow step that names a
// function schedbot does not have; config cannot know the registry.
func CheckFunctions(cfg *config.Config) error {
	known := KnownFunctions()
	var errs []string
	for _, id := range cfg.OrchestratorIDs() {
		o := cfg.Orchestrators[id]
		for i, p := range o.Functions {
			if !matchesAny(p, known) {
				errs = append(errs, fmt.Sprintf("orchestrators.%s.functions[%d]: %q matches no function (known: %s)", id, i, p, strings.Join(known, ", ")))
			}
		}
		for _, wid := range slices.Sorted(maps.Keys(o.Workflows)) {
			for i, s := range o.Workflows[wid].Steps {
				if !matchesAny(s.Function, known) {
					errs = append(errs, fmt.Sprintf("orchestrators.%s.workflows.%s.steps[%d].function: unknown function %q", id, wid, i, s.Function))
				} else if !functions.IsAction(s.Function) {
					errs = append(errs, fmt.Sprintf("orchestrators.%s.workflows.%s.steps[%d].function: %s is a schedule function; a workflow runs action functions only", id, wid, i, s.Function))
				}
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("config %s:\n%s", cfg.Source, strings.Join(errs, "\n"))
	}
	return nil
}

// KnownFunctions lists every function schedbot has.
func KnownFunctions() []string { return functions.NewRegistry(functions.Deps{}).IDs() }

func matchesAny(pattern string, ids []string) bool {
	for _, id := range ids {
		if config.MatchFunction([]string{pattern}, id) {
			return true
		}
	}
	return false
}

// PickOrchestrator resolves --orchestrator and --profile: a profile names
// its orchestrator, and naming another one as well is a usage error.
func PickOrchestrator(cfg *config.Config, orchID, profileID string) (*config.Orchestrator, *config.ChannelProfile, error) {
	var prof *config.ChannelProfile
	if profileID != "" {
		p, err := cfg.Profile(profileID)
		if err != nil {
			return nil, nil, Usagef("--profile: %v", err)
		}
		prof = p
		if orchID != "" && orchID != p.OrchestratorID {
			return nil, nil, Usagef("--orchestrator %q conflicts with profile %q, which belongs to %q", orchID, profileID, p.OrchestratorID)
		}
		orchID = p.OrchestratorID
	}
	if orchID == "" {
		o, err := cfg.DefaultOrchestrator()
		if err != nil {
			return nil, nil, Usagef("%v", err)
		}
		return o, prof, nil
	}
	o, err := cfg.Orchestrator(orchID)
	if err != nil {
		return nil, nil, err
	}
	return o, prof, nil
}

func StorePath(o *config.Orchestrator) string { return bolt.Path(o.RuntimeRoot) }

// DataWhere says where cfg's data is, for a person to find it again: each
// orchestrator's store file, or its database.
func DataWhere(cfg *config.Config) string {
	var parts []string
	for _, id := range cfg.OrchestratorIDs() {
		o := cfg.Orchestrators[id]
		where := StorePath(o)
		if IsPostgres(o) {
			where = "the PostgreSQL database in $" + o.Store.DSNEnv
		}
		if len(cfg.Orchestrators) > 1 {
			where = id + ": " + where
		}
		parts = append(parts, where)
	}
	return strings.Join(parts, "; ")
}

// OpenOrch opens an orchestrator's store and builds its registry; changed
// is called after each committed job change (nil: nothing to wake).
func OpenOrch(cfg *config.Config, o *config.Orchestrator, log *slog.Logger, changed func()) (*Orch, error) {
	st, err := OpenStore(o)
	if err != nil {
		return nil, err
	}
	workflows := map[string]bool{}
	for id := range o.Workflows {
		workflows[id] = true
	}
	reg := functions.NewRegistry(functions.Deps{
		Store: st,
		Orchestrator: functions.Orchestrator{
			ID: o.ID, Timezone: o.Timezone, MaxJobs: o.MaxJobs, Functions: o.Functions, Workflows: workflows,
			MaxJobsPerSender: o.MaxJobsPerSender, MinInterval: time.Duration(o.MinInterval),
		},
		Profiles:    functionProfiles(cfg, o.ID),
		Logger:      log,
		ChangedFunc: changed,
	})
	return &Orch{Cfg: o, Store: st, Reg: reg}, nil
}

// functionProfiles are an orchestrator's channel profiles as its functions
// see them: where its jobs may post and who administers them.
func functionProfiles(cfg *config.Config, orchID string) map[string]functions.Profile {
	out := map[string]functions.Profile{}
	for id, p := range cfg.ChannelProfiles {
		if p.OrchestratorID != orchID {
			continue
		}
		fp := functions.Profile{Channel: p.Channel, Admins: p.Admins}
		if p.Slack != nil {
			fp.Channels = p.Slack.Channels
		}
		out[id] = fp
	}
	return out
}

// CLIActor is the person at the terminal: the OS user, via cli.
func CLIActor(profileID string) store.Actor {
	a := store.Actor{ChannelProfileID: profileID, Via: store.ViaCLI, SenderID: fmt.Sprint(os.Getuid())}
	if u, err := user.Current(); err == nil {
		a.Sender = u.Username
	} else if name := os.Getenv("USER"); name != "" {
		a.Sender = name
	}
	return a
}

// DefaultTarget is where an orchestrator's messages go when nothing says
// where: its terminal profile (the embedded default's prints on serve's
// standard output).
func DefaultTarget(cfg *config.Config, orchID string) store.TargetRef {
	for _, id := range slices.Sorted(maps.Keys(cfg.ChannelProfiles)) {
		p := cfg.ChannelProfiles[id]
		if p.OrchestratorID == orchID && p.Channel == config.ChannelTerminal {
			return store.TargetRef{Channel: config.ChannelTerminal, ChannelProfileID: id}
		}
	}
	return store.TargetRef{Channel: config.ChannelTerminal}
}
