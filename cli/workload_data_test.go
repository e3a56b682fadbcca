package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/workload"
)

// useEmbeddedWorkload makes the commands t runs use the embedded workload
// model whatever the environment says: tests of the product's behaviour
// need no files outside the repository.
func useEmbeddedWorkload(t *testing.T) {
	t.Setenv(workload.DataDirEnv, "")
}

// TestOverlaySimEmbeddedWorkload: without --data and with
// $VOLSCHED_WORKLOAD_DATA unset, overlay sim and overlay workload run on
// the embedded model and the summary says so; a --data folder that is not
// one is an error naming the flag.
func TestOverlaySimEmbeddedWorkload(t *testing.T) {
	useEmbeddedWorkload(t)
	dir := t.TempDir()
	if _, e, code := runCLI(t, "", "overlay", "sim", "--nodes", "30", "--hours", "1", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Workload       string `json:"workload"`
		TasksSubmitted uint64 `json:"tasks_submitted"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if want := "embedded model " + workload.Embedded().Name; r.Workload != want || r.TasksSubmitted == 0 {
		t.Fatalf("summary workload %q, %d tasks: want %q and some tasks", r.Workload, r.TasksSubmitted, want)
	}
	out, e, code := runCLI(t, "", "overlay", "workload", "--nodes", "5", "--hours", "24")
	if code != 0 || strings.Count(out, "\n") < 2 {
		t.Fatalf("overlay workload: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), e)
	}
	empty := t.TempDir()
	if _, e, code := runCLI(t, "", "overlay", "sim", "--nodes", "30", "--data", empty, "--out", filepath.Join(dir, "x")); code == 0 || !strings.Contains(e, "--data") {
		t.Fatalf("--data of an empty folder: exit %d, stderr %q; want an error naming --data", code, e)
	}
	t.Setenv(workload.DataDirEnv, empty)
	if _, e, code := runCLI(t, "", "overlay", "workload", "--nodes", "5"); code == 0 || !strings.Contains(e, workload.DataDirEnv) {
		t.Fatalf("$%s of an empty folder: exit %d, stderr %q; want an error naming the variable", workload.DataDirEnv, code, e)
	}
}
