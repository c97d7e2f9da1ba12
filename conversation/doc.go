// Package conversation is the conversation layer: what a person's message
// means and what schedbot answers. Conversations is the orchestrator
// worker's MessageHandler: it asks the selector for one call, settles
// answers to its own open questions (cancel, yes or no, "the second one"),
// lets the functions decide who may do what from the sender it passes as
// the call's actor, and tells the result in words (explain.go for errors,
// tell.go for show, agenda and history, life.go for skip, snooze and done).
//
// What a conversation remembers between messages — the open question, the
// job last spoken of, the job whose post fired last — is in the store, so
// an answer reaching another process sharing it, or this one after a
// restart, still completes the question.
package conversation
