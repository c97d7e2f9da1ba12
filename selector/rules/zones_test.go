package rules

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// "tomorrow" with another zone named is the sender's tomorrow, even where
// that zone's date is already the next day.
func TestSelect_TomorrowInAnotherZoneIsTheSenders(t *testing.T) {
	for _, c := range []struct{ zone, now, text, want string }{
		// Friday 7:37 PM in New York is Saturday 1:37 AM in Berlin
		{"America/New_York", "2026-11-28T00:37:00Z", "remind me at 10am CET tomorrow to call the berlin team", "2026-11-28T09:00:00Z"},
		{"America/New_York", "2026-11-20T15:00:00Z", "remind me tomorrow at 10am CET to call", "2026-11-21T09:00:00Z"},
		// Saturday 9 AM in Sydney is Friday 2 PM in Los Angeles
		{"Australia/Sydney", "2026-11-27T22:00:00Z", "remind me tomorrow at 9am PT to call the office", "2026-11-29T17:00:00Z"},
		// Friday 8 PM in New York is Saturday 10 AM in Tokyo: Saturday's
		// 9 AM there has passed; Sunday's is the sender's tomorrow evening
		{"America/New_York", "2026-11-21T01:00:00Z", "remind me tomorrow at 9am JST to call", "2026-11-22T00:00:00Z"},
		{"America/New_York", "2026-11-21T01:00:00Z", "post hi in #team tomorrow at 9am Tokyo time", "2026-11-22T00:00:00Z"},
		// Friday 8 AM in New York is Friday 10 PM in Tokyo: Saturday 9 AM there
		{"America/New_York", "2026-11-20T13:00:00Z", "remind me tomorrow at 9am JST to call", "2026-11-21T00:00:00Z"},
	} {
		d := Decide(inputIn(c.zone, c.now, c.text))
		var a struct{ Schedule struct{ RunAt time.Time } }
		json.Unmarshal(d.Args, &a)
		if got := a.Schedule.RunAt.UTC().Format(time.RFC3339); got != c.want {
			t.Errorf("%s at %s: %q: runAt %s, want %s (%+v)", c.zone, c.now, c.text, got, c.want, d)
		}
	}
	// where the next day's time has passed too, or falls on another day
	// than the sender's, it asks
	for _, c := range []struct{ now, text string }{
		{"2026-11-21T01:00:00Z", "remind me today at 9am JST to call"},
		{"2026-11-20T15:00:00Z", "remind me today at 8:30am Chicago time to call Hans"},
		{"2026-11-20T15:00:00Z", "remind me today at 9:30am Toronto time to call"},
	} {
		if d := Decide(inputIn("America/New_York", c.now, c.text)); !strings.Contains(d.Clarify, "has already passed") {
			t.Errorf("%q said at %s in New York: %+v, want a question", c.text, c.now, d)
		}
	}
}
