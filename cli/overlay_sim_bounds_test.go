package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/workload"
)

// TestOverlaySimExtremeInputs: the inputs that made `overlay sim` spin at a
// still simulated time (a task of 1e16 MI in a trace, a run time of 1e10 s
// in an SWF log, --probe-length 1e300) and the resolutions that made its
// cost unbounded (--sample 1ns, --probe-every 1ns) are refused naming the
// row or the flag and the limit, leaving no output directory; the longest
// accepted task runs to the end of the hour by itself.
func TestOverlaySimExtremeInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.csv", workload.TraceHeader+"\n0,0,1,1,10,0,0,0\n0,1,2,1,1e16,0,0,0\n")
	longest := write("longest.csv", workload.TraceHeader+"\n0,1,2,3,1e12,0,0,0\n")
	swf := write("big.swf", "; log\n1 0 0 1e10 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n")
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", big}, "big.csv:3: length_mi"},
		{[]string{"--swf", swf}, "big.swf:2: field 4 (run time)"},
		{[]string{"--workload", longest, "--probe-every", "1m", "--probe-length", "1e300"}, "--probe-length 1e+300"},
		{[]string{"--workload", longest, "--sample", "1ns"}, "--sample 1ns: want 0 (no timeline) or an interval of at least 3.6ms"},
		{[]string{"--workload", longest, "--probe-every", "1ns"}, "--probe-every 1ns: want 0 (no probes) or an interval of at least 3.6ms"},
		{[]string{"--workload", longest, "--detect", "1000000h"}, "--detect"},
		{[]string{"--workload", longest, "--central-per-node", "1h"}, "--central-per-node"},
		{[]string{"--workload", longest, "--churn", "1e30"}, "--churn"},
		{[]string{"--workload", longest, "--checkpoint-every", "1ns"}, "--checkpoint-every 1ns: want 0 (only when interrupted) or at least 1s"},
	} {
		args := append([]string{"overlay", "sim", "--nodes", "4", "--out", out}, c.args...)
		_, e, code := runCLI(t, "", args...)
		if code == 0 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a refusal saying %q", c.args, code, e, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the refused run left %s behind", c.args, out)
			os.RemoveAll(out)
		}
	}
	_, e, code := runCLI(t, "", "overlay", "sim", "--nodes", "4", "--workload", longest, "--probe-every", "20m",
		"--probe-tasks", "2", "--probe-length", "1e12", "--out", out)
	if code != 0 || !strings.Contains(e, "0 tasks finished of 7 submitted") {
		t.Errorf("the longest accepted tasks: exit %d, stderr %q; want the run to end with 0 of 7 tasks finished", code, e)
	}
}

// TestOverlaySimRefusesOverwrites: a finished run's directory is not
// overwritten (its summary stays as it was), and --resume without a
// checkpoint is refused without creating the directory.
func TestOverlaySimRefusesOverwrites(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(trace, []byte(workload.TraceHeader+"\n0,0,1,2,1000,0,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if _, e, code := runCLI(t, "", "overlay", "sim", "--nodes", "4", "--hours", "0.1", "--workload", trace, "--out", out); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, e)
	}
	before, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, e, code := runCLI(t, "", "overlay", "sim", "--nodes", "4", "--hours", "0.2", "--workload", trace, "--out", out)
	if code != 2 || !strings.Contains(e, "holds the summary.json of another run") {
		t.Errorf("second run into a finished run's --out: exit %d, stderr %q; want a refusal", code, e)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "summary.json")); string(after) != string(before) {
		t.Error("the refused run changed the finished run's summary")
	}
	for _, d := range []string{filepath.Join(dir, "new"), out} {
		_, e, code := runCLI(t, "", "overlay", "sim", "--nodes", "4", "--hours", "0.1", "--workload", trace, "--resume", "--out", d)
		if code != 2 || !strings.Contains(e, "no checkpoint") {
			t.Errorf("--resume into %s without a checkpoint: exit %d, stderr %q", d, code, e)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("--resume without a checkpoint left a new directory behind")
	}
}
