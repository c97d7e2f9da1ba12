package bolt_test

import (
	"testing"

	"github.com/schedbot/schedbot/internal/testkit"
)

// TestMain fails the run when a goroutine outlives the tests: JobsDue
// starts two (decodeAhead, the write-behind encoder) a transaction.
func TestMain(m *testing.M) { testkit.Main(m) }
