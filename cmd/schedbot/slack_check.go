package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/deploy"
)

// runSlack runs `schedbot slack check`.
func runSlack(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		return usagef("slack takes one subcommand: check")
	}
	fs := newFlagSet("slack check", stderr)
	var common commonFlags
	common.register(fs)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("slack check takes no arguments")
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	problems := checkSlack(ctx, cfg, stdout)
	if len(problems) == 0 {
		fmt.Fprintln(stdout, "Slack: all set.")
		return nil
	}
	fmt.Fprintf(stdout, "Slack: %d thing(s) to fix:\n", len(problems))
	for _, p := range problems {
		fmt.Fprintln(stdout, "  - "+p)
	}
	return fmt.Errorf("slack check: %d problem(s)", len(problems))
}

// slackAPI posts one Web API method with token and decodes its answer;
// the response's headers come back too (granted scopes are one).
func slackAPI(ctx context.Context, apiURL, method, token string, out any) (http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, apiURL+method, strings.NewReader(url.Values{}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return resp.Header, fmt.Errorf("%s: %s", method, resp.Status)
	}
	return resp.Header, nil
}

// checkSlack checks what a Slack profile needs, as one list of what is
// missing, each with its fix; it prints what it found as it goes.
func checkSlack(ctx context.Context, cfg *config.Config, stdout io.Writer) []string {
	var problems []string
	var teams []string
	for _, id := range slices.Sorted(maps.Keys(cfg.ChannelProfiles)) {
		if p := cfg.ChannelProfiles[id]; p.Channel == config.ChannelSlack && p.Slack != nil {
			teams = append(teams, id+"="+p.Slack.TeamID)
		}
	}
	if len(teams) == 0 {
		return []string{"no Slack channel profile in " + cfg.Source + " — add one (channel: slack, orchestrator_id, slack: {team_id, channels}); see the README's Slack section"}
	}
	apiURL := cfg.Slack.APIURL
	if v := os.Getenv(config.EnvSlackAPIURL); v != "" {
		apiURL = v
	}
	if apiURL == "" {
		apiURL = "https://slack.com/api/"
	}
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	bot, app, secret := os.Getenv("SLACK_BOT_TOKEN"), os.Getenv("SLACK_APP_TOKEN"), os.Getenv("SLACK_SIGNING_SECRET")
	switch {
	case bot == "":
		problems = append(problems, "SLACK_BOT_TOKEN is not set — copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions")
	case !strings.HasPrefix(bot, "xoxb-"):
		problems = append(problems, "SLACK_BOT_TOKEN is not a bot token (xoxb-…) — use the Bot User OAuth Token, not a user or app token")
	default:
		var auth struct {
			OK     bool   `json:"ok"`
			Error  string `json:"error"`
			TeamID string `json:"team_id"`
			Team   string `json:"team"`
			User   string `json:"user"`
		}
		h, err := slackAPI(ctx, apiURL, "auth.test", bot, &auth)
		switch {
		case err != nil:
			problems = append(problems, "auth.test: "+err.Error()+" — check the network, or slack.api_url")
		case !auth.OK:
			problems = append(problems, "auth.test refused SLACK_BOT_TOKEN ("+auth.Error+") — reinstall the app and copy its new Bot User OAuth Token")
		default:
			fmt.Fprintf(stdout, "bot token: ok (@%s in team %s %s)\n", auth.User, auth.TeamID, auth.Team)
			granted := map[string]bool{}
			for _, s := range strings.Split(h.Get("X-OAuth-Scopes"), ",") {
				granted[strings.TrimSpace(s)] = true
			}
			for _, s := range deploy.SlackBotScopes() {
				if !granted[s] {
					problems = append(problems, "scope "+s+" is not granted — add it under OAuth & Permissions (or update the app from deploy/slack-manifest.yaml), then reinstall the app")
				}
			}
			for _, id := range slices.Sorted(maps.Keys(cfg.ChannelProfiles)) {
				p := cfg.ChannelProfiles[id]
				if p.Channel == config.ChannelSlack && p.Slack != nil && p.Slack.TeamID != auth.TeamID {
					problems = append(problems, fmt.Sprintf("profile %s has team_id %q but the token is for team %s — set channel_profiles.%s.slack.team_id: %s", id, p.Slack.TeamID, auth.TeamID, id, auth.TeamID))
				}
			}
		}
	}
	if cfg.Slack.Mode == "http" {
		if secret == "" {
			problems = append(problems, "SLACK_SIGNING_SECRET is not set (slack.mode: http) — copy the Signing Secret from Basic Information")
		}
		return problems
	}
	switch {
	case app == "":
		problems = append(problems, "SLACK_APP_TOKEN is not set (Socket Mode) — enable Socket Mode and create an app-level token with connections:write under Basic Information")
	case !strings.HasPrefix(app, "xapp-"):
		problems = append(problems, "SLACK_APP_TOKEN is not an app-level token (xapp-…) — create one with connections:write under Basic Information")
	default:
		var open struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if _, err := slackAPI(ctx, apiURL, "apps.connections.open", app, &open); err != nil {
			problems = append(problems, "apps.connections.open: "+err.Error()+" — check the network")
		} else if !open.OK {
			problems = append(problems, "Socket Mode refused SLACK_APP_TOKEN ("+open.Error+") — turn Socket Mode on in the app's settings and use an app-level token with connections:write")
		} else {
			fmt.Fprintln(stdout, "socket mode: ok")
		}
	}
	return problems
}
