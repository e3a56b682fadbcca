package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/oversim"
)

func writeSummary(t *testing.T, dir string, r oversim.Result) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestOverlaySFMaxFigure(t *testing.T) {
	d := t.TempDir()
	run := func(name, sch string, sf int, tasks uint64, mi float64) string {
		return writeSummary(t, filepath.Join(d, name), oversim.Result{Policy: "ibp", Nodes: 100, Hours: 60, SimulatedSeconds: 216000,
			Scheduler: sch, SFMax: sf, TasksFinished: tasks, ComputationFinishedMI: mi})
	}
	o64, o9 := run("o64", "", 64, 110, 1.6e6), run("o9", "", 9, 100, 1.5e6)
	c, r := run("c", "centralized", 225, 80, 2e6), run("r", "random", 225, 10, 1e5)
	out, errs, code := runCLI(t, "", "overlay", "sfmax-figure", "--out", filepath.Join(d, "fig"), o64, "central-0ns="+c, o9, r)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"1.375", "0.750", "central-0ns", "paper (Figs. 12-13"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(filepath.Join(d, "fig.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "overlay,overlay,9,60,0,100,0,1.5e+06,0,1.250,0.750,") {
		t.Errorf("CSV row of SF_max 9 missing:\n%s", csv)
	}
	for _, f := range []string{"fig-tasks.svg", "fig-computation.svg"} {
		if b, err := os.ReadFile(filepath.Join(d, f)); err != nil || !strings.Contains(string(b), "central-0ns") {
			t.Errorf("%s: %v, or no line named central-0ns", f, err)
		}
	}
	// The series: overlay by increasing SF_max, references flat over 9..64.
	var rs []*oversim.Result
	for _, dir := range []string{o64, c, o9} {
		var x oversim.Result
		b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
		json.Unmarshal(b, &x)
		rs = append(rs, &x)
	}
	s := againstSFMax(rs, nil, 9, 64, func(r *oversim.Result) float64 { return float64(r.TasksFinished) })
	if len(s) != 2 || s[0].Name != "overlay" || s[0].X[0] != 9 || s[0].Y[1] != 110 || s[1].Name != "centralized" || s[1].X[1] != 64 || s[1].Y[0] != 80 {
		t.Fatalf("series %+v", s)
	}

	dp := writeSummary(t, filepath.Join(d, "dp"), oversim.Result{Policy: "dp", Nodes: 100})
	for _, bad := range [][]string{
		{"--out", filepath.Join(d, "x"), filepath.Join(d, "missing")},
		{"--out", filepath.Join(d, "x"), o9, dp},
		{o9},
	} {
		_, errs, code := runCLI(t, "", append([]string{"overlay", "sfmax-figure"}, bad...)...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", bad, code, errs)
		}
	}
}
