package cli

import (
	"context"
	"os/exec"
	"testing"

	"github.com/volsched/volsched/internal/taskrun"
)

// BenchmarkTaskWatchdog is the cost of one task (/bin/true) run through
// the task runner from a binary that links what volsched links (this test
// binary: its watchdog is this binary started again, as volsched's is
// volsched); BenchmarkTaskExec is the same task started by os/exec alone.
// The difference is the watchdog's cost per task (docs/benchmarks.md).
func BenchmarkTaskWatchdog(b *testing.B) {
	for b.Loop() {
		tk, err := taskrun.Start(context.Background(), taskrun.Spec{Path: "true"})
		if err != nil {
			b.Fatal(err)
		}
		if r := tk.Wait(); !r.OK() {
			b.Fatal(r.Err)
		}
	}
}

func BenchmarkTaskExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
