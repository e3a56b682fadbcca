package testbin

import (
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestVolsched: the binary builds once and runs.
func TestVolsched(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	p := Volsched(t)
	if q := Volsched(t); q != p {
		t.Fatalf("second call built again: %s, then %s", p, q)
	}
	out, err := exec.Command(p, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "volsched") {
		t.Fatalf("volsched version: %v\n%s", err, out)
	}
}
