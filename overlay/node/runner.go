package node

import (
	"context"
	"os"

	"github.com/volsched/volsched/internal/taskrun"
)

// RunSpec is one task to run: `Program Input Output` in Dir.
type RunSpec struct {
	Program, Input, Output, Dir string
	// Length is the task's length (MFLOP) and Power the node's
	// (MFLOPS): what the overlay expects it to take.
	Length, Power float64
}

// RunResult is how a task ended: its exit status (0: success) and, if it
// failed, why (the end of its standard error, or the error starting it).
type RunResult struct {
	Exit int
	Err  string
}

// Runner runs tasks. It must return when ctx is cancelled (the node is
// stopping or dropped the task).
type Runner interface {
	Run(ctx context.Context, s RunSpec) RunResult
}

// ProcessRunner runs a task as a process through the task runner
// (internal/taskrun), with no standard input: in a process group of its
// own, killed whole when the task is cancelled, when it ends (what it left
// running) and when the daemon dies, SIGKILL included.
type ProcessRunner struct{}

func (ProcessRunner) Run(ctx context.Context, s RunSpec) RunResult {
	stderr := s.Dir + ".stderr" // beside the task's directory, not in it
	defer os.Remove(stderr)
	task, err := taskrun.Start(ctx, taskrun.Spec{Path: s.Program, Args: []string{s.Input, s.Output}, Dir: s.Dir, Stderr: stderr})
	if err != nil {
		return RunResult{Exit: -1, Err: "start: " + err.Error()}
	}
	r := task.Wait()
	switch {
	case r.End == taskrun.Cancelled:
		return RunResult{Exit: -1, Err: "cancelled"}
	case r.OK():
		return RunResult{}
	}
	code := r.Exit
	if code < 0 {
		code = 128 // a signal
	}
	msg := taskrun.ReadTail(stderr, 4096)
	if msg == "" {
		msg = r.Err.Error()
	}
	return RunResult{Exit: code, Err: msg}
}
