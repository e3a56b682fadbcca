package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the volsched command: runCLI
// re-executes it with VOLSCHED_RUN_MAIN=1, so every invocation gets fresh
// flags, a real exit status and real stdout/stderr.
func TestMain(m *testing.M) {
	if os.Getenv("VOLSCHED_RUN_MAIN") == "1" {
		if os.Getenv("VOLSCHED_ANNOUNCE_SIGNALS") == "1" {
			signalsReady = func() { fmt.Fprintln(os.Stderr, signalsReadyMarker) }
		}
		os.Args = append([]string{"volsched"}, strings.Fields(os.Getenv("VOLSCHED_ARGS"))...)
		Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runBound bounds every command run by runCLI.
const runBound = 5 * time.Minute

// runCLI runs `volsched args...` with the given standard input and returns
// its standard output, standard error and exit status. Arguments must not
// contain spaces.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ARGS="+strings.Join(args, " "))
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Bounded: a command that hangs is killed and the test fails, instead
	// of the test binary's own timeout ending everything.
	timer := time.AfterFunc(runBound, func() { cmd.Process.Kill() })
	err := cmd.Run()
	if !timer.Stop() {
		t.Fatalf("volsched %s: still running after %v (killed); stderr %q", strings.Join(args, " "), runBound, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestHelpListsSubcommands(t *testing.T) {
	out, _, code := runCLI(t, "", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, sub := range []string{"analyze", "reproduce"} {
		if !strings.Contains(out, sub) {
			t.Errorf("--help does not list %q", sub)
		}
	}
	for _, sub := range []string{"analyze", "reproduce"} {
		out, _, code := runCLI(t, "", sub, "--help")
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%s --help: exit %d, output %q", sub, code, out)
		}
	}
}

func TestUnknownCommandExits2(t *testing.T) {
	_, errOut, code := runCLI(t, "", "no-such-command")
	if code != 2 || !strings.Contains(errOut, "no-such-command") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// signalsReadyMarker is printed by the subprocess once it catches SIGINT
// and SIGTERM (VOLSCHED_ANNOUNCE_SIGNALS=1): a signal sent earlier would
// kill it by the default action.
const signalsReadyMarker = "volsched-test: signals caught"

// stopBound is how long an interrupted subprocess may take to exit before
// the test calls it a hang (far above the second the commands promise:
// the machine may be loaded).
const stopBound = 60 * time.Second

// interruptCLI starts `volsched args` (space-separated), waits until ready
// returns true (at most wait), sends sig (SIGINT if none), and returns the
// standard error after checking that the command exited with status 1
// within stopBound (it is killed and the test fails otherwise).
func interruptCLI(t *testing.T, args string, ready func() bool, wait time.Duration, sig ...os.Signal) string {
	t.Helper()
	e, code := interruptCLICode(t, args, ready, wait, sig...)
	if code != 1 {
		t.Fatalf("interrupted run: exit status %d, want 1; stderr %q", code, e)
	}
	return e
}

// interruptCLICode is interruptCLI returning the exit status (-1 if killed
// by a signal) instead of checking it.
func interruptCLICode(t *testing.T, args string, ready func() bool, wait time.Duration, sig ...os.Signal) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ANNOUNCE_SIGNALS=1", "VOLSCHED_ARGS="+args)
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) && !strings.Contains(errb.String(), signalsReadyMarker) {
		time.Sleep(5 * time.Millisecond)
	}
	for time.Now().Before(deadline) && !ready() {
		time.Sleep(10 * time.Millisecond)
	}
	s := os.Signal(syscall.SIGINT)
	if len(sig) > 0 {
		s = sig[0]
	}
	cmd.Process.Signal(s)
	var err error
	select {
	case err = <-exited:
	case <-time.After(stopBound):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("%s: still running %v after %v; stderr %q", args, stopBound, s, errb.String())
	}
	var ee *exec.ExitError
	if err == nil {
		return errb.String(), 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return errb.String(), ee.ExitCode()
}

// TestErrorMessagesNameTheCommandOnce: every usage error is one line that
// starts with "volsched: " once (it said "volsched: volsched: unknown
// flag"), names the subcommand, and exits 2; an unknown subcommand of a
// group is an error, not its help with status 0.
func TestErrorMessagesNameTheCommandOnce(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "volsched: unknown flag: --bogus (see 'volsched --help')"},
		{[]string{"analyze", "--bogus"}, "volsched: analyze: unknown flag: --bogus (see 'volsched analyze --help')"},
		{[]string{"exp", "merge"}, "volsched: exp merge: requires at least 1 arg(s), only received 0 (see 'volsched exp merge --help')"},
		{[]string{"trace", "fit"}, "volsched: trace fit: accepts 1 arg(s), received 0 (see 'volsched trace fit --help')"},
		{[]string{"exp", "nope"}, `volsched: exp: unknown command "nope" (see 'volsched exp --help')`},
		{[]string{"overlay", "nope"}, `volsched: overlay: unknown command "nope" (see 'volsched overlay --help')`},
	} {
		_, e, code := runCLI(t, "", c.args...)
		if code != 2 || strings.TrimSpace(e) != c.want {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, e, c.want)
		}
	}
}
