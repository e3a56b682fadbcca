package e2e

import (
	"testing"

	"github.com/volsched/volsched/internal/testbin"
)

// volschedBinary is the volsched command built once for the tests that
// run it as real processes.
func volschedBinary(t testing.TB) string { return testbin.Volsched(t) }

func TestMain(m *testing.M) { testbin.Main(m) }
