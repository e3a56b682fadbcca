package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/workload"
)

func TestOverlaySimUsageErrors(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "fifo", "--out", out}, "--policy"},
		{[]string{"--nodes", "1", "--out", out}, "--nodes"},
		{[]string{"--link", "medium", "--out", out}, "--link"},
		{[]string{"--hours", "0", "--out", out}, "--hours"},
		{[]string{"--fail", "2@1h", "--out", out}, "--fail"},
		{[]string{"--churn", "soon", "--out", out}, "--churn"},
		{[]string{"--sfmax", "-3", "--out", out}, "--sfmax"},
		{[]string{"--nodes", "10"}, "--out"},
		{[]string{"--nodes", "-5", "--out", out}, "--nodes"},
		{[]string{"--sfmax", "0", "--out", out}, "--sfmax"},
		{[]string{"--update-bw", "-5", "--out", out}, "--update-bw"},
		{[]string{"--update-bw", "NaN", "--out", out}, "--update-bw"},
		{[]string{"--beta", "-1", "--out", out}, "--beta"},
		{[]string{"--beta", "NaN", "--policy", "mmp", "--out", out}, "--beta"},
		{[]string{"--churn", "1ns", "--out", out}, "--churn"},
		{[]string{"--churn", "-5m", "--out", out}, "--churn"},
		{[]string{"--fail", "20%", "--out", out}, "--fail"},
		{[]string{"--fail", "0.2@-1h", "--out", out}, "--fail"},
		{[]string{"--fail", "0@1h", "--out", out}, "--fail"},
		{[]string{"--fail", "20%@2h", "--hours", "1", "--out", out}, "--fail"},
		{[]string{"--scheduler", "fifo", "--out", out}, "--scheduler"},
		{[]string{"--distance", "l2", "--out", out}, "--distance"},
		{[]string{"--policy", "dp", "--distance", "stars", "--out", out}, "--distance stars"},
		{[]string{"--workload", "a.csv", "--swf", "b.swf", "--out", out}, "--workload and --swf"},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(t, "", append([]string{"overlay", "sim"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("overlay sim %v: exit %d, stderr %q; want exit 2 naming %s", c.args, code, errOut, c.want)
		}
	}
}

func TestOverlaySimBadTrace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(p, []byte(workload.TraceHeader+"\n1,0,1,1,100,0,0,0\n2,0,2,zero,100,0,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "overlay", "sim", "--nodes", "4", "--workload", p, "--out", dir)
	if code == 0 || !strings.Contains(errOut, "trace.csv:3: tasks") {
		t.Fatalf("exit %d, stderr %q; want an error naming line 3 and the tasks field", code, errOut)
	}
}

// TestOverlaySimEmptyTrace: a trace with a header and no job is a run
// without jobs, not a missing workload.
func TestOverlaySimEmptyTrace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(p, []byte(workload.TraceHeader+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "overlay", "sim", "--nodes", "8", "--hours", "0.5", "--workload", p, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		JobsSubmitted *uint64 `json:"jobs_submitted"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.JobsSubmitted == nil || *r.JobsSubmitted != 0 {
		t.Fatalf("summary %s (%v): want 0 jobs submitted", b, err)
	}
}

func TestOverlaySimRuns(t *testing.T) {
	useEmbeddedWorkload(t)
	dir := t.TempDir()
	_, errOut, code := runCLI(t, "", "overlay", "sim", "--policy", "dp", "--nodes", "40", "--hours", "2",
		"--churn", "30m", "--sample", "30m", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		TasksSubmitted uint64 `json:"tasks_submitted"`
		Events         uint64 `json:"events"`
		Failures       uint64 `json:"failures"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.TasksSubmitted == 0 || r.Events == 0 || r.Failures == 0 {
		t.Fatalf("summary %s", b)
	}
	tl, err := os.ReadFile(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// header, rows at 30, 60, 90 min, and the final row at 2 h
	if n := strings.Count(string(tl), "\n"); n != 5 {
		t.Fatalf("timeline has %d lines, want 5:\n%s", n, tl)
	}
}

func TestOverlayWorkloadThenReplay(t *testing.T) {
	useEmbeddedWorkload(t)
	out, errOut, code := runCLI(t, "", "overlay", "workload", "--nodes", "20", "--hours", "3", "--seed", "4")
	if code != 0 || !strings.HasPrefix(out, workload.TraceHeader) {
		t.Fatalf("overlay workload: exit %d, stderr %q", code, errOut)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var sums [2]string
	for k, args := range [][]string{
		{"overlay", "sim", "--policy", "mmp", "--nodes", "20", "--hours", "3", "--seed", "4", "--workload", p, "--out", filepath.Join(dir, "a")},
		{"overlay", "sim", "--policy", "mmp", "--nodes", "20", "--hours", "3", "--seed", "4", "--out", filepath.Join(dir, "b")},
	} {
		if _, errOut, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(args[len(args)-1], "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]any
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		sums[k] = fmt.Sprint(r["tasks_submitted"], r["tasks_finished"], r["computation_finished_mi"])
	}
	if sums[0] != sums[1] {
		t.Fatalf("replaying the generated trace gives %s, generating in the simulation gives %s", sums[0], sums[1])
	}
}

// TestOverlaySimParams: 'overlay workload --print-params' gives the
// defaults, which --params reads back to the same run; a changed parameter
// is recorded in summary.json; a bad file is an error naming the field.
func TestOverlaySimParams(t *testing.T) {
	useEmbeddedWorkload(t)
	out, errOut, code := runCLI(t, "", "overlay", "workload", "--print-params")
	if code != 0 {
		t.Fatalf("--print-params: exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	def := filepath.Join(dir, "default.json")
	changed := filepath.Join(dir, "changed.json")
	bad := filepath.Join(dir, "bad.json")
	for p, s := range map[string]string{def: out, changed: `{"start_weekday": 5}`, bad: `{"start_weekday": 9}`} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summary := func(name string, extra ...string) map[string]any {
		t.Helper()
		o := filepath.Join(dir, name)
		args := append([]string{"overlay", "sim", "--policy", "ibp", "--nodes", "20", "--hours", "2", "--seed", "3", "--out", o}, extra...)
		if _, errOut, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(o, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]any
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	key := func(r map[string]any) string {
		return fmt.Sprint(r["jobs_submitted"], r["tasks_submitted"], r["tasks_finished"], r["computation_finished_mi"], r["events"])
	}
	a, b, c := summary("none"), summary("default", "--params", def), summary("changed", "--params", changed)
	if key(a) != key(b) || a["workload_params"] != nil || b["workload_params"] != nil {
		t.Fatalf("--params with the defaults: %s, %v; without: %s, %v", key(b), b["workload_params"], key(a), a["workload_params"])
	}
	wp, _ := c["workload_params"].(map[string]any)
	if wp == nil || wp["start_weekday"] != float64(5) {
		t.Fatalf("changed parameters not recorded in summary.json: %v", c["workload_params"])
	}
	if _, errOut, code := runCLI(t, "", "overlay", "sim", "--nodes", "20", "--params", bad, "--out", filepath.Join(dir, "bad")); code == 0 || !strings.Contains(errOut, "start_weekday") {
		t.Fatalf("bad --params: exit %d, stderr %q; want an error naming start_weekday", code, errOut)
	}
}

// TestReproduceOverlaySimQuick: the reduced reproduction writes every table
// and figure as CSV, SVG and PNG, and a second run with the same --out reuses
// each run's stored result (resumption) and prints the same tables.
func TestReproduceOverlaySimQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 CPU-seconds; skipped with -short")
	}
	useEmbeddedWorkload(t)
	dir := t.TempDir()
	args := []string{"reproduce", "--quick", "--only", "overlay-sim", "--seed", "1", "--out", dir}
	out1, errOut, code := runCLI(t, "", args...)
	if code != 0 || strings.Contains(out1, "FAILED") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out1)
	}
	// Without the data folder the reproduction runs on the embedded model,
	// and says so (it used to print "skipped" and exit 0).
	if !strings.Contains(out1, "Workload: the embedded model "+workload.Embedded().Name) || strings.Contains(out1, "skipped") {
		t.Fatalf("the reproduction does not say it ran on the embedded model:\n%s", out1)
	}
	for _, f := range []string{"table4.csv", "fig9.csv", "fig9.svg", "fig9.png", "fig10.csv", "fig10-slow.svg", "fig10-slow.png",
		"fig10-fast.svg", "fig10-fast.png", "fig11.csv", "fig11.svg", "fig11.png", "fig12-17.csv", "fig12-17-ibp.svg",
		"fig12-17-ibp.png", "fig12-17-mmp.svg", "fig12-17-mmp.png", "fig12-17-dp.svg", "fig12-17-dp.png",
		"fig18.csv", "fig18.svg", "fig18.png", "catastrophe.svg", "catastrophe.png"} {
		b, err := os.ReadFile(filepath.Join(dir, "overlay-sim-"+f))
		if err != nil || len(b) == 0 {
			t.Errorf("overlay-sim-%s: %v (%d bytes)", f, err, len(b))
		}
	}
	// The runs are the units of a campaign: remove one stored run, and the
	// second pass recomputes it alone.
	results := filepath.Join(dir, "overlay-sim-runs", "results-1-of-1.jsonl")
	b, err := os.ReadFile(results)
	lines := strings.SplitAfter(string(b), "\n")
	if err != nil || len(lines) < 3 {
		t.Fatalf("stored runs: %v, %d lines", err, len(lines))
	}
	if err := os.WriteFile(results, []byte(strings.Join(lines[1:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out2, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut)
	}
	strip := func(s string) string { // drop the timing line
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "took") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(out1) != strip(out2) {
		t.Fatalf("resumed reproduction differs:\n%s\n---\n%s", out1, out2)
	}
	// The runs kept were not run again: the file is those lines and the
	// removed run's, appended.
	b2, err := os.ReadFile(results)
	kept := strings.Join(lines[1:], "")
	if err != nil || !strings.HasPrefix(string(b2), kept) || strings.Count(string(b2[len(kept):]), "\n") != 1 {
		t.Fatalf("second pass: %v; want the %d kept lines and one more", err, len(lines)-2)
	}
}
