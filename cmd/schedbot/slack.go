package main

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"slices"

	slackad "github.com/schedbot/schedbot/adapters/slack"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/store"
)

// newSlackAdapter connects the Slack profiles of the config, with tokens
// from the environment; nil when there are none or no bot token is set.
func newSlackAdapter(cfg *config.Config, d *daemon, log *slog.Logger) *slackad.Adapter {
	var profiles []slackad.Profile
	for _, id := range slices.Sorted(maps.Keys(cfg.ChannelProfiles)) {
		p := cfg.ChannelProfiles[id]
		if p.Channel == config.ChannelSlack && p.Slack != nil {
			profiles = append(profiles, slackad.Profile{ID: id, TeamID: p.Slack.TeamID, Channels: p.Slack.Channels})
		}
	}
	if len(profiles) == 0 {
		return nil
	}
	apiURL := cfg.Slack.APIURL
	if v := os.Getenv(config.EnvSlackAPIURL); v != "" {
		apiURL = v
	}
	a, err := slackad.New(slackad.Options{
		BotToken: os.Getenv("SLACK_BOT_TOKEN"), AppToken: os.Getenv("SLACK_APP_TOKEN"), SigningSecret: os.Getenv("SLACK_SIGNING_SECRET"),
		APIURL: apiURL, Profiles: profiles, Inbox: d, Logger: log,
	})
	if err != nil {
		log.Warn("Slack profiles are configured but Slack is off", slog.Any("error", err))
		return nil
	}
	return a
}

// Enqueue puts a Slack message into its profile's orchestrator's incoming
// queue; the event id is the item id, so a retried event is not taken twice.
func (d *daemon) Enqueue(ctx context.Context, profileID, dedupeKey string, m orchestrator.Message) error {
	p, err := d.cfg.Profile(profileID)
	if err != nil {
		return err
	}
	oc := d.orchs[p.OrchestratorID]
	payload, err := jsonMarshal(m)
	if err != nil {
		return err
	}
	err = oc.store.Update(ctx, func(tx store.Tx) error {
		return tx.QueueAdd(&store.QueueItem{ItemID: dedupeKey, Kind: store.KindMessage, OrchestratorID: oc.cfg.ID,
			ChannelProfileID: profileID, Payload: payload})
	})
	if errors.Is(err, store.ErrExists) {
		return slackad.ErrDuplicate
	}
	if err == nil && oc.worker != nil {
		oc.worker.Wake()
	}
	return err
}
