package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// waitChat waits until out holds want n times (chat answers as the worker
// gets to each line).
func waitChat(t *testing.T, out *syncBuf, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(out.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("chat never said %q (%d times):\n%s", want, n, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The life of a reminder in chat: it fires, "snooze that" and "done" are
// about it, a repeating job skips one run and gets it back, and "3 times"
// is a count. Judged by what the store holds afterwards.
func TestChat_SkipSnoozeDoneAndCount(t *testing.T) {
	c := newCLI(t)
	// A one-time reminder due now (within runAt's grace): it fires as chat starts.
	due := time.Now().UTC().Add(-10 * time.Second).Truncate(time.Second).Format(time.RFC3339)
	out := c.mustRun("call", "schedule.create", "--args", `{"scheduleType":"once","schedule":{"runAt":"`+due+`"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"stretch now"}},"targetRef":{"channel":"terminal"}}`)
	stretchID := jobIDRe.FindString(out)

	r, w := io.Pipe()
	stdin = r
	t.Cleanup(func() { stdin = strings.NewReader("") })
	chatOut := &syncBuf{}
	var errb bytes.Buffer
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { done <- Run(ctx, []string{"chat", "--data", c.data}, chatOut, &errb) }()
	say := func(line string) { fmt.Fprintln(w, line) }

	waitChat(t, chatOut, "stretch now", 1) // the reminder fired and was posted here
	say("snooze that 10 minutes")
	waitChat(t, chatOut, "Snoozed — I'll", 1)
	say("done")
	waitChat(t, chatOut, "Marked done", 1)
	say("post standup notes every day at 9am")
	waitChat(t, chatOut, "OK — I'll post “standup notes”", 1)
	say("skip the next standup")
	waitChat(t, chatOut, "Skipped — job", 1)
	say("unskip the standup")
	waitChat(t, chatOut, "Restored a run of", 1)
	say("skip the next standup")
	waitChat(t, chatOut, "Skipped — job", 2)
	say("post water every day at 10am 3 times")
	waitChat(t, chatOut, "OK — I'll post “water”", 1)
	w.Close()
	if err := <-done; err != nil {
		t.Fatalf("chat: %v\n%s", err, errb.String())
	}

	st, err := bolt.Open(filepath.Join(c.data, "default", "automation", "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var jobs []*store.Job
	runs := map[string][]*store.Run{}
	st.View(t.Context(), func(tx store.Tx) error {
		p, err := tx.JobList(&store.JobListParams{Limit: 100})
		if err != nil {
			return err
		}
		jobs = p.Jobs
		for _, j := range jobs {
			runs[j.JobID], _ = tx.RunList(j.JobID, 10)
		}
		return nil
	})
	byText := map[string]*store.Job{}
	for _, j := range jobs {
		for _, s := range []string{"stretch now", "standup notes", "water"} {
			if strings.Contains(string(j.TargetAction.FunctionArgs), s) {
				byText[s] = j
			}
		}
	}
	stretch, standup, water := byText["stretch now"], byText["standup notes"], byText["water"]
	if stretch == nil || standup == nil || water == nil || stretch.JobID != stretchID {
		t.Fatalf("jobs = %v\n%s", byText, chatOut)
	}
	if stretch.SnoozeAt.IsZero() || stretch.State != store.JobEnabled || !stretch.NextRunAt.Equal(stretch.SnoozeAt) ||
		time.Until(stretch.SnoozeAt) > 10*time.Minute || time.Until(stretch.SnoozeAt) < 9*time.Minute {
		t.Errorf("snoozed reminder: %s, snooze %s, next %s", stretch.State, stretch.SnoozeAt, stretch.NextRunAt)
	}
	if rs := runs[stretch.JobID]; len(rs) != 1 || rs[0].DoneBy == nil || rs[0].DoneAt.IsZero() {
		t.Errorf("the fired run was not marked done: %+v", rs)
	}
	if len(standup.Skip) != 1 || standup.NextRunAt.Equal(standup.Skip[0]) || !strings.Contains(standup.Description, ", except ") {
		t.Errorf("standup: skip %v, next %s, %q", standup.Skip, standup.NextRunAt, standup.Description)
	}
	if water.Remaining != 3 || !water.EndAt.IsZero() {
		t.Errorf("water: remaining %d, end %s; want a count of 3 and no end", water.Remaining, water.EndAt)
	}
	st.Close()
	// The history says who marked the run done.
	if out := c.mustRun("call", "schedule.show", "--args", `{"jobId":"`+stretchID+`"}`); !strings.Contains(out, "done by ") {
		t.Errorf("show lacks the done run:\n%s", out)
	}
}
