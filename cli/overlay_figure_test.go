package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/oversim"
	simcampaign "github.com/volsched/volsched/oversim/campaign"
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
		return writeSummary(t, filepath.Join(d, name), oversim.Result{Policy: overlay.PolicyIBP, Nodes: 100, Hours: 60, SimulatedSeconds: 216000,
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
	dp := writeSummary(t, filepath.Join(d, "dp"), oversim.Result{Policy: overlay.PolicyDP, Nodes: 100})
	// A run on the embedded workload model and one on the data's files.
	model := writeSummary(t, filepath.Join(d, "model"), oversim.Result{Policy: overlay.PolicyIBP, Nodes: 100, Hours: 60, SimulatedSeconds: 216000,
		SFMax: 16, TasksFinished: 1, Workload: "embedded model m"})
	for _, bad := range [][]string{
		{"--out", filepath.Join(d, "x"), filepath.Join(d, "missing")},
		{"--out", filepath.Join(d, "x"), o9, dp},
		{o9},
		{"--out", filepath.Join(d, "x"), o9, model},
	} {
		_, errs, code := runCLI(t, "", append([]string{"overlay", "sfmax-figure"}, bad...)...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", bad, code, errs)
		}
		if bad[len(bad)-1] == model && !strings.Contains(errs, `workload "embedded model m"`) {
			t.Errorf("runs of two workloads: stderr %q, want the workloads named", errs)
		}
	}
}

// TestOverlaySFMaxFigureMakespan: from real MMP runs, sfmax-figure writes
// Fig. 15 (the timeline's row_makespan_max_s over time, one line per run),
// leaves out and names a run without a timeline, and refuses a malformed
// timeline naming the file and line.
func TestOverlaySFMaxFigureMakespan(t *testing.T) {
	useEmbeddedWorkload(t)
	d := t.TempDir()
	var dirs []string
	for _, a := range [][]string{{"o16", "--sfmax", "16"}, {"random", "--scheduler", "random"}} {
		dir := filepath.Join(d, a[0])
		if _, errs, code := runCLI(t, "", append([]string{"overlay", "sim", "--policy", "mmp", "--nodes", "32", "--hours", "6",
			"--sample", "30m", "--out", dir}, a[1:]...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", a, code, errs)
		}
		dirs = append(dirs, dir)
	}
	// A run of the same setup at SF_max 81 without a timeline, and one whose
	// timeline has a header only: both left out, named.
	var o81 oversim.Result
	b, err := os.ReadFile(filepath.Join(dirs[0], "summary.json"))
	if err != nil || json.Unmarshal(b, &o81) != nil {
		t.Fatal(err)
	}
	o81.SFMax = 81
	old := writeSummary(t, filepath.Join(d, "old"), o81)
	o81.SFMax = 9
	headerOnly := writeSummary(t, filepath.Join(d, "header"), o81)
	os.WriteFile(filepath.Join(headerOnly, "timeline.csv"), []byte(simcampaign.TimelineHeader+"\n"), 0o644)
	out, errs, code := runCLI(t, "", "overlay", "sfmax-figure", "--out", filepath.Join(d, "fig"), dirs[0], dirs[1], old, headerOnly)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "paper (Fig. 15") || !strings.Contains(out, "(no timeline.csv): "+old) || !strings.Contains(out, "(timeline.csv without rows): "+headerOnly) {
		t.Errorf("output lacks the paper's Fig. 15 or the run left out:\n%s", out)
	}
	csv, err := os.ReadFile(filepath.Join(d, "fig-makespan.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	// 12 rows of 30 min per run, the first at 0.5 h, the last at 6 h.
	if len(lines) != 1+2*12 || !strings.HasPrefix(lines[1], "overlay SF_max 16,") || !strings.Contains(lines[12], ",6,") ||
		!strings.HasPrefix(lines[13], "random,") {
		t.Fatalf("makespan CSV:\n%s", csv)
	}
	nonzero := false
	for _, l := range lines[1:] {
		nonzero = nonzero || !strings.HasSuffix(l, ",0")
	}
	if !nonzero {
		t.Fatalf("no application completed in 6 h on 32 nodes:\n%s", csv)
	}
	if b, err := os.ReadFile(filepath.Join(d, "fig-makespan.svg")); err != nil || !strings.Contains(string(b), "random") {
		t.Errorf("fig-makespan.svg: %v, or no line named random", err)
	}
	// A damaged timeline (a short row; a NaN makespan) is an error naming it.
	tl := filepath.Join(dirs[1], "timeline.csv")
	good, _ := os.ReadFile(tl)
	lines = strings.Split(strings.TrimSpace(string(good)), "\n")
	row := strings.Split(lines[len(lines)-1], ",")
	row[len(row)-2] = "NaN" // row_makespan_max_s (wall_s is last)
	for _, bad := range []string{"7200,1,2\n", strings.Join(row, ",") + "\n"} {
		os.WriteFile(tl, append(slices.Clone(good), bad...), 0o644)
		_, errs, code = runCLI(t, "", "overlay", "sfmax-figure", "--out", filepath.Join(d, "fig2"), dirs[0], dirs[1])
		if code != 2 || !strings.Contains(errs, "timeline.csv line 14") {
			t.Fatalf("damaged timeline %q: exit %d, stderr %q", bad, code, errs)
		}
	}
}

// TestOverlaySizeFigure: Figs. 9 and 11 from run summaries at several sizes
// (a policy missing a size leaves its cell empty; its ratio is over the
// sizes it has), and
// the refusals: a reference run, another length, a second run of a policy
// and size, an interrupted run, no --out.
func TestOverlaySizeFigure(t *testing.T) {
	d := t.TempDir()
	run := func(name, policy, sch string, nodes int, hours, simulated, tput, peak float64) string {
		return writeSummary(t, filepath.Join(d, name), oversim.Result{Policy: policyOf(t, policy), Nodes: nodes, Hours: hours, Link: "fast",
			SimulatedSeconds: simulated * 3600, Scheduler: sch, ThroughputTasksPerHour: tput,
			PeakLinkUse: []des.LinkUse{{Window: des.Second, Fraction: peak}, {Window: 10 * des.Second, Fraction: peak / 2}}})
	}
	i1, i2, i4 := run("i1", "ibp", "", 1000, 60, 60, 100, 0.001), run("i2", "ibp", "", 2000, 60, 60, 210, 0.0015), run("i4", "ibp", "", 4000, 60, 60, 380, 0.0016)
	d1, d4 := run("d1", "dp", "", 1000, 60, 60, 50, 0.002), run("d4", "dp", "", 4000, 60, 60, 200, 0.0025)
	out, errs, code := runCLI(t, "", "overlay", "size-figure", "--out", filepath.Join(d, "f"), i4, d1, i1, d4, i2)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// ibp per node 0.1 -> 0.095 (0.95); dp 0.05 -> 0.05 (1.00) with its 2000 cell empty.
	for _, want := range []string{"fast link, 60 h", "0.95", "1.00", "0.16%", "0.25%", "paper: grows linearly"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv9, err := os.ReadFile(filepath.Join(d, "f-fig9.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "policy,nodes,tasks_per_hour\nibp,1000,100\nibp,2000,210\nibp,4000,380\ndp,1000,50\ndp,4000,200\n"; string(csv9) != want {
		t.Errorf("fig9.csv:\n%s\nwant\n%s", csv9, want)
	}
	csv11, err := os.ReadFile(filepath.Join(d, "f-fig11.csv"))
	if err != nil || !strings.Contains(string(csv11), "dp,4000,0.0025\n") {
		t.Errorf("fig11.csv: %v\n%s", err, csv11)
	}
	for _, f := range []string{"f-fig9.svg", "f-fig11.svg"} {
		if b, err := os.ReadFile(filepath.Join(d, f)); err != nil || !strings.Contains(string(b), "dp") {
			t.Errorf("%s: %v, or no line named dp", f, err)
		}
	}
	// A finished run whose length is not a whole number of hours in binary
	// (1.1 h: 3960 s, but 1.1*3600 > 3960 in floating point) is accepted.
	var f []string
	for _, n := range []int{1000, 2000} {
		f = append(f, writeSummary(t, filepath.Join(d, fmt.Sprint("f", n)), oversim.Result{Policy: overlay.PolicyMMP, Nodes: n, Hours: 1.1, Link: "fast",
			SimulatedSeconds: 3960, ThroughputTasksPerHour: 1}))
	}
	f1, f2 := f[0], f[1]
	if _, errs, code := runCLI(t, "", "overlay", "size-figure", "--out", filepath.Join(d, "g"), f1, f2); code != 0 {
		t.Errorf("runs of 1.1 h refused: exit %d: %s", code, errs)
	}
	seed2 := writeSummary(t, filepath.Join(d, "seed2"), oversim.Result{Policy: overlay.PolicyDP, Nodes: 2000, Hours: 60, Link: "fast", Seed: 2,
		SimulatedSeconds: 216000, ThroughputTasksPerHour: 1})
	churn := writeSummary(t, filepath.Join(d, "churn"), oversim.Result{Policy: overlay.PolicyIBP, Nodes: 8000, Hours: 60, Link: "fast",
		SimulatedSeconds: 216000, ChurnMedianMinutes: 30})
	c := run("c", "ibp", "centralized", 8000, 60, 60, 1, 0)
	h12 := run("h12", "ibp", "", 8000, 12, 12, 1, 0)
	dup := run("dup", "ibp", "", 1000, 60, 60, 1, 0)
	cut := run("cut", "dp", "", 8000, 60, 43.8, 1, 0)
	for _, bad := range [][]string{
		{"--out", filepath.Join(d, "x"), i1, c},
		{"--out", filepath.Join(d, "x"), i1, h12},
		{"--out", filepath.Join(d, "x"), i1, dup},
		{"--out", filepath.Join(d, "x"), i1, cut},
		{"--out", filepath.Join(d, "x"), i1, d1, seed2},
		{"--out", filepath.Join(d, "x"), i1, churn},
		{i1},
	} {
		_, errs, code := runCLI(t, "", append([]string{"overlay", "size-figure"}, bad...)...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", bad, code, errs)
		}
	}
}

// TestOverlayFailureFigure: Fig. 18 and the catastrophe figure from run
// summaries, normalized by each policy's run without failures (a failure a
// policy was not run with shows "-"), and the refusals: no run without
// failures, two runs of the same failure, a run on another network, both
// kinds in one run, catastrophes at different times, a reference run.
func TestOverlayFailureFigure(t *testing.T) {
	d := t.TempDir()
	k := 0
	run := func(policy string, nodes int, churn, frac, at, mi float64) string {
		k++
		return writeSummary(t, filepath.Join(d, strconv.Itoa(k)), oversim.Result{Policy: policyOf(t, policy), Nodes: nodes, Hours: 60, Link: "fast", SFMax: 225,
			SimulatedSeconds: 216000, ChurnMedianMinutes: churn, CatastropheFraction: frac, CatastropheHours: at, ComputationFinishedMI: mi})
	}
	ok := []string{run("ibp", 1000, 0, 0, 0, 200), run("ibp", 1000, 60, 0, 0, 180), run("ibp", 1000, 5, 0, 0, 100),
		run("ibp", 1000, 0, 0.2, 24, 190), run("dp", 4000, 0, 0, 0, 400), run("dp", 4000, 5, 0, 0, 100)}
	out, errs, code := runCLI(t, "", append([]string{"overlay", "failure-figure", "--out", filepath.Join(d, "f")}, ok...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"at 24 h", "ibp: 1000 nodes", "dp: 4000 nodes", "churn 1h0m0s", "churn 5m0s", "fail 20%", "0.900", "0.500", "0.950", "0.250"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(filepath.Join(d, "f-fig18.csv"))
	if want := "policy,failure,parameter,normalized_computation\nibp,churn,60,0.9\nibp,churn,5,0.5\nibp,catastrophe,0.2,0.95\ndp,churn,5,0.25\n"; err != nil || string(csv) != want {
		t.Errorf("fig18.csv (%v):\n%s\nwant\n%s", err, csv, want)
	}
	for _, f := range []string{"f-fig18.svg", "f-catastrophe.svg"} {
		if _, err := os.Stat(filepath.Join(d, f)); err != nil {
			t.Error(err)
		}
	}
	// Catastrophes only: fig18.csv and the catastrophe figure, no churn figure.
	out, errs, code = runCLI(t, "", "overlay", "failure-figure", "--out", filepath.Join(d, "cat"), ok[0], ok[3])
	if code != 0 {
		t.Fatalf("catastrophes only: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(d, "cat-fig18.csv")); err != nil || !strings.Contains(string(b), "ibp,catastrophe,0.2,0.95") {
		t.Errorf("catastrophes only: cat-fig18.csv %v:\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(d, "cat-catastrophe.svg")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(d, "cat-fig18.svg")); err == nil {
		t.Error("catastrophes only: a churn figure without churn runs")
	}
	badJSON := filepath.Join(d, "badjson")
	os.MkdirAll(badJSON, 0o755)
	os.WriteFile(filepath.Join(badJSON, "summary.json"), []byte("{"), 0o644)
	otherSeed := writeSummary(t, filepath.Join(d, "seed"), oversim.Result{Policy: overlay.PolicyIBP, Nodes: 1000, Hours: 60, Link: "fast", SFMax: 225,
		SimulatedSeconds: 216000, Seed: 7, ChurnMedianMinutes: 15, ComputationFinishedMI: 1})
	for name, bad := range map[string][]string{
		"zero base":      {run("mmp", 1000, 0, 0, 0, 0), run("mmp", 1000, 30, 0, 0, 1)},
		"no failure run": {ok[0]},
		"bad json":       {ok[0], badJSON},
		"other seed":     {ok[0], otherSeed},
		"no base":        {run("mmp", 1000, 30, 0, 0, 1)},
		"duplicate":      {ok[0], ok[1], run("ibp", 1000, 60, 0, 0, 1)},
		"other network":  {ok[0], run("ibp", 2000, 30, 0, 0, 1)},
		"both kinds":     {ok[0], run("ibp", 1000, 30, 0.1, 24, 1)},
		"two times":      {ok[0], ok[3], run("ibp", 1000, 0, 0.4, 12, 1)},
		"reference run":  {ok[0], writeSummary(t, filepath.Join(d, "c"), oversim.Result{Policy: overlay.PolicyIBP, Nodes: 1000, Hours: 60, SimulatedSeconds: 216000, Scheduler: "random"})},
		"missing --out":  {"overlay"},
	} {
		args := append([]string{"overlay", "failure-figure", "--out", filepath.Join(d, "x")}, bad...)
		if name == "missing --out" {
			args = []string{"overlay", "failure-figure", ok[0]}
		}
		if _, errs, code := runCLI(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%s: exit %d, stderr %q; want 2 and a message", name, code, errs)
		}
	}
}

// TestOverlayFigureFolderOfRuns: a folder of run directories (the README's
// `sfmax-figure --out PREFIX results/004/paper-ibp/`) stands for its runs;
// a stopped run in it is left out with a note, while the same run named on
// its own is refused.
func TestOverlayFigureFolderOfRuns(t *testing.T) {
	d := t.TempDir()
	runs := filepath.Join(d, "runs")
	run := func(name, sch string, sf int, simulated float64) string {
		return writeSummary(t, filepath.Join(runs, name), oversim.Result{Policy: overlay.PolicyIBP, Nodes: 100, Hours: 60, SimulatedSeconds: simulated,
			Scheduler: sch, SFMax: sf, TasksFinished: 100, ComputationFinishedMI: 1e6})
	}
	run("a-overlay-64", "", 64, 216000)
	run("b-overlay-9", "", 9, 216000)
	run("c-central", "centralized", 225, 216000)
	stopped := run("d-central-stopped", "centralized", 225, 30000)
	os.WriteFile(filepath.Join(runs, "notes.txt"), []byte("not a run"), 0o644)
	out, e, code := runCLI(t, "", "overlay", "sfmax-figure", "--out", filepath.Join(d, "fig"), runs)
	if code != 0 || !strings.Contains(e, "left out") || !strings.Contains(e, "d-central-stopped") || strings.Count(out, "centralized") < 1 {
		t.Fatalf("folder of runs: exit %d, stdout %q, stderr %q", code, out, e)
	}
	if _, e, code := runCLI(t, "", "overlay", "sfmax-figure", "--out", filepath.Join(d, "fig2"), filepath.Join(runs, "a-overlay-64"), stopped); code != 2 || !strings.Contains(e, "stopped at") {
		t.Errorf("a stopped run named on its own: exit %d, stderr %q; want it refused", code, e)
	}
}

// policyOf parses a policy's name.
func policyOf(t *testing.T, name string) overlay.Policy {
	t.Helper()
	p, err := overlay.ParsePolicy(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
