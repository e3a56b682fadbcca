package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpRedundantResumesFigure(t *testing.T) {
	dir := t.TempDir()
	args := []string{"exp", "redundant", "--figure", "3", "--ms", "6,8", "--reps", "3", "--algos", "ea,gls", "--out", dir}
	out1, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "fig3-points.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 5 { // header + 2 R0 × 2 m
		t.Fatalf("points file has %d lines:\n%s", n, data)
	}
	// Drop the last two points as if the run had been interrupted, and run again.
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(filepath.Join(dir, "fig3-points.jsonl"), []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out2, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if out1 != out2 {
		t.Errorf("resumed run printed a different figure:\n%s\n---\n%s", out1, out2)
	}
	_, errOut, code = runCLI(t, "", "exp", "redundant", "--figure", "3", "--ms", "6,8", "--reps", "4", "--algos", "ea,gls", "--out", dir)
	if code == 0 || !strings.Contains(errOut, "reps = 3") {
		t.Errorf("changed --reps on the same --out: exit %d, %s", code, errOut)
	}
}

// TestExpRedundantPaperAlgorithmNames: --algos and --algo take the
// paper's names (EA, PPB, EPB, SAB, any case). SAB runs in Figure 4 (once,
// even when named) and in alloc with ages; the laboratory figures refuse
// it as a usage error, since they have no ages.
func TestExpRedundantPaperAlgorithmNames(t *testing.T) {
	dir := t.TempDir()
	tab := filepath.Join(dir, "ucb.tab")
	if _, errs, code := runCLI(t, "", "trace", "gen", "--preset", "ucb", "--seed", "2", "--out", tab); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, errs)
	}
	out, errs, code := runCLI(t, "", "exp", "redundant", "--figure", "4", "--reps", "1", "--moves-per-host", "1",
		"--trace", tab, "--task-size", "600", "--algos", "EA,SAB")
	if code != 0 {
		t.Fatalf("figure 4 --algos EA,SAB: exit %d: %s", code, errs)
	}
	var header string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "m (hosts)") {
			header = l
		}
	}
	if f := strings.Fields(header); len(f) != 4 || f[2] != "EA" || f[3] != "SAB" {
		t.Errorf("figure 4 --algos EA,SAB: table header %q, want m (hosts), EA, SAB", header)
	}

	_, errs, code = runCLI(t, "", "exp", "redundant", "--figure", "1", "--quick", "--reps", "1", "--algos", "EA,SAB")
	if code != 2 || !strings.Contains(errs, `algorithm "sab"`) || !strings.Contains(errs, "Figure 4") {
		t.Errorf("figure 1 --algos EA,SAB: exit %d, %q, want a usage error naming SAB and Figure 4", code, errs)
	}
	_, errs, code = runCLI(t, "", "exp", "redundant", "--figure", "1", "--quick", "--reps", "1", "--algos", "EA,SAP")
	if code != 2 || !strings.Contains(errs, `--algos: algorithm "SAP", want one of ea, ppb, epb, sab, gls, exact`) {
		t.Errorf("--algos EA,SAP: exit %d, %q", code, errs)
	}
	_, errs, code = runCLI(t, "", "exp", "redundant", "--figure", "3", "--ms", "6", "--reps", "0", "--algos", "EA,PPB")
	if code != 2 || !strings.Contains(errs, "reps = 0") {
		t.Errorf("--reps 0: exit %d, %q, want the package's error naming reps", code, errs)
	}
	out, errs, code = runCLI(t, "", "exp", "redundant", "--figure", "3", "--ms", "6", "--reps", "1", "--moves-per-host", "1", "--algos", "EA,Ppb,EPB")
	if code != 0 || !strings.Contains(out, "PPB") {
		t.Errorf("figure 3 --algos EA,Ppb,EPB: exit %d, %s", code, errs)
	}

	out, errs, code = runCLI(t, `{"ages": [10, 200, 50, 400], "size": 20, "C": 1000}`, "alloc", "--probs", "-", "--tasks", "2", "--algo", "SAB")
	if code != 0 || !strings.Contains(out, `"algo":"sab"`) {
		t.Errorf("alloc --algo SAB: exit %d, %s %s", code, out, errs)
	}
}
