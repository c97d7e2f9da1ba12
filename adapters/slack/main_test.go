package slack_test

import (
	"testing"

	"github.com/schedbot/schedbot/internal/testkit"
)

// Every goroutine the package starts must have ended when the tests do.
func TestMain(m *testing.M) { testkit.Main(m) }
