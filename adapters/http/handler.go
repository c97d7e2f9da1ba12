package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/selector"
	"github.com/schedbot/schedbot/store"
)

// Orchestrator is one orchestrator the API serves: the functions every
// change goes through, its store (read-only views, tokens, idempotency
// records) and its selector (parse).
type Orchestrator struct {
	ID        string
	Registry  *functions.Registry
	Store     store.Store
	Selector  selector.Selector
	Timezone  string   // default zone
	Workflows []string // what a parsed text may start
}

// Profile is a channel profile a token may act through.
type Profile struct {
	ID             string
	OrchestratorID string
	Channel        string // slack | terminal
	Timezone       string // default zone of its senders; empty: the orchestrator's
}

// Options configure New.
type Options struct {
	Orchestrators map[string]*Orchestrator
	Profiles      map[string]Profile
	Now           func() time.Time // default time.Now
	Logger        *slog.Logger     // default: discard
	// Rate and Burst are each token's request budget: Rate requests a
	// second on average, Burst at once. Default 10 and 40.
	Rate  float64
	Burst int
	// MaxInFlight bounds the requests served at once; more get 503.
	// Default 64.
	MaxInFlight int
}

// MaxBodyBytes bounds a request body; a larger one is 413.
const MaxBodyBytes = 64 << 10

// Page and range limits.
const (
	maxPerSchedule = 200  // calendar entries of one schedule
	maxCalendar    = 2000 // calendar entries of one response
	maxRange       = 400 * 24 * time.Hour
	nextRunsShown  = 10
	lastUsedEvery  = time.Minute // how often a token's lastUsedAt is written
)

type handler struct {
	opts     Options
	mux      *http.ServeMux
	inflight chan struct{}

	mu       sync.Mutex
	buckets  map[string]*bucket   // by token hash
	lastUsed map[string]time.Time // by token hash: when lastUsedAt was last written
}

// New returns the HTTP API over o's orchestrators, its routes under
// /api/v1/.
func New(o Options) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Rate <= 0 {
		o.Rate = 10
	}
	if o.Burst <= 0 {
		o.Burst = 40
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	h := &handler{opts: o, mux: http.NewServeMux(), inflight: make(chan struct{}, o.MaxInFlight),
		buckets: map[string]*bucket{}, lastUsed: map[string]time.Time{}}
	h.route("GET /api/v1/schedules", h.listSchedules)
	h.route("POST /api/v1/schedules", h.createSchedule)
	h.route("GET /api/v1/schedules/{id}", h.getSchedule)
	h.route("PATCH /api/v1/schedules/{id}", h.patchSchedule)
	h.route("DELETE /api/v1/schedules/{id}", h.deleteSchedule)
	h.route("POST /api/v1/schedules/{id}/pause", h.stateChange("schedule.pause"))
	h.route("POST /api/v1/schedules/{id}/resume", h.stateChange("schedule.resume"))
	h.route("POST /api/v1/schedules/{id}/trigger", h.stateChange("schedule.run_now"))
	h.route("POST /api/v1/schedules/{id}/skip", h.stateChange("schedule.skip"))
	h.route("GET /api/v1/schedules/{id}/runs", h.listRuns)
	h.route("GET /api/v1/calendar", h.calendar)
	h.route("GET /api/v1/audit", h.audit)
	h.route("GET /api/v1/audit/verify", h.auditVerify)
	h.route("POST /api/v1/parse", h.parse)
	h.route("POST /api/v1/preview", h.previewCreate)
	h.mux.HandleFunc("GET /api/v1/openapi.json", h.openAPI)
	h.mux.HandleFunc("GET /api/v1/calendar.ics", h.calendarICS)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := h.allowed(r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeProblem(w, &Problem{Status: http.StatusMethodNotAllowed,
				Detail: fmt.Sprintf("%s %s: this endpoint takes %s", r.Method, r.URL.Path, strings.Join(allow, " or "))})
			return
		}
		writeProblem(w, &Problem{Status: http.StatusNotFound, Detail: "no such endpoint: " + r.Method + " " + r.URL.Path})
	})
	return h
}

// allowed are the methods an endpoint at r's path takes: what a 405
// names (this catch-all matches every path, so the mux's own 405 never
// comes).
func (h *handler) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := h.mux.Handler(probe); pattern != "/" && pattern != "" {
			out = append(out, m)
		}
	}
	return out
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case h.inflight <- struct{}{}:
		defer func() { <-h.inflight }()
	default:
		w.Header().Set("Retry-After", "1")
		writeProblem(w, &Problem{Status: http.StatusServiceUnavailable, Detail: "too many requests in flight; retry shortly"})
		return
	}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.opts.Logger.Error("http api panic", slog.String("path", r.URL.Path), slog.Any("panic", p))
			writeProblem(w, &Problem{Status: http.StatusInternalServerError})
		}
	}()
	h.mux.ServeHTTP(w, r)
}

// caller is who a request comes from, by its token.
type caller struct {
	tok     *store.Token
	orch    *Orchestrator
	profile Profile
	actor   store.Actor
}

type endpoint func(w http.ResponseWriter, r *http.Request, c *caller) error

// bearer is the request's bearer token; the scheme is case-insensitive
// (RFC 9110 §11.1): "bearer x" is "Bearer x".
func bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return tok, ok && strings.EqualFold(scheme, "Bearer")
}

// route serves pattern for callers with a valid bearer token, within
// their rate limit; an endpoint's error becomes a problem document.
func (h *handler) route(pattern string, fn endpoint) {
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		auth, ok := bearer(r)
		var c *caller
		if ok {
			c = h.authenticate(r.Context(), strings.TrimSpace(auth), false)
		}
		if c == nil {
			unauthorized(w)
			return
		}
		if wait := h.take(c.tok.Hash); wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			writeProblem(w, &Problem{Status: http.StatusTooManyRequests,
				Detail: fmt.Sprintf("this token's rate limit is %g requests a second (bursts of %d)", h.opts.Rate, h.opts.Burst)})
			return
		}
		if err := fn(w, r, c); err != nil {
			h.fail(w, r, err)
		}
	})
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="schedbot"`)
	writeProblem(w, &Problem{Status: http.StatusUnauthorized})
}

// authenticate returns the caller a token stands for, or nil when it is
// unknown, revoked, expired, of another kind (feed tokens read the
// calendar feed only, API tokens never go in a URL) or its profile is
// gone. Nothing tells these apart to the client.
func (h *handler) authenticate(ctx context.Context, token string, feed bool) *caller {
	if !strings.HasPrefix(token, TokenPrefix) || len(token) > 100 {
		return nil
	}
	hash := HashToken(token)
	now := h.opts.Now()
	for _, o := range h.opts.Orchestrators {
		var tok *store.Token
		err := o.Store.View(ctx, func(tx store.Tx) (err error) {
			tok, err = tx.TokenGet(hash)
			return err
		})
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			h.opts.Logger.Error("read token", slog.String("orchestrator", o.ID), slog.Any("error", err))
			return nil
		}
		p, ok := h.opts.Profiles[tok.ChannelProfileID]
		switch {
		case !ok || p.OrchestratorID != o.ID:
		case !tok.Active(now):
		case tok.Feed != feed:
		default:
			h.touch(ctx, o, tok, now)
			return &caller{tok: tok, orch: o, profile: p, actor: store.Actor{ChannelProfileID: p.ID,
				SenderID: tok.SenderID, Sender: tok.SenderID, Via: store.ViaHTTP, Token: tok.Name}}
		}
		return nil
	}
	return nil
}

// touch records a token's last use, at most once a minute.
func (h *handler) touch(ctx context.Context, o *Orchestrator, tok *store.Token, now time.Time) {
	h.mu.Lock()
	last, seen := h.lastUsed[tok.Hash]
	due := now.Sub(last) >= lastUsedEvery && now.Sub(tok.LastUsedAt) >= lastUsedEvery
	if due || !seen {
		h.lastUsed[tok.Hash] = now
	}
	h.mu.Unlock()
	if !due {
		return
	}
	err := o.Store.Update(ctx, func(tx store.Tx) error {
		t, err := tx.TokenGet(tok.Hash)
		if err != nil {
			return err
		}
		t.LastUsedAt = now.UTC().Truncate(time.Second)
		return tx.TokenPut(t)
	})
	if err != nil {
		h.opts.Logger.Warn("record token use", slog.String("token", tok.ID), slog.Any("error", err))
	}
}

// bucket is one token's rate limit: a token bucket.
type bucket struct {
	level float64
	at    time.Time
}

// take spends one request of the token's budget, or says how long until
// one is there.
func (h *handler) take(key string) time.Duration {
	now := h.opts.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.buckets[key]
	if b == nil {
		b = &bucket{level: float64(h.opts.Burst), at: now}
		h.buckets[key] = b
	}
	b.level = min(float64(h.opts.Burst), b.level+now.Sub(b.at).Seconds()*h.opts.Rate)
	b.at = now
	if b.level < 1 {
		return time.Duration((1 - b.level) / h.opts.Rate * float64(time.Second))
	}
	b.level--
	return 0
}

// body reads a JSON request body: 415 for another media type, 413 past
// MaxBodyBytes. types are the media types accepted.
func body(r *http.Request, types ...string) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(types, mt) {
		return nil, &Problem{Status: http.StatusUnsupportedMediaType,
			Detail: fmt.Sprintf("Content-Type must be %s, got %q", strings.Join(types, " or "), r.Header.Get("Content-Type"))}
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, tooLarge()
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, &Problem{Status: http.StatusBadRequest, Detail: "reading the body: " + err.Error()}
	}
	if len(b) > MaxBodyBytes {
		return nil, tooLarge()
	}
	if !utf8.Valid(b) {
		// JSON decoding would turn the bad bytes into U+FFFD silently
		return nil, &functions.FieldError{Field: "body", Rule: "is not valid UTF-8"}
	}
	return b, nil
}

func tooLarge() *Problem {
	return &Problem{Status: http.StatusRequestEntityTooLarge, Detail: fmt.Sprintf("the body is over %d bytes", MaxBodyBytes)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// idempotencyKey is a request's Idempotency-Key: the CLI's --request-id.
func idempotencyKey(r *http.Request) (string, error) {
	k := r.Header.Get("Idempotency-Key")
	if k == "" {
		return "", nil
	}
	if len(k) > 100 || strings.IndexFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r))
	}) >= 0 {
		return "", &functions.FieldError{Field: "Idempotency-Key", Rule: "1 to 100 letters, digits, '.', '_', ':' or '-'"}
	}
	return k, nil
}

// change makes one change through the functions, in one transaction with
// its idempotency record: build makes the call inside the transaction (it
// may read the job, to check If-Match or merge a patch); a retry with the
// same Idempotency-Key gets the first result back, and a key reused for
// another request is 409. The result is the function's, as JSON.
func (h *handler) change(ctx context.Context, r *http.Request, c *caller, what []byte, build func(tx store.Tx) (functions.Request, error)) (json.RawMessage, error) {
	key, err := idempotencyKey(r)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	var res any
	ran := false
	recKey := "http:" + c.tok.ID + ":" + key
	sum := sha256.Sum256(append([]byte(r.Method+" "+r.URL.Path+"\x00"), what...))
	digest := hex.EncodeToString(sum[:])
	err = c.orch.Store.Update(ctx, func(tx store.Tx) error {
		if key != "" {
			prev, err := tx.RequestGet(recKey)
			if err == nil {
				if prev.Digest != digest {
					return &Problem{Status: http.StatusConflict, Detail: fmt.Sprintf(
						"Idempotency-Key %s was used for another request (%s at %s); give each request its own key",
						key, prev.Function, prev.CreatedAt.Format(time.RFC3339))}
				}
				out = prev.Result
				return nil
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		req, err := build(tx)
		if err != nil {
			return err
		}
		req.Actor = c.actor
		if res, err = c.orch.Registry.CallTx(ctx, tx, req); err != nil {
			return err
		}
		if out, err = json.Marshal(res); err != nil {
			return err
		}
		ran = true
		if key == "" {
			return nil
		}
		now := h.opts.Now().UTC()
		return tx.RequestPut(&store.Request{Key: recKey, Digest: digest, Function: req.Function, Result: out, CreatedAt: now})
	})
	if err != nil {
		return nil, err
	}
	if ran {
		c.orch.Registry.Committed(res)
	}
	return out, nil
}

// read calls a function that changes nothing.
func (c *caller) read(ctx context.Context, fn string, args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res, err := c.orch.Registry.Call(ctx, functions.Request{Function: fn, Args: raw, Actor: c.actor})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// Schedule is one schedule as the API shows it: the job, its description
// and its next runs.
type Schedule struct {
	Job            *store.Job  `json:"job"`
	Description    string      `json:"description"`
	NextRuns       []time.Time `json:"nextRuns"`
	NextRunAtLocal string      `json:"nextRunAtLocal,omitempty"`
}

// jobSpec is a job's schedule, bounded by its startAt and endAt, as the
// scheduler computes it.
func jobSpec(j *store.Job) (*scheduler.Spec, error) {
	sp, err := scheduler.NewSpec(j.ScheduleType, j.Schedule, j.EndAt)
	if err != nil {
		return nil, err
	}
	sp.NotBefore = j.StartAt
	return sp, nil
}

func scheduleOf(j *store.Job) *Schedule {
	s := &Schedule{Job: j, Description: j.Description, NextRuns: []time.Time{}, NextRunAtLocal: j.NextRunAtLocal}
	if j.State != store.JobEnabled || j.NextRunAt.IsZero() {
		return s
	}
	s.NextRuns = append(s.NextRuns, j.NextRunAt)
	// as the scheduler fires it: skipped runs left out, a count's end kept
	if sp, err := scheduler.JobSpec(j); err == nil {
		s.NextRuns = append(s.NextRuns, sp.NextN(j.NextRunAt, nextRunsShown-1)...)
	}
	return s
}

// etag changes when someone changes the job (its definition or state),
// not when it fires.
func etag(j *store.Job) string {
	b, _ := json.Marshal(struct {
		D *store.Job
		S store.JobState
	}{j.Definition(), j.State})
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// writeJob answers with the job a function returned, and its ETag.
func writeJob(w http.ResponseWriter, status int, raw json.RawMessage) error {
	var res struct {
		Job *store.Job `json:"job"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.Job == nil {
		return fmt.Errorf("decode job result: %v", err)
	}
	w.Header().Set("ETag", etag(res.Job))
	if status == http.StatusCreated {
		w.Header().Set("Location", "/api/v1/schedules/"+res.Job.JobID)
	}
	writeJSON(w, status, scheduleOf(res.Job))
	return nil
}

// compact normalises a JSON body for the idempotency digest.
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
