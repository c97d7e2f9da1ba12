package daemon

import (
	"testing"
	"time"

	"github.com/schedbot/schedbot/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// waitFor polls cond until it holds, failing t after limit.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
