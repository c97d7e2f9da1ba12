package rules

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/selector"
)

// decideText decides text at the tests' now, with an open question when
// pending is set, and returns the decision's JSON.
func decideText(text string, pending *selector.Pending) (selector.Decision, string) {
	in := input(text)
	in.Pending = pending
	d := Decide(in)
	b, _ := json.Marshal(d)
	return d, string(b)
}

// A clause before the action is something schedbot cannot do: it asks what
// to post, quoting the clause, and the answer is read with the request
// from its action on.
func TestClauseBeforeAction(t *testing.T) {
	d, raw := decideText("check the build status and post it to #eng every morning at 8", nil)
	if d.IsCall() || d.Missing != selector.MissingAction || !strings.Contains(d.Clarify, "“check the build status”") {
		t.Fatalf("got %s, want a question about what to post quoting the clause", raw)
	}
	d, raw = decideText("“build is green”", d.Pending)
	if !d.IsCall() || !strings.Contains(raw, `"text":"build is green"`) || !strings.Contains(raw, `"cron":"0 8 * * *"`) {
		t.Fatalf("answered: got %s, want the daily 8am post of the answer", raw)
	}
	for _, text := range []string{"post it to #general every day at 8am", "remnd me to send the report tomorrow at 9am",
		"xyzzy me to send the report tomorrow at 9am"} {
		if d, raw := decideText(text, nil); d.IsCall() && !strings.Contains(raw, `"text":"send the report"`) {
			t.Errorf("%q: got %s, want a question or the whole text", text, raw)
		}
	}
}

// Verification's questions quote the day, month or time as the message
// wrote it, not as the rules named it.
func TestVerifyQuotesTheUsersWords(t *testing.T) {
	loc, _ := time.LoadLocation("America/New_York")
	local := now.In(loc)
	for _, c := range []struct{ block, cron, want string }{
		{"every Jan 5 at 9am", "0 9 5 2 *", "“Jan” as January"},
		{"every thurs at 9am", "0 9 * * 5", "“thurs” as Thursday"},
		{"every day at 5 PM", "0 16 * * *", "“5 PM” as 5:00 PM"},
	} {
		body := "post hi " + c.block
		toks := lex(body)
		block := toks[2:]
		w, ok, why := parseBlock(block, when{}, local)
		if !ok {
			t.Fatalf("%q: not read (%+v)", c.block, why)
		}
		s := &sentence{toks: toks, body: body, blocks: [][]tok{block}}
		got := verify(w, s, &compiled{typ: "cron", sched: map[string]any{"cron": c.cron, "timezone": "America/New_York"}}, local)
		if !strings.Contains(got, c.want) {
			t.Errorf("%q built as %q: got %q, want it to quote %s", c.block, c.cron, got, c.want)
		}
	}
}

// An open question about a new request, answered: the answer's words are
// the message whole (only a reminder's "to" is not), a correction changes
// the request and keeps what it does not say, and a word that names no
// channel answers nothing (a review of these readings found each of the
// cases below made a wrong job).
func TestAnswersAndCorrectionsWhileAsked(t *testing.T) {
	for _, c := range []struct{ request, answer, want string }{
		{"post in #team every friday at 4pm", "send your timesheets", `"text":"send your timesheets"`},
		{"post in #team every friday at 4pm", "to do list reminder", `"text":"to do list reminder"`},
		{"post in #team every friday at 4pm", "about time!", `"text":"about time!"`},
		{"remind me tomorrow at 9am", "to call mom", `"text":"call mom"`},
		{"post in #team every friday at 4pm", "ok", `"clarify"`},
		{"remind #ops to check the backups every tuesday", "tuesday at 3pm, in #ops", `"cron":"0 15 * * 2"`}, // the when, then the channel
		{"post in #team every friday at 4pm", "good morning!", `"text":"good morning!"`},                     // a greeting is help only when nothing is asked
		{"post in #team every friday at 4pm", "hello", `"text":"hello"`},
		{"can you remind me about stuff", "yeah pay the electric bill on the 3rd of every month at 10am", `"text":"pay the electric bill"`},
		{"set up a reminder for my team", "its for #sales, every monday at 9am, 'update the CRM pls'", `"channelId":"#sales"`},
		{"remind the team about the offsite on dec 4 at 3pm", "#general", `"channelId":"#general"`},
		{"ping me in 20 to switch the laundry", "20 minutes", `"runAt":"2026-11-20T15:20:00Z"`},  // "in 20": minutes or hours?
		{"remind me next tue 3ish to call the landlord", "pm", `"runAt":"2026-11-24T20:00:00Z"`}, // "About 3?"
		{"remind #eng to take a break around 9ish", "9am", `"runAt":"2026-11-21T14:00:00Z"`},
		{"send the newsletter every thursday", "actually make that every other thursday at 10am", `"rrule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=TH;BYHOUR=10;BYMINUTE=0"`},
		{"ping me in 20 to switch the laundry", "mins", `"runAt":"2026-11-20T15:20:00Z"`},
		{"remind me in 2 to check the oven", "2 hours", `"runAt":"2026-11-20T17:00:00Z"`},
		{"remind me to call mom every sunday", "it's not mom", `"clarify"`},
		{"remind me to call mom", "no wait, call dad not mom", `“call dad”`},
		{"post hello every friday in #team", "actually monday at 10", `"cron":"0 10 * * 1"`},
		{"post hello every friday in #team", "no, half past 9", `"cron":"30 9 * * 5"`},
		{"remind me to call mom every sunday", "saturday at 7pm instead", `"cron":"0 19 * * 6"`},
		{"post hello every weekday in #team", "actually monday", `"clarify"`},
		{"remind the team every friday at 4pm to submit timesheets", "idk", `"clarify"`},
		{"remind the team every friday at 4pm to submit timesheets", "in eng", `"channelId":"#eng"`},
		{"remind me to call mom", "oh, tomorrow at 5pm", `"text":"call mom"`},
		{"post hello in #team", "sorry, every friday at 9am", `"text":"hello"`},
		{"schedule a message to #marketing every monday at 10am", "new blog post goes live today!", `"text":"new blog post goes live today`}, // "post" a noun: no new request
		{"schedule a message to #marketing every monday at 10am", "please remind me to call bob tomorrow", `"What time on that day?`},        // a request of its own
		{"schedule a message to #marketing every monday at 10am", "hey can you remind me to call bob tomorrow at 9", `"text":"call bob"`},
		// the words around an answer to "What time?" are not part of it
		{"remind me to renew my parking permit tomorrow", "like 8:30", `"runAt":"2026-11-21T13:30:00Z"`},
		{"remind me on dec 3 to submit expenses", "ok 9am then", `"runAt":"2026-12-03T14:00:00Z"`},
		{"remind #eng about the retro", "ok every other thursday at 2pm", `"text":"the retro"`},
		{"remind me tomorrow morning to call the landlord", "9ish", `"runAt":"2026-11-21T14:00:00Z"`},
		{"remind me to stretch every day at 3", "wait that should be 2pm", `"cron":"0 14 * * *"`},
		// "eod", "lunch": the time is asked, and the answer takes the
		// place of "by eod", "b4 lunch", "at the end of the day"
		{"remind me to send the report by eod", "5pm", `"text":"send the report"`},
		{"remind me b4 lunch to call bob", "11:30", `"runAt":"2026-11-20T16:30:00Z"`},
		{"remind #random to submit timesheets at the end of the day", "4:30pm", `"text":"submit timesheets"`},
		{"remind me at close of business to send invoices", "5pm", `"runAt":"2026-11-20T22:00:00Z"`},
		{"remind me every day at eod to log hours", "5:30pm", `"cron":"30 17 * * *"`},
		// "obviously", "lol", "ofc" around an answer; "pm" of "3:15"
		{"set a reminder for parent-teacher conferences on dec 10 at 4", "pm obviously lol", `"runAt":"2026-12-10T21:00:00Z"`},
		{"every day at 3:15 remind me about bus duty", "pm", `"cron":"15 15 * * *"`},
		{"remind me at 4 to pick up the kids", "afternoon obv", `"runAt":"2026-11-20T21:00:00Z"`},
		{"remind me at 2:30 to call the school", "9am", `"clarify"`}, // no am or pm of 2:30
		// another hour for "at 5: am or pm?"; "whenever works" around a when
		{"remind me at 5 to go to the gym", "hmm maybe 6 actually", `Is that 6 in the morning or in the afternoon?`},
		{"remind me to check in with the interns", "whenever works, tuesday mornings?", `“morning” could be several hours`},
		// after "I can't send …, should I remind you instead?": its words
		// posted where the reply says, at its when; a message in quotes
		{"send an SMS to my staff that the shop is closed on the 24th", "ok post it in #staff then, on dec 20 at 10am", `"text":"the shop is closed on the 24th"`},
		{"email the team every monday at 9am: the weekly plan is up", "ok then just post it in #general instead", `"cron":"0 9 * * 1"`},
		{"call me at 8am tomorrow", "a reminder is fine, say 'wake up!!'", `"text":"wake up!!"`},
		// "Who should I remind?": who takes the place of the name
		{"dm sarah tomorrow at 10 to ask about the budget", "me", `"text":"ask about the budget"`},
		{"remind bob to submit the report at 5pm", "ok remind me instead", `"text":"submit the report"`},
		{"tell sarah to send the slides tomorrow at 9am", "#design", `"channelId":"#design"`},
		// "When is your birthday?": the date, in the place of "on my birthday"
		{"remind me on my birthday to buy cake", "it's march 14 at 9am", `"text":"buy cake"`},
		{"remind me on payday to pay the rent", "the 25th of every month at 10am", `"text":"pay the rent"`},
		{"remind me at 6:30 every weekday to leave for the school run", "am!", `"cron":"30 6 * * 1-5"`},
		{"remind me to call dad at 5", "pm obviously, he works mornings", `"runAt":"2026-11-20T22:00:00Z"`},
		{"remind me every wednesday at 4pm to go to office hours until the end of the semester", "dec 11", `"endAt":"2026-12-12T05:00:00Z"`}, // "When does the semester end?"
		{"remind me to order milk every mon wed fri at 6", "am lol we open early", `"cron":"0 6 * * 1,3,5"`},
		// "Which hours exactly?": the hours, in the place of "during business hours"
		{"post status every hour during business hours", "9am to 5pm", `"cron":"0 9-17 * * *"`},
		// "What time exactly (“night” could be several hours)?": the part still said
		{"remind me every sunday night to pack the school bags", "8:30", `"cron":"30 20 * * 0"`},
		{"remind me tomorrow night to take the bins out", "9:30", `"runAt":"2026-11-22T02:30:00Z"`},
		{"every 15 minutes during business hours post 'check the queue' in #support", "9 to 5", `"cron":"*/15 9-16 * * *"`}, // the when before the verb
		{"remind me every hour on the hour during my shift to check alerts", "9am to 5pm", `"text":"check alerts"`},         // which hours of a shift
		// the message in quotes after words that lead to it
		{"post in #general every friday at 4pm", "something like 'have a great weekend!'", `"text":"have a great weekend!"`},
		{"remind me at 8am tomorrow", "a reminder is fine, say 'wake up!!'", `"text":"wake up!!"`},
		// "What should I post?" answered with a when: the when, asked again
		{"reminder at 9:15", "every day", `What should I post every day at 9:15 AM?`},
		{"remind #ops every weekday at 6", "in the morning ofc", `What should I post in #ops every weekday at 6:00 AM?`},
		// an answer that would be posted is no answer: asked again
		{"remind me on monday to renew the ssl cert", "morning", `"clarify"`},
		{"remind #global every monday to post updates", "what timezone is that in?", `I'm still asking about`},
		{"post hi on 3/4 at 9am", "huh?", `"clarify"`}, // posted "hi on huh" before leaked counted words
		// "say when another way": the answer takes the place of the words
		// not read, and of the event words around them
		{"remind me to ask sarah about the budget when she is online", "fine, tomorrow at 10", `"text":"ask sarah about the budget"`},
		{"remind me to call Sam in a couple of days", "9am", `"text":"call Sam"`},
		{"remind me 10 minutes before the meeting to call", "9am", `"text":"call"`},
		{"ok then at 5:30pm today", "buy milk", `"text":"buy milk"`},
		// "biweekly?" is answered by a recurrence in its place; a time
		// alone answers nothing about it
		{"biweekly reminder in #product to update the roadmap doc, mondays 10am", "every 2 weeks", `"rrule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO`},
		{"post hi biweekly", "9am", `"clarify"`},
		// "What time?" answered with a channel too: it is the target
		{"remind the team to submit their timesheets every friday", "in #eng-team at 3pm", `"channelId":"#eng-team"`},
		// "Which channel?" answered "here" outside Slack: this conversation
		{"remind the channel every monday at 9 to fill out the standup form", "here", `"text":"fill out the standup form"`},
		// a zone not known: the zone answered takes its place
		{"remind #sf-office every friday at 4pm their time to lock up", "pacific", `"timezone":"America/Los_Angeles"`},
		// no action word: the answer is the message, in the place of the
		// words that were none, and the when and channel stay
		{"standup reminder in #eng every monday at 9am", "Standup in 5!", `"text":"Standup in 5!"`},
		{"every monday standup reminder in #eng at 9am", "standup in 5", `"cron":"0 9 * * 1"`},
		{"daily standup reminder at 9am", "standup time", `"cron":"0 9 * * *"`},
		{"schedule something every friday at 5pm", "hello team", `"text":"hello team"`},
	} {
		first, _ := decideText(c.request, nil)
		if first.Pending == nil {
			t.Fatalf("%q asked nothing", c.request)
		}
		d, raw := decideText(c.answer, first.Pending)
		if !strings.Contains(raw, c.want) || c.want == `"clarify"` && d.IsCall() {
			t.Errorf("%q, then %q: %s, want %s", c.request, c.answer, raw, c.want)
		}
	}
}

// A question about words left after a when quotes those words, not the
// when it read (NL_SPEC 24).
func TestSelect_QuestionsQuoteWhatWasNotRead(t *testing.T) {
	cases := []struct{ text, understood, unread string }{
		{"remind me to stretch every day at 9am in Paris", "every day at 9am", "in Paris"},
		{"post standup in #team every weekday at 9am Atlantis time", "every weekday at 9am", "Atlantis time"},
		{"remind #eng to review open PRs every weekday at 2pm (berlin)", "every weekday at 2pm", "(berlin)"},
		{"remind me to deploy at 9 or so", "at 9", "or so"},
	}
	for _, c := range cases {
		d := Decide(input(c.text))
		if want := "I understood “" + c.understood + "” but not “" + c.unread + "”"; !strings.Contains(d.Clarify, want) {
			t.Errorf("%q: %q, want it to say %s", c.text, d.Clarify, want)
		}
	}
}

// A reminder asked for while "What would you like me to schedule?" waits
// keeps its question's request ("remind me"): what follows is what the
// reminder is of, not words after "about stuff".
func TestAReminderAskedWhileAskedKeepsItsRequest(t *testing.T) {
	first, _ := decideText("", nil)
	second, _ := decideText("can you remind me about stuff", first.Pending)
	if second.Pending == nil || second.Pending.Text != "remind me" {
		t.Fatalf("pending after the reminder asked for: %+v, want its text “remind me”", second.Pending)
	}
	if _, raw := decideText("yeah pay the electric bill on the 3rd of every month at 10am", second.Pending); !strings.Contains(raw, `"text":"pay the electric bill"`) {
		t.Errorf("the answer made %s, want the message “pay the electric bill”", raw)
	}
}

// A request to send by email, text or call says what schedbot cannot do
// and offers the reminder with what and when; the words said keep their
// when out of them. Asked as a question with nothing to schedule, it is
// answered.
func TestElsewhereOffersTheReminder(t *testing.T) {
	for _, c := range []struct{ text, want, yes string }{
		{"text my wife at 6pm that I'll be late", "Should I remind you “text my wife that I'll be late” on Fri 20 Nov 2026 at 6:00 PM instead? (yes or no)", `"text":"text my wife that I'll be late"`},
		{"email the team tomorrow at 9am saying the build is green", "Should I remind you “email the team saying the build is green” on Sat 21 Nov 2026 at 9:00 AM instead?", `"runAt":"2026-11-21T14:00:00Z"`},
	} {
		d, raw := decideText(c.text, nil)
		if !strings.Contains(d.Clarify, c.want) || d.Pending == nil {
			t.Errorf("%q: got %s, want %q", c.text, raw, c.want)
			continue
		}
		if y, raw := decideText(d.Pending.Yes, nil); !y.IsCall() || !strings.Contains(raw, c.yes) {
			t.Errorf("%q, then yes (%q): got %s, want %s", c.text, d.Pending.Yes, raw, c.yes)
		}
	}
	if d, raw := decideText("can you send emails?", nil); d.Reply != "I can't send email: I post in Slack channels and remind people." {
		t.Errorf("can you send emails?: got %s, want the answer", raw)
	}
}

// A when word two edits off ("tommorow", "wensday") is asked about with
// the request spelled right, which yes makes (NL_SPEC 20).
func TestMisspeltWhenWordOffersTheSpelling(t *testing.T) {
	for _, c := range []struct{ text, spelt, yes string }{
		{"remind me tommorow at 8am to book the mot", "remind me tomorrow at 8am to book the mot", `"text":"book the mot"`},
		{"every wensday at 10am post status in #dev", "every wednesday at 10am post status in #dev", `"cron":"0 10 * * 3"`},
	} {
		d, raw := decideText(c.text, nil)
		if d.IsCall() || d.Pending == nil || d.Clarify != "Did you mean “"+c.spelt+"”? (yes or no)" {
			t.Errorf("%q: got %s, want it to ask about %q", c.text, raw, c.spelt)
			continue
		}
		if y, raw := decideText(d.Pending.Yes, nil); !y.IsCall() || !strings.Contains(raw, c.yes) {
			t.Errorf("%q, then yes (%q): got %s, want %s", c.text, d.Pending.Yes, raw, c.yes)
		}
	}
}
