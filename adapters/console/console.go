package console

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

// Profile is a channel profile a person may sign in through.
type Profile struct {
	ID             string
	OrchestratorID string
	Channel        string // slack | terminal
	Timezone       string // default zone of its people; empty: UTC
	SlackTeamID    string // the team Sign in with Slack must name
}

// SlackSignIn configures Sign in with Slack (OpenID Connect). The secret
// comes from the environment, never from a file.
type SlackSignIn struct {
	ClientID     string
	ClientSecret string
	// APIURL is Slack's Web API base ("https://slack.com/api/"); the
	// authorize page is beside it ("https://slack.com/openid/connect/authorize").
	APIURL string
	Client *http.Client // default http.DefaultClient
}

// Options configure New.
type Options struct {
	// API is the HTTP API (httpapi.New): mounted at /api/ and the only way
	// the console reads or changes anything.
	API http.Handler
	// Stores hold each orchestrator's sessions and sign-in links, as
	// tokens; by orchestrator id.
	Stores   map[string]store.Store
	Profiles map[string]Profile
	Slack    *SlackSignIn // nil: no Sign in with Slack
	// PublicURL is where people reach the console ("https://schedbot.example.com"),
	// for Slack's redirect; default: the request's own scheme and host.
	PublicURL string
	// Secure marks cookies Secure: the listener is TLS, or behind a proxy
	// that is.
	Secure bool
	Now    func() time.Time // default time.Now
	Logger *slog.Logger     // default: discard
}

// Lifetimes.
const (
	SessionTTL   = 12 * time.Hour
	SignInTTL    = 24 * time.Hour // an unused sign-in link
	oidcStateTTL = 10 * time.Minute
)

// Cookie names; every cookie is scoped to /console.
const (
	sessionCookie = "schedbot_session"
	tzCookie      = "schedbot_tz"
	oidcCookie    = "schedbot_oidc"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Console serves the web console; New makes one.
type Console struct {
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
}

// New returns the console and, at /api/, the API it is a client of.
func New(o Options) *Console {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{opts: o, mux: http.NewServeMux(), pages: parsePages()}
	c.mux.Handle("/api/", o.API)
	c.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/", http.StatusSeeOther)
	})
	static, _ := fs.Sub(staticFS, "static")
	c.mux.Handle("GET /console/static/", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	c.mux.HandleFunc("GET /console/signin", c.signInPage)
	c.mux.HandleFunc("POST /console/signin", c.signInWithToken)
	c.mux.HandleFunc("GET /console/auth/slack", c.slackStart)
	c.mux.HandleFunc("GET /console/auth/slack/callback", c.slackCallback)
	c.page("POST /console/signout", c.signOut)
	c.page("GET /console/{$}", func(w http.ResponseWriter, r *http.Request, s *session) error {
		http.Redirect(w, r, "/console/calendar", http.StatusSeeOther)
		return nil
	})
	c.page("GET /console/calendar", c.calendarPage)
	c.page("GET /console/schedules", c.schedulesPage)
	c.page("GET /console/schedules/{id}", c.jobPage)
	c.page("POST /console/schedules/{id}/{op}", c.jobAction)
	c.page("GET /console/schedules/{id}/delete", c.deletePage)
	c.page("GET /console/schedules/{id}/edit", c.editPage)
	c.page("POST /console/schedules/{id}/edit", c.edit)
	c.page("GET /console/new", c.newPage)
	c.page("POST /console/new", c.create)
	c.page("POST /console/preview", c.previewForm)
	c.page("GET /console/audit", c.auditPage)
	c.page("GET /console/audit/export", c.auditExport)
	c.page("/console/api/", c.proxy)
	return c
}

func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		secureHeaders(w.Header())
	}
	c.mux.ServeHTTP(w, r)
}

// secureHeaders forbid inline script and style, framing and sniffing.
func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// session is a signed-in person: their API token (the cookie's value)
// and who it acts as.
type session struct {
	token   string
	tok     *store.Token
	profile Profile
	csrf    string
	tz      string // the viewer's zone: ?tz=, the tz cookie, the profile's, UTC
}

type pageFunc func(w http.ResponseWriter, r *http.Request, s *session) error

// page serves pattern to signed-in people only (others go to sign-in),
// checks the CSRF token of every request that is not a GET or HEAD, and
// shows an error page for what fn returns.
func (c *Console) page(pattern string, fn pageFunc) {
	c.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s := c.session(r)
		api := strings.HasPrefix(r.URL.Path, "/console/api/")
		if s == nil {
			if api || r.Method != http.MethodGet {
				http.Error(w, "sign in first", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, "/console/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			r.Body = http.MaxBytesReader(w, r.Body, httpapi.MaxBodyBytes)
			if err := r.ParseForm(); err != nil { // a form body only: a JSON one is left for the proxy
				http.Error(w, "could not read the form: "+err.Error(), http.StatusBadRequest)
				return
			}
			got := r.Header.Get("X-CSRF-Token")
			if got == "" && !api {
				got = r.PostForm.Get("csrf")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 || !c.sameOrigin(r) {
				c.opts.Logger.Warn("console: refused a request without its CSRF token", slog.String("path", r.URL.Path))
				http.Error(w, "this form is stale or came from another site (no valid CSRF token); reload the page and try again",
					http.StatusForbidden)
				return
			}
		}
		s.tz = c.viewerZone(w, r, s)
		if err := fn(w, r, s); err != nil {
			c.fail(w, r, s, err)
		}
	})
}

// sameOrigin refuses a request whose Origin header names another site
// than this one: the request's host, or server.public_url's when a proxy
// in front answers to another name. A request without one (an old
// browser, curl) is left to the CSRF token.
func (c *Console) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	if u.Host == r.Host {
		return true
	}
	pub, err := url.Parse(c.opts.PublicURL)
	return c.opts.PublicURL != "" && err == nil && u.Scheme == pub.Scheme && u.Host == pub.Host
}

// session reads the session cookie: nil when absent, unknown, expired or
// revoked.
func (c *Console) session(r *http.Request) *session {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	tok, p := c.apiToken(r.Context(), ck.Value)
	if tok == nil {
		return nil
	}
	return &session{token: ck.Value, tok: tok, profile: p, csrf: csrfOf(ck.Value)}
}

// apiToken is the active API token (not a feed token) raw stands for, and
// its profile; nil when there is none.
func (c *Console) apiToken(ctx context.Context, raw string) (*store.Token, Profile) {
	if !strings.HasPrefix(raw, httpapi.TokenPrefix) || len(raw) > 100 {
		return nil, Profile{}
	}
	tok, p := c.lookup(ctx, httpapi.HashToken(raw))
	if tok == nil || tok.Feed || !tok.Active(c.opts.Now()) {
		return nil, Profile{}
	}
	return tok, p
}

// lookup finds the token with this hash in the stores of the profiles'
// orchestrators.
func (c *Console) lookup(ctx context.Context, hash string) (*store.Token, Profile) {
	for id, st := range c.opts.Stores {
		var tok *store.Token
		err := st.View(ctx, func(tx store.Tx) (err error) {
			tok, err = tx.TokenGet(hash)
			return err
		})
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			c.opts.Logger.Error("console: read token", slog.String("orchestrator", id), slog.Any("error", err))
			return nil, Profile{}
		}
		p, ok := c.opts.Profiles[tok.ChannelProfileID]
		if !ok || p.OrchestratorID != id {
			return nil, Profile{}
		}
		return tok, p
	}
	return nil, Profile{}
}

// csrfOf is a session's CSRF token: derived from the session token, so it
// needs no storage, and worthless without the cookie it came from.
func csrfOf(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("schedbot console csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// viewerZone is the zone times are shown in: ?tz= (remembered in a
// cookie), else the cookie (the browser's own zone, set by console.js),
// else the profile's, else UTC.
func (c *Console) viewerZone(w http.ResponseWriter, r *http.Request, s *session) string {
	if tz := r.URL.Query().Get("tz"); tz != "" {
		if _, err := loadZone(tz); err == nil {
			http.SetCookie(w, &http.Cookie{Name: tzCookie, Value: tz, Path: "/console", MaxAge: 365 * 24 * 3600,
				Secure: c.opts.Secure, SameSite: http.SameSiteLaxMode})
			return tz
		}
	}
	if ck, err := r.Cookie(tzCookie); err == nil {
		if v, err := url.QueryUnescape(ck.Value); err == nil {
			if _, err := loadZone(v); err == nil {
				return v
			}
		}
	}
	if s.profile.Timezone != "" {
		return s.profile.Timezone
	}
	return "UTC"
}

// apiError is the API's answer to a call that failed: its problem.
type apiError struct{ httpapi.Problem }

func (e *apiError) Error() string {
	if len(e.Errors) > 0 {
		var parts []string
		for _, f := range e.Errors {
			parts = append(parts, f.Field+": "+f.Rule)
		}
		return strings.Join(parts, "; ")
	}
	if e.Detail != "" {
		return e.Detail
	}
	return e.Title
}

// call asks the API, in process, as the session's person: method and path
// (under /api/v1), a JSON body when in is not nil, the JSON answer into
// out when not nil. A problem answer is an *apiError.
func (c *Console) call(ctx context.Context, s *session, method, path string, in, out any) error {
	_, err := c.exchange(ctx, s, method, path, in, out, nil)
	return err
}

// exchange is call with request headers, returning the answer's.
func (c *Console) exchange(ctx context.Context, s *session, method, path string, in, out any, hdr http.Header) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	r, err := http.NewRequestWithContext(ctx, method, "/api/v1"+path, body)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		r.Header[k] = v
	}
	r.Header.Set("Authorization", "Bearer "+s.token)
	if in != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	c.opts.API.ServeHTTP(rec, r)
	if rec.status >= 400 {
		e := &apiError{}
		if json.Unmarshal(rec.body.Bytes(), &e.Problem) != nil || e.Status == 0 {
			e.Status, e.Detail = rec.status, http.StatusText(rec.status)
		}
		return rec.header, e
	}
	if out != nil && rec.status != http.StatusNoContent {
		return rec.header, json.Unmarshal(rec.body.Bytes(), out)
	}
	return rec.header, nil
}

// recorder is the http.ResponseWriter an in-process API call writes to.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}

// proxy passes /console/api/… to /api/v1/… as the session's person: the
// calendar's drag and the live preview call the API through it, with the
// CSRF token the page gave them, since the session cookie is HttpOnly.
func (c *Console) proxy(w http.ResponseWriter, r *http.Request, s *session) error {
	rest := strings.TrimPrefix(r.URL.Path, "/console/api/")
	u := "/api/v1/" + rest
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u, r.Body)
	if err != nil {
		return err
	}
	for _, h := range []string{"Content-Type", "If-Match", "Idempotency-Key"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	c.opts.API.ServeHTTP(w, req)
	return nil
}

// fail shows err on an error page: the API's problem in words, nothing
// internal.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	status, msg := http.StatusInternalServerError, "Something went wrong on our side; it is logged."
	var ae *apiError
	var ue *userError
	switch {
	case errors.As(err, &ae):
		status, msg = ae.Status, ae.Error()
	case errors.As(err, &ue):
		status, msg = http.StatusBadRequest, ue.msg
	default:
		c.opts.Logger.Error("console", slog.String("path", r.URL.Path), slog.Any("error", err))
	}
	w.WriteHeader(status)
	c.render(w, s, "error", "Error", map[string]any{"Status": status, "Message": msg})
}

// userError is a mistake in what a person sent, shown to them as it is.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func userErrorf(format string, args ...any) error { return &userError{fmt.Sprintf(format, args...)} }
