package orchestrator_test

import (
	"testing"

	"github.com/schedbot/schedbot/internal/testkit"
)

// Some tests run several processes' workers on one PostgreSQL database;
// every goroutine a worker starts must have ended when the tests do.
func TestMain(m *testing.M) { testkit.Main(m) }
