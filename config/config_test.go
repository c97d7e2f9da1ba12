package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	t.Setenv("TZ", "Europe/Paris")
	c, err := Default("/data")
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Orchestrator("default")
	if err != nil {
		t.Fatal(err)
	}
	if o.RuntimeRoot != "/data/default" || o.MaxJobs != 10000 || !MatchFunction(o.Functions, "schedule.create") || o.Timezone != "Europe/Paris" {
		t.Errorf("default orchestrator = %+v", o)
	}
	p, err := c.Profile("terminal")
	if err != nil || p.OrchestratorID != "default" || p.Channel != ChannelTerminal {
		t.Errorf("terminal profile = %+v, %v", p, err)
	}
	if c.Server.Socket != "/data/schedbot.sock" {
		t.Errorf("socket = %s", c.Server.Socket)
	}
}

const good = `
orchestrators:
  ops:
    runtime_root: ./data/ops
    timezone: America/New_York
    functions: ["schedule.*", "message.post"]
    max_jobs: 100
    workflows:
      daily-report:
        steps:
          - function: message.post
            args: {text: "Daily report for {{.inputs.team}}"}
channel_profiles:
  team-slack:
    channel: slack
    orchestrator_id: ops
    slack: {team_id: T0001, channels: ["*"]}
    timezone: Europe/London
    admins: [U0ADMIN]
  terminal:
    channel: terminal
    orchestrator_id: ops
selector:
  mode: hybrid
  llm: {base_url: "http://127.0.0.1:11434/v1", model: "llama3.1", api_key_env: OPENAI_API_KEY, timeout: 10s}
slack:
  mode: socket
server:
  socket: ./run/schedbot.sock
  metrics_listen: 127.0.0.1:9464
`

func TestLoad_DesignExample(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schedbot.yaml")
	os.WriteFile(path, []byte(good), 0o600)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o := c.Orchestrators["ops"]
	if o.RuntimeRoot != filepath.Join(dir, "data/ops") {
		t.Errorf("runtime_root = %s, want it under the config's directory", o.RuntimeRoot)
	}
	if got := o.Workflows["daily-report"].Steps[0].Args["text"]; got != "Daily report for {{.inputs.team}}" {
		t.Errorf("workflow arg = %v", got)
	}
	if c.ChannelProfiles["team-slack"].Slack.TeamID != "T0001" || c.Selector.LLM.Timeout.String() != "10s" {
		t.Errorf("profile/selector = %+v %+v", c.ChannelProfiles["team-slack"], c.Selector)
	}
}

func TestParse_RejectsWithFieldPath(t *testing.T) {
	cases := map[string]string{
		"unknown top key":      "orchestrators: {a: {}}\nfoo: 1\n",
		"unknown nested key":   "orchestrators: {a: {runtime_rot: x}}\n",
		"unknown profile key":  "orchestrators: {a: {}}\nchannel_profiles: {t: {channel: terminal, orchestrator_id: a, colour: red}}\n",
		"unknown orchestrator": "orchestrators: {a: {}}\nchannel_profiles: {team: {channel: terminal, orchestrator_id: ops}}\n",
		"bad timezone":         "orchestrators: {a: {timezone: Mars/Base}}\n",
		"bad profile timezone": "orchestrators: {a: {}}\nchannel_profiles: {t: {channel: terminal, orchestrator_id: a, timezone: EST5}}\n",
		"duplicate id":         "orchestrators:\n  a: {}\n  a: {}\n",
		"shared runtime root":  "orchestrators: {a: {runtime_root: x}, b: {runtime_root: x}}\n",
		"no orchestrators":     "selector: {mode: rules}\n",
		"bad channel":          "orchestrators: {a: {}}\nchannel_profiles: {t: {channel: irc, orchestrator_id: a}}\n",
		"slack without team":   "orchestrators: {a: {}}\nchannel_profiles: {t: {channel: slack, orchestrator_id: a}}\n",
		"workflow function":    "orchestrators: {a: {functions: [message.post], workflows: {w: {steps: [{function: schedule.delete}]}}}}\n",
		"bad mode":             "orchestrators: {a: {}}\nselector: {mode: magic}\n",
		"llm without model":    "orchestrators: {a: {}}\nselector: {mode: llm, llm: {base_url: http://x}}\n",
		"bad function":         "orchestrators: {a: {functions: ['../etc']}}\n",
		"bad duration":         "orchestrators: {a: {}}\nselector: {llm: {timeout: soon}}\n",
		"empty":                "",
		"store driver":         "orchestrators: {a: {}}\nstore: {driver: mysql}\n",
		"dsn in the file":      "orchestrators: {a: {}}\nstore: {driver: postgres, dsn: 'postgres://u:pw@h/db'}\n",
		"dsn in dsn_env":       "orchestrators: {a: {}}\nstore: {driver: postgres, dsn_env: 'postgres://u:pw@h/db'}\n",
		"orchestrator driver":  "orchestrators: {a: {store: {driver: sqlite}}}\n",
		"http off loopback":    "orchestrators: {a: {}}\nserver: {http_listen: '0.0.0.0:8080'}\n",
		"tls cert alone":       "orchestrators: {a: {}}\nserver: {http_listen: '127.0.0.1:8080', tls_cert: c.pem}\n",
	}
	want := map[string]string{
		"unknown top key":      "foo: unknown key",
		"unknown nested key":   "orchestrators.a.runtime_rot: unknown key",
		"unknown profile key":  "channel_profiles.t.colour: unknown key",
		"unknown orchestrator": `channel_profiles.team.orchestrator_id: unknown orchestrator "ops"`,
		"bad timezone":         `orchestrators.a.timezone: unknown timezone "Mars/Base"`,
		"bad profile timezone": `channel_profiles.t.timezone: unknown timezone "EST5"`,
		"duplicate id":         `mapping key "a" already defined`,
		"shared runtime root":  "orchestrators.b.runtime_root: same directory as orchestrators.a",
		"no orchestrators":     "orchestrators: at least one orchestrator is required",
		"bad channel":          `channel_profiles.t.channel: must be slack or terminal, got "irc"`,
		"slack without team":   "channel_profiles.t.slack.team_id: required",
		"workflow function":    `orchestrators.a.workflows.w.steps[0].function: "schedule.delete" is not in this orchestrator's functions`,
		"bad mode":             `selector.mode: must be rules, llm or hybrid`,
		"llm without model":    "selector.llm.model: required",
		"bad function":         "orchestrators.a.functions[0]",
		"bad duration":         "not a duration",
		"empty":                "empty",
		"store driver":         `store.driver: must be bolt or postgres, got "mysql"`,
		"dsn in the file":      "store.dsn: unknown key",
		"dsn in dsn_env":       "store.dsn_env: must name an environment variable",
		"orchestrator driver":  `orchestrators.a.store.driver: must be bolt or postgres, got "sqlite"`,
		"http off loopback":    "server.http_listen: 0.0.0.0:8080 is not a loopback address",
		"tls cert alone":       "server.tls_cert and server.tls_key: give both or neither",
	}
	for name, src := range cases {
		_, err := Parse([]byte(src), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: err = %v, want it to contain %q", name, err, want[name])
		}
	}
}

// TestStore_GlobalThenPerOrchestrator: bolt is the default; the global
// store section applies to every orchestrator, and an orchestrator's own
// section overrides only what it sets.
func TestStore_GlobalThenPerOrchestrator(t *testing.T) {
	c, err := Parse([]byte("orchestrators: {a: {}}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := *c.Orchestrators["a"].Store; got != (StoreConfig{Driver: "bolt", DSNEnv: "SCHEDBOT_DATABASE_URL"}) {
		t.Errorf("default store = %+v", got)
	}
	src := "store: {driver: postgres}\norchestrators: {a: {}, b: {store: {driver: bolt}}, c: {store: {dsn_env: SALES_DB}}}\n"
	if c, err = Parse([]byte(src), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]StoreConfig{
		"a": {Driver: "postgres", DSNEnv: "SCHEDBOT_DATABASE_URL"},
		"b": {Driver: "bolt", DSNEnv: "SCHEDBOT_DATABASE_URL"},
		"c": {Driver: "postgres", DSNEnv: "SALES_DB"},
	} {
		if got := *c.Orchestrators[id].Store; got != want {
			t.Errorf("orchestrator %s store = %+v, want %+v", id, got, want)
		}
	}
	t.Setenv("SALES_DB", "")
	if _, err := c.Orchestrators["c"].Store.DSN(); err == nil || !strings.Contains(err.Error(), "$SALES_DB is not set") {
		t.Errorf("DSN with the variable unset = %v", err)
	}
	t.Setenv("SALES_DB", "postgres://db/sales")
	if dsn, err := c.Orchestrators["c"].Store.DSN(); dsn != "postgres://db/sales" || err != nil {
		t.Errorf("DSN = %q, %v", dsn, err)
	}
}

func TestFind_Precedence(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	c, err := Find("", "")
	if err != nil || c.Source != "embedded default" {
		t.Fatalf("no file: %v, %v", c, err)
	}
	os.WriteFile("schedbot.yaml", []byte("orchestrators: {local: {}}\n"), 0o600)
	os.WriteFile("env.yaml", []byte("orchestrators: {fromenv: {}}\n"), 0o600)
	os.WriteFile("flag.yaml", []byte("orchestrators: {fromflag: {}}\n"), 0o600)
	if c, _ := Find("", ""); c.Orchestrators["local"] == nil {
		t.Error("./schedbot.yaml not picked up")
	}
	t.Setenv(EnvConfig, "env.yaml")
	if c, _ := Find("", ""); c.Orchestrators["fromenv"] == nil {
		t.Error("SCHEDBOT_CONFIG not honoured")
	}
	if c, _ := Find("flag.yaml", ""); c.Orchestrators["fromflag"] == nil {
		t.Error("--config not honoured")
	}
	if _, err := Find("flag.yaml", "/elsewhere"); err == nil {
		t.Error("--data with a config file accepted")
	}
}

func TestMatchFunction(t *testing.T) {
	p := []string{"schedule.*", "message.post"}
	for id, want := range map[string]bool{
		"schedule.create": true, "message.post": true, "message.delete": false, "schedulex.y": false, "": false,
	} {
		if got := MatchFunction(p, id); got != want {
			t.Errorf("MatchFunction(%q) = %v", id, got)
		}
	}
	if !MatchFunction([]string{"*"}, "anything.at.all") {
		t.Error("* does not match everything")
	}
}
