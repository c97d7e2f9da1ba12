package orchestrator_test

import (
	"testing"

	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// Some tests run several processes' workers on one PostgreSQL database.
func TestMain(m *testing.M) { pgtest.Main(m) }
