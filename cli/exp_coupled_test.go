package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tiny coupled campaign: identical results and summary with 1 and 2
// workers and with two shards merged; usage errors exit 2 naming the flag.
func TestExpCoupled(t *testing.T) {
	base := "exp coupled --m 5 --ncom 5,20 --wmin 1 --scenarios 2 --trials 2 --seed 3"
	dirs := []string{t.TempDir(), t.TempDir()}
	var summaries []string
	for i, w := range []string{"1", "2"} {
		out, errs, code := runCLI(t, "", strings.Fields(base+" --workers "+w+" --out "+dirs[i])...)
		if code != 0 {
			t.Fatalf("workers %s: exit %d: %s", w, code, errs)
		}
		if !strings.Contains(out, "Y-IE") || !strings.Contains(out, "Table I") {
			t.Fatalf("workers %s: tables missing:\n%s", w, out)
		}
		b, err := os.ReadFile(filepath.Join(dirs[i], "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		summaries = append(summaries, string(b))
		for _, f := range []string{"figure2.csv", "figure2-m5.svg"} {
			if _, err := os.Stat(filepath.Join(dirs[i], f)); err != nil {
				t.Fatalf("missing %s: %v", f, err)
			}
		}
	}
	if summaries[0] != summaries[1] {
		t.Fatal("summary.json differs between 1 and 2 workers")
	}
	if !strings.Contains(summaries[0], `"pct_wins30"`) || !strings.Contains(summaries[0], `"name": "Y-IE"`) {
		t.Fatalf("summary.json lacks the metrics:\n%.400s", summaries[0])
	}
	// two shards, merged
	s1, s2, merged := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "m")
	for i, d := range []string{s1, s2} {
		if _, errs, code := runCLI(t, "", strings.Fields(base+" --shard "+[]string{"1/2", "2/2"}[i]+" --out "+d)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i+1, code, errs)
		}
	}
	if _, errs, code := runCLI(t, "", "exp", "merge", "--out", merged, s1, s2); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(merged, "summary.json"))
	if err != nil || string(b) != summaries[0] {
		t.Fatalf("merged summary differs from the unsharded one (%v)", err)
	}

	// degenerate grids are refused before the first unit: nothing written
	for _, c := range []struct{ args, want string }{
		{"--wmin 0", "wmin = 0"},
		{"--form exact", `form "exact"`},
		{"--trials 0", "trials = 0"},
		{"--p 1001", "p = 1001"},
		{"--p 1", "p = 1:"},
		{"--m 5,5", "5 listed twice"},
		{"--cap 20", "cap = 20"},
		{"--rebuild foo", `rebuild = "foo"`},
	} {
		out := filepath.Join(t.TempDir(), "run")
		_, errs, code := runCLI(t, "", append([]string{"exp", "coupled", "--out", out}, strings.Fields(c.args)...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s exists (%v): want nothing written", c.args, out, err)
		}
	}
}

// The quick look the help text gives runs as written (in a temporary
// directory) and prints both tables.
func TestExpCoupledQuickLook(t *testing.T) {
	help, _, code := runCLI(t, "", "exp", "coupled", "--help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	var cmd []string
	for _, l := range strings.Split(help, "\n") {
		if f := strings.Fields(l); cmd == nil && len(f) > 3 && f[0] == "volsched" && f[1] == "exp" && f[2] == "coupled" {
			cmd = f[1:] // the first: the quick look (the usage line comes later)
		}
	}
	if len(cmd) == 0 || cmd[len(cmd)-2] != "--out" {
		t.Fatalf("no quick-look command ending in --out DIR in the help:\n%s", help)
	}
	cmd[len(cmd)-1] = filepath.Join(t.TempDir(), "y")
	out, errs, code := runCLI(t, "", cmd...)
	if code != 0 || !strings.Contains(out, "Table I") || !strings.Contains(out, "Table II") {
		t.Fatalf("%v: exit %d, stderr %q, output:\n%s", cmd, code, errs, out)
	}
}
