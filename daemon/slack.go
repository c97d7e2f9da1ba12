package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// newSlackAdapter connects the Slack profiles of the config, with tokens
// from the environment; nil when there are none. A Slack profile without
// its token is an error: serve must not run half set up.
func newSlackAdapter(cfg *config.Config, d *Daemon, log *slog.Logger) (*slackad.Adapter, error) {
	var profiles []slackad.Profile
	for _, id := range slices.Sorted(maps.Keys(cfg.ChannelProfiles)) {
		p := cfg.ChannelProfiles[id]
		if p.Channel == config.ChannelSlack && p.Slack != nil {
			profiles = append(profiles, slackad.Profile{ID: id, TeamID: p.Slack.TeamID, Channels: p.Slack.Channels})
		}
	}
	if len(profiles) == 0 {
		return nil, nil
	}
	if missing := missingSlackEnv(cfg); len(missing) > 0 {
		// serve refuses this before it starts (RequireSlackEnv); chat
		// talks through the terminal without Slack.
		log.Warn("Slack profiles are configured but Slack is off", slog.String("missing", strings.Join(missing, ", ")))
		return nil, nil
	}
	apiURL := cfg.Slack.APIURL
	if v := os.Getenv(config.EnvSlackAPIURL); v != "" {
		apiURL = v
	}
	a, err := slackad.New(slackad.Options{
		BotToken: os.Getenv("SLACK_BOT_TOKEN"), AppToken: os.Getenv("SLACK_APP_TOKEN"), SigningSecret: os.Getenv("SLACK_SIGNING_SECRET"),
		APIURL: apiURL, Profiles: profiles, Inbox: d, Backend: d, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// RequireSlackEnv refuses a config with a Slack profile whose secrets the
// environment lacks: serve must not run half set up.
func RequireSlackEnv(cfg *config.Config) error {
	missing := missingSlackEnv(cfg)
	if len(missing) == 0 {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(cfg.ChannelProfiles)) {
		if p := cfg.ChannelProfiles[id]; p.Channel == config.ChannelSlack && p.Slack != nil {
			list := strings.Join(missing, " and ")
			return fmt.Errorf("Slack profile %s is configured but %s not set: set %s from the app's settings (see `schedbot slack check`), or remove the profile", id, list, list)
		}
	}
	return nil
}

// missingSlackEnv lists the Slack secrets the config's mode needs that the
// environment lacks.
func missingSlackEnv(cfg *config.Config) []string {
	var missing []string
	need := []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"}
	if cfg.Slack.Mode == "http" {
		need = []string{"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"}
	}
	for _, v := range need {
		if os.Getenv(v) == "" {
			missing = append(missing, v)
		}
	}
	return missing
}

// Call runs a click's, a form's or a shortcut's function in the profile's
// orchestrator: the registry, its validation and authority, as chat.
func (d *Daemon) Call(ctx context.Context, profileID string, req functions.Request) (any, error) {
	oc, err := d.inbox(profileID)
	if err != nil {
		return nil, err
	}
	return oc.Reg.Call(ctx, req)
}

// Has says whether the profile's orchestrator may call function.
func (d *Daemon) Has(profileID, function string) bool {
	oc, err := d.inbox(profileID)
	return err == nil && slices.Contains(oc.Reg.Allowed(), function)
}

// Job reads one job of the profile's orchestrator.
func (d *Daemon) Job(ctx context.Context, profileID, jobID string) (j *store.Job, err error) {
	oc, err := d.inbox(profileID)
	if err != nil {
		return nil, err
	}
	err = oc.Store.View(ctx, func(tx store.Tx) (err error) { j, err = tx.JobGet(jobID); return err })
	return j, err
}

// HomeJobs are the jobs a user created through the profile; an admin of
// the profile gets every job made through it.
func (d *Daemon) HomeJobs(ctx context.Context, profileID, userID string) ([]*store.Job, error) {
	oc, err := d.inbox(profileID)
	if err != nil {
		return nil, err
	}
	p, _ := d.cfg.Profile(profileID)
	admin := slices.Contains(p.Admins, userID)
	var out []*store.Job
	err = oc.Store.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		params := &store.JobListParams{Limit: store.MaxListLimit}
		if !admin {
			params.CreatedBy = userID
		}
		for pages := 0; pages < 20; pages++ {
			page, err := tx.JobList(params)
			if err != nil {
				return err
			}
			for _, j := range page.Jobs {
				if j.CreatedBy.ChannelProfileID == profileID {
					out = append(out, j)
				}
			}
			if page.NextCursor == "" {
				return nil
			}
			params.Cursor = page.NextCursor
		}
		return nil
	})
	return out, err
}

// OpenQuestion says whether m answers a question schedbot asked its sender.
func (d *Daemon) OpenQuestion(ctx context.Context, profileID string, m orchestrator.Message) bool {
	oc, err := d.inbox(profileID)
	if err != nil {
		return false
	}
	open := false
	oc.Store.View(ctx, func(tx store.Tx) error {
		open = conversation.OpenQuestion(tx, profileID, &m, time.Now())
		return nil
	})
	return open
}

// Draft is what m would do, decided as chat decides and run in a
// transaction rolled back: the call, and its confirmation as it would
// read (or the question asked instead).
func (d *Daemon) Draft(ctx context.Context, profileID string, m orchestrator.Message) (*functions.Request, string) {
	oc, err := d.inbox(profileID)
	if err != nil || oc.Conv == nil {
		return nil, "schedbot is not serving this profile."
	}
	req, answer := oc.Conv.Draft(ctx, profileID, &m)
	if req == nil {
		return nil, answer
	}
	text, err := conversation.DryRun(ctx, oc.Store, oc.Reg, *req)
	if err != nil {
		return nil, "That would not work: " + err.Error()
	}
	return req, text
}

// failureNoteEvery is how often a job's owner hears of its failures.
const failureNoteEvery = 24 * time.Hour

// tellOwner DMs a Slack job's creator that a run's post failed for good,
// why and the fix, at most once a failureNoteEvery per job (the last note
// is kept in the store, so a restart does not repeat it).
func (d *Daemon) tellOwner(ctx context.Context, oc *app.Orch, a *slackad.Adapter, it *store.QueueItem, cause error) {
	var j *store.Job
	send := false
	now := time.Now().UTC()
	err := oc.Store.Update(ctx, func(tx store.Tx) error {
		var err error
		if j, err = tx.JobGet(it.JobID); err != nil {
			return err
		}
		if j.CreatedBy.Via != store.ViaSlack || j.CreatedBy.SenderID == "" {
			return nil
		}
		key := "failnote|" + j.JobID
		if last, err := tx.ConversationGet(key); err == nil && now.Sub(last.UpdatedAt) < failureNoteEvery {
			return nil
		}
		send = true
		return tx.ConversationPut(&store.Conversation{Key: key, JobID: j.JobID, UpdatedAt: now})
	})
	if err != nil || !send {
		if err != nil {
			d.log.Warn("note a failure to its job's owner", slog.String("jobId", it.JobID), slog.Any("error", err))
		}
		return
	}
	text := fmt.Sprintf("Your schedule %s (%s) could not post: %s I'll tell you at most once a day; `/schedule show %s` has its history.",
		j.JobID, j.Description, slackad.FailureFix(cause.Error()), j.JobID)
	if err := a.NotifyOwner(ctx, j.CreatedBy.SenderID, text); err != nil {
		d.log.Warn("DM a job's owner about its failure", slog.String("jobId", j.JobID), slog.Any("error", err))
	}
}

// Enqueue puts a Slack message into its profile's orchestrator's incoming
// queue, committed before it returns (the event is acknowledged after);
// the key is the item id, so a retried event is not taken twice. A held
// item waits for Amend, at most hold.
func (d *Daemon) Enqueue(ctx context.Context, profileID, key string, m orchestrator.Message, hold time.Duration) error {
	oc, err := d.inbox(profileID)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(m)
	if err != nil {
		return err
	}
	it := &store.QueueItem{ItemID: key, Kind: store.KindMessage, OrchestratorID: oc.Cfg.ID, ChannelProfileID: profileID, Payload: payload}
	if hold > 0 {
		it.NotBefore = time.Now().UTC().Add(hold)
	}
	err = oc.Store.Update(ctx, func(tx store.Tx) error { return tx.QueueAdd(it) })
	if errors.Is(err, store.ErrExists) {
		return slackad.ErrDuplicate
	}
	if err == nil && oc.Worker != nil && hold <= 0 {
		oc.Worker.Wake()
	}
	return err
}

// Amend completes a held message (its sender's name and zone) and
// releases it; one the worker already took is left as it is.
func (d *Daemon) Amend(ctx context.Context, profileID, key string, m orchestrator.Message) error {
	oc, err := d.inbox(profileID)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(m)
	if err != nil {
		return err
	}
	err = oc.Store.Update(ctx, func(tx store.Tx) error {
		it, err := tx.QueueGet(key)
		if err != nil || it.Queue != store.QueueIncoming {
			return err
		}
		it.Payload, it.NotBefore, it.UpdatedAt = payload, time.Time{}, time.Now().UTC()
		return tx.QueuePut(it)
	})
	if err == nil && oc.Worker != nil {
		oc.Worker.Wake()
	}
	return err
}

func (d *Daemon) inbox(profileID string) (*app.Orch, error) {
	p, err := d.cfg.Profile(profileID)
	if err != nil {
		return nil, err
	}
	oc := d.orchs[p.OrchestratorID]
	if oc == nil {
		return nil, fmt.Errorf("orchestrator %q of profile %q is not served", p.OrchestratorID, profileID)
	}
	return oc, nil
}
