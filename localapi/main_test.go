package localapi

import (
	"testing"

	"github.com/schedbot/schedbot/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
