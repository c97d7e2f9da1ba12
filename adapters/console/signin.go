package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/slack-go/slack"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

// linkPrefix starts a sign-in link's code. It is not TokenPrefix, so the
// API never takes a code for a token.
const linkPrefix = "sbl_"

// SignInLink makes a one-time sign-in link for sender of profile (serve
// prints one for each terminal profile, as Jupyter prints its token): the
// path and query to append to the console's address. The link works once,
// within SignInTTL, and becomes a session.
func (c *Console) SignInLink(ctx context.Context, profile, sender string) (string, error) {
	p, ok := c.opts.Profiles[profile]
	if !ok {
		return "", fmt.Errorf("no channel profile %q", profile)
	}
	st := c.opts.Stores[p.OrchestratorID]
	if st == nil {
		return "", fmt.Errorf("profile %s: orchestrator %s has no store", profile, p.OrchestratorID)
	}
	code := linkPrefix + random(32)
	now := c.opts.Now().UTC().Truncate(time.Second)
	t := &store.Token{Hash: httpapi.HashToken(code), ID: "link-" + random(6), Name: "console sign-in link",
		ChannelProfileID: profile, SenderID: sender, CreatedAt: now, ExpiresAt: now.Add(SignInTTL)}
	if err := st.Update(ctx, func(tx store.Tx) error { return tx.TokenPut(t) }); err != nil {
		return "", err
	}
	return "/console/signin?code=" + code, nil
}

// random is n random bytes, base64url.
func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signInPage consumes a sign-in link's code, or shows the ways to sign in.
func (c *Console) signInPage(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	if code := r.URL.Query().Get("code"); code != "" {
		if c.redeem(w, r, code) {
			http.Redirect(w, r, "/console/calendar", http.StatusSeeOther)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		c.render(w, nil, "signin", "Sign in", map[string]any{"Error": "That sign-in link was used already or has expired. " +
			"Restart serve for a new one, or sign in another way.", "Slack": c.opts.Slack != nil, "Next": ""})
		return
	}
	c.render(w, nil, "signin", "Sign in", map[string]any{"Slack": c.opts.Slack != nil, "Next": safeNext(r.URL.Query().Get("next"))})
}

// redeem turns a sign-in link's code into a session, once: the link is
// revoked in the transaction that makes the session.
func (c *Console) redeem(w http.ResponseWriter, r *http.Request, code string) bool {
	if !strings.HasPrefix(code, linkPrefix) || len(code) > 100 {
		return false
	}
	hash := httpapi.HashToken(code)
	now := c.opts.Now().UTC().Truncate(time.Second)
	for id, st := range c.opts.Stores {
		var sess string
		err := st.Update(r.Context(), func(tx store.Tx) error {
			link, err := tx.TokenGet(hash)
			if err != nil {
				return err
			}
			if !link.Active(now) || link.Name != "console sign-in link" {
				return store.ErrNotFound
			}
			link.RevokedAt = now
			if err := tx.TokenPut(link); err != nil {
				return err
			}
			var t *store.Token
			sess, t = c.newSession(link.ChannelProfileID, link.SenderID, "link", now)
			return tx.TokenPut(t)
		})
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			c.opts.Logger.Error("console: sign-in link", slog.String("orchestrator", id), slog.Any("error", err))
			return false
		}
		c.setSession(w, sess)
		return true
	}
	return false
}

// newSession is a session token for sender of profile: an API token
// lasting SessionTTL, named for the audit log.
func (c *Console) newSession(profile, sender, via string, now time.Time) (string, *store.Token) {
	token, hash := httpapi.NewToken()
	return token, &store.Token{Hash: hash, ID: "session-" + random(6), Name: "console (" + via + ")",
		ChannelProfileID: profile, SenderID: sender, CreatedAt: now, ExpiresAt: now.Add(SessionTTL)}
}

func (c *Console) putSession(ctx context.Context, profile, sender, via string) (string, error) {
	p := c.opts.Profiles[profile]
	st := c.opts.Stores[p.OrchestratorID]
	if st == nil {
		return "", fmt.Errorf("profile %s has no store", profile)
	}
	token, t := c.newSession(profile, sender, via, c.opts.Now().UTC().Truncate(time.Second))
	return token, st.Update(ctx, func(tx store.Tx) error { return tx.TokenPut(t) })
}

func (c *Console) setSession(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/console", MaxAge: int(SessionTTL.Seconds()),
		HttpOnly: true, Secure: c.opts.Secure, SameSite: http.SameSiteLaxMode})
}

// safeNext keeps a post-sign-in destination on the console.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/console/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return ""
	}
	return next
}

// signInWithToken makes a session from an API token pasted into the
// sign-in page: the session acts as the token's sender. A sign-in form
// carries no session yet, so its cross-site check is the Origin header.
func (c *Console) signInWithToken(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	token := strings.TrimSpace(r.PostFormValue("token"))
	next := safeNext(r.PostFormValue("next"))
	if r.Header.Get("Origin") == "" || !c.sameOrigin(r) {
		http.Error(w, "sign-in forms are accepted from this site only", http.StatusForbidden)
		return
	}
	tok, p := c.apiToken(r.Context(), token)
	if tok == nil {
		w.WriteHeader(http.StatusUnauthorized)
		c.render(w, nil, "signin", "Sign in", map[string]any{"Error": "That token is not one schedbot knows, or it was revoked or has expired.",
			"Slack": c.opts.Slack != nil, "Next": next})
		return
	}
	sess, err := c.putSession(r.Context(), p.ID, tok.SenderID, "token "+tok.Name)
	if err != nil {
		c.opts.Logger.Error("console: session", slog.Any("error", err))
		http.Error(w, "could not start a session; it is logged", http.StatusInternalServerError)
		return
	}
	c.setSession(w, sess)
	if next == "" {
		next = "/console/calendar"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut revokes the session's token and clears the cookie.
func (c *Console) signOut(w http.ResponseWriter, r *http.Request, s *session) error {
	st := c.opts.Stores[s.profile.OrchestratorID]
	now := c.opts.Now().UTC().Truncate(time.Second)
	err := st.Update(r.Context(), func(tx store.Tx) error {
		t, err := tx.TokenGet(s.tok.Hash)
		if err != nil {
			return err
		}
		t.RevokedAt = now
		return tx.TokenPut(t)
	})
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/console", MaxAge: -1, HttpOnly: true,
		Secure: c.opts.Secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
	return nil
}

// Sign in with Slack: OpenID Connect's authorization-code flow. The state
// (in a short-lived HttpOnly cookie) ties the callback to the browser
// that started it; the token is exchanged server to server, and the
// user's team must be a Slack profile's.

func (c *Console) publicURL(r *http.Request) string {
	if c.opts.PublicURL != "" {
		return strings.TrimSuffix(c.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil || c.opts.Secure {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (c *Console) slackAPIURL() string {
	if u := c.opts.Slack.APIURL; u != "" {
		return strings.TrimSuffix(u, "/") + "/"
	}
	return slack.APIURL
}

func (c *Console) slackStart(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	if c.opts.Slack == nil {
		http.Error(w, "Sign in with Slack is not set up on this server (see docs/CONSOLE.md)", http.StatusNotFound)
		return
	}
	state := random(24)
	next := safeNext(r.URL.Query().Get("next"))
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: state + "|" + url.QueryEscape(next), Path: "/console/auth/slack",
		MaxAge: int(oidcStateTTL.Seconds()), HttpOnly: true, Secure: c.opts.Secure, SameSite: http.SameSiteLaxMode})
	q := url.Values{"response_type": {"code"}, "scope": {"openid profile"}, "client_id": {c.opts.Slack.ClientID},
		"state": {state}, "nonce": {random(16)}, "redirect_uri": {c.publicURL(r) + "/console/auth/slack/callback"}}
	authorize := strings.TrimSuffix(strings.TrimSuffix(c.slackAPIURL(), "/"), "/api") + "/openid/connect/authorize"
	http.Redirect(w, r, authorize+"?"+q.Encode(), http.StatusFound)
}

func (c *Console) slackCallback(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	refuse := func(status int, msg string) {
		w.WriteHeader(status)
		c.render(w, nil, "signin", "Sign in", map[string]any{"Error": msg, "Slack": c.opts.Slack != nil})
	}
	if c.opts.Slack == nil {
		refuse(http.StatusNotFound, "Sign in with Slack is not set up on this server.")
		return
	}
	ck, err := r.Cookie(oidcCookie)
	state, next, _ := strings.Cut(func() string {
		if err != nil {
			return ""
		}
		return ck.Value
	}(), "|")
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: "", Path: "/console/auth/slack", MaxAge: -1, HttpOnly: true,
		Secure: c.opts.Secure, SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	switch {
	case q.Get("error") != "":
		refuse(http.StatusUnauthorized, "Slack did not sign you in: "+q.Get("error")+".")
		return
	case state == "" || q.Get("state") != state || q.Get("code") == "":
		refuse(http.StatusBadRequest, "That sign-in did not start here, or took over ten minutes. Try again.")
		return
	}
	client := c.opts.Slack.Client
	if client == nil {
		client = http.DefaultClient
	}
	ctx := r.Context()
	resp, err := slack.GetOpenIDConnectTokenContext(ctx, client, c.opts.Slack.ClientID, c.opts.Slack.ClientSecret,
		q.Get("code"), c.publicURL(r)+"/console/auth/slack/callback", slack.OAuthOptionAPIURL(c.slackAPIURL()))
	if err != nil {
		c.opts.Logger.Warn("console: slack openid.connect.token", slog.Any("error", err))
		refuse(http.StatusUnauthorized, "Slack did not confirm that sign-in. Try again.")
		return
	}
	info, err := slack.New(resp.AccessToken, slack.OptionAPIURL(c.slackAPIURL()), slack.OptionHTTPClient(client)).
		GetOpenIDConnectUserInfoContext(ctx)
	if err != nil || info.UserID == "" || info.TeamID == "" {
		c.opts.Logger.Warn("console: slack openid.connect.userInfo", slog.Any("error", err))
		refuse(http.StatusUnauthorized, "Slack did not say who you are. Try again.")
		return
	}
	var ids []string
	for id, p := range c.opts.Profiles {
		if p.Channel == "slack" && p.SlackTeamID == info.TeamID {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		refuse(http.StatusForbidden, "Your Slack workspace ("+info.TeamID+") is not one this schedbot serves.")
		return
	}
	slices.Sort(ids) // several profiles of one team: the first, by id
	sess, err := c.putSession(ctx, ids[0], info.UserID, "slack "+info.Name)
	if err != nil {
		c.opts.Logger.Error("console: session", slog.Any("error", err))
		refuse(http.StatusInternalServerError, "Could not start a session; it is logged.")
		return
	}
	c.setSession(w, sess)
	if next, _ = url.QueryUnescape(next); safeNext(next) == "" {
		next = "/console/calendar"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
