package conversation

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// What chat says about jobs' states, runs, agendas and history: in words
// a person uses, in the job's own zone.

// stateWord is a job's state as a person says it: a one-time reminder that
// has fired is done, not disabled.
func stateWord(j *store.Job) string {
	switch {
	case j.State == store.JobDisabled && j.RunCount > 0:
		return "done"
	case j.State == store.JobDisabled:
		return "ended (no run ahead)"
	case j.State == store.JobEnabled:
		return "active"
	}
	return string(j.State)
}

// jobTitle names a job briefly: its name, else what it posts.
func jobTitle(j *store.Job) string {
	if j == nil {
		return "a deleted job"
	}
	if j.Name != "" {
		return "“" + j.Name + "”"
	}
	return actionSentence(j)
}

func when(t time.Time, j *store.Job) string {
	return t.In(zoneOf(j)).Format("Mon 2 Jan 3:04 PM")
}

// runLine: "Fri 27 Nov 9:00 AM — posted" / "— failed: channel_not_found".
func runLine(r *store.Run, j *store.Job) string {
	at := r.ScheduledAt
	if !r.StartedAt.IsZero() {
		at = r.StartedAt
	}
	what := map[store.RunStatus]string{store.RunCompleted: "ran", store.RunFailed: "failed", store.RunSkipped: "skipped",
		store.RunMissed: "missed", store.RunDispatched: "dispatched", store.RunRunning: "running"}[r.Status]
	if what == "" {
		what = string(r.Status)
	}
	if r.Manual {
		what += " (run now)"
	}
	switch {
	case r.Error != "":
		what += ": " + r.Error
	case r.Reason != "":
		what += ": " + strings.ReplaceAll(r.Reason, "_", " ")
	}
	if r.Missed > 1 {
		what += fmt.Sprintf(" (%d windows)", r.Missed)
	}
	return when(at, j) + " — " + what
}

// describeShow: the job, its next runs and its recent runs.
func describeShow(r *functions.JobResult) string {
	j := r.Job
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s: %s", jobTitleOrID(j), stateWord(j), jobSentence(j))
	b.WriteString(nextRuns(j, r.NextRuns))
	switch {
	case len(r.Runs) == 0 && j.RunCount == 0:
		b.WriteString(" It has not run yet.")
	case len(r.Runs) > 0:
		fmt.Fprintf(&b, "\nLast run: %s.", runLine(r.Runs[0], j))
		if len(r.Runs) > 1 {
			b.WriteString("\nBefore that:")
			for _, run := range r.Runs[1:] {
				b.WriteString("\n• " + runLine(run, j))
			}
		}
	}
	if j.Name != "" {
		b.WriteString("\nJob " + j.JobID + ".")
	}
	return b.String()
}

func jobTitleOrID(j *store.Job) string {
	if j.Name != "" {
		return "“" + j.Name + "”"
	}
	return "Job " + j.JobID
}

// describeAgenda: what runs in the window, by day.
func describeAgenda(r *functions.AgendaResult) string {
	if len(r.Items) == 0 {
		return "Nothing is scheduled then."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d run(s) coming:", len(r.Items))
	day := ""
	for _, it := range r.Items {
		loc := zoneOf(it.Job)
		t := it.At.In(loc)
		if d := t.Format("Mon 2 Jan"); d != day {
			day = d
			b.WriteString("\n" + d + ":")
		}
		fmt.Fprintf(&b, "\n• %s (%s) — %s", t.Format("3:04 PM"), loc, actionSentence(it.Job))
	}
	if r.Truncated {
		b.WriteString("\n(and more: ask for a shorter period)")
	}
	return b.String()
}

// describeHistory: who did what, newest first, with before and after.
func describeHistory(r *functions.HistoryResult) string {
	if len(r.Events) == 0 {
		return "I found no such change in the audit log (it keeps who did what to each job)."
	}
	var b strings.Builder
	for k, ev := range r.Events {
		if k > 0 {
			b.WriteString("\n")
		}
		if len(r.Events) > 1 {
			b.WriteString("• ")
		}
		j := r.Jobs[ev.JobID]
		who := ev.Actor.Sender
		if who == "" {
			who = ev.Actor.SenderID
		}
		if who == "" {
			who = "someone"
		}
		at := ev.At.UTC().Format("Mon 2 Jan 3:04 PM") + " UTC"
		if j != nil {
			at = when(ev.At, j) + " (" + zoneOf(j).String() + ")"
		}
		fmt.Fprintf(&b, "%s %s %s on %s via %s", who, auditVerb(ev.Action), jobTitle(j), at, ev.Actor.Via)
		if change := changed(ev); change != "" {
			b.WriteString(" — " + change)
		}
		if ev.Detail != "" && changed(ev) == "" {
			b.WriteString(" (" + ev.Detail + ")")
		}
	}
	return b.String()
}

func auditVerb(action string) string {
	if v, ok := map[string]string{store.AuditJobCreated: "created", store.AuditJobUpdated: "changed", store.AuditJobPaused: "paused",
		store.AuditJobResumed: "resumed", store.AuditJobDeleted: "deleted", store.AuditJobTriggered: "ran",
		store.AuditJobDisabled: "ended"}[action]; ok {
		return v
	}
	_, verb, _ := strings.Cut(action, ".")
	return strings.ReplaceAll(verb, "_", " ")
}

// changed says what an update changed: its schedule, text, target, name.
func changed(ev *store.AuditEvent) string {
	if ev.Action != store.AuditJobUpdated || len(ev.Before) == 0 || len(ev.After) == 0 {
		return ""
	}
	var before, after store.Job
	if json.Unmarshal(ev.Before, &before) != nil || json.Unmarshal(ev.After, &after) != nil {
		return ""
	}
	var parts []string
	if before.Description != after.Description {
		parts = append(parts, "from “"+before.Description+"” to “"+after.Description+"”")
	}
	if a, b := actionSentence(&before), actionSentence(&after); a != b {
		parts = append(parts, "from “"+a+"” to “"+b+"”")
	}
	if before.Name != after.Name {
		parts = append(parts, "name from “"+before.Name+"” to “"+after.Name+"”")
	}
	return strings.Join(parts, "; ")
}

// noneListed says that a listing found nothing, in the words of its filter.
func noneListed(args json.RawMessage) string {
	var f struct{ State, ChannelID string }
	json.Unmarshal(args, &f)
	switch {
	case f.State == string(store.JobPaused):
		return "Nothing is paused."
	case f.State != "" && f.State != "all":
		return "No schedules are " + f.State + "."
	case f.ChannelID != "":
		return "No schedules post to " + channelName(f.ChannelID) + "."
	}
	return "No schedules yet. Try: post “hello” in #team every Friday at 9am."
}
