// Package config loads schedbot's YAML configuration (docs/DESIGN.md section 8):
// orchestrators, channel profiles and workflows, with an embedded default
// of one orchestrator "default" and a terminal profile. Load rejects unknown
// keys, unknown references, duplicate ids and bad timezones, naming the
// field path ("channel_profiles.team.orchestrator_id: unknown orchestrator \"ops\"").
package config

import (
	"bytes"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	_ "time/tzdata" // zones validate the same on every machine

	"gopkg.in/yaml.v3"
)

//go:embed default.yaml
var defaultYAML []byte

// Config is the whole configuration.
type Config struct {
	Orchestrators   map[string]*Orchestrator   `yaml:"orchestrators"`
	ChannelProfiles map[string]*ChannelProfile `yaml:"channel_profiles"`
	Selector        Selector                   `yaml:"selector"`
	Slack           Slack                      `yaml:"slack"`
	Server          Server                     `yaml:"server"`
	Store           StoreConfig                `yaml:"store"`
	Runs            Runs                       `yaml:"runs"`
	Retention       Retention                  `yaml:"retention"`
	Audit           Audit                      `yaml:"audit"`

	// Source says where the config came from: a file path or "embedded default".
	Source string `yaml:"-"`
}

// Orchestrator is one scope with its own store, functions and workflows.
type Orchestrator struct {
	ID          string   `yaml:"-"`
	RuntimeRoot string   `yaml:"runtime_root"`
	Timezone    string   `yaml:"timezone"`
	Functions   []string `yaml:"functions"`
	MaxJobs     int      `yaml:"max_jobs"`
	// MaxJobsPerSender is how many jobs not deleted one sender may have
	// made (the CLI is held to max_jobs alone).
	MaxJobsPerSender int `yaml:"max_jobs_per_sender"`
	// MinInterval is the frequency floor: no job fires more often.
	MinInterval Duration             `yaml:"min_interval"`
	Workflows   map[string]*Workflow `yaml:"workflows"`
	// Store is this orchestrator's store: the global store section with
	// what the orchestrator's own section sets laid over it.
	Store *StoreConfig `yaml:"store"`
	// Audit is the global audit section, for opening the store.
	Audit *Audit `yaml:"-"`
}

// Workflow is an ordered list of function calls.
type Workflow struct {
	Steps []Step `yaml:"steps"`
}

// Step is one function call of a workflow; string args are templates.
type Step struct {
	Function string         `yaml:"function"`
	Args     map[string]any `yaml:"args"`
}

// ChannelProfile maps where a message came from to one orchestrator.
type ChannelProfile struct {
	ID             string        `yaml:"-"`
	Channel        string        `yaml:"channel"`
	OrchestratorID string        `yaml:"orchestrator_id"`
	Slack          *SlackProfile `yaml:"slack"`
	Timezone       string        `yaml:"timezone"`
	Admins         []string      `yaml:"admins"`
}

// SlackProfile says which Slack team and channels a profile covers.
type SlackProfile struct {
	TeamID   string   `yaml:"team_id"`
	Channels []string `yaml:"channels"`
}

// Selector configures how text becomes a call.
type Selector struct {
	Mode string `yaml:"mode"`
	LLM  LLM    `yaml:"llm"`
}

// LLM configures an OpenAI-compatible endpoint; the key comes from the
// environment variable APIKeyEnv names, never from this file.
type LLM struct {
	BaseURL   string   `yaml:"base_url"`
	Model     string   `yaml:"model"`
	APIKeyEnv string   `yaml:"api_key_env"`
	Timeout   Duration `yaml:"timeout"`
}

// Slack configures the Slack adapter; tokens come from the environment.
type Slack struct {
	Mode       string `yaml:"mode"`
	APIURL     string `yaml:"api_url"`
	HTTPListen string `yaml:"http_listen"`
}

// Server configures the daemon's local endpoints.
type Server struct {
	Socket        string `yaml:"socket"`
	MetricsListen string `yaml:"metrics_listen"`
	// HTTPListen is the HTTP API's address (off when empty). Anywhere but
	// loopback it needs TLSCert and TLSKey, or HTTPInsecure behind a
	// TLS-terminating proxy.
	HTTPListen   string `yaml:"http_listen"`
	TLSCert      string `yaml:"tls_cert"`
	TLSKey       string `yaml:"tls_key"`
	HTTPInsecure bool   `yaml:"http_insecure"`
	// PublicURL is where people reach the console ("https://schedbot.example.com"):
	// the base of printed sign-in links and of Slack's sign-in redirect.
	PublicURL string `yaml:"public_url"`
}

// CheckHTTP says what is wrong with the HTTP API's listening settings:
// plain HTTP is for loopback only, unless http_insecure says a proxy in
// front terminates TLS.
func (s *Server) CheckHTTP() error {
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return errors.New("server.tls_cert and server.tls_key: give both or neither")
	}
	if s.PublicURL != "" {
		u, err := url.Parse(s.PublicURL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" {
			return fmt.Errorf("server.public_url: %q must be an http(s) URL with a host and no path, e.g. https://schedbot.example.com", s.PublicURL)
		}
	}
	if s.HTTPListen == "" || s.TLSCert != "" || s.HTTPInsecure {
		return nil
	}
	host, _, err := net.SplitHostPort(s.HTTPListen)
	if err != nil {
		return fmt.Errorf("server.http_listen: %q is not host:port (e.g. 127.0.0.1:8080)", s.HTTPListen)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("server.http_listen: %s is not a loopback address, and bearer tokens must not cross a network in clear text: "+
		"set server.tls_cert and server.tls_key, or server.http_insecure: true when a proxy in front terminates TLS", s.HTTPListen)
}

// StoreConfig says where an orchestrator's records live. The DSN comes
// from the environment variable DSNEnv names, never from this file.
type StoreConfig struct {
	Driver string `yaml:"driver"`  // bolt (default) | postgres
	DSNEnv string `yaml:"dsn_env"` // postgres: the variable holding the DSN
}

// Store drivers.
const (
	DriverBolt     = "bolt"
	DriverPostgres = "postgres"
	// DefaultDSNEnv is the variable the postgres driver reads its DSN from
	// unless store.dsn_env names another.
	DefaultDSNEnv = "SCHEDBOT_DATABASE_URL"
)

// DSN reads the postgres DSN from the environment; an unset variable is
// an error that names it.
func (s *StoreConfig) DSN() (string, error) {
	dsn := os.Getenv(s.DSNEnv)
	if dsn == "" {
		return "", fmt.Errorf("store.dsn_env: $%s is not set (the postgres driver reads its DSN from it, e.g. postgres://user@host/db)", s.DSNEnv)
	}
	return dsn, nil
}

// Duration is a time.Duration written as "30s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as 30s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Channel kinds.
const (
	ChannelSlack    = "slack"
	ChannelTerminal = "terminal"
)

// Defaults for fields left out.
const (
	DefaultMaxJobs = 10000
	// DefaultMaxJobsPerSender leaves room for a hundred senders at
	// DefaultMaxJobs.
	DefaultMaxJobsPerSender = 100
	// DefaultMinInterval is the scheduler's own floor: a minute.
	DefaultMinInterval = Duration(time.Minute)
	DefaultTimezone    = "UTC"
	EnvConfig          = "SCHEDBOT_CONFIG"
	EnvSlackAPIURL     = "SCHEDBOT_SLACK_API_URL"
	// Sign in with Slack on the console: the Slack app's OAuth client.
	EnvSlackClientID     = "SLACK_CLIENT_ID"
	EnvSlackClientSecret = "SLACK_CLIENT_SECRET"
)

// DefaultFunctions is the function allowlist of an orchestrator that names none.
var DefaultFunctions = []string{"schedule.*", "message.post"}

// Find picks the config as docs/DESIGN.md section 8 says: the file named by flag,
// else $SCHEDBOT_CONFIG, else ./schedbot.yaml if present, else the embedded
// default with its data under dataDir (DefaultDataDir when empty).
func Find(flagPath, dataDir string) (*Config, error) {
	path := flagPath
	if path == "" {
		path = os.Getenv(EnvConfig)
	}
	if path == "" {
		if _, err := os.Stat("schedbot.yaml"); err == nil {
			path = "schedbot.yaml"
		}
	}
	if path != "" {
		if dataDir != "" {
			return nil, errors.New("--data applies to the embedded default only; set runtime_root in " + path)
		}
		return Load(path)
	}
	return Default(dataDir)
}

// Default returns the embedded default with its data under dataDir
// (DefaultDataDir when empty).
func Default(dataDir string) (*Config, error) {
	if dataDir == "" {
		dataDir = DefaultDataDir()
	}
	c, err := Parse(defaultYAML, dataDir)
	if err != nil {
		return nil, fmt.Errorf("embedded default: %w", err)
	}
	c.Source = "embedded default"
	// On a person's machine, their own zone is the natural default.
	if z := LocalZone(); z != "" {
		for _, o := range c.Orchestrators {
			o.Timezone = z
		}
	}
	return c, nil
}

// DefaultDataDir is the embedded default's data directory: the user's
// data directory, $XDG_DATA_HOME/schedbot, else ~/.local/share/schedbot,
// whatever the current directory (./.schedbot when there is no home).
func DefaultDataDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) { // the spec ignores a relative one
		return filepath.Join(x, "schedbot")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "share", "schedbot")
	}
	return ".schedbot"
}

// LocalZone is this machine's IANA zone ($TZ, else /etc/localtime's link),
// or "" when it cannot be named.
func LocalZone() string {
	name := strings.TrimPrefix(os.Getenv("TZ"), ":")
	if name == "" {
		if target, err := os.Readlink("/etc/localtime"); err == nil {
			if _, after, ok := strings.Cut(target, "zoneinfo/"); ok {
				name = after
			}
		}
	}
	switch name {
	case "", "Local":
		return ""
	case "Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "UCT", "Universal", "Zulu", "Etc/GMT", "GMT":
		return "UTC"
	}
	if _, err := time.LoadLocation(name); err != nil {
		return ""
	}
	return name
}

// Load reads and validates the file at path. Relative paths in it are
// relative to the file's directory.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.Source = path
	return c, nil
}

// Parse decodes YAML, fills defaults, resolves relative paths against
// baseDir and validates.
func Parse(data []byte, baseDir string) (*Config, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("parse: the file is empty")
		}
		return nil, fmt.Errorf("parse: %w", err)
	}
	if len(root.Content) == 0 {
		return nil, errors.New("parse: the file is empty")
	}
	if err := checkKeys(root.Content[0], reflect.TypeOf(Config{}), ""); err != nil {
		return nil, err
	}
	var c Config
	if err := root.Content[0].Decode(&c); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	c.fill(baseDir)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkKeys walks a mapping node against the struct type it decodes into and
// names the first key the type does not have, with its path, or the first
// number or duration written as 0: every one of them takes its default
// when left out, so a 0 would silently mean the default.
func checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && (t.Kind() == reflect.Int || t == reflect.TypeFor[Duration]()) {
		v := reflect.New(t)
		if n.Decode(v.Interface()) == nil && v.Elem().IsZero() {
			return fmt.Errorf("%s: must not be %s (line %d); leave it out for the default", path, n.Value, n.Line)
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil // type mismatches are the decoder's to report
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t.Kind() {
	case reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKeys(n.Content[i+1], t.Elem(), join(n.Content[i].Value)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			f := t.Field(i)
			if tag := strings.Split(f.Tag.Get("yaml"), ",")[0]; tag != "" && tag != "-" {
				fields[tag] = f.Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			ft, ok := fields[k]
			if !ok {
				known := make([]string, 0, len(fields))
				for name := range fields {
					known = append(known, name)
				}
				sort.Strings(known)
				return fmt.Errorf("%s: unknown key (line %d; known: %s)", join(k), n.Content[i].Line, strings.Join(known, ", "))
			}
			if err := checkKeys(n.Content[i+1], ft, join(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Config) fill(baseDir string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(baseDir, p)
	}
	if c.Store.Driver == "" {
		c.Store.Driver = DriverBolt
	}
	if c.Store.DSNEnv == "" {
		c.Store.DSNEnv = DefaultDSNEnv
	}
	for id, o := range c.Orchestrators {
		if o == nil {
			o = &Orchestrator{}
			c.Orchestrators[id] = o
		}
		o.ID = id
		own := StoreConfig{}
		if o.Store != nil {
			own = *o.Store
		}
		o.Store = &StoreConfig{Driver: cmp.Or(own.Driver, c.Store.Driver), DSNEnv: cmp.Or(own.DSNEnv, c.Store.DSNEnv)}
		if o.RuntimeRoot == "" {
			o.RuntimeRoot = id
		}
		o.RuntimeRoot = abs(o.RuntimeRoot)
		if o.Timezone == "" {
			o.Timezone = DefaultTimezone
		}
		if o.Functions == nil {
			o.Functions = slices.Clone(DefaultFunctions)
		}
		if o.MaxJobs == 0 {
			o.MaxJobs = DefaultMaxJobs
		}
		if o.MaxJobsPerSender == 0 {
			o.MaxJobsPerSender = DefaultMaxJobsPerSender
		}
		if o.MinInterval == 0 {
			o.MinInterval = DefaultMinInterval
		}
	}
	for id, p := range c.ChannelProfiles {
		if p == nil {
			p = &ChannelProfile{}
			c.ChannelProfiles[id] = p
		}
		p.ID = id
	}
	if c.Selector.Mode == "" {
		c.Selector.Mode = "rules"
	}
	if c.Selector.LLM.APIKeyEnv == "" {
		c.Selector.LLM.APIKeyEnv = "OPENAI_API_KEY"
	}
	if c.Selector.LLM.Timeout == 0 {
		c.Selector.LLM.Timeout = Duration(30 * time.Second)
	}
	if c.Slack.Mode == "" {
		c.Slack.Mode = "socket"
	}
	if c.Slack.HTTPListen == "" {
		c.Slack.HTTPListen = "127.0.0.1:3000"
	}
	if c.Server.Socket == "" {
		c.Server.Socket = "schedbot.sock"
	}
	c.Server.Socket = abs(c.Server.Socket)
	if c.Server.TLSCert != "" {
		c.Server.TLSCert, c.Server.TLSKey = abs(c.Server.TLSCert), abs(c.Server.TLSKey)
	}
	c.fillRecords(abs)
}

var (
	idPattern       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	envPattern      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	functionPattern = regexp.MustCompile(`^(\*|[a-z][a-z0-9_]*(\.([a-z][a-z0-9_]*|\*))*)$`)
)

// Validate checks every rule and reports all broken ones, each with its
// field path, sorted.
func (c *Config) Validate() error {
	var errs []string
	bad := func(path, format string, args ...any) {
		errs = append(errs, path+": "+fmt.Sprintf(format, args...))
	}
	zone := func(path, name string) {
		if name == "" {
			return
		}
		if _, err := time.LoadLocation(name); err != nil || name == "Local" {
			bad(path, "unknown timezone %q (want an IANA id such as Europe/London)", name)
		}
	}
	if len(c.Orchestrators) == 0 {
		bad("orchestrators", "at least one orchestrator is required")
	}
	storeRules := func(p string, s *StoreConfig) {
		if s.Driver != DriverBolt && s.Driver != DriverPostgres {
			bad(p+".driver", "must be bolt or postgres, got %q", s.Driver)
		}
		if !envPattern.MatchString(s.DSNEnv) {
			// Not echoed: a DSN written here by mistake may hold a password.
			bad(p+".dsn_env", "must name an environment variable (letters, digits, _), not hold the DSN itself")
		}
	}
	storeRules("store", &c.Store)
	if err := c.Server.CheckHTTP(); err != nil {
		errs = append(errs, err.Error())
	}
	roots := map[string]string{}
	for _, id := range slices.Sorted(maps.Keys(c.Orchestrators)) {
		o := c.Orchestrators[id]
		p := "orchestrators." + id
		if o.Store != nil && (o.Store.Driver != c.Store.Driver || o.Store.DSNEnv != c.Store.DSNEnv) {
			storeRules(p+".store", o.Store)
		}
		if !idPattern.MatchString(id) {
			bad(p, "id must be 1-64 letters, digits, '.', '_' or '-'")
		}
		root := filepath.Clean(o.RuntimeRoot)
		if other, ok := roots[root]; ok {
			bad(p+".runtime_root", "same directory as orchestrators.%s (each orchestrator needs its own)", other)
		}
		roots[root] = id
		zone(p+".timezone", o.Timezone)
		if o.MaxJobs < 0 {
			bad(p+".max_jobs", "must be positive, got %d", o.MaxJobs)
		}
		if o.MaxJobsPerSender < 0 {
			bad(p+".max_jobs_per_sender", "must be positive, got %d", o.MaxJobsPerSender)
		}
		if d := time.Duration(o.MinInterval); d < time.Second || d > 24*time.Hour || d%time.Second != 0 {
			bad(p+".min_interval", "must be whole seconds from 1s to 24h, got %s", d)
		}
		for i, f := range o.Functions {
			if !functionPattern.MatchString(f) {
				bad(fmt.Sprintf("%s.functions[%d]", p, i), "%q is not a function id or pattern such as schedule.*", f)
			}
		}
		for _, wid := range slices.Sorted(maps.Keys(o.Workflows)) {
			w := o.Workflows[wid]
			wp := p + ".workflows." + wid
			if !idPattern.MatchString(wid) {
				bad(wp, "id must be 1-64 letters, digits, '.', '_' or '-'")
			}
			if w == nil || len(w.Steps) == 0 {
				bad(wp+".steps", "at least one step is required")
				continue
			}
			for i, s := range w.Steps {
				sp := fmt.Sprintf("%s.steps[%d].function", wp, i)
				switch {
				case s.Function == "":
					bad(sp, "required")
				case !MatchFunction(o.Functions, s.Function):
					bad(sp, "%q is not in this orchestrator's functions", s.Function)
				}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.ChannelProfiles)) {
		pr := c.ChannelProfiles[id]
		p := "channel_profiles." + id
		if !idPattern.MatchString(id) {
			bad(p, "id must be 1-64 letters, digits, '.', '_' or '-'")
		}
		switch pr.Channel {
		case ChannelSlack:
			if pr.Slack == nil || pr.Slack.TeamID == "" {
				bad(p+".slack.team_id", "required for a slack profile")
			}
		case ChannelTerminal:
			if pr.Slack != nil {
				bad(p+".slack", "only for a slack profile")
			}
		case "":
			bad(p+".channel", "required (slack or terminal)")
		default:
			bad(p+".channel", "must be slack or terminal, got %q", pr.Channel)
		}
		switch {
		case pr.OrchestratorID == "":
			bad(p+".orchestrator_id", "required")
		case c.Orchestrators[pr.OrchestratorID] == nil:
			bad(p+".orchestrator_id", "unknown orchestrator %q", pr.OrchestratorID)
		}
		zone(p+".timezone", pr.Timezone)
	}
	switch c.Selector.Mode {
	case "rules":
	case "llm", "hybrid":
		if c.Selector.LLM.BaseURL == "" {
			bad("selector.llm.base_url", "required when selector.mode is %s", c.Selector.Mode)
		}
		if c.Selector.LLM.Model == "" {
			bad("selector.llm.model", "required when selector.mode is %s", c.Selector.Mode)
		}
	default:
		bad("selector.mode", "must be rules, llm or hybrid, got %q", c.Selector.Mode)
	}
	if c.Slack.Mode != "socket" && c.Slack.Mode != "http" {
		bad("slack.mode", "must be socket or http, got %q", c.Slack.Mode)
	}
	c.validateRecords(bad)
	if len(errs) == 0 {
		return nil
	}
	sort.Strings(errs)
	return errors.New(strings.Join(errs, "\n"))
}

// MatchFunction reports whether id is allowed by patterns: an exact id,
// "prefix.*" for every function under prefix, or "*" for all.
func MatchFunction(patterns []string, id string) bool {
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

// Orchestrator returns the orchestrator with id, or an error naming the known ones.
func (c *Config) Orchestrator(id string) (*Orchestrator, error) {
	if o := c.Orchestrators[id]; o != nil {
		return o, nil
	}
	return nil, fmt.Errorf("unknown orchestrator %q (known: %s)", id, strings.Join(slices.Sorted(maps.Keys(c.Orchestrators)), ", "))
}

// Profile returns the channel profile with id, or an error naming the known ones.
func (c *Config) Profile(id string) (*ChannelProfile, error) {
	if p := c.ChannelProfiles[id]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("unknown channel profile %q (known: %s)", id, strings.Join(slices.Sorted(maps.Keys(c.ChannelProfiles)), ", "))
}

// OrchestratorIDs lists the orchestrators, sorted.
func (c *Config) OrchestratorIDs() []string { return slices.Sorted(maps.Keys(c.Orchestrators)) }

// DefaultOrchestrator is the one to use when a command names none: the
// only orchestrator, or the one called "default".
func (c *Config) DefaultOrchestrator() (*Orchestrator, error) {
	if len(c.Orchestrators) == 1 {
		for _, o := range c.Orchestrators {
			return o, nil
		}
	}
	if o := c.Orchestrators["default"]; o != nil {
		return o, nil
	}
	return nil, fmt.Errorf("several orchestrators (%s): name one with --orchestrator", strings.Join(slices.Sorted(maps.Keys(c.Orchestrators)), ", "))
}

// String formats d as a Go duration ("30s").
func (d Duration) String() string { return time.Duration(d).String() }
