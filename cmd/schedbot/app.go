package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/user"
	"path/filepath"
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

// orch is one orchestrator opened for a command: its config, store and
// function registry.
type orch struct {
	cfg    *config.Orchestrator
	store  store.Store
	reg    *functions.Registry
	worker *orchestrator.Worker // set while serve or chat runs it
	conv   *conversation.Conversations
}

func (o *orch) Close() error { return o.store.Close() }

func loadConfig(c commonFlags) (*config.Config, error) {
	cfg, err := config.Find(c.config, c.data)
	if err != nil {
		return nil, err
	}
	if err := checkFunctions(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkFunctions rejects an allowlist entry or workflow step that names a
// function schedbot does not have; config cannot know the registry.
func checkFunctions(cfg *config.Config) error {
	known := knownFunctions()
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

// knownFunctions lists every function schedbot has.
func knownFunctions() []string { return functions.NewRegistry(functions.Deps{}).IDs() }

func matchesAny(pattern string, ids []string) bool {
	for _, id := range ids {
		if config.MatchFunction([]string{pattern}, id) {
			return true
		}
	}
	return false
}

// pickOrchestrator resolves --orchestrator and --profile: a profile names
// its orchestrator, and naming another one as well is a usage error.
func pickOrchestrator(cfg *config.Config, orchID, profileID string) (*config.Orchestrator, *config.ChannelProfile, error) {
	var prof *config.ChannelProfile
	if profileID != "" {
		p, err := cfg.Profile(profileID)
		if err != nil {
			return nil, nil, usagef("--profile: %v", err)
		}
		prof = p
		if orchID != "" && orchID != p.OrchestratorID {
			return nil, nil, usagef("--orchestrator %q conflicts with profile %q, which belongs to %q", orchID, profileID, p.OrchestratorID)
		}
		orchID = p.OrchestratorID
	}
	if orchID == "" {
		o, err := cfg.DefaultOrchestrator()
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		return o, prof, nil
	}
	o, err := cfg.Orchestrator(orchID)
	if err != nil {
		return nil, nil, err
	}
	return o, prof, nil
}

func storePath(o *config.Orchestrator) string { return bolt.Path(o.RuntimeRoot) }

// dataWhere says where cfg's data is, for a person to find it again: each
// orchestrator's store file, or its database.
func dataWhere(cfg *config.Config) string {
	var parts []string
	for _, id := range cfg.OrchestratorIDs() {
		o := cfg.Orchestrators[id]
		where := storePath(o)
		if isPostgres(o) {
			where = "the PostgreSQL database in $" + o.Store.DSNEnv
		}
		if len(cfg.Orchestrators) > 1 {
			where = id + ": " + where
		}
		parts = append(parts, where)
	}
	return strings.Join(parts, "; ")
}

// oldDataNote points at ./.schedbot when it holds a store of an older
// schedbot, which kept its data in the current directory, and the
// embedded default now looks elsewhere ("" otherwise).
func oldDataNote(c commonFlags, cfg *config.Config) string {
	if c.data != "" || cfg.Source != "embedded default" {
		return ""
	}
	old, err := filepath.Abs(".schedbot")
	if err != nil || old == config.DefaultDataDir() {
		return ""
	}
	if _, err := os.Stat(filepath.Join(old, "default", "automation", "automation.db")); err != nil {
		return ""
	}
	return fmt.Sprintf("note: %s holds the data of an older schedbot, which kept it in the current directory; "+
		"run with --data %s to use it", old, old)
}

// openOrch opens an orchestrator's store and builds its registry; changed
// is called after each committed job change (nil: nothing to wake).
func openOrch(cfg *config.Config, o *config.Orchestrator, log *slog.Logger, changed func()) (*orch, error) {
	st, err := openStore(o)
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
	return &orch{cfg: o, store: st, reg: reg}, nil
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

// cliActor is the person at the terminal: the OS user, via cli.
func cliActor(profileID string) store.Actor {
	a := store.Actor{ChannelProfileID: profileID, Via: store.ViaCLI, SenderID: fmt.Sprint(os.Getuid())}
	if u, err := user.Current(); err == nil {
		a.Sender = u.Username
	} else if name := os.Getenv("USER"); name != "" {
		a.Sender = name
	}
	return a
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
