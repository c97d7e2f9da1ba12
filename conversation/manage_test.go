package conversation_test

import (
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/conversation"
)

// Changes said the ways people say them reach the job in context: "don't
// post it anymore" pauses, a fixed-date holiday or a range of days is
// skipped, "the #food channel" is a channel, "both" is refused as many,
// and with no job at all there is nothing to ask about.
func TestConversation_ChangesSaidLoosely(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC) // Fri 20 Nov, 10:00 in New York
	c := conv(e, &now)
	if got := say(c, "UANA", "run it now"); !strings.Contains(got, "There are no schedules here yet") {
		t.Errorf("run it now, with no schedule: %q", got)
	}
	converse(t, c, []step{
		{`post "standup" in #eng every weekday at 9:30am`, "OK"},
		{"skip it on christmas eve", "except Thu 24 Dec"},
		{"skip it from dec 28 to jan 1", "except 6 runs between Thu 24 Dec and Fri 1 Jan"},
		{"move it to the #food channel", "in #food"},
		{"don't post the standup anymore", "Paused"},
		{`post "retro" in #eng every other friday at 2pm`, "OK"},
		{"delete both", "I can't change many schedules at once"},
	})
}

// A call asked for is offered as a reminder with its what and when, the
// purpose kept ("to book a cleaning"), and yes makes it.
func TestConversation_CallOfferedAsReminder(t *testing.T) {
	e := newEnv(t)
	now := secondsIn() // the functions check runAt against the real clock
	c := conv(e, &now)
	got := say(c, "UANA", "call the dentist at 3pm on monday to book a cleaning")
	if !strings.Contains(got, "Should I remind you “call the dentist to book a cleaning” on Mon ") {
		t.Fatalf("offer = %q", got)
	}
	if got := say(c, "UANA", "yes"); !strings.HasPrefix(got, "OK") || !strings.Contains(got, "“call the dentist to book a cleaning”") {
		t.Errorf("yes = %q", got)
	}
}

// "undo" right after a job is made says it is still set, and "delete it"
// then deletes it; minutes said again of a reminder due soon are minutes.
func TestConversation_UndoThenDeleteIt(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{`post "lunch!" in #office every day at noon`, "OK"},
		{"undo", "is still set"},
		{"delete it", "Deleted job"},
		{"list my schedules", "No schedules yet"},
		{"remind me to take the pizza out in 12 minutes", "OK"},
		{"actually 15", now.Add(15 * time.Minute).In(mustZone(t, "America/New_York")).Format("3:04 PM")},
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// Follow-ups right after a job: a copy elsewhere or at another time, a
// channel alone, minutes said again.
func TestConversation_FollowUps(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{`post "weekly numbers" in #sales every monday at 9am`, "OK"},
		{"and another one for #marketing", "in #marketing every Monday"},
		{"in #ops please", "to #ops? (yes or no)"},
		{"yes", "Updated — I'll post “weekly numbers” in #ops"},
		{"remind me to submit my timesheet every friday at 5pm", "OK"},
		{"do the same for thursdays", "every Thursday and Friday at 5:00 PM"},
		{"remind me to check the oven in 20 minutes", "OK"},
		{"make that 25", now.Add(25 * time.Minute).In(mustZone(t, "America/New_York")).Format("3:04 PM")},
	})
}

// "Until when?" of a pause for the holidays takes a range of days.
func TestConversation_PauseForTheHolidays(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	c := conv(e, &now)
	converse(t, c, []step{
		{`post "standup" in #eng every weekday at 9:30am`, "OK"},
		{"pause it for the holidays", "Until when?"},
		{"dec 21 to jan 3", "except 10 runs between Mon 21 Dec and Fri 1 Jan"},
	})
}

// secondsIn is about now, on the real clock the functions check runs
// against, 37 seconds into its minute: a reminder said as a while keeps
// its seconds, and one at a time of day has none.
func secondsIn() time.Time {
	return time.Now().Truncate(time.Minute).Add(37 * time.Second)
}

// step is one thing Ana says and what the reply must contain.
type step struct{ text, want string }

// converse says each step in turn and checks each reply.
func converse(t *testing.T, c *conversation.Conversations, steps []step) {
	t.Helper()
	for _, s := range steps {
		if got := say(c, "UANA", s.text); !strings.Contains(got, s.want) {
			t.Errorf("%q = %q, want %q", s.text, got, s.want)
		}
	}
}
