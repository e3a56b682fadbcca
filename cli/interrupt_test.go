package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// soon returns a ready function for interruptCLI that becomes true d after
// its first call (once the subprocess catches signals): by then the
// command is inside its long computation, and if it is not, it must stop
// all the same.
func soon(d time.Duration) func() bool {
	var start time.Time
	return func() bool {
		if start.IsZero() {
			start = time.Now()
		}
		return time.Since(start) >= d
	}
}

// TestAllocStopsOnSignal: each allocation algorithm that can run for
// minutes (the exact search without a node limit, the annealing and GLS on
// a million hosts) stops on SIGINT or SIGTERM and exits non-zero: through
// its context (status 1), or, on a loaded machine, by the grace period of
// commands with nothing to keep (status 130).
func TestAllocStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to subprocesses")
	}
	for _, c := range []struct {
		args string
		sig  os.Signal
	}{
		{"alloc --algo exact --gdfn 0.5,0.3 --hosts 300 --tasks 100 --max-nodes -1", syscall.SIGINT},
		{"alloc --algo ppb --gdfn 0.5,0.3 --hosts 1000000 --tasks 500000", syscall.SIGTERM},
		{"alloc --algo gls --gdfn 0.5,0.3 --hosts 1000000 --tasks 500000", syscall.SIGINT},
	} {
		e, code := interruptCLICode(t, c.args, soon(500*time.Millisecond), 30*time.Second, c.sig)
		if (code != 1 || !strings.Contains(e, "context canceled")) && (code != 130 || !strings.Contains(e, "interrupted")) {
			t.Errorf("%s: exit %d, stderr %q, want status 1 naming the cancellation or 130", c.args, code, e)
		}
	}
}

// TestExpRedundantStopsOnSignal: a laboratory point whose single
// repetition runs for minutes (Figure 3 at 100,000 hosts) stops on SIGINT;
// the points file keeps its header (and any finished point).
func TestExpRedundantStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	dir := filepath.Join(t.TempDir(), "out")
	interruptCLI(t, "exp redundant --figure 3 --ms 100000 --reps 1 --workers 1 --algos ppb --out "+dir, soon(500*time.Millisecond), 30*time.Second)
	b, err := os.ReadFile(filepath.Join(dir, "fig3-points.jsonl"))
	if err != nil || !strings.HasPrefix(string(b), `{"figure":3`) {
		t.Errorf("points file after the interruption: %q, %v", b, err)
	}
}

// writeTestWorkloadData writes a small hand-made site-level workload data
// folder (the format of LoadDistributions) into dir: commands that need the
// distributions are tested without the shared data.
func writeTestWorkloadData(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"thinktime.cdf": "10 0.5\n600 1\n", "breaktime.cdf": "1800 0.5\n7200 1\n",
		"batchwidth.cdf": "1 0.6\n3 1\n", "interbatchtime.cdf": "0 0.5\n30 1\n",
		"jobrepeat.cdf": "1 0.7\n2 1\n", "jobsize.cdf": "1 0.5\n16 1\n",
		"tasklength.cdf": "10000 0.5\n1000000 1\n", "taskmaxmem.cdf": "64 0.5\n512 1\n",
		"taskdeadline.cdf": "1 1\n", "app_distribution.hist": "100000 1 0 -1 5\n3000000 10 0 1024 1\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOverlayWorkloadStopsOnSignal: generating the workload of two million
// nodes over a year (hours of work, and all of it held in memory before
// the fix) stops on SIGINT.
func TestOverlayWorkloadStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	data := t.TempDir()
	writeTestWorkloadData(t, data)
	interruptCLI(t, "overlay workload --nodes 2000000 --hours 8760 --data "+data, soon(500*time.Millisecond), 30*time.Second)
}

// TestPureCommandsExitAfterGrace: a command with nothing to keep exits
// (status 130) about a second after SIGINT even while it cannot watch its
// context: here trace fit blocked reading a standard input that never
// ends.
func TestPureCommandsExitAfterGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ANNOUNCE_SIGNALS=1", "VOLSCHED_ARGS=trace fit -")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !strings.Contains(errb.String(), signalsReadyMarker); time.Sleep(5 * time.Millisecond) {
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err = <-exited:
	case <-time.After(stopBound):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("trace fit reading a never-ending input: still running %v after SIGINT", stopBound)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %v, stderr %q; want status 130 and 'interrupted'", err, errb.String())
	}
}

// TestReproduceInterruptedSaysWhatIsKept: interrupted, reproduce says what
// it kept and how to go on, never to resume from the temporary directory
// it has already removed.
func TestReproduceInterruptedSaysWhatIsKept(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	e := interruptCLI(t, "reproduce --only exp-independent", soon(300*time.Millisecond), 30*time.Second)
	if !strings.Contains(e, "reproduce interrupted during exp-independent; nothing was kept") || strings.Contains(e, "volsched-exp-independent-") {
		t.Errorf("stderr %q: want what was kept, and no temporary directory", e)
	}
	out := filepath.Join(t.TempDir(), "out")
	e = interruptCLI(t, "reproduce --only table2-001 --out "+out, soon(300*time.Millisecond), 30*time.Second)
	if !strings.Contains(e, "run the same command again (same --out "+out+")") {
		t.Errorf("with --out: stderr %q: want how to resume", e)
	}
}
