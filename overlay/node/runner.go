package node

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
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

// ProcessRunner runs a task as a process in its own process group (killed
// whole when the task is cancelled), with no standard input.
type ProcessRunner struct{}

func (ProcessRunner) Run(ctx context.Context, s RunSpec) RunResult {
	cmd := exec.Command(s.Program, s.Input, s.Output)
	cmd.Dir = s.Dir
	var stderr tailBuffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return RunResult{Exit: -1, Err: "start: " + err.Error()}
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case err = <-waited:
		case <-time.After(5 * time.Second):
		}
		return RunResult{Exit: -1, Err: "cancelled"}
	}
	if err == nil {
		return RunResult{}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 {
			code = 128
		}
		msg := stderr.String()
		if msg == "" {
			msg = err.Error()
		}
		return RunResult{Exit: code, Err: msg}
	}
	return RunResult{Exit: -1, Err: err.Error()}
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct{ b bytes.Buffer }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if t.b.Len() > 8192 {
		rest := t.b.Bytes()[t.b.Len()-4096:]
		t.b = *bytes.NewBuffer(append([]byte(nil), rest...))
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.b.Bytes()
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}
