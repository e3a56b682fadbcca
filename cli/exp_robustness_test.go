package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExpRobustnessSmall: a small grid with three variants and a user's
// FTA trace runs, writes the summary and the report, and prints the
// tables.
func TestExpRobustnessSmall(t *testing.T) {
	dir := t.TempDir()
	fta := filepath.Join(whatifExamples, "desktops.tab")
	out, errOut, code := runCLI(t, "", "exp", "robustness", "--scenarios", "1", "--trials", "2", "--n", "5", "--ncom", "5", "--wmin", "1",
		"--iterations", "2", "--p", "6", "--variants", "markov,weibull-est", "--trace", fta, "--trace-slot", "300", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"markov", "weibull-est", "trace-user-est", "trace-user-win100", "Kendall", "τ vs Table 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, f := range []string{"summary.json", "report.md", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestExpRobustnessCoupled: the seed-002 part on a small grid.
func TestExpRobustnessCoupled(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "", "exp", "robustness", "--model", "coupled", "--scenarios", "1", "--trials", "2", "--m", "3", "--ncom", "5", "--wmin", "1",
		"--iterations", "2", "--p", "8", "--variants", "markov,lognormal,lognormal-est", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"%diff vs IE", "lognormal-est", "Y-IE", "Kendall"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Error(err)
	}
}

func TestExpRobustnessUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"exp", "robustness", "--variants", "markov,gamma", "--out", t.TempDir()}, `"gamma" is not a variant`},
		{[]string{"exp", "robustness", "--trace", "no-such.tab", "--out", t.TempDir()}, "--trace"},
		{[]string{"exp", "robustness", "--trace", filepath.Join(whatifExamples, "desktops.tab"), "--trace-unavailable", "gone", "--out", t.TempDir()}, "unavailable"},
		{[]string{"exp", "robustness", "--trials", "0", "--out", t.TempDir()}, "trials"},
		{[]string{"exp", "robustness", "--model", "tightly", "--out", t.TempDir()}, `--model "tightly"`},
		{[]string{"exp", "robustness", "--m", "5", "--out", t.TempDir()}, "--m and --cap are for --model coupled"},
		{[]string{"exp", "robustness", "--model", "coupled", "--n", "5", "--out", t.TempDir()}, "--n is for --model independent"},
		{[]string{"exp", "robustness", "--trace", filepath.Join(whatifExamples, "desktops.tab"), "--out", t.TempDir()}, "6 hosts, want at least p = 20"},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
