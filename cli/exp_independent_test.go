package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	itercampaign "github.com/volsched/volsched/iterative/campaign"
)

// tinyIndependent is a campaign small enough for a test: 2 instantiations.
var tinyIndependent = []string{"exp", "independent", "--n", "5", "--ncom", "5", "--wmin", "1,2", "--scenarios", "2", "--trials", "2", "--iterations", "2", "--seed", "7"}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExpIndependentWorkersAndShards: the summary and the per-instance
// makespans do not depend on --workers, and two shards merged give the
// same summary as an unsharded run.
func TestExpIndependentWorkersAndShards(t *testing.T) {
	dir := t.TempDir()
	run := func(out string, extra ...string) string {
		args := append(append([]string{}, tinyIndependent...), append([]string{"--out", out}, extra...)...)
		stdout, stderr, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	outA := run(a, "--workers", "1")
	run(b, "--workers", "3")
	for _, f := range []string{"summary.json", "makespans.csv", "figure2.csv"} {
		if readFile(t, filepath.Join(a, f)) != readFile(t, filepath.Join(b, f)) {
			t.Errorf("%s differs between --workers 1 and 3", f)
		}
	}
	if !strings.Contains(outA, "paper dfb") || !strings.Contains(outA, "EMCT*") || !strings.Contains(outA, "Kendall") {
		t.Errorf("table not printed:\n%s", outA)
	}
	if _, err := os.Stat(filepath.Join(a, "figure2.svg")); err != nil {
		t.Error(err)
	}
	var s itercampaign.Report
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(a, "summary.json"))), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Heuristics) != 17 || s.Instances != 2*2*2 || s.Seed != 7 {
		t.Errorf("summary: %d heuristics, %d instances, seed %d", len(s.Heuristics), s.Instances, s.Seed)
	}
	best := 0
	for _, h := range s.Heuristics {
		best = max(best, h.Wins)
		if h.AvgDfb < 0 {
			t.Errorf("%s: negative dfb %g", h.Name, h.AvgDfb)
		}
	}
	if best == 0 {
		t.Error("no heuristic wins any instance")
	}
	s1, s2, m := filepath.Join(dir, "s1"), filepath.Join(dir, "s2"), filepath.Join(dir, "m")
	run(s1, "--shard", "1/2")
	run(s2, "--shard", "2/2")
	if _, stderr, code := runCLI(t, "", "exp", "merge", "--out", m, s1, s2); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if readFile(t, filepath.Join(a, "summary.json")) != readFile(t, filepath.Join(m, "summary.json")) {
		t.Error("merged shards give a different summary")
	}
}

func TestExpIndependentUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--scenarios", "0"}, "scenarios"},
		{[]string{"--trials", "-1"}, "trials"},
		{[]string{"--wmin", "0"}, "wmin"},
		{[]string{"--channels", "lifo"}, "lifo"},
		{[]string{"--order", "sideways"}, "sideways"},
		{[]string{"--initial", "down"}, "down"},
		{[]string{"--replicas", "-2"}, "replicas"},
		// Degenerate grids are refused before the first unit (they used to
		// run every unit and then fail writing the summary); small grids,
		// so that a regression fails fast instead of running long.
		{[]string{"--p", "1", "--n", "5", "--ncom", "5", "--wmin", "1", "--scenarios", "1", "--trials", "1", "--iterations", "1"}, "p = 1"},
		{[]string{"--n", "5,10,5", "--ncom", "5", "--wmin", "1", "--scenarios", "1", "--trials", "1", "--iterations", "1"}, "n lists 5 twice"},
	}
	for _, c := range cases {
		args := append([]string{"exp", "independent", "--out", filepath.Join(dir, "x")}, c.args...)
		_, stderr, code := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("a refused campaign left its directory behind (%v)", err)
	}
}
