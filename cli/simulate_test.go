package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/coupled"
	"github.com/volsched/volsched/iterative"
)

const whatifExamples = "../examples/whatif"

// TestSimulateExample: the command of examples/whatif/README.md (fewer
// trials) prints the table and the recommendation and writes the JSON and
// the SVG.
func TestSimulateExample(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "", "simulate", "--platform", filepath.Join(whatifExamples, "platform.json"),
		"--app", filepath.Join(whatifExamples, "independent.json"), "--trials", "8", "--predict", "--heuristics", "EMCT,MCT*,RANDOM", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"EMCT", "MCT*", "RANDOM", "95% CI", "Use ", "predicted"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var res struct {
		Heuristics []struct{ Name string }
		Trials     int
	}
	b, err := os.ReadFile(filepath.Join(dir, "simulate.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil || len(res.Heuristics) != 3 || res.Trials != 8 {
		t.Errorf("simulate.json: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(dir, "makespans.svg")); err != nil {
		t.Error(err)
	}
}

func TestSimulateUsageErrors(t *testing.T) {
	p, a := filepath.Join(whatifExamples, "platform.json"), filepath.Join(whatifExamples, "independent.json")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", "--app", a}, 2, "--platform and --app are required"},
		{[]string{"simulate", "--platform", p, "--app", a, "--trials", "1"}, 2, "--trials 1"},
		{[]string{"simulate", "--platform", p, "--app", a, "--heuristics", "EMCT,,UD"}, 2, "empty name"},
		{[]string{"simulate", "--platform", p, "--app", a, "--heuristics", "FASTEST"}, 2, `"FASTEST"`},
		{[]string{"simulate", "--platform", p, "--app", filepath.Join(whatifExamples, "nope.json")}, 1, "nope.json"},
		{[]string{"simulate", "--platform", a, "--app", a}, 1, "independent.json"},
		{[]string{"simulate", "--list-heuristics", "--app", a}, 2, "runs nothing"},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestListHeuristics: --list-heuristics explains every name the what-if
// output uses, for both models, from their registrations.
func TestListHeuristics(t *testing.T) {
	out, errOut, code := runCLI(t, "", "simulate", "--list-heuristics")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, h := range iterative.Heuristics() {
		if !strings.Contains(out, h.String()+" ") || !strings.Contains(out, h.Description()) {
			t.Errorf("no line for %s (%q):\n%s", h, h.Description(), out)
		}
	}
	for _, h := range coupled.Heuristics() {
		if !strings.Contains(out, h.Name+" ") || !strings.Contains(out, h.Description) {
			t.Errorf("no line for %s (%q):\n%s", h.Name, h.Description, out)
		}
	}
}

// TestSimulateInterrupt: SIGINT during a long run stops it, exit status 1,
// with the summary of the trials done so far.
func TestSimulateInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	args := "simulate --platform " + filepath.Join(whatifExamples, "platform.json") + " --app " + filepath.Join(whatifExamples, "independent.json") + " --trials 1000000 --workers 1"
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ARGS="+args)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // some trials done, however loaded the machine
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("simulate did not stop within 60 s of SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("interrupted run: %v, want exit status 1; stderr %q", err, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stderr %q does not say it was interrupted", errb.String())
	}
	if s := out.String(); s != "" && (!strings.Contains(s, "INTERRUPTED") || !strings.Contains(s, "Use ")) {
		t.Errorf("partial output %q", s)
	}
}
