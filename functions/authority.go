package functions

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/store"
)

// Profile is what the functions need to know of one channel profile of
// their orchestrator: the channel it is on, where it may post, and who
// administers it.
type Profile struct {
	Channel  string   // "slack" or "terminal"
	Channels []string // Slack channel ids it serves; "*": any; none: direct messages only
	Admins   []string // sender ids that may change anyone's job
}

// serves says whether the profile may post to a Slack channel id: one it
// lists, any with "*", and direct messages when it lists none (as the
// Slack adapter routes them).
func (p Profile) serves(channelID string) bool {
	if slices.Contains(p.Channels, "*") || slices.Contains(p.Channels, channelID) {
		return true
	}
	return len(p.Channels) == 0 && isDirect(channelID)
}

// isDirect: a DM channel (D…) or a person (U…, W…) Slack opens one with.
func isDirect(channelID string) bool {
	return strings.HasPrefix(channelID, "D") || strings.HasPrefix(channelID, "U") || strings.HasPrefix(channelID, "W")
}

// IsAction says whether a job may run function id. Jobs run action
// functions only (message.post and the orchestrator's own), never
// schedule.*: a job runs with nobody's authority, so a schedule that
// changed schedules would act for no one.
func IsAction(id string) bool { return !strings.HasPrefix(id, "schedule.") }

// AuthorityError is a change refused because the actor is neither the
// job's creator nor an admin.
type AuthorityError struct {
	JobID   string
	Verb    string // "change", "pause", "resume", "delete", "run"
	Creator string // the creator's name, as the job records it
}

func (e *AuthorityError) Error() string {
	who := "its creator"
	if e.Creator != "" {
		who += " (" + e.Creator + ")"
	}
	return fmt.Sprintf("only %s or an admin of the channel profile may %s job %s", who, e.Verb, e.JobID)
}

func (e *AuthorityError) Unwrap() error { return ErrForbidden }

// verbs name the changes that need authority, by the audit action they make.
var verbs = map[string]string{
	store.AuditJobUpdated: "change", store.AuditJobPaused: "pause", store.AuditJobResumed: "resume",
	store.AuditJobDeleted: "delete", store.AuditJobTriggered: "run",
	store.AuditJobSkipped: "skip a run of", store.AuditJobUnskipped: "restore a run of",
	store.AuditJobSnoozed: "snooze", store.AuditRunCompleted: "mark done a run of",
}

// authorize says whether the call's actor may make change action to j.
// The creator may (the same sender through the same channel profile), and
// so may an admin of the job's own channel profile or of the profile it
// posts through, coming through that profile (an admin of another
// profile, another workspace, may not). The person a reminder DMs may
// stop it (delete, pause, snooze, complete: anything but change, resume
// or run it), coming through the profile it posts through: a reminder
// someone else set is theirs to end. The person at the CLI or the local
// API can open the orchestrator's store anyway, so is its admin, and so
// is an HTTP API token of a terminal profile (that person's token: the
// terminal's authority).
// A job's run never may: jobs run action functions only.
func (c *Call) authorize(j *store.Job, action string) error {
	a := c.Actor
	switch {
	case a.Via == store.ViaScheduler:
	case a.Via == store.ViaCLI:
		return nil
	case a.Via == store.ViaHTTP && a.ChannelProfileID != "" &&
		c.r.deps.Profiles[a.ChannelProfileID].Channel == "terminal":
		return nil
	case a.SenderID == "":
	case a.SenderID == j.CreatedBy.SenderID && a.ChannelProfileID == j.CreatedBy.ChannelProfileID:
		return nil
	case c.adminThrough(j.CreatedBy.ChannelProfileID), c.adminThrough(postsThrough(j)):
		return nil
	case recipientMay[action] && isRecipient(j, a):
		return nil
	}
	return &AuthorityError{JobID: j.JobID, Verb: verbOf(action), Creator: j.CreatedBy.Sender}
}

func verbOf(action string) string {
	if v, ok := verbs[action]; ok {
		return v
	}
	return strings.TrimPrefix(action, "job.")
}

// recipientMay are the changes the person a reminder DMs may make to it,
// whoever set it: the ones that remind them less (stop, pause, skip one),
// and snooze and done on what they were sent. What it says, that it goes
// on, and when it runs stay its creator's.
var recipientMay = map[string]bool{
	store.AuditJobDeleted: true, store.AuditJobPaused: true, store.AuditJobSkipped: true,
	store.AuditJobSnoozed: true, store.AuditRunCompleted: true,
}

// adminThrough says whether the actor is an admin of profile id, coming
// through it.
func (c *Call) adminThrough(id string) bool {
	return id != "" && c.Actor.ChannelProfileID == id && slices.Contains(c.r.deps.Profiles[id].Admins, c.Actor.SenderID)
}

// postsThrough is the channel profile a job's posts go through.
func postsThrough(j *store.Job) string {
	if j.TargetRef != nil && j.TargetRef.ChannelProfileID != "" {
		return j.TargetRef.ChannelProfileID
	}
	return j.CreatedBy.ChannelProfileID
}

// isRecipient says whether a is the person j DMs on Slack (a U… or W… id
// as its target), coming through the profile it posts through.
func isRecipient(j *store.Job, a store.Actor) bool {
	r := j.TargetRef
	return r != nil && r.Channel == "slack" && isPerson(r.ChannelID) && r.ChannelID == a.SenderID &&
		a.ChannelProfileID == postsThrough(j)
}

// isPerson: a Slack user id (U…, W…), whose DM Slack opens on posting.
func isPerson(channelID string) bool {
	return strings.HasPrefix(channelID, "U") || strings.HasPrefix(channelID, "W")
}

// jobToChange loads a job for change action, refusing an actor without
// the authority to make it.
func (c *Call) jobToChange(tx store.Tx, id, action string) (*store.Job, error) {
	j, err := getJob(tx, id, false)
	if err != nil {
		return nil, err
	}
	if err := c.authorize(j, action); err != nil {
		return nil, err
	}
	return j, nil
}

// checkRef validates a target's shape, then keeps it inside the
// orchestrator: its profile must be one of the orchestrator's, on the
// target's channel, one the caller may post through (mayUse), and serve
// the channel. A target naming no profile gets the caller's, else the
// orchestrator's only profile on that channel, so that delivery goes
// where was checked. A Slack DM conversation (D…) is a target only for
// the person writing in it: somebody else's is never one (a person is
// reminded through their user id, U… or W…, and the post says who asked).
func (c *Call) checkRef(ref *store.TargetRef) error {
	if ref == nil {
		return nil
	}
	if err := checkRefShape(ref); err != nil {
		return err
	}
	profiles := c.r.deps.Profiles
	if ref.ChannelProfileID == "" {
		id, err := c.defaultProfile(ref.Channel)
		if err != nil {
			return err
		}
		ref.ChannelProfileID = id
	}
	p, ok := profiles[ref.ChannelProfileID]
	if !ok {
		return fieldErr("targetRef.channelProfileId", "%q is not a channel profile of orchestrator %q (its profiles: %s)",
			ref.ChannelProfileID, c.orch().ID, orNone(slices.Sorted(maps.Keys(profiles))))
	}
	if p.Channel != ref.Channel {
		return fieldErr("targetRef.channel", "is %s, but profile %q is on %s", ref.Channel, ref.ChannelProfileID, p.Channel)
	}
	if err := c.mayUse(ref.ChannelProfileID); err != nil {
		return err
	}
	if ref.Channel != "slack" {
		return nil
	}
	if strings.HasPrefix(ref.ChannelID, "D") {
		if own, known := c.creatorConversation(); known && ref.ChannelID != own {
			return fieldErr("targetRef.channelId", "%s is a direct-message conversation other than the one this was asked in; "+
				"to remind a person, name them by user id (U… or W…)", ref.ChannelID)
		}
	}
	if !p.serves(ref.ChannelID) && ref.ChannelID != c.creatorID() {
		return fieldErr("targetRef.channelId", "%s is not a channel profile %q serves (its channels: %s)",
			ref.ChannelID, ref.ChannelProfileID, orNone(p.Channels))
	}
	return nil
}

// mayUse says whether the caller may post through profile id: its own
// profile, another one it administers, or any from the CLI. A job's run
// may post through the job's own profile and the one its stored target
// names (checked when the job was made).
func (c *Call) mayUse(id string) error {
	a := c.Actor
	switch {
	case c.Origin != nil && (id == c.Origin.ProfileID || c.Origin.TargetRef != nil && id == c.Origin.TargetRef.ChannelProfileID):
		return nil
	case c.Origin != nil:
	case a.Via == store.ViaCLI, id == a.ChannelProfileID,
		a.Via == store.ViaHTTP && c.r.deps.Profiles[a.ChannelProfileID].Channel == "terminal":
		return nil
	case a.SenderID != "" && slices.Contains(c.r.deps.Profiles[id].Admins, a.SenderID):
		return nil
	}
	return fieldErr("targetRef.channelProfileId", "%q is not the channel profile this request came through (%q); "+
		"only an admin of %q may post through it", id, a.ChannelProfileID, id)
}

// creatorConversation is the conversation the job's creator wrote in (see
// creatorID; none from the CLI), and whether it is known: the run of a job
// made before it was recorded knows none, and checks the profile alone.
func (c *Call) creatorConversation() (string, bool) {
	switch {
	case c.creator != nil:
		return c.creator.ChannelID, true
	case c.Origin != nil:
		return c.Origin.CreatorChannelID, c.Origin.CreatorChannelID != ""
	}
	return c.Actor.ChannelID, true
}

// creatorID is the sender whose direct messages a target may name though
// the profile does not list them ("remind me"): the job's creator. In a
// job's run that is the creator the Origin carries, not the worker; in an
// update, the job's creator, not the actor (an admin).
func (c *Call) creatorID() string {
	if c.creator != nil {
		return c.creator.SenderID
	}
	if c.Origin != nil {
		return c.Origin.CreatorID
	}
	return c.Actor.SenderID
}

// defaultProfile is the profile a target on channel goes through when it
// names none: the caller's when it is on that channel, else the only one.
func (c *Call) defaultProfile(channel string) (string, error) {
	profiles := c.r.deps.Profiles
	if p, ok := profiles[c.Actor.ChannelProfileID]; ok && p.Channel == channel {
		return c.Actor.ChannelProfileID, nil
	}
	var ids []string
	for id, p := range profiles {
		if p.Channel == channel {
			ids = append(ids, id)
		}
	}
	switch len(ids) {
	case 0:
		return "", fieldErr("targetRef.channel", "orchestrator %q has no %s channel profile", c.orch().ID, channel)
	case 1:
		return ids[0], nil
	}
	slices.Sort(ids)
	return "", fieldErr("targetRef.channelProfileId", "is required: orchestrator %q has several %s profiles (%s)",
		c.orch().ID, channel, strings.Join(ids, ", "))
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
