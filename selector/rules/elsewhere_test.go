package rules

import (
	"strings"
	"testing"
)

// A request to email, text or call someone is refused plainly, and "yes"
// makes the reminder to do it instead, said in the question.
func TestElsewhere_RefusedWithTheReminderOffered(t *testing.T) {
	for _, c := range []struct{ text, cant, post, at string }{
		{"email bob tomorrow at 9am about the contract", "send email", "email bob about the contract", `"runAt":"2026-11-21T14:00:00Z"`},
		{"call mom at 5pm", "make phone calls", "call mom", `"runAt":"2026-11-20T22:00:00Z"`},
		{"send a text to john at 3pm", "send text messages", "send a text to john", `"runAt":"2026-11-20T20:00:00Z"`},
		{"please whatsapp the family group every sunday at 6pm", "send WhatsApp messages", "whatsapp the family group", `"cron":"0 18 * * 0"`},
		{"email me at 5pm to call mom", "send email", "call mom", `"runAt":"2026-11-20T22:00:00Z"`},
		{"send emails every friday at 5pm", "send email", "send emails", `"cron":"0 17 * * 5"`},
	} {
		d := decide(input(c.text), c.text)
		if d.IsCall() || d.Pending == nil || d.Pending.Yes == "" || !d.Pending.Create ||
			!strings.Contains(d.Clarify, "I can't "+c.cant) || !strings.Contains(d.Clarify, "“"+c.post+"”") {
			t.Errorf("%q: %+v, want it refused, saying it can't %s, offering to remind “%s”", c.text, d, c.cant, c.post)
			continue
		}
		yes := decide(input(d.Pending.Yes), d.Pending.Yes)
		if !yes.IsCall() || !strings.Contains(string(yes.Args), `"text":"`+c.post+`"`) || !strings.Contains(string(yes.Args), c.at) {
			t.Errorf("%q: yes (%q) made %s %s, want “%s” %s", c.text, d.Pending.Yes, yes.Args, yes.Clarify, c.post, c.at)
		}
	}
	// a reminder here or a function is not refused
	for _, text := range []string{"text me at 5pm to call mom", "call schedule.list every day at 9am", "remind me to email bob at 5pm"} {
		if d := decide(input(text), text); !d.IsCall() {
			t.Errorf("%q: %+v, want a call", text, d)
		}
	}
}
