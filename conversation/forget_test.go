package conversation_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

// A conversation unchanged for Keep is pruned by the next write: its
// question and its "it" leave the store; a fresh one stays.
func TestConversation_ForgottenAfterKeep(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	c := conv(e, &now)
	c.Keep = 24 * time.Hour
	if got := say(c, "UCAROL", "post hello every friday"); !strings.HasPrefix(got, "What time?") {
		t.Fatalf("question = %q", got)
	}
	if got := say(c, "UANA", "post bye every monday at 9am"); !strings.HasPrefix(got, "OK") {
		t.Fatalf("create = %q", got)
	}
	// The keys the store holds them under (conversation/conversation.go).
	old := []string{"q|team|C0TEAM||UCAROL", "it|team|C0TEAM|UANA"}
	requireRemembered(t, e.st, map[string]bool{old[0]: true, old[1]: true})
	now = now.Add(c.Keep + time.Minute)
	if got := say(c, "UBOB", "post hi every friday"); !strings.HasPrefix(got, "What time?") {
		t.Fatalf("Bob's question = %q", got)
	}
	requireRemembered(t, e.st, map[string]bool{old[0]: false, old[1]: false, "q|team|C0TEAM||UBOB": true})
}

func requireRemembered(t *testing.T, st store.Store, want map[string]bool) {
	t.Helper()
	err := st.View(t.Context(), func(tx store.Tx) error {
		for key, kept := range want {
			_, err := tx.ConversationGet(key)
			if kept && err != nil || !kept && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("conversation %s: %v, want kept %v", key, err, kept)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
