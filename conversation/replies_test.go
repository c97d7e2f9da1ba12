package conversation_test

import (
	"testing"
	"time"
)

// "every biweekly monday" answered "every other monday" says "every" and
// the day once; a quoted "biweekly" is the message, never the word asked
// about.
func TestConversation_BiweeklyAnsweredInPlace(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC) // Fri 20 Nov, 10:00 in New York
	c := conv(e, &now)
	converse(t, c, []step{
		{`post "weekly" in #team every biweekly monday at 9am`, "“biweekly” can mean"},
		{"every other monday", "post “weekly” in #team every 2 weeks on Monday at 9:00 AM"},
		{`post "biweekly" in #ops every biweekly monday at 9am`, "“biweekly” can mean"},
		{"every monday and thursday", "post “biweekly” in #ops every Monday and Thursday at 9:00 AM"},
	})
}
