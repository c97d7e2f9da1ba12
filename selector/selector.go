// Package selector turns what a person writes into exactly one decision: a
// function call, a clarifying question, or a plain "I can't do that"
// (docs/NL_SPEC.md). A selector executes nothing; its calls go through the same
// validation as any other, and the orchestrator and the creator always come
// from the channel profile and the sender, never from the text or a model.
package selector

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/schedbot/schedbot/store"
)

// Missing says what a clarification asks for.
const (
	MissingTime   = "time"
	MissingAction = "action"
	MissingTarget = "target"
	MissingJob    = "job"
	// MissingMessage asks for a job's new message ("change the message"):
	// the answer's words are read as they come, not as anything to post.
	MissingMessage = "message"
)

// Input is one message and what the selector may know around it.
type Input struct {
	Text      string
	SenderID  string
	Sender    string
	ProfileID string
	Channel   string // kind of the profile: slack or terminal
	// NoSlack: no Slack profile is set up, so a Slack person or channel
	// id cannot be reached from here (a terminal alone)
	NoSlack   bool
	ChannelID string // where the message was written (Slack channel id)
	ThreadTS  string // its thread, when it was written in one
	Timezone  string // the sender's zone, already resolved by the caller
	Now       time.Time
	// Pending is the conversation's open question, if any.
	Pending *Pending
	// Jobs are the orchestrator's jobs, for "pause the backup reminder".
	Jobs []JobRef
	// ContextJobID is the job the conversation last spoke of ("pause it"),
	// and ContextCall the function of the call that did ("schedule.skip"):
	// "and sunday" goes on with it.
	ContextJobID, ContextCall string
	// PickedJobID is the job the sender picked from a "Which one?" list;
	// Text is then the request that asked, and Jobs holds that job alone.
	PickedJobID string
	// LastFiredJobID is the job whose post was delivered last in this
	// conversation ("snooze that", "done" right after a reminder fired).
	LastFiredJobID string
	// Workflows and Functions are what this profile may start and call.
	Workflows []string
	Functions []string
}

// JobRef is what the selector may match a job's words against.
type JobRef struct {
	JobID       string
	Name        string
	Description string
	Text        string // the action's text or workflow id
	ChannelID   string
	CreatedBy   string
	State       string
	// ScheduleType and Schedule let an update keep what its words do not
	// change ("move the standup to 10am" keeps its days and zone).
	ScheduleType string
	Schedule     store.Schedule
	// Skip is the occurrences it leaves out ("unskip the standup").
	Skip []time.Time
	// StartAt, EndAt, Remaining and Action let "post it in #eng too"
	// make the same job elsewhere.
	StartAt, EndAt time.Time
	Remaining      int64
	Action         store.TargetAction
}

// RefOf is what the selector may know of a job. Chat and parse both use
// it, so a reference resolves the same way through either.
func RefOf(j *store.Job) JobRef {
	ref := JobRef{JobID: j.JobID, Name: j.Name, Description: j.Description, State: string(j.State),
		CreatedBy: j.CreatedBy.SenderID, ScheduleType: j.ScheduleType, Schedule: j.Schedule, Skip: j.Skip,
		StartAt: j.StartAt, EndAt: j.EndAt, Remaining: j.Remaining, Action: j.TargetAction}
	switch a := j.TargetAction; {
	case a.Type == store.ActionWorkflowStart:
		ref.Text = "workflow " + a.WorkflowID
	case a.FunctionID == "message.post":
		var p struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(a.FunctionArgs, &p) == nil {
			ref.Text = p.Text
		}
	default:
		ref.Text = a.FunctionID
	}
	if j.TargetRef != nil {
		ref.ChannelID = j.TargetRef.ChannelID
	}
	return ref
}

// Asked is the request of p as its sender reads it, to quote back: an
// answer to "What would you like me to schedule?" is held as ": “words”"
// (a message, whatever its words), read "post “words”".
func (p *Pending) Asked() string {
	t := strings.TrimSpace(p.Text)
	if rest, ok := strings.CutPrefix(t, ": “"); ok {
		return "post “" + rest
	}
	return t
}

// Pending is a question asked and not yet answered.
type Pending struct {
	Text    string    `json:"text"`    // the request that was incomplete
	Missing string    `json:"missing"` // what was asked for
	Expires time.Time `json:"expires"`
	// Question is what was asked, to ask again when a reply is neither an
	// answer nor a new request.
	Question string `json:"question,omitempty"`
	// Candidates are the jobs a "Which one?" offered, in the order shown:
	// "2", "the second one" or "the 9am one" picks one of them.
	Candidates []string `json:"candidates,omitempty"`
	// Yes is the request a yes/no question makes on "yes"; No the one it
	// makes on "no" (empty: "no" drops it).
	Yes string `json:"yes,omitempty"`
	No  string `json:"no,omitempty"`
	// Message is the request that reads the words a question asked about
	// as the message ("is “in 5” part of the message or of the
	// schedule?"), made by the reply "message".
	Message string `json:"message,omitempty"`
	// Words are the message a refused request gave ("send an SMS to my
	// staff that the shop is closed"), which "post it in #staff" posts.
	Words string `json:"words,omitempty"`
	// Replace is the words of Text an answer takes the place of (a time
	// that does not exist: "25:00"), space-separated; empty: the answer
	// is added to Text.
	Replace string `json:"replace,omitempty"`
	// Create: the question is about a new job, not made yet. While it
	// waits, "it" and "that" are that request, never another job: "delete
	// it" drops the question.
	Create bool `json:"create,omitempty"`
	// Unread: the question quotes words of Text it did not understand.
	// An answer read into Text that leaves such words asks the open
	// question again instead, so that it does not become the request.
	Unread bool `json:"unread,omitempty"`
	// Thread is the thread the question was asked in (Slack), where a
	// reply answers it; the conversation sets it, not the selector.
	Thread string `json:"thread,omitempty"`
}

// Decision is exactly one of a call, a clarification, unsupported or a
// reply (help: never a call).
type Decision struct {
	Function    string          `json:"function,omitempty"`
	Args        json.RawMessage `json:"args,omitempty"`
	Clarify     string          `json:"clarify,omitempty"`
	Missing     string          `json:"missing,omitempty"`
	Unsupported string          `json:"unsupported,omitempty"`
	Reply       string          `json:"reply,omitempty"`
	// Pending is set with a clarification: what to remember so the next
	// message can complete the request. A reply given while a question
	// waits ("help", "who can see this?") carries that question on.
	Pending *Pending `json:"-"`
	// Dropped is the request whose open question this decision replaced:
	// the person wrote a new request instead of an answer, and is told.
	Dropped string `json:"-"`
}

// IsCall reports whether d is a function call.
func (d Decision) IsCall() bool { return d.Function != "" }

// Selector decides what a message asks for.
type Selector interface {
	Select(ctx context.Context, in Input) (Decision, error)
}

// PendingTTL is how long a question waits for its answer.
const PendingTTL = 15 * time.Minute
