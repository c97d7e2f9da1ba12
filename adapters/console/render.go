package console

import (
	"bytes"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// pageNames are the templates under templates/, each drawn inside
// layout.html.
var pageNames = []string{"signin", "error", "calendar", "schedules", "job", "confirm", "new", "audit"}

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"lower": strings.ToLower,
		"join":  strings.Join,
		"list":  func(xs ...string) []string { return xs },
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// view is what every page template gets: the page's own data in D.
type view struct {
	Title  string
	Nav    string // which tab is current
	Who    string // "UALICE via team-slack"; empty when signed out
	CSRF   string
	TZ     string
	Zones  []zoneOption
	D      any
	Footer string
}

// render writes page name with data d; s is nil on the signed-out pages.
func (c *Console) render(w http.ResponseWriter, s *session, name, title string, d any) {
	v := view{Title: title, Nav: name, D: d}
	if s != nil {
		v.Who, v.CSRF, v.TZ = s.tok.SenderID+" via "+s.profile.ID, s.csrf, s.tz
		v.Zones = zoneOptions(c.opts.Now())
	}
	var buf bytes.Buffer
	if err := c.pages[name].Execute(&buf, v); err != nil {
		c.opts.Logger.Error("console: render "+name, "error", err)
		http.Error(w, "could not draw this page; it is logged", http.StatusInternalServerError)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.Write(buf.Bytes())
}

// loadZone is scheduler.LoadLocation: the zones the scheduler fires in.
func loadZone(name string) (*time.Location, error) { return scheduler.LoadLocation(name) }

// inZone formats t in zone name, as people read it ("Fri 12 Mar 2027 09:00 CET").
func inZone(t time.Time, name string) string {
	loc, err := loadZone(name)
	if err != nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
}
