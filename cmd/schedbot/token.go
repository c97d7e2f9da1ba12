package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/store"
)

// HTTP API tokens: `schedbot token create|list|revoke`. A token lives in
// its profile's orchestrator's store, as a hash; through the running
// daemon when it holds the store, else directly.

var (
	senderPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,63}$`)
	tokenNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,63}$`)
)

func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("token needs create, list or revoke")
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet("token "+sub, stderr)
	var common commonFlags
	common.register(fs)
	req := app.TokenRequest{Op: sub}
	var expires string
	asJSON := fs.Bool("json", false, "print as JSON")
	switch sub {
	case "create":
		fs.StringVar(&req.Profile, "profile", "", "the channel profile the token acts through (required)")
		fs.StringVar(&req.Sender, "sender", "", "the sender id the token acts as, e.g. a Slack user id (required)")
		fs.StringVar(&req.Name, "name", "", "a name for the token, shown in the audit log (default token-ID)")
		fs.StringVar(&expires, "expires", "90d", "lifetime: N days (90d), hours (12h), or never")
		fs.BoolVar(&req.Feed, "feed", false, "a read-only token for the calendar feed (?token=), and nothing else")
	case "list":
	case "revoke":
	default:
		return usagef("token: unknown subcommand %q (create, list or revoke)", sub)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case sub == "revoke" && len(pos) != 1:
		return usagef("token revoke takes one token id (see token list)")
	case sub == "revoke":
		req.ID = pos[0]
	case len(pos) > 0:
		return usagef("token %s takes no arguments", sub)
	}
	if sub == "create" {
		if req.Profile == "" || req.Sender == "" {
			return usagef("token create needs --profile and --sender")
		}
		if !senderPattern.MatchString(req.Sender) {
			return usagef("--sender %q: 1 to 64 letters, digits, '_', '.', '@', ':' or '-'", req.Sender)
		}
		if req.Name != "" && !tokenNamePattern.MatchString(req.Name) {
			return usagef("--name %q: 1 to 64 letters, digits, spaces, '_', '.', ':' or '-'", req.Name)
		}
		d, err := parseLifetime(expires)
		if err != nil {
			return err
		}
		if d > 0 {
			req.ExpiresAt = time.Now().UTC().Add(d).Truncate(time.Second)
		}
	}
	cfg, err := loadConfig(common)
	if err != nil {
		return err
	}
	req.Actor = app.CLIActor("").Sender
	var res app.TokenResult
	c, err := localapi.Dial(cfg)
	if err != nil {
		return err
	}
	if c != nil {
		err = c.Do(ctx, "/v1/token", req, &res)
	} else {
		res, err = app.TokenOp(ctx, cfg, func(o *config.Orchestrator, fn func(store.Store) error) error {
			if sub != "create" && !app.StoreExists(o) {
				return nil // a store never created holds no token
			}
			st, err := app.OpenStore(o)
			if err != nil {
				return err
			}
			defer st.Close()
			return fn(st)
		}, req)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	switch sub {
	case "create":
		fmt.Fprintln(stdout, res.Token)
		exp := "never expires"
		if !res.Record.ExpiresAt.IsZero() {
			exp = "expires " + res.Record.ExpiresAt.Format(time.RFC3339)
		}
		fmt.Fprintf(stderr, "token %s (%q) acts as sender %s of profile %s; %s. It is shown this once: the store keeps only its hash.\n",
			res.Record.ID, res.Record.Name, res.Record.SenderID, res.Record.ChannelProfileID, exp)
	case "revoke":
		fmt.Fprintf(stdout, "token %s (%q) revoked\n", res.Record.ID, res.Record.Name)
	case "list":
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tPROFILE\tSENDER\tKIND\tCREATED\tEXPIRES\tLAST USED\tSTATE")
		now := time.Now()
		for _, t := range res.List {
			kind, state := "api", "active"
			if t.Feed {
				kind = "feed"
			}
			switch {
			case !t.RevokedAt.IsZero():
				state = "revoked " + t.RevokedAt.Format(time.RFC3339)
			case !t.Active(now):
				state = "expired"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.ChannelProfileID, t.SenderID, kind,
				t.CreatedAt.Format(time.RFC3339), timeOrDash(t.ExpiresAt), timeOrDash(t.LastUsedAt), state)
		}
		tw.Flush()
	}
	return nil
}

func timeOrDash(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(time.RFC3339)
}

// parseLifetime reads --expires: "90d", "12h", "30m" or "never" (0).
func parseLifetime(s string) (time.Duration, error) {
	if s == "never" {
		return 0, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 1 || days > 3660 {
			return 0, usagef("--expires %q: want 1d to 3660d, hours such as 12h, or never", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Minute {
		return 0, usagef("--expires %q: want days such as 90d, hours such as 12h (at least 1m), or never", s)
	}
	return d, nil
}
