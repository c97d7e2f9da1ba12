package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"time"

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
// queue, committed before it returns (the event is acknowledged after);
// the key is the item id, so a retried event is not taken twice. A held
// item waits for Amend, at most hold.
func (d *daemon) Enqueue(ctx context.Context, profileID, key string, m orchestrator.Message, hold time.Duration) error {
	oc, err := d.inbox(profileID)
	if err != nil {
		return err
	}
	payload, err := jsonMarshal(m)
	if err != nil {
		return err
	}
	it := &store.QueueItem{ItemID: key, Kind: store.KindMessage, OrchestratorID: oc.cfg.ID, ChannelProfileID: profileID, Payload: payload}
	if hold > 0 {
		it.NotBefore = time.Now().UTC().Add(hold)
	}
	err = oc.store.Update(ctx, func(tx store.Tx) error { return tx.QueueAdd(it) })
	if errors.Is(err, store.ErrExists) {
		return slackad.ErrDuplicate
	}
	if err == nil && oc.worker != nil && hold <= 0 {
		oc.worker.Wake()
	}
	return err
}

// Amend completes a held message (its sender's name and zone) and
// releases it; one the worker already took is left as it is.
func (d *daemon) Amend(ctx context.Context, profileID, key string, m orchestrator.Message) error {
	oc, err := d.inbox(profileID)
	if err != nil {
		return err
	}
	payload, err := jsonMarshal(m)
	if err != nil {
		return err
	}
	err = oc.store.Update(ctx, func(tx store.Tx) error {
		it, err := tx.QueueGet(key)
		if err != nil || it.Queue != store.QueueIncoming {
			return err
		}
		it.Payload, it.NotBefore, it.UpdatedAt = payload, time.Time{}, time.Now().UTC()
		return tx.QueuePut(it)
	})
	if err == nil && oc.worker != nil {
		oc.worker.Wake()
	}
	return err
}

func (d *daemon) inbox(profileID string) (*orch, error) {
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
