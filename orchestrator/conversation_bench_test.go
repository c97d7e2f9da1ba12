package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedbot/schedbot/conversation"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/orchestrator"
	"github.com/schedbot/schedbot/selector/rules"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// BenchmarkConversation: a question and its closing through the worker and
// the rules selector, on bolt (fsync on) and on postgres: every message
// changes what the conversation remembers, the worst case for keeping it
// in the store. One op is two messages (asked "what time?", then "help"
// closes it).
func BenchmarkConversation(b *testing.B) {
	b.Run("bolt", func(b *testing.B) {
		st, err := bolt.Open(filepath.Join(b.TempDir(), "c.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchConversation(b, st)
	})
	b.Run("postgres", func(b *testing.B) {
		st, err := postgres.Open(b.Context(), pgtest.DSN(b), "default", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchConversation(b, st)
	})
}

func benchConversation(b *testing.B, st store.Store) {
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 1000, Functions: []string{"schedule.*", "message.post"}}})
	c := &conversation.Conversations{Selector: rules.New(), Registry: reg, Store: st, Timezone: "UTC",
		Profiles: map[string]conversation.Profile{"team": {ID: "team", Channel: "slack"}}}
	sink := &countDeliverer{}
	w := orchestrator.NewWorker(orchestrator.Options{OrchestratorID: "default", Store: st, Registry: reg,
		Deliverers: map[string]orchestrator.Deliverer{"slack": sink}, ProfileChannels: map[string]string{"team": "slack"},
		Messages: c.Decide})
	ctx := context.Background()
	say := func(i int, text string) {
		// A direct message: the whole channel is one conversation.
		payload, _ := json.Marshal(orchestrator.Message{Text: text, SenderID: "UANA", Sender: "ana", ChannelID: "D0ANA",
			MessageTS: fmt.Sprintf("1700000000.%06d", i)})
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.QueueAdd(&store.QueueItem{Kind: store.KindMessage, OrchestratorID: "default", ChannelProfileID: "team", Payload: payload})
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		say(i, "post hello every friday")
		say(i+1, "help")
		i += 2
	}
	if got := sink.n.Load(); got != int64(i) {
		b.Fatalf("%d replies to %d messages", got, i)
	}
}
