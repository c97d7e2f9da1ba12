package console_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/schedbot/schedbot/store"
)

// The console as a person uses it: Debian's chromium, headless, driven
// through chromedp. Without chromium these tests skip, saying so, unless
// CI=true (whose .ci/run installs it), where they fail.
//
// Screenshots of each page go to $SCHEDBOT_SCREENSHOTS when set (make
// screenshots writes docs/screenshots), else to the test's temp dir.

// browser starts chromium for t and returns a context for one tab of a
// fresh browser profile, which fails the test on any JavaScript dialog
// (an alert would mean injected script ran).
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (apt-get install -y chromium); CI needs the browser tests")
		}
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.WindowSize(1280, 900),
		chromedp.Flag("no-sandbox", os.Geteuid() == 0), // root (CI containers) cannot use the sandbox
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Env("TZ="+zone))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(cancelTime)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			t.Errorf("a JavaScript dialog opened: %q", d.Message)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// do runs actions in the tab, failing t with where the page was.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		t.Fatalf("%s: %v\n(at %s, showing: %.600s)", what, err, loc, text)
	}
}

// get runs one action that gives a value.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	return get(t, ctx, js, chromedp.Evaluate[T](js))
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	return get(t, ctx, "text of "+css, chromedp.Text(chromedp.CSS(css)))
}

// shot writes a screenshot of the whole page as name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCHEDBOT_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "schedbot-console-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	buf := get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// center is the middle of the first element css matches, in CSS pixels.
func center(t *testing.T, ctx context.Context, css string) (x, y float64) {
	t.Helper()
	box := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2]; })()`, css))
	return box[0], box[1]
}

// labelled checks that every control on the page has a name a screen
// reader can say: a label, an aria-label, or its own text.
func labelled(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	bare := eval[[]string](t, ctx, `[...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a')]
		.filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !(el.textContent || '').trim())
		.map(el => el.outerHTML.slice(0, 80))`)
	if len(bare) > 0 {
		t.Errorf("%s: controls without a name: %q", page, bare)
	}
}

func TestBrowser_Bolt(t *testing.T)     { browserScenario(t, "bolt", true) }
func TestBrowser_Postgres(t *testing.T) { browserScenario(t, "postgres", false) }

// browserScenario signs in with a printed link, creates a job by typing
// English (seeing the preview first), finds it on the calendar by week and
// by month, drags a one-time job to another day and hour, pauses a job
// from its page, finds all of it in the audit log, and checks that a job
// whose text is markup shows it as text and that a form without its CSRF
// token is refused.
func browserScenario(t *testing.T, kind string, screenshots bool) {
	e := newEnv(t, kind)
	ctx := browser(t)
	snap := func(name string) {
		labelled(t, ctx, name)
		if screenshots {
			shot(t, ctx, name)
		}
	}
	base := e.srv.URL
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	// Sign in with the link serve prints; the viewer's zone is New York.
	do(t, ctx, "sign in", chromedp.Navigate(e.link("term", "ana")), chromedp.WaitVisible(css("#calendar")),
		chromedp.Navigate(base+"/console/calendar?tz="+zone), chromedp.WaitVisible(css("#calendar")))
	if who := text(t, ctx, ".who"); who != "Signed in as ana via term" {
		t.Fatalf("header says %q", who)
	}

	// Create by typing English: the preview says what it understood before saving.
	do(t, ctx, "type a request", chromedp.Navigate(base+"/console/new"), chromedp.WaitVisible(css("#text")),
		chromedp.SendKeys(css("#text"), "post standup notes in #team every weekday at 9am"),
		chromedp.WaitVisible(css("#text-preview .understood")))
	preview := text(t, ctx, "#text-preview")
	if !strings.Contains(preview, "Every weekday at 9:00 AM") || !strings.Contains(preview, "standup notes") ||
		!strings.Contains(preview, "Mar 11, 2027") {
		t.Errorf("preview: %q", preview)
	}
	do(t, ctx, "type a question", chromedp.Evaluate[chromedp.Void](`document.getElementById("text").value = ""`), chromedp.SendKeys(css("#text"), "remind me about the budget"),
		chromedp.WaitVisible(css("#text-preview .question")))
	if preview := text(t, ctx, "#text-preview"); !strings.Contains(preview, "I'd ask:") {
		t.Errorf("preview of an incomplete request: %q", preview)
	}
	do(t, ctx, "retype", chromedp.Evaluate[chromedp.Void](`document.getElementById("text").value = ""`),
		chromedp.SendKeys(css("#text"), "post standup notes in #team every weekday at 9am"),
		chromedp.WaitVisible(css("#text-preview .understood")))
	snap("new")
	do(t, ctx, "create", chromedp.Click(css(`#text-form button[type="submit"]`)), chromedp.WaitVisible(css(".notice")))
	if title := text(t, ctx, "h1"); title != "standup notes" {
		t.Errorf("job page title %q", title)
	}
	standup := text(t, ctx, ".facts code")
	if j := e.job(standup); j.Schedule.Cron != "0 9 * * 1-5" || j.State != store.JobEnabled {
		t.Fatalf("created %+v", j)
	}

	// The calendar: week (the default) and month.
	do(t, ctx, "week view", chromedp.Navigate(base+"/console/calendar"), chromedp.WaitVisible(css(".slots.placed")))
	if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('.col .ev[data-job=%q]').length`, standup)); n != 2 {
		t.Errorf("week view shows the standup %d times, want 2 (Thursday and Friday; Wednesday's has passed)", n)
	}
	if top := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('.col .ev[data-job=%q]').style.top`, standup)); top != "432px" {
		t.Errorf("9:00 placed at %q, want 432px (9 of 48px hours)", top)
	}
	do(t, ctx, "month view", chromedp.Navigate(base+"/console/calendar?view=month"), chromedp.WaitVisible(css("table.month")))
	// 11 to 31 March and 1 to 9 April (the grid's last row) on weekdays.
	if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('table.month .ev[data-job=%q]').length`, standup)); n != 22 {
		t.Errorf("month view shows the standup %d times, want 22", n)
	}
	snap("calendar-month")

	// Drag a one-time job from Thursday 11:20 onto Friday's 9:00 standup
	// (the 9:00 slot, under that entry): it moves to Friday 9:20.
	once := e.create("term", "ana", onceArgs(time.Date(2027, 3, 11, 16, 20, 0, 0, time.UTC), "dentist"))
	do(t, ctx, "week again", chromedp.Navigate(base+"/console/calendar"), chromedp.WaitVisible(css(".slots.placed")),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 380)`))
	snap("calendar-week")
	x0, y0 := center(t, ctx, fmt.Sprintf(`.ev[data-job=%q]`, once))
	x1, y1 := center(t, ctx, fmt.Sprintf(`.col[data-date="2027-03-12"] .ev[data-job=%q]`, standup))
	do(t, ctx, "drag", chromedp.DragAndDropXY(x0, y0, x1, y1, 10))
	want := time.Date(2027, 3, 12, 14, 20, 0, 0, time.UTC) // 9:20 EST
	do(t, ctx, "moved on the calendar", chromedp.WaitVisible(css(fmt.Sprintf(`.col[data-date="2027-03-12"] .ev[data-job=%q]`, once))))
	if got := e.job(once).Schedule.RunAt; !got.Equal(want) {
		t.Errorf("after the drag, the job runs at %s, want %s", got, want)
	}

	// "+" on a slot opens the form with that time; its preview is live too.
	do(t, ctx, "plus on a slot", chromedp.Navigate(base+"/console/calendar"), chromedp.WaitVisible(css(".slots.placed")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.slot[data-at="2027-03-12T15:00"] .add').click()`),
		chromedp.WaitVisible(css("#f-message")))
	if typ, at := eval[string](t, ctx, `document.getElementById("f-type").value`), eval[string](t, ctx, `document.getElementById("f-at").value`); typ != "once" || at != "2027-03-12T15:00" {
		t.Errorf("the form from a slot: type %q at %q", typ, at)
	}
	do(t, ctx, "fill the form", chromedp.SendKeys(css("#f-message"), "release party"), chromedp.WaitVisible(css("#form-preview .understood")))
	if p := text(t, ctx, "#form-preview"); !strings.Contains(p, "Fri, Mar 12, 2027, 03:00 PM EST") {
		t.Errorf("form preview: %q", p)
	}
	do(t, ctx, "create from the form", chromedp.Click(css(`#form-form button[type="submit"]`)), chromedp.WaitVisible(css(".notice")))
	party := text(t, ctx, ".facts code")
	if j := e.job(party); j.ScheduleType != store.ScheduleOnce || !j.Schedule.RunAt.Equal(time.Date(2027, 3, 12, 20, 0, 0, 0, time.UTC)) {
		t.Errorf("created from the form: %s at %s", j.ScheduleType, j.Schedule.RunAt)
	}

	// Pause from the job page.
	do(t, ctx, "job page", chromedp.Navigate(base+"/console/schedules/"+standup), chromedp.WaitVisible(css("h1")))
	snap("job")
	do(t, ctx, "pause", chromedp.Click(chromedp.Search(`//button[text()="Pause"]`)), chromedp.WaitVisible(css(".notice")))
	if notice := text(t, ctx, ".notice"); notice != "Paused." || e.job(standup).State != store.JobPaused {
		t.Errorf("after Pause: %q, job %s", notice, e.job(standup).State)
	}

	// The audit page has all of it.
	do(t, ctx, "audit", chromedp.Navigate(base+"/console/audit"), chromedp.WaitVisible(css("#chain")))
	audit := text(t, ctx, "table.audit")
	for _, w := range []string{"job.created", "job.updated", "job.paused", "ana (term)"} {
		if !strings.Contains(audit, w) {
			t.Errorf("the audit page lacks %q:\n%s", w, audit)
		}
	}
	if chain := text(t, ctx, "#chain"); !strings.HasPrefix(chain, "Chain verified") {
		t.Errorf("chain status %q", chain)
	}
	snap("audit")

	// A job whose text is markup shows it as text, everywhere.
	evil := `<img src=x onerror=alert(1)>`
	xss := e.create("term", "ana", onceArgs(time.Date(2027, 3, 11, 18, 0, 0, 0, time.UTC), evil))
	for _, path := range []string{"/console/schedules", "/console/schedules/" + xss, "/console/calendar", "/console/calendar?view=month"} {
		do(t, ctx, "xss "+path, chromedp.Navigate(base+path), chromedp.WaitVisible(css("main")))
		imgs := eval[int](t, ctx, `document.querySelectorAll('main img').length`)
		shown := eval[string](t, ctx, `document.querySelector('main').textContent`)
		if imgs != 0 || !strings.Contains(shown, evil) {
			t.Errorf("%s: %d img elements; the text shown as text: %v", path, imgs, strings.Contains(shown, evil))
		}
	}
	do(t, ctx, "schedules", chromedp.Navigate(base+"/console/schedules"), chromedp.WaitVisible(css("table.list")))
	snap("schedules")

	// A form posted without its CSRF token is refused, and changes nothing.
	do(t, ctx, "csrf", chromedp.Navigate(base+"/console/schedules/"+once), chromedp.WaitVisible(css("h1")),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('input[name=csrf]').forEach(i => i.remove())`),
		chromedp.Click(chromedp.Search(`//button[text()="Pause"]`)),
		chromedp.WaitVisible(chromedp.Search(`//*[contains(text(), "no valid CSRF token")]`)))
	if e.job(once).State != store.JobEnabled {
		t.Errorf("a pause without its CSRF token: job %s", e.job(once).State)
	}
}
