// Package functions is the registry of callable functions: each has an id,
// a JSON schema (a .json file beside its handler, embedded; the same schema
// is an LLM's tool definition and our validator's input), strict argument
// decoding and a handler. The schedule.* functions manage jobs; message.post
// queues a text for delivery.
//
// A call is validated in full before anything is written, and a failure
// names the field and the rule (*FieldError) and changes nothing.
//
// Authority is checked here and nowhere else, from the call's Actor: only a
// job's creator or an admin changes it (*AuthorityError), a job's run calls
// action functions only, and a job's target stays among its orchestrator's
// channel profiles (authority.go).
package functions

import "time"

var timeZero time.Time
