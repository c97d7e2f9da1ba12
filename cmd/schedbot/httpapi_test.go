package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	termcli "github.com/schedbot/schedbot/adapters/cli"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// httpAPIAddr is the HTTP API's address from serve's log.
func httpAPIAddr(t *testing.T, p *daemonProc) string {
	t.Helper()
	var addr string
	waitFor(t, 20*time.Second, "the HTTP API's address", func() bool {
		sc := bufio.NewScanner(strings.NewReader(p.stderr.String()))
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "http api listening" {
				addr = line.Addr
				return true
			}
		}
		return false
	})
	return addr
}

// httpAPICall sends one request to the HTTP API.
func httpAPICall(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// exerciseHTTPAPI drives a running serve's HTTP API: a token made through
// its local API, a job created over HTTP that fires and is delivered like
// any other, the same job as the CLI makes from the same arguments, a
// pause, the audit log and its verification, and a revoked token's 401.
// cfg is the --config or --data arguments of the CLI.
func exerciseHTTPAPI(t *testing.T, c *cli, d *daemonProc, logPath string, cfg ...string) {
	base := "http://" + httpAPIAddr(t, d) + "/api/v1"
	token := strings.TrimSpace(c.mustRun(append([]string{"token", "create", "--profile", "terminal", "--sender", "ci", "--name", "ci-bot"}, cfg...)...))
	if !strings.HasPrefix(token, "sbt_") {
		t.Fatalf("token create printed %q", token)
	}
	runAt := time.Now().UTC().Add(-10 * time.Second).Format(time.RFC3339)
	code, body := httpAPICall(t, "POST", base+"/schedules", token, `{"scheduleType":"once","schedule":{"runAt":"`+runAt+`"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"hello over http"}}}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /schedules: %d %s", code, body)
	}
	waitFor(t, 30*time.Second, "the job created over HTTP to fire", func() bool {
		entries, _ := termcli.ReadLog(logPath)
		for _, e := range entries {
			if strings.Contains(e.Text, "hello over http") {
				return true
			}
		}
		return false
	})

	// The same arguments through the CLI and over HTTP make the same job.
	code, body = httpAPICall(t, "POST", base+"/schedules", token, createArgs)
	if code != http.StatusCreated {
		t.Fatalf("POST /schedules: %d %s", code, body)
	}
	var overHTTP struct{ Job *jobView }
	json.Unmarshal([]byte(body), &overHTTP)
	var viaCLI functions.JobResult
	json.Unmarshal([]byte(c.mustRun(append([]string{"call", "schedule.create", "--json", "--args",
		strings.Replace(createArgs, "friday post", "friday post 2", 1)}, cfg...)...)), &viaCLI)
	if overHTTP.Job == nil || viaCLI.Job == nil {
		t.Fatalf("no job: %s", body)
	}
	h, l := overHTTP.Job, viaCLI.Job
	if h.Description != l.Description || !h.NextRunAt.Equal(l.NextRunAt) || h.Schedule.Cron != l.Schedule.Cron || h.Schedule.Timezone != l.Schedule.Timezone ||
		compactJSON(h.TargetAction.FunctionArgs) != compactJSON(l.TargetAction.FunctionArgs) || h.CreatedBy.Via != "http" {
		t.Errorf("over HTTP %+v\nvia the CLI %+v", h, l)
	}

	code, body = httpAPICall(t, "POST", base+"/schedules/"+h.JobID+"/pause", token, "")
	if code != http.StatusOK || !strings.Contains(body, `"state":"paused"`) {
		t.Errorf("pause: %d %s", code, body)
	}
	if code, body = httpAPICall(t, "GET", base+"/audit?job="+h.JobID, token, ""); code != 200 ||
		!strings.Contains(body, `"via":"http","token":"ci-bot"`) || !strings.Contains(body, "job.paused") {
		t.Errorf("audit: %d %s", code, body)
	}
	if code, body = httpAPICall(t, "GET", base+"/audit/verify", token, ""); code != 200 || !strings.Contains(body, `"ok":true`) {
		t.Errorf("verify: %d %s", code, body)
	}
	list := c.mustRun(append([]string{"token", "list"}, cfg...)...)
	id := ""
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, "ci-bot") {
			id = strings.Fields(line)[0]
		}
	}
	c.mustRun(append([]string{"token", "revoke", id}, cfg...)...)
	if code, body = httpAPICall(t, "GET", base+"/schedules", token, ""); code != http.StatusUnauthorized {
		t.Errorf("revoked token: %d %s", code, body)
	}
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	json.Compact(&buf, b)
	return buf.String()
}

// jobView is the part of a job the comparison reads.
type jobView struct {
	JobID        string
	Description  string
	NextRunAt    time.Time
	Schedule     struct{ Cron, Timezone string }
	TargetAction struct{ FunctionArgs json.RawMessage }
	CreatedBy    struct{ Via string }
}

func TestServe_HTTPAPIEndToEnd(t *testing.T) {
	c := newCLI(t)
	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	d := startServe(t, c.data, "--metrics", "off", "--http", "127.0.0.1:0", "--delivery-log", logPath)
	d.waitReady(t, c.data)
	exerciseHTTPAPI(t, c, d, logPath)
}

func TestServe_HTTPAPIEndToEndOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	t.Setenv("SCHEDBOT_DATABASE_URL", dsn)
	c := newCLI(t)
	dir := t.TempDir()
	cfg := pgConfig(t, dir)
	logPath := filepath.Join(t.TempDir(), "deliveries.log")
	d := startServeConfig(t, cfg, "--metrics", "off", "--http", "127.0.0.1:0", "--delivery-log", logPath)
	d.waitReady(t, dir)
	exerciseHTTPAPI(t, c, d, logPath, "--config", cfg)
}

func TestServe_HTTPAPIRefusesPlainHTTPOffLoopback(t *testing.T) {
	c := newCLI(t)
	_, errs, code := c.run("serve", "--http", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errs, "server.tls_cert and server.tls_key, or server.http_insecure: true") {
		t.Errorf("serve --http 0.0.0.0:0: exit %d %s", code, errs)
	}
	for addr, ok := range map[string]bool{"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:1": true,
		"0.0.0.0:8080": false, ":8080": false, "10.0.0.5:80": false} {
		s := config.Server{HTTPListen: addr}
		if err := s.CheckHTTP(); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
		s.HTTPInsecure = true
		if err := s.CheckHTTP(); err != nil {
			t.Errorf("%s with http_insecure: %v", addr, err)
		}
		s = config.Server{HTTPListen: addr, TLSCert: "c.pem", TLSKey: "k.pem"}
		if err := s.CheckHTTP(); err != nil {
			t.Errorf("%s with TLS: %v", addr, err)
		}
	}
	if err := (&config.Server{HTTPListen: "127.0.0.1:1", TLSCert: "c.pem"}).CheckHTTP(); err == nil {
		t.Error("tls_cert without tls_key passes")
	}
}

func TestToken_CreateListRevokeDirectly(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{
		{"token", "create", "--profile", "terminal"},
		{"token", "create", "--profile", "terminal", "--sender", "a b"},
		{"token", "create", "--profile", "terminal", "--sender", "ci", "--expires", "soon"},
		{"token", "create", "--profile", "nope", "--sender", "ci"},
		{"token", "revoke"},
		{"token", "frobnicate"},
	} {
		if _, errs, code := c.run(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
	out, errs, code := c.run("token", "create", "--profile", "terminal", "--sender", "ci", "--name", "nightly", "--expires", "never")
	if code != 0 || !strings.HasPrefix(out, "sbt_") || !strings.Contains(errs, "shown this once") {
		t.Fatalf("create: exit %d %q %q", code, out, errs)
	}
	list := c.mustRun("token", "list")
	if !strings.Contains(list, "nightly") || !strings.Contains(list, "active") || strings.Contains(list, strings.TrimSpace(out)) {
		t.Errorf("list:\n%s", list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	c.mustRun("token", "revoke", id)
	if list := c.mustRun("token", "list"); !strings.Contains(list, "revoked") {
		t.Errorf("after revoke:\n%s", list)
	}
	if _, _, code := c.run("token", "revoke", "tok_nope"); code != 1 {
		t.Errorf("revoke an unknown id: exit %d", code)
	}
	if audit := c.mustRun("audit", "--json"); !strings.Contains(audit, "token.created") || !strings.Contains(audit, "token.revoked") {
		t.Errorf("token changes are not audited:\n%s", audit)
	}
}

// serve prints a one-time console sign-in link on stdout, never in its
// log; the link becomes a session once.
func TestServe_PrintsAConsoleSignInLinkThatWorksOnce(t *testing.T) {
	c := newCLI(t)
	d := startServe(t, c.data, "--metrics", "off", "--http", "127.0.0.1:0")
	d.waitReady(t, c.data)
	addr := httpAPIAddr(t, d)
	linkRe := regexp.MustCompile(`http://\S+/console/signin\?code=sbl_\S+`)
	var link string
	waitFor(t, 20*time.Second, "the console sign-in link", func() bool {
		link = linkRe.FindString(d.stdout.String())
		return link != ""
	})
	if !strings.Contains(link, addr) {
		t.Errorf("link %s is not on the listener %s", link, addr)
	}
	if strings.Contains(d.stderr.String(), "sbl_") {
		t.Errorf("the sign-in code is in the log")
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) int {
		res, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := get(link); code != http.StatusSeeOther {
		t.Fatalf("the link: %d", code)
	}
	if code := get("http://" + addr + "/console/schedules"); code != http.StatusOK {
		t.Errorf("the console with the session: %d", code)
	}
	if code := get(link); code != http.StatusUnauthorized {
		t.Errorf("the link again: %d", code)
	}
}
