package slack

import "testing"

func TestPlainText_AsThePersonTypedIt(t *testing.T) {
	for in, want := range map[string]string{
		"post R&amp;D sync every day":                     "post R&D sync every day",
		"post a &lt;b&gt; tag &amp;&amp; more":            "post a <b> tag && more",
		"post the agenda <https://x.io/doc|the doc> at 9": "post the agenda the doc (https://x.io/doc) at 9",
		"see <https://x.io/weekly>":                       "see https://x.io/weekly",
		"see <https://x.io|x.io>":                         "see https://x.io",
		"mail <mailto:a@b.co|a@b.co>":                     "mail a@b.co",
		"post <!here> standup time":                       "post @here standup time",
		"post <!channel|channel> hi":                      "post @channel hi",
		"ping <!subteam^S0DESIGN|@design> at 3":           "ping @design at 3",
		"remind <@U0BOB> in <#C0ENG|eng> at 3":            "remind <@U0BOB> in <#C0ENG|eng> at 3",
		"post &lt;#C0SECRET&gt; typed":                    "post <#C0SECRET> typed",
		": pause it":                                      "pause it",
		", resume it":                                     "resume it",
		" - list my schedules":                            "list my schedules",
		"— delete it":                                     "delete it",
		"<!date^1700000000^{date}|Nov 14> meeting":        "Nov 14 meeting",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}
