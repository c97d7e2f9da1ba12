package console_test

import (
	"bufio"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/schedbot/schedbot/adapters/console"
	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/store"
)

func TestSignInLink_WorksOnceAndBecomesAnHttpOnlySession(t *testing.T) {
	e := newEnv(t, "bolt", func(o *console.Options) { o.Secure = true })
	link := e.link("term", "ana")

	c := e.client()
	if code, _ := e.page(c, "/console/calendar"); code != http.StatusSeeOther {
		t.Fatalf("calendar before signing in: %d, want a redirect to sign-in", code)
	}
	res, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/calendar" {
		t.Fatalf("sign-in link: %s to %q", res.Status, res.Header.Get("Location"))
	}
	var sess *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "schedbot_session" {
			sess = ck
		}
	}
	if sess == nil || !sess.HttpOnly || !sess.Secure || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/console" {
		t.Fatalf("session cookie %+v: want HttpOnly, Secure, SameSite=Lax, Path=/console", sess)
	}
	// Secure cookies are not sent over the test's plain HTTP: hand it on.
	u, _ := url.Parse(e.srv.URL + "/console/")
	c.Jar.SetCookies(u, []*http.Cookie{{Name: sess.Name, Value: sess.Value, Path: "/console"}})
	if code, body := e.page(c, "/console/calendar"); code != http.StatusOK || !strings.Contains(body, "Signed in as ana via term") {
		t.Fatalf("calendar after signing in: %d", code)
	}

	// The link works once.
	if code, body := e.page(e.client(), strings.TrimPrefix(link, e.srv.URL)); code != http.StatusUnauthorized ||
		!strings.Contains(body, "used already or has expired") {
		t.Errorf("the link a second time: %d", code)
	}
	// A link is not an API token.
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/schedules", nil)
	req.Header.Set("Authorization", "Bearer "+strings.SplitN(link, "code=", 2)[1])
	if res := send(t, http.DefaultClient, req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a sign-in code as a bearer token: %s", res.Status)
	}

	// Signing out revokes the session.
	res = e.post(c, "/console/signout", url.Values{"csrf": {e.csrf(c)}}, "")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %s", res.Status)
	}
	c.Jar.SetCookies(u, []*http.Cookie{{Name: sess.Name, Value: sess.Value, Path: "/console"}})
	if code, _ := e.page(c, "/console/calendar"); code != http.StatusSeeOther {
		t.Errorf("the session after signing out: %d, want a redirect to sign-in", code)
	}
}

func TestCSRF_AStateChangeWithoutTheTokenIsRefusedAndChangesNothing(t *testing.T) {
	e := newEnv(t, "bolt")
	id := e.create("team", "UALICE", cronArgs("0 9 * * 5", "standup", "C0111"))
	c := e.signedIn("team", "UALICE")
	token := e.csrf(c)
	for _, tc := range []struct {
		name   string
		form   url.Values
		origin string
	}{
		{"no token", url.Values{}, ""},
		{"another session's token", url.Values{"csrf": {e.csrf(e.signedIn("team", "UALICE"))}}, ""},
		{"the right token from another site", url.Values{"csrf": {token}}, "https://evil.example"},
	} {
		res := e.post(c, "/console/schedules/"+id+"/pause", tc.form, tc.origin)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s, want 403", tc.name, res.Status)
		}
		if j := e.job(id); j.State != store.JobEnabled {
			t.Fatalf("%s: the job is %s", tc.name, j.State)
		}
	}
	res := e.post(c, "/console/schedules/"+id+"/pause", url.Values{"csrf": {token}}, e.srv.URL)
	if res.StatusCode != http.StatusSeeOther || e.job(id).State != store.JobPaused {
		t.Fatalf("with its token: %s, job %s", res.Status, e.job(id).State)
	}
	// Behind a proxy, the page's origin is server.public_url's.
	e2 := newEnv(t, "bolt", func(o *console.Options) { o.PublicURL = "https://schedbot.example.com" })
	id2 := e2.create("team", "UALICE", cronArgs("0 9 * * 5", "standup", "C0111"))
	c2 := e2.signedIn("team", "UALICE")
	if res := e2.post(c2, "/console/schedules/"+id2+"/pause", url.Values{"csrf": {e2.csrf(c2)}}, "https://schedbot.example.com"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("from the public URL's origin: %s", res.Status)
	}
	// The script's calls through the API proxy need it too.
	req, _ := http.NewRequest("POST", e.srv.URL+"/console/api/schedules/"+id+"/resume", nil)
	if res := send(t, c, req); res.StatusCode != http.StatusForbidden || e.job(id).State != store.JobPaused {
		t.Errorf("proxy without X-CSRF-Token: %s", res.Status)
	}
	req.Header.Set("X-CSRF-Token", token)
	if res := send(t, c, req); res.StatusCode != http.StatusOK || e.job(id).State != store.JobEnabled {
		t.Errorf("proxy with X-CSRF-Token: %s", res.Status)
	}
}

// send sends req and closes the answer's body, read to its end.
func send(t *testing.T, c *http.Client, req *http.Request) *http.Response {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

var (
	inlineScript  = regexp.MustCompile(`<script(?:\s[^>]*)?>`)
	eventHandler  = regexp.MustCompile(`(?i)<[^>]+\son[a-z]+\s*=`)
	styleAttr     = regexp.MustCompile(`(?i)<[^>]+\sstyle\s*=`)
	javascriptURL = regexp.MustCompile(`(?i)(href|src|action)\s*=\s*"\s*javascript:`)
	attrValue     = regexp.MustCompile(`"[^"]*"`)
)

func TestPages_HaveACSPAndNoInlineScriptAndEscapeJobText(t *testing.T) {
	e := newEnv(t, "bolt")
	evil := `<img src=x onerror=alert(1)>`
	id := e.create("team", "UALICE", cronArgs("0 9 * * *", evil, "C0111"))
	c := e.signedIn("team", "UALICE")
	for _, path := range []string{"/console/signin", "/console/calendar", "/console/calendar?view=month", "/console/calendar?view=day",
		"/console/schedules", "/console/schedules/" + id, "/console/schedules/" + id + "/delete", "/console/new",
		"/console/audit", "/console/schedules/nope"} {
		res, err := c.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		res.Body.Close()
		body := b.String()
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		for _, m := range inlineScript.FindAllString(body, -1) {
			if !strings.Contains(m, `src="/console/static/`) {
				t.Errorf("%s: inline script %s", path, m)
			}
		}
		markup := attrValue.ReplaceAllString(body, `""`) // escaped user text inside attributes is not markup
		for _, re := range []*regexp.Regexp{eventHandler, styleAttr} {
			if m := re.FindString(markup); m != "" {
				t.Errorf("%s: %s", path, m)
			}
		}
		for _, re := range []*regexp.Regexp{javascriptURL} {
			if m := re.FindString(body); m != "" {
				t.Errorf("%s: %s", path, m)
			}
		}
		if strings.Contains(body, "<img") {
			t.Errorf("%s: the job's text became markup", path)
		}
		wantText := path == "/console/schedules" || strings.HasPrefix(path, "/console/schedules/"+id) ||
			path == "/console/calendar" || path == "/console/calendar?view=month"
		if wantText && !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s: the job's text is not shown, escaped", path)
		}
	}
}

func TestAuthority_IsTheAPIsWhateverTheButton(t *testing.T) {
	e := newEnv(t, "bolt")
	id := e.create("team", "UALICE", cronArgs("0 9 * * 5", "alice's standup", "C0111"))
	// Bob, of the same team, may see it (as schedule.show lets him in
	// chat) but not change it.
	bob := e.signedIn("team", "UBOB")
	if code, _ := e.page(bob, "/console/schedules/"+id); code != http.StatusOK {
		t.Errorf("bob opens alice's job: %d", code)
	}
	res := e.post(bob, "/console/schedules/"+id+"/pause", url.Values{"csrf": {e.csrf(bob)}}, "")
	if res.StatusCode < 400 || e.job(id).State != store.JobEnabled {
		t.Errorf("bob pauses alice's job: %s, job %s", res.Status, e.job(id).State)
	}
	admin := e.signedIn("team", "UADMIN")
	res = e.post(admin, "/console/schedules/"+id+"/pause", url.Values{"csrf": {e.csrf(admin)}}, "")
	if res.StatusCode != http.StatusSeeOther || e.job(id).State != store.JobPaused {
		t.Errorf("the profile's admin pauses it: %s, job %s", res.Status, e.job(id).State)
	}
}

func TestSignInWithToken_ActsAsTheTokensSender(t *testing.T) {
	e := newEnv(t, "bolt")
	id := e.create("team", "UALICE", cronArgs("0 9 * * 5", "standup", "C0111"))
	c := e.client()
	token := apiToken(t, e, "team", "UALICE")
	if res := e.post(c, "/console/signin", url.Values{"token": {token}}, ""); res.StatusCode != http.StatusForbidden {
		t.Errorf("a sign-in form without an Origin: %s", res.Status)
	}
	if res := e.post(c, "/console/signin", url.Values{"token": {"sbt_nope"}}, e.srv.URL); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unknown token: %s", res.Status)
	}
	res := e.post(c, "/console/signin", url.Values{"token": {token}, "next": {"/console/schedules/" + id}}, e.srv.URL)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/schedules/"+id {
		t.Fatalf("sign in with a token: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if code, body := e.page(c, "/console/schedules/"+id); code != http.StatusOK || !strings.Contains(body, "Signed in as UALICE via team") {
		t.Errorf("the job page: %d", code)
	}
	// next never leaves the console.
	res = e.post(e.client(), "/console/signin", url.Values{"token": {token}, "next": {"//evil.example/x"}}, e.srv.URL)
	if loc := res.Header.Get("Location"); loc != "/console/calendar" {
		t.Errorf("next=//evil.example: redirected to %q", loc)
	}
}

func apiToken(t *testing.T, e *env, profile, sender string) string {
	t.Helper()
	tok, hash := httpapi.NewToken()
	err := e.st.Update(t.Context(), func(tx store.Tx) error {
		return tx.TokenPut(&store.Token{Hash: hash, ID: "tok-" + sender, Name: "laptop", ChannelProfileID: profile, SenderID: sender, CreatedAt: t0})
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// fakeSlack answers Sign in with Slack's two calls: the code "good"
// belongs to user (of team), any other code is refused.
func fakeSlack(t *testing.T, team, user string) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/openid.connect.token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		ok := r.Form.Get("code") == "good" && r.Form.Get("client_id") == "cid" && r.Form.Get("client_secret") == "secret"
		if !ok {
			if u, p, basic := r.BasicAuth(); basic {
				ok = r.Form.Get("code") == "good" && u == "cid" && p == "secret"
			}
		}
		if !ok {
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "invalid_code"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "access_token": "xoxp-user", "token_type": "Bearer", "id_token": "x.y.z"})
	})
	mux.HandleFunc("/api/openid.connect.userInfo", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.Form.Get("token") != "xoxp-user" && r.Header.Get("Authorization") != "Bearer xoxp-user" {
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "invalid_auth"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "sub": user, "https://slack.com/user_id": user,
			"https://slack.com/team_id": team, "name": "Ana"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestSignInWithSlack_OpenIDConnectForATeamOfAProfile(t *testing.T) {
	for _, tc := range []struct {
		name, team, code string
		badState         bool
		want             int
	}{
		{"a member of the profile's team", "T0001", "good", false, http.StatusSeeOther},
		{"another workspace", "T9999", "good", false, http.StatusForbidden},
		{"a code Slack refuses", "T0001", "bad", false, http.StatusUnauthorized},
		{"a callback this browser did not start", "T0001", "good", true, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slack := fakeSlack(t, tc.team, "UANA")
			e := newEnv(t, "bolt", func(o *console.Options) {
				o.Slack = &console.SlackSignIn{ClientID: "cid", ClientSecret: "secret", APIURL: slack.URL + "/api/"}
			})
			c := e.client()
			res, err := c.Get(e.srv.URL + "/console/auth/slack")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			loc, _ := url.Parse(res.Header.Get("Location"))
			q := loc.Query()
			if res.StatusCode != http.StatusFound || loc.Path != "/openid/connect/authorize" || q.Get("client_id") != "cid" ||
				q.Get("scope") != "openid profile" || q.Get("state") == "" ||
				q.Get("redirect_uri") != e.srv.URL+"/console/auth/slack/callback" {
				t.Fatalf("start: %s to %s", res.Status, loc)
			}
			state := q.Get("state")
			if tc.badState {
				state = "forged"
			}
			res, err = c.Get(e.srv.URL + "/console/auth/slack/callback?" + url.Values{"code": {tc.code}, "state": {state}}.Encode())
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Fatalf("callback: %s, want %d", res.Status, tc.want)
			}
			code, body := e.page(c, "/console/schedules")
			if signedIn := code == http.StatusOK; signedIn != (tc.want == http.StatusSeeOther) {
				t.Fatalf("signed in: %v (%d)", signedIn, code)
			}
			if code == http.StatusOK && !strings.Contains(body, "Signed in as UANA via team") {
				t.Errorf("signed in as someone else")
			}
		})
	}
}

func TestAuditExport_IsTheLogAsJSONLines(t *testing.T) {
	e := newEnv(t, "bolt")
	id := e.create("term", "ops", cronArgs("0 9 * * 5", "standup", "C0111"))
	c := e.signedIn("term", "ops")
	e.post(c, "/console/schedules/"+id+"/pause", url.Values{"csrf": {e.csrf(c)}}, "")
	res, err := c.Get(e.srv.URL + "/console/audit/export?job=" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var actions []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		var ev store.AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if ev.Hash == "" || ev.JobID != id {
			t.Errorf("event %+v", ev)
		}
		actions = append(actions, ev.Action)
	}
	if strings.Join(actions, " ") != "job.created job.paused" || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("export: %v (%s)", actions, res.Header.Get("Content-Disposition"))
	}
}

func TestJobPage_ButtonsDoWhatTheySay(t *testing.T) {
	e := newEnv(t, "bolt")
	id := e.create("term", "ops", cronArgs("0 9 * * *", "standup", "C0111"))
	c := e.signedIn("term", "ops")
	tok := e.csrf(c)
	press := func(op string) {
		t.Helper()
		res := e.post(c, "/console/schedules/"+id+"/"+op, url.Values{"csrf": {tok}}, "")
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %s", op, res.Status)
		}
	}
	next := e.job(id).NextRunAt
	press("skip")
	if j := e.job(id); len(j.Skip) != 1 || !j.Skip[0].Equal(next) {
		t.Errorf("skip next: skips %v, want [%s]", j.Skip, next)
	}
	press("run")
	var runs int
	e.st.View(t.Context(), func(tx store.Tx) error {
		rs, err := tx.RunList(id, 10)
		runs = len(rs)
		return err
	})
	if runs != 1 {
		t.Errorf("run now: %d runs", runs)
	}
	press("pause")
	press("resume")
	if e.job(id).State != store.JobEnabled {
		t.Errorf("pause, resume: %s", e.job(id).State)
	}
	// Delete asks first: the button is a link to a page that asks.
	code, body := e.page(c, "/console/schedules/"+id+"/delete")
	if code != http.StatusOK || !strings.Contains(body, "Delete “standup”?") || e.job(id).State == store.JobDeleted {
		t.Fatalf("the confirmation page: %d", code)
	}
	press("delete")
	if e.job(id).State != store.JobDeleted {
		t.Errorf("delete: %s", e.job(id).State)
	}
	if res := e.post(c, "/console/schedules/"+id+"/explode", url.Values{"csrf": {tok}}, ""); res.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown button: %s", res.Status)
	}
}

func TestEdit_SavesThroughUpdateAndRefusesAStaleForm(t *testing.T) {
	e := newEnv(t, "bolt")
	id := e.create("term", "ops", cronArgs("0 9 * * 5", "standup", "C0111"))
	c := e.signedIn("term", "ops")
	code, body := e.page(c, "/console/schedules/"+id+"/edit")
	etag := regexp.MustCompile(`name="etag" value="([^"]+)"`).FindStringSubmatch(body)
	if code != http.StatusOK || etag == nil || !strings.Contains(body, `value="0 9 * * 5"`) || !strings.Contains(body, ">standup</textarea>") {
		t.Fatalf("the edit page: %d", code)
	}
	form := url.Values{"csrf": {e.csrf(c)}, "mode": {"form"}, "etag": {html.UnescapeString(etag[1])}, "type": {"cron"}, "expr": {"30 10 * * 1"},
		"tz": {"Europe/Berlin"}, "message": {"standup, now Mondays"}, "channel": {"C0111"}}
	if res, _ := c.PostForm(e.srv.URL+"/console/schedules/"+id+"/edit", form); res.StatusCode != http.StatusSeeOther {
		b := new(strings.Builder)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "problem") {
				b.WriteString(sc.Text())
			}
		}
		t.Fatalf("save: %s %s", res.Status, b)
	}
	j := e.job(id)
	if j.Schedule.Cron != "30 10 * * 1" || j.Schedule.Timezone != "Europe/Berlin" || !strings.Contains(string(j.TargetAction.FunctionArgs), "now Mondays") {
		t.Errorf("after save: %+v %s", j.Schedule, j.TargetAction.FunctionArgs)
	}
	// The same form again: the job changed since its ETag.
	form.Set("expr", "0 8 * * 1")
	if res := e.post(c, "/console/schedules/"+id+"/edit", form, ""); res.StatusCode != http.StatusBadRequest || e.job(id).Schedule.Cron != "30 10 * * 1" {
		t.Errorf("a stale form: %s, cron %q", res.Status, e.job(id).Schedule.Cron)
	}
	// A bad rule is named and changes nothing.
	_, body = e.page(c, "/console/schedules/"+id+"/edit")
	etag = regexp.MustCompile(`name="etag" value="([^"]+)"`).FindStringSubmatch(body)
	form.Set("etag", html.UnescapeString(etag[1]))
	form.Set("expr", "61 9 * * *")
	res, _ := c.PostForm(e.srv.URL+"/console/schedules/"+id+"/edit", form)
	b := new(strings.Builder)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		b.WriteString(sc.Text())
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(b.String(), "schedule.cron") || e.job(id).Schedule.Cron != "30 10 * * 1" {
		t.Errorf("a bad cron: %s", res.Status)
	}
}

func TestSchedules_SearchAndFilters(t *testing.T) {
	e := newEnv(t, "bolt")
	a := e.create("team", "UALICE", cronArgs("0 9 * * 5", "standup", "C0111"))
	b := e.create("team", "UBOB", cronArgs("0 17 * * 5", "retro", "#team"))
	admin := e.signedIn("team", "UADMIN")
	e.post(admin, "/console/schedules/"+b+"/pause", url.Values{"csrf": {e.csrf(admin)}}, "")
	for q, want := range map[string][]string{
		"":                   {a, b},
		"?q=retro":           {b},
		"?state=paused":      {b},
		"?channel=C0111":     {a},
		"?createdBy=UALICE":  {a},
		"?q=nothing-matches": {},
	} {
		_, body := e.page(admin, "/console/schedules"+q)
		for _, id := range []string{a, b} {
			if has, want := strings.Contains(body, id), slicesContains(want, id); has != want {
				t.Errorf("%q: lists %s: %v, want %v", q, id, has, want)
			}
		}
	}
}

func slicesContains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestCalendar_MarksOccurrencesNearAClockChange(t *testing.T) {
	e := newEnv(t, "bolt")
	e.create("term", "ops", cronArgs("0 9 * * *", "daily", "C0111"))
	c := e.signedIn("term", "ops")
	_, body := e.page(c, "/console/calendar?date=2027-03-14&tz="+zone)
	marked := regexp.MustCompile(`class="ev scheduled dst" href="[^"]+" data-min="540" data-job="[^"]+" title="(\w{3} \d+ \w{3})`).FindAllStringSubmatch(body, -1)
	var days []string
	for _, m := range marked {
		days = append(days, m[1])
	}
	if strings.Join(days, ",") != "Sat 13 Mar,Sun 14 Mar" {
		t.Errorf("marked near the clock change: %v", days)
	}
	if !strings.Contains(body, "clocks go forward 1h in America/New_York on Sun 14 Mar") {
		t.Errorf("the mark does not say what changes")
	}
}
