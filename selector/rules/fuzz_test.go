package rules

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

var corpus = []string{
	"post hello world in #team every Friday at 9AM", "remind me to stretch every day at 3pm",
	"post ping every 15 minutes on weekdays", "post x on the 1st and 15th at noon", "list my schedules",
	"pause the backup reminder", "post hi next saturday at 10am", "post hi on 3/4 at 9am", "post x every 2 weeks",
	"post hi every other tuesday at 10am", "post x every day at 9am for 3 weeks", "post x at 9:00 Europe/Berlin",
	"delete all my schedules", "🎉", "", "DROP TABLE jobs; --", "post \"a\" in <#C024BE91L|team> every monday at 10",
	"change the friday post to 10am every friday", "run the standup job now", "post x until march every weekday at 8",
}

// FuzzRules: no input panics, a call's arguments always pass the
// registry's validation (nothing invalid or in the past is scheduled), and
// text without letters never becomes a call.
func FuzzRules(f *testing.F) {
	for _, c := range corpus {
		f.Add(c)
	}
	st, err := bolt.Open(filepath.Join(f.TempDir(), "f.db"), nil)
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Now: func() time.Time { return now },
		Profiles: map[string]functions.Profile{"team": {Channel: "slack", Channels: []string{"*"}}},
		Orchestrator: functions.Orchestrator{ID: "default", Timezone: "UTC", MaxJobs: 10, Functions: []string{"schedule.*", "message.post"},
			Workflows: map[string]bool{"daily-report": true}}})
	f.Fuzz(func(t *testing.T, text string) {
		in := input(text)
		in.Jobs = jobs
		d := Decide(in)
		kinds := 0
		for _, k := range []bool{d.IsCall(), d.Clarify != "", d.Unsupported != "", d.Reply != ""} {
			if k {
				kinds++
			}
		}
		if kinds != 1 {
			t.Fatalf("%q: not exactly one decision: %+v", text, d)
		}
		if !d.IsCall() {
			return
		}
		if !strings.ContainsFunc(text, unicode.IsLetter) {
			t.Fatalf("%q without letters became a call: %s", text, d.Args)
		}
		var args map[string]any
		if err := json.Unmarshal(d.Args, &args); err != nil {
			t.Fatalf("%q: args are not JSON: %v", text, err)
		}
		if !slices.Contains([]string{"schedule.create", "schedule.list", "schedule.show", "schedule.update", "schedule.pause",
			"schedule.resume", "schedule.delete", "schedule.run_now", "schedule.skip", "schedule.unskip", "schedule.snooze",
			"schedule.complete", "schedule.history", "schedule.agenda"}, d.Function) {
			t.Fatalf("%q: function %s", text, d.Function)
		}
		if d.Function == "schedule.create" {
			if err := reg.Validate(functions.Request{Function: d.Function, Args: d.Args, Actor: store.Actor{Via: store.ViaCLI}}); err != nil {
				t.Fatalf("%q: the rules proposed an invalid create: %v\n%s", text, err, d.Args)
			}
		}
	})
}

func TestSelect_MegabyteIsRefusedAtOnce(t *testing.T) {
	d := Decide(input(strings.Repeat("post hello every day at 9 ", 40000)))
	if d.Unsupported == "" || !strings.Contains(d.Unsupported, "too long") {
		t.Errorf("1 MB: %+v", d)
	}
}
