package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/experiment"
	"github.com/volsched/volsched/stream"
)

// exptestParams are the parameters of the test campaign; Validate refuses
// negative units (runCampaign must call it before the first unit).
type exptestParams struct {
	Units int `json:"units"`
}

func (p *exptestParams) Validate() error {
	if p.Units < 0 {
		return fmt.Errorf("exptest: units = %d, want ≥ 0", p.Units)
	}
	return nil
}

// A campaign kind that exists only in the test binary ("exptest"), to test
// runCampaign and `exp merge` end to end through the real CLI.
func init() {
	var f campaignFlags
	var units, sleepMS int
	var ignoreCancel, announce bool
	cmd := &cobra.Command{
		Use:    "exptest",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCampaign(cmd.Context(), f, campaign[float64]{
				Kind:   "exptest",
				Units:  units,
				Params: exptestParams{Units: units},
				Work: func(ctx context.Context, u int) (float64, error) {
					if announce {
						fmt.Fprintf(cmd.ErrOrStderr(), "exptest: unit %d started\n", u)
					}
					if ignoreCancel {
						time.Sleep(time.Duration(sleepMS) * time.Millisecond)
					} else {
						select {
						case <-ctx.Done():
							return 0, ctx.Err()
						case <-time.After(time.Duration(sleepMS) * time.Millisecond):
						}
					}
					return stream.New(f.Seed, uint64(u)).Float64(), nil
				},
			}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addCampaignFlags(cmd, &f)
	cmd.Flags().IntVar(&units, "units", 10, "units")
	cmd.Flags().IntVar(&sleepMS, "sleep-ms", 0, "time each unit takes")
	cmd.Flags().BoolVar(&ignoreCancel, "ignore-cancel", false, "units do not watch their context")
	cmd.Flags().BoolVar(&announce, "announce", false, "say on stderr when a unit starts")
	expCmd.AddCommand(cmd)
	registerSummarizer("exptest", func(ctx context.Context, dir string, w io.Writer) error {
		_, rs, err := experiment.LoadComplete[float64](dir)
		if err != nil {
			return err
		}
		sum := 0.0
		for _, r := range rs { // in unit order: the same sum whatever the shards
			sum += r
		}
		if math.IsNaN(sum) {
			return fmt.Errorf("the sum is not a number")
		}
		if err := os.WriteFile(filepath.Join(dir, summaryFile), fmt.Appendf(nil, "%.17g\n", sum), 0o644); err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "exptest sum %.17g over %d units\n", sum, len(rs))
		return err
	})
}

func TestExpShardsAndMerge(t *testing.T) {
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	out, errOut, code := runCLI(t, "", "exp", "exptest", "--units", "11", "--seed", "5", "--workers", "3", "--out", whole)
	if code != 0 || !strings.Contains(out, "over 11 units") {
		t.Fatalf("unsharded run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var dirs []string
	for i := 1; i <= 3; i++ {
		d := filepath.Join(tmp, fmt.Sprintf("s%d", i))
		o, e, c := runCLI(t, "", "exp", "exptest", "--units", "11", "--seed", "5", "--shard", fmt.Sprintf("%d/3", i), "--out", d)
		if c != 0 || o != "" || !strings.Contains(e, "exp merge") {
			t.Fatalf("shard %d/3: exit %d, stdout %q, stderr %q", i, c, o, e)
		}
		dirs = append(dirs, d)
	}
	merged := filepath.Join(tmp, "merged")
	mout, merr, code := runCLI(t, "", append([]string{"exp", "merge", "--out", merged}, dirs...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d, stderr %q", code, merr)
	}
	if mout != out {
		t.Errorf("merged summary %q differs from the unsharded one %q", mout, out)
	}

	st, _, code := runCLI(t, "", "exp", "status", dirs[0], merged)
	norm := strings.Join(strings.Fields(st), " ")
	if code != 0 || !strings.Contains(norm, "exptest 5 1/3 4 4 complete") || !strings.Contains(norm, "exptest 5 1/1 11 11 complete") {
		t.Errorf("status: exit %d, output\n%s", code, st)
	}
	if _, e, code := runCLI(t, "", "exp", "status", filepath.Join(tmp, "nonexistent")); code != 1 || !strings.Contains(e, "nonexistent") {
		t.Errorf("status of a missing directory: exit %d, stderr %q", code, e)
	}

	// A shard of another seed cannot be merged in.
	other := filepath.Join(tmp, "other")
	if _, e, c := runCLI(t, "", "exp", "exptest", "--units", "11", "--seed", "6", "--shard", "1/3", "--out", other); c != 0 {
		t.Fatalf("seed 6 shard: exit %d: %s", c, e)
	}
	_, merr, code = runCLI(t, "", "exp", "merge", "--out", filepath.Join(tmp, "bad"), dirs[1], other)
	if code != 1 || !strings.Contains(merr, "seed differs") {
		t.Errorf("merge of mismatched seeds: exit %d, stderr %q", code, merr)
	}
	// Missing shards: written, but exit 1 naming the missing units.
	_, merr, code = runCLI(t, "", "exp", "merge", "--out", filepath.Join(tmp, "part"), dirs[0])
	if code != 1 || !strings.Contains(merr, "7 of 11 units missing") {
		t.Errorf("partial merge: exit %d, stderr %q", code, merr)
	}
}

func TestExpUsageErrors(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"exp", "exptest", "--out", tmp, "--shard", "0/4"}, `--shard "0/4"`},
		{[]string{"exp", "exptest", "--out", tmp, "--shard", "3"}, `--shard "3"`},
		{[]string{"exp", "exptest", "--out", tmp, "--workers", "-1"}, "--workers -1"},
		{[]string{"exp", "exptest"}, "--out is required"},
		{[]string{"exp", "merge", tmp}, "--out is required"},
		{[]string{"exp", "merge", "--out", filepath.Join(tmp, "m")}, "requires at least 1 arg"},
	} {
		_, e, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, e, c.want)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("usage errors left files in the output directory: %v", entries)
	}
}

// TestExpInterruptAndResume sends SIGINT to a running campaign: it must
// exit non-zero saying how to resume, keep what it wrote, and a second run
// must finish with the same summary as an uninterrupted run.
func TestExpInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	tmp := t.TempDir()
	ref, _, code := runCLI(t, "", "exp", "exptest", "--units", "2000", "--seed", "9", "--out", filepath.Join(tmp, "ref"))
	if code != 0 {
		t.Fatalf("reference run: exit %d", code)
	}
	dir := filepath.Join(tmp, "run")
	args := "exp exptest --units 2000 --seed 9 --workers 2 --sleep-ms 10 --out " + dir
	// Interrupt once some results are written (however loaded the machine).
	results := filepath.Join(dir, experiment.ResultsFileName(experiment.Whole))
	stderr := interruptCLI(t, args, func() bool {
		fi, err := os.Stat(results)
		return err == nil && fi.Size() > 0
	}, 20*time.Second)
	if !strings.Contains(stderr, "finishing the units in flight") || !strings.Contains(stderr, "run the same command again to resume") {
		t.Errorf("interrupted run's message %q does not say how to resume", stderr)
	}
	_, _, present, lerr := experiment.Load[float64](dir)
	if lerr != nil {
		t.Fatal(lerr)
	}
	if kept := len(present) - len(experiment.Missing(present)); kept == 0 || kept == 2000 {
		t.Fatalf("%d of 2000 units kept after SIGINT, want some but not all", kept)
	}
	out, e, code := runCLI(t, "", "exp", "exptest", "--units", "2000", "--seed", "9", "--workers", "1", "--out", dir)
	if code != 0 || out != ref {
		t.Fatalf("resumed run: exit %d, summary %q, want %q; stderr %q", code, out, ref, e)
	}
}

// TestExpSecondInterruptStopsAtOnce: units that ignore cancellation and
// take long; a second SIGINT ends the process at once with status 130.
func TestExpSecondInterruptStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("sends signals to a subprocess")
	}
	dir := filepath.Join(t.TempDir(), "run")
	args := "exp exptest --units 4 --workers 2 --sleep-ms 60000 --ignore-cancel --announce --out " + dir
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ARGS="+args)
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Wait until a unit is in flight: interrupted before any unit has
	// started, the run has nothing to finish and rightly ends at once with
	// status 1 (on a loaded machine the manifest alone was not enough).
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(errb.String(), "started"); time.Sleep(20 * time.Millisecond) {
	}
	cmd.Process.Signal(syscall.SIGINT)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(errb.String(), "in flight"); time.Sleep(20 * time.Millisecond) {
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("after two interrupts: %v, want exit status 130; stderr %q", err, errb.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a writer (exec's copier) and a
// reader (the test) at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestExpMergeLeavesNothingOnFailure: shards whose merged summary cannot be
// made (a result that is not the kind's type) are not merged: merge exits
// non-zero without saying "merged" and leaves no directory; a whole
// campaign whose summary failed is not called complete by status; a grid
// the parameters' Validate refuses is refused before any unit runs.
func TestExpMergeLeavesNothingOnFailure(t *testing.T) {
	tmp := t.TempDir()
	var dirs []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(tmp, fmt.Sprintf("s%d", i))
		if _, e, c := runCLI(t, "", "exp", "exptest", "--units", "4", "--shard", fmt.Sprintf("%d/2", i), "--out", d); c != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, c, e)
		}
		dirs = append(dirs, d)
	}
	bad := filepath.Join(dirs[1], experiment.ResultsFileName(experiment.Shard{Index: 2, Count: 2}))
	if err := os.WriteFile(bad, []byte("{\"unit\":1,\"result\":\"garbage\"}\n{\"unit\":3,\"result\":0.5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{filepath.Join(tmp, "merged"), filepath.Join(tmp, "empty")} {
		if strings.HasSuffix(out, "empty") {
			os.Mkdir(out, 0o755)
		}
		o, e, code := runCLI(t, "", append([]string{"exp", "merge", "--out", out}, dirs...)...)
		if code == 0 || strings.Contains(e, "merged 2 shard") || o != "" || !strings.Contains(e, "unit 1") {
			t.Errorf("merge with an undecodable result: exit %d, stdout %q, stderr %q; want a failure naming unit 1 and no 'merged'", code, o, e)
		}
		entries, err := os.ReadDir(out)
		if strings.HasSuffix(out, "empty") {
			if err != nil || len(entries) != 0 {
				t.Errorf("the empty --out after the failed merge: %v, %v; want it empty", entries, err)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the failed merge left %s: %v", out, entries)
		}
	}

	// A whole campaign whose summary fails keeps its units but is not
	// complete for status.
	whole := filepath.Join(tmp, "whole")
	if _, _, c := runCLI(t, "", "exp", "exptest", "--units", "2", "--out", whole); c != 0 {
		t.Fatal("whole run failed")
	}
	os.Remove(filepath.Join(whole, summaryFile))
	res := filepath.Join(whole, experiment.ResultsFileName(experiment.Whole))
	if err := os.WriteFile(res, []byte("{\"unit\":0,\"result\":1}\n{\"unit\":1,\"result\":\"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, _ := runCLI(t, "", "exp", "status", whole)
	if !strings.Contains(st, "no summary") || strings.Contains(st, "complete") {
		t.Errorf("status of a whole campaign without its summary:\n%s", st)
	}

	// Validate runs before the first unit: nothing is written.
	neg := filepath.Join(tmp, "neg")
	if _, e, c := runCLI(t, "", "exp", "exptest", "--units", "-3", "--out", neg); c != 2 || !strings.Contains(e, "units = -3") {
		t.Errorf("negative units: exit %d, stderr %q; want exit 2 from Validate", c, e)
	}
	if _, err := os.Stat(neg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused campaign left %s", neg)
	}
}
