package cli

import (
	"strings"
	"testing"
)

// TestReproduceNames: the reproductions are named after the commands they
// reduce, and --only still takes their former names.
func TestReproduceNames(t *testing.T) {
	out, _, code := runCLI(t, "", "reproduce", "--list")
	if code != 0 {
		t.Fatalf("reproduce --list: exit %d", code)
	}
	for _, name := range []string{"analyze", "exp-independent", "exp-coupled", "exp-redundant", "overlay-accuracy", "overlay-sim"} {
		if !strings.Contains(out, "\n"+name+" ") && !strings.HasPrefix(out, name+" ") {
			t.Errorf("reproduce --list lacks %s:\n%s", name, out)
		}
	}
	for _, old := range []string{"table2-001", "tables-002", "seed 00"} {
		if strings.Contains(out, old) {
			t.Errorf("reproduce --list still says %q:\n%s", old, out)
		}
	}
	out, _, code = runCLI(t, "", "reproduce", "--quick", "--only", "analytic")
	if code != 0 || !strings.Contains(out, "=== analyze: ") {
		t.Errorf("--only analytic (the former name): exit %d, output %.200q; want the analyze reproduction", code, out)
	}
	_, errOut, code := runCLI(t, "", "reproduce", "--only", "nothing")
	if code != 2 || !strings.Contains(errOut, `"nothing": no such reproduction`) || !strings.Contains(errOut, "exp-independent") {
		t.Errorf("--only nothing: exit %d, stderr %q; want exit 2 naming it and the names", code, errOut)
	}
}
