package orchestrator_test

import (
	"time"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/selector/rules"
)

// conv is the conversation layer over e's store and functions, as serve
// wires it, for the tests of the worker carrying messages to it.
func conv(e *env, now *time.Time) *conversation.Conversations {
	return &conversation.Conversations{Selector: rules.New(), Registry: e.reg, Store: e.st, Timezone: "America/New_York",
		Profiles: map[string]conversation.Profile{"team": {ID: "team", Channel: "slack"}, "terminal": {ID: "terminal", Channel: "terminal"}},
		Now:      func() time.Time { return *now }}
}
