package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/oversim"
)

// summaryWithoutTiming reads summary.json without the fields that measure
// the machine or count resumes.
func summaryWithoutTiming(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"wall_seconds", "events_per_second", "cpu_seconds", "events_per_cpu_second",
		"heap_bytes_at_end", "heap_bytes_per_node", "resumes"} {
		delete(m, k)
	}
	return m
}

// timelineWithoutWall reads timeline.csv without its last column (wall_s).
func timelineWithoutWall(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if i := strings.LastIndexByte(line, ','); i >= 0 {
			line = line[:i] + "\n"
		}
		out.WriteString(line)
	}
	return out.String()
}

// TestOverlaySimCheckpointResume: a run interrupted twice (at injected event
// counts) and resumed gives the summary (timing fields aside) and the
// timeline (wall_s aside) of the uninterrupted run; the refusals say why.
func TestOverlaySimCheckpointResume(t *testing.T) {
	useEmbeddedWorkload(t)
	tmp := t.TempDir()
	ref, dir := filepath.Join(tmp, "ref"), filepath.Join(tmp, "run")
	args := []string{"overlay", "sim", "--policy", "mmp", "--nodes", "150", "--hours", "2", "--churn", "30m",
		"--fail", "10%@1h", "--sample", "15m", "--probe-every", "30m", "--probe-tasks", "40"}
	with := func(extra ...string) []string { return append(append([]string(nil), args...), extra...) }
	if _, e, code := runCLI(t, "", with("--out", ref)...); code != 0 {
		t.Fatalf("reference run: exit %d: %s", code, e)
	}
	ckpt := filepath.Join(dir, oversim.CheckpointFile)
	// Interrupted: exit 1, a checkpoint, and a message saying how to go on.
	_, e, code := runCLI(t, "", with("--out", dir, "--interrupt-at-events", "3001")...)
	if code != 1 || !strings.Contains(e, "checkpoint written") || !strings.Contains(e, "--resume") {
		t.Fatalf("interrupted run: exit %d, stderr %q", code, e)
	}
	if _, err := os.Stat(ckpt); err != nil {
		t.Fatalf("no checkpoint after the interruption: %v", err)
	}
	// Without --resume the checkpoint is not overwritten.
	if _, e, code := runCLI(t, "", with("--out", dir)...); code != 2 || !strings.Contains(e, "--resume") || !strings.Contains(e, "another --out") {
		t.Fatalf("existing checkpoint without --resume: exit %d, stderr %q", code, e)
	}
	// Another run's flags are refused, naming the flag.
	if _, e, code := runCLI(t, "", append(with("--out", dir, "--resume"), "--seed", "7")...); code != 2 || !strings.Contains(e, "--seed is 1 in the checkpoint, 7 in this run") {
		t.Fatalf("different seed: exit %d, stderr %q", code, e)
	}
	// A second interruption, then the end.
	if _, e, code := runCLI(t, "", with("--out", dir, "--resume", "--interrupt-at-events", "9001")...); code != 1 {
		t.Fatalf("second interruption: exit %d, stderr %q", code, e)
	}
	if _, e, code := runCLI(t, "", with("--out", dir, "--resume")...); code != 0 {
		t.Fatalf("resumed run: exit %d, stderr %q", code, e)
	}
	if _, err := os.Stat(ckpt); !os.IsNotExist(err) {
		t.Fatalf("checkpoint kept after the run ended: %v", err)
	}
	if a, b := summaryWithoutTiming(t, dir), summaryWithoutTiming(t, ref); !reflect.DeepEqual(a, b) {
		t.Fatalf("resumed summary differs:\n%v\nwant\n%v", a, b)
	}
	if a, b := timelineWithoutWall(t, dir), timelineWithoutWall(t, ref); a != b {
		t.Fatalf("resumed timeline differs:\n%s\nwant\n%s", a, b)
	}
	var r struct {
		Resumes int `json:"resumes"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if json.Unmarshal(b, &r); r.Resumes != 2 {
		t.Fatalf("summary says %d resumes, want 2", r.Resumes)
	}
	// --resume without a checkpoint.
	if _, e, code := runCLI(t, "", with("--out", dir, "--resume")...); code != 2 || !strings.Contains(e, "no checkpoint") {
		t.Fatalf("--resume without a checkpoint: exit %d, stderr %q", code, e)
	}
	// A damaged checkpoint is refused with a clear error.
	if err := os.WriteFile(ckpt, []byte("not a checkpoint at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := runCLI(t, "", with("--out", dir, "--resume")...); code != 1 || !strings.Contains(e, "corrupt") {
		t.Fatalf("damaged checkpoint: exit %d, stderr %q", code, e)
	}
}

// TestOverlaySimCheckpointOnSignal: SIGINT makes the run write a final
// checkpoint and say so; --resume then ends the run.
func TestOverlaySimCheckpointOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	useEmbeddedWorkload(t)
	dir := t.TempDir()
	args := "overlay sim --policy ibp --nodes 3000 --hours 48 --sample 1h --out " + dir
	// The timeline exists once the simulation runs (the signal handler is
	// installed before).
	stderr := interruptCLI(t, args, func() bool {
		_, err := os.Stat(filepath.Join(dir, "timeline.csv"))
		return err == nil
	}, 30*time.Second)
	if !strings.Contains(stderr, "interrupted; checkpoint written") {
		t.Fatalf("stderr %q does not report the checkpoint", stderr)
	}
	if _, e, code := runCLI(t, "", append(strings.Fields(args), "--resume")...); code != 0 {
		t.Fatalf("resumed run: exit %d, stderr %q", code, e)
	}
}
