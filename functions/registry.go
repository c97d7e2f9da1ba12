package functions

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/schedbot/schedbot/store"
)

// Errors a call can end in. Validation failures are *FieldError, which
// unwraps to ErrInvalidArgs.
var (
	ErrInvalidArgs     = errors.New("invalid arguments")
	ErrUnknownFunction = errors.New("unknown function")
	ErrNotAllowed      = errors.New("function not available")
	ErrQuota           = errors.New("job quota reached")
	ErrConflict        = errors.New("conflict")
	ErrForbidden       = errors.New("not permitted") // *AuthorityError unwraps to it
)

// FieldError is a validation failure: the argument path and the rule broken.
type FieldError struct {
	Field, Rule string
	// Conflict: the value is valid but taken (a job's name): the error
	// is ErrConflict as well as ErrInvalidArgs.
	Conflict bool
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }
func (e *FieldError) Unwrap() []error {
	if e.Conflict {
		return []error{ErrInvalidArgs, ErrConflict}
	}
	return []error{ErrInvalidArgs}
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

// MaxArgsBytes bounds the JSON arguments of one call.
const MaxArgsBytes = 64 << 10

// Orchestrator is what the functions need to know of the orchestrator
// their registry serves.
type Orchestrator struct {
	ID       string
	Timezone string // default zone for interval and once schedules
	MaxJobs  int    // quota of jobs not deleted
	// MaxJobsPerSender is the quota of jobs not deleted that one sender
	// (by senderId) may have created; 0: none. The CLI is not held to it.
	MaxJobsPerSender int
	// MinInterval is the frequency floor: no schedule may fire more often
	// (interval, cron or rrule); 0: none beyond the scheduler's minute.
	MinInterval time.Duration
	Functions   []string        // allowlist patterns ("schedule.*")
	Workflows   map[string]bool // ids of the workflows it defines
}

// Deps are a registry's collaborators.
type Deps struct {
	Store        store.Store
	Orchestrator Orchestrator
	// Profiles are the orchestrator's channel profiles, by id: where its
	// jobs may post, and who administers them.
	Profiles map[string]Profile
	Now      func() time.Time // default time.Now
	Logger   *slog.Logger     // default: discard
	// ChangedFunc is called after a committed change to a job's schedule or
	// state, to wake the scheduler. It must not block.
	ChangedFunc func()
	// AllowedFunc decides whether a function id is in the allowlist; the
	// default matches Orchestrator.Functions patterns.
	AllowedFunc func(id string) bool
}

// Request is one call: a function, its JSON args, and who is calling.
type Request struct {
	Function string          `json:"function"`
	Args     json.RawMessage `json:"args"`
	Actor    store.Actor     `json:"-"`
	// Origin is set when a job's run makes the call; message.post then
	// delivers to the job's target and is correlated with the run.
	Origin *Origin `json:"-"`
}

// Origin is the job run on whose behalf a function is called.
type Origin struct {
	JobID       string
	ExecutionID string
	TargetRef   *store.TargetRef // the job's; nil: where it was created
	ProfileID   string           // the channel profile the job came from
	CreatorID   string           // sender id of the job's creator: their DM is a target they may use
	CreatorName string           // the creator's name, for "@ana asked me to remind you"
	// CreatorChannelID is the conversation the creator wrote in (a DM's
	// D… id is a target only for its own member); empty for a job made
	// before it was recorded.
	CreatorChannelID string
}

// Spec declares one function: its id, JSON schema (one file beside the
// handler) and handler. Args are decoded strictly into T.
type Spec[T any] struct {
	ID     string
	Schema []byte
	Handle func(ctx context.Context, c *Call, args *T) (any, error)
	// Check validates args without executing, for nested validation of a
	// job's command_invoke arguments. Optional.
	Check func(c *Call, args *T) error
}

// Call is the context of one invocation.
type Call struct {
	Actor  store.Actor
	Now    time.Time
	Origin *Origin
	r      *Registry
	tx     store.Tx // set by CallTx: every read and write goes through it
	// creator is who made the job an update changes: targets are scoped to
	// them, not to the actor (an admin), so the check holds when it runs.
	creator *store.Actor
}

// update runs fn in the caller's transaction (CallTx) or a new one.
func (c *Call) update(ctx context.Context, fn func(store.Tx) error) error {
	if c.tx != nil {
		return fn(c.tx)
	}
	return c.r.deps.Store.Update(ctx, fn)
}

// view runs fn in the caller's transaction (CallTx) or a new read one.
func (c *Call) view(ctx context.Context, fn func(store.Tx) error) error {
	if c.tx != nil {
		return fn(c.tx)
	}
	return c.r.deps.Store.View(ctx, fn)
}

// changed wakes the scheduler after a committed change; inside CallTx the
// caller commits, so it calls Committed itself.
func (c *Call) changed() {
	if c.tx == nil {
		c.r.deps.ChangedFunc()
	}
}

type entry struct {
	id     string
	raw    []byte
	schema *jsonschema.Schema
	desc   string
	call   func(ctx context.Context, c *Call, args json.RawMessage) (any, error)
	check  func(c *Call, args json.RawMessage) error
}

// Registry is one orchestrator's set of functions.
type Registry struct {
	deps    Deps
	entries map[string]*entry
	log     *slog.Logger

	mu      sync.Mutex
	entropy io.Reader

	// quotaHint is the last count of jobs a create saw (checkQuotas), -1
	// when none has counted yet.
	quotaHint atomic.Int64
}

// NewRegistry returns a registry with every built-in function registered.
// Calls are still limited to the orchestrator's allowlist.
func NewRegistry(d Deps) *Registry {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.ChangedFunc == nil {
		d.ChangedFunc = func() {}
	}
	r := &Registry{deps: d, entries: map[string]*entry{}, log: d.Logger,
		entropy: ulid.Monotonic(rand.Reader, 0)}
	r.quotaHint.Store(-1)
	if r.deps.AllowedFunc == nil {
		r.deps.AllowedFunc = func(id string) bool { return matchFunction(d.Orchestrator.Functions, id) }
	}
	MustRegister(r, scheduleCreate())
	MustRegister(r, scheduleList())
	MustRegister(r, scheduleShow())
	MustRegister(r, scheduleUpdate())
	MustRegister(r, schedulePause())
	MustRegister(r, scheduleResume())
	MustRegister(r, scheduleDelete())
	MustRegister(r, scheduleRunNow())
	MustRegister(r, scheduleSkip())
	MustRegister(r, scheduleUnskip())
	MustRegister(r, scheduleSnooze())
	MustRegister(r, scheduleComplete())
	MustRegister(r, scheduleAgenda())
	MustRegister(r, scheduleHistory())
	MustRegister(r, messagePost())
	return r
}

func matchFunction(patterns []string, id string) bool {
	for _, p := range patterns {
		if p == "*" || p == id {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(id, prefix) {
			return true
		}
	}
	return false
}

var printer = message.NewPrinter(language.English)

// MustRegister adds s to r. It panics on a duplicate id or a schema that
// does not compile: both are programming errors found at startup.
func MustRegister[T any](r *Registry, s Spec[T]) {
	if _, dup := r.entries[s.ID]; dup {
		panic("functions: duplicate function " + s.ID)
	}
	schema, desc, err := compileSchema(s.ID, s.Schema)
	if err != nil {
		panic("functions: schema of " + s.ID + ": " + err.Error())
	}
	decode := func(raw json.RawMessage) (*T, error) {
		var args T
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&args); err != nil {
			return nil, decodeError(err)
		}
		if dec.More() {
			return nil, fieldErr("args", "trailing data after the JSON object")
		}
		return &args, nil
	}
	r.entries[s.ID] = &entry{
		id: s.ID, raw: s.Schema, schema: schema, desc: desc,
		call: func(ctx context.Context, c *Call, raw json.RawMessage) (any, error) {
			args, err := decode(raw)
			if err != nil {
				return nil, err
			}
			return s.Handle(ctx, c, args)
		},
		check: func(c *Call, raw json.RawMessage) error {
			args, err := decode(raw)
			if err != nil || s.Check == nil {
				return err
			}
			return s.Check(c, args)
		},
	}
}

func compileSchema(id string, raw []byte) (*jsonschema.Schema, string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, "", err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := id + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, "", err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, "", err
	}
	var meta struct {
		Description string `json:"description"`
	}
	json.Unmarshal(raw, &meta)
	return sch, meta.Description, nil
}

func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fieldErr(orArgs(te.Field), "must be %s", JSONKind(te.Type))
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fieldErr(strings.Trim(f, `"`), "unknown field")
	}
	var pe *time.ParseError
	if errors.As(err, &pe) {
		return fieldErr("args", "a time is not RFC 3339 (2026-11-27T14:00:00Z): %q", pe.Value)
	}
	return fieldErr("args", "%v", err)
}

// JSONKind names the JSON a Go type is decoded from, as a person
// writing the JSON reads it: "a whole number", not "int64".
func JSONKind(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		if t == reflect.TypeFor[time.Time]() {
			return "an RFC 3339 time (2026-11-27T14:00:00Z)"
		}
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map:
		return "an object"
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return "an RFC 3339 time (2026-11-27T14:00:00Z)"
		}
		return "an object"
	case reflect.Pointer:
		return JSONKind(t.Elem())
	}
	return "a " + t.String()
}

func orArgs(path string) string {
	if path == "" {
		return "args"
	}
	return path
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// schemaError turns a schema failure into one FieldError: an unknown field
// first (the most useful thing to fix), else the first failure found.
func schemaError(ve *jsonschema.ValidationError) *FieldError {
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	leaf := leaves[0]
	for _, l := range leaves {
		if _, ok := l.ErrorKind.(*kind.AdditionalProperties); ok {
			leaf = l
			break
		}
	}
	path := strings.Join(leaf.InstanceLocation, ".")
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		return fieldErr(joinPath(path, k.Missing[0]), "is required")
	case *kind.AdditionalProperties:
		return fieldErr(joinPath(path, k.Properties[0]), "unknown field")
	case *kind.Enum:
		var opts []string
		for _, w := range k.Want {
			opts = append(opts, fmt.Sprint(w))
		}
		return fieldErr(orArgs(path), "must be one of %s, got %v", strings.Join(opts, ", "), k.Got)
	case *kind.Type:
		return fieldErr(orArgs(path), "must be %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.MaxLength:
		return fieldErr(orArgs(path), "at most %d characters, got %d", k.Want, k.Got)
	case *kind.MinLength:
		return fieldErr(orArgs(path), "at least %d characters, got %d", k.Want, k.Got)
	case *kind.Minimum:
		return fieldErr(orArgs(path), "must be at least %s, got %s", k.Want.RatString(), k.Got.RatString())
	case *kind.Maximum:
		return fieldErr(orArgs(path), "must be at most %s, got %s", k.Want.RatString(), k.Got.RatString())
	case *kind.Format:
		if k.Want == "date-time" {
			return fieldErr(orArgs(path), "must be an RFC 3339 date-time such as 2026-11-27T14:00:00Z, got %v", k.Got)
		}
		return fieldErr(orArgs(path), "must be a %s, got %v", k.Want, k.Got)
	case *kind.MinProperties:
		return fieldErr(orArgs(path), "needs at least %d fields, got %d", k.Want, k.Got)
	case *kind.Pattern:
		if strings.HasSuffix(path, "dtstart") {
			// the pattern itself says nothing to a person
			return fieldErr(path, "must be a local wall time such as 2026-11-24T10:00:00, with no offset or Z, got %q", k.Got)
		}
	}
	return fieldErr(orArgs(path), "%s", leaf.ErrorKind.LocalizedString(printer))
}

// parseArgs checks size, JSON syntax, the schema and path traversal.
func (e *entry) parseArgs(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if len(raw) > MaxArgsBytes {
		return nil, fieldErr("args", "%d bytes, at most %d", len(raw), MaxArgsBytes)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fieldErr("args", "not valid JSON: %v", err)
	}
	if err := e.schema.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, schemaError(ve)
		}
		return nil, fieldErr("args", "%v", err)
	}
	if err := checkStrings(inst, ""); err != nil {
		return nil, err
	}
	return raw, nil
}

// namingFields are the arguments that name things (a workflow, a
// function, a job, a profile): those may not look like a path or a file
// reference. Message texts and other prose may say "../CHANGELOG" or
// "file: Q4 report is due".
var namingFields = map[string]bool{
	"workflowId": true, "functionId": true, "name": true, "jobId": true, "executionId": true,
	"orchestratorId": true, "channelProfileId": true, "channelId": true,
}

// checkStrings refuses a NUL character in any string argument, and path
// traversal and file references in those that name things.
func checkStrings(v any, path string) error {
	return checkStringsAt(v, path, "")
}

func checkStringsAt(v any, path, key string) error {
	switch x := v.(type) {
	case string:
		if namingFields[key] && (strings.Contains(x, "../") || strings.Contains(x, `..\`) || x == ".." ||
			strings.HasPrefix(strings.ToLower(x), "file:")) {
			return fieldErr(orArgs(path), "path traversal and file references are not allowed in a name")
		}
		if strings.ContainsRune(x, 0) {
			return fieldErr(orArgs(path), "contains a NUL character")
		}
	case map[string]any:
		for k, e := range x {
			if err := checkStringsAt(k, path, ""); err != nil {
				return err
			}
			if err := checkStringsAt(e, joinPath(path, k), k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkStringsAt(e, path+"["+strconv.Itoa(i)+"]", key); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *Registry) lookup(id string) (*entry, error) {
	e := r.entries[id]
	if e == nil {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownFunction, id, strings.Join(r.IDs(), ", "))
	}
	if !r.deps.AllowedFunc(id) {
		return nil, fmt.Errorf("%w: %q is not among the functions of orchestrator %q", ErrNotAllowed, id, r.deps.Orchestrator.ID)
	}
	return e, nil
}

// Call validates and executes one request in its own transaction. Every
// failure names what was wrong and changes nothing.
func (r *Registry) Call(ctx context.Context, req Request) (any, error) {
	return r.call(ctx, nil, req)
}

// CallTx executes req inside the caller's write transaction tx, so that its
// effects commit (or roll back) with the caller's. When it returns an error
// the caller must roll tx back: the handler may have written part of its
// change. After committing, the caller calls Committed with the result.
func (r *Registry) CallTx(ctx context.Context, tx store.Tx, req Request) (any, error) {
	return r.call(ctx, tx, req)
}

// NotifyChanged wakes whoever watches for job changes (the scheduler).
func (r *Registry) NotifyChanged() { r.deps.ChangedFunc() }

// Committed is called with a CallTx result once the caller's transaction
// has committed: it logs the job change the call made (not before, as the
// transaction might have rolled back) and calls NotifyChanged.
func (r *Registry) Committed(res any) {
	var ch *jobChange
	switch x := res.(type) {
	case *JobResult:
		ch = x.change
	case *RunNowResult:
		ch = x.change
	}
	if ch != nil {
		ch.log(r.log)
	}
	r.NotifyChanged()
}

func (r *Registry) call(ctx context.Context, tx store.Tx, req Request) (any, error) {
	e, err := r.lookup(req.Function)
	if err != nil {
		return nil, err
	}
	if (req.Origin != nil || req.Actor.Via == store.ViaScheduler) && !IsAction(req.Function) {
		// A job stored before create refused this must not run it either.
		return nil, fmt.Errorf("%w: a job runs action functions only, never %s", ErrNotAllowed, req.Function)
	}
	raw, err := e.parseArgs(req.Args)
	if err != nil {
		return nil, err
	}
	if req.Actor.Via == "" {
		return nil, errors.New("call without an actor: Request.Actor.Via is required")
	}
	c := &Call{Actor: req.Actor, Now: r.deps.Now().UTC().Truncate(time.Second), Origin: req.Origin, r: r, tx: tx}
	return e.call(ctx, c, raw)
}

// Validate checks a request as Call would, without executing it.
func (r *Registry) Validate(req Request) error {
	e, err := r.lookup(req.Function)
	if err != nil {
		return err
	}
	raw, err := e.parseArgs(req.Args)
	if err != nil {
		return err
	}
	return e.check(&Call{Actor: req.Actor, Now: r.deps.Now().UTC().Truncate(time.Second), r: r}, raw)
}

// IDs lists every registered function, sorted.
func (r *Registry) IDs() []string {
	ids := make([]string, 0, len(r.entries))
	for id := range r.entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Allowed lists the registered functions the orchestrator may call, sorted.
func (r *Registry) Allowed() []string {
	var out []string
	for _, id := range r.IDs() {
		if r.deps.AllowedFunc(id) {
			out = append(out, id)
		}
	}
	return out
}

// Schema returns the JSON schema of function id's arguments (allowed or
// not), or nil for an unknown id.
func (r *Registry) Schema(id string) json.RawMessage {
	if e := r.entries[id]; e != nil {
		return e.raw
	}
	return nil
}

// Tool describes a function for an LLM: its name, description and the JSON
// schema of its parameters, the same schema the server validates with.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Tools returns the allowed functions as tool definitions, sorted by name.
func (r *Registry) Tools() []Tool {
	var out []Tool
	for _, id := range r.Allowed() {
		e := r.entries[id]
		out = append(out, Tool{Name: id, Description: e.desc, Parameters: e.raw})
	}
	return out
}

func (r *Registry) newID(t time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ulid.MustNew(ulid.Timestamp(t), r.entropy).String()
}
