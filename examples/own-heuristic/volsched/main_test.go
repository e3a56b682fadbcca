package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/volsched/volsched/examples"
	"github.com/volsched/volsched/live/manifest"
)

// binaries are the volsched commands the tests run, each built once per
// test process into binDir (removed by TestMain).
var (
	binMu    sync.Mutex
	binDir   string
	binaries = map[string]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// build returns the volsched of package pkg ("." for this example's: the
// whole command with GUARD* and IE+IP linked in), building it on first use.
func build(t *testing.T, pkg string) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if bin, ok := binaries[pkg]; ok {
		return bin
	}
	if binDir == "" {
		d, err := os.MkdirTemp("", "volsched-own-heuristic-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = d
	}
	bin := filepath.Join(binDir, fmt.Sprintf("volsched%d", len(binaries)))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	binaries[pkg] = bin
	return bin
}

// volsched runs bin with args, bounded by a minute.
func volsched(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), 0
}

// TestLinkedIn: the binary with the heuristics linked in lists them, runs
// them by name in `volsched simulate` (both models) and in a small §7
// campaign, while the plain volsched does not know them; and it reads the
// committed results as the plain one does (the same report page).
func TestLinkedIn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two volsched binaries")
	}
	bin, plain := build(t, "."), build(t, "github.com/volsched/volsched/cmd/volsched")
	out, _, code := volsched(t, bin, "simulate", "--list-heuristics")
	if code != 0 || !regexp.MustCompile(`(?m)^GUARD\* +GUARD +greedy, contention +each task to the UP worker of smallest`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^IE\+IP +own +passive +builds IE's and IP's`).MatchString(out) {
		t.Fatalf("--list-heuristics: exit %d\n%s", code, out)
	}
	whatifDir := filepath.Join("..", "..", "whatif")
	for _, c := range []struct{ app, heuristics, row string }{
		{"independent.json", "GUARD*,EMCT*", `(?m)^GUARD\* +\d+\.\d`},
		{"coupled.json", "IE+IP,IE", `(?m)^IE\+IP +\d+\.\d`},
	} {
		args := []string{"simulate", "--platform", filepath.Join(whatifDir, "platform.json"), "--app", filepath.Join(whatifDir, c.app), "--heuristics", c.heuristics, "--trials", "4"}
		out, errOut, code := volsched(t, bin, args...)
		if code != 0 || !regexp.MustCompile(c.row).MatchString(out) {
			t.Errorf("simulate %s: exit %d, %s\n%s", c.app, code, errOut, out)
		}
		if _, errOut, code := volsched(t, plain, args...); code != 2 || !strings.Contains(errOut, "want one of") {
			t.Errorf("the plain volsched ran %s: exit %d, %s", c.heuristics, code, errOut)
		}
	}
	dir := t.TempDir()
	out, errOut, code := volsched(t, bin, "exp", "independent", "--heuristics", "GUARD*,EMCT*,RANDOM", "--n", "5", "--ncom", "5", "--wmin", "1,2",
		"--scenarios", "1", "--trials", "2", "--out", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^ +\d+ +GUARD\* +\d`).MatchString(out) {
		t.Errorf("exp independent: exit %d, %s\n%s", code, errOut, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "makespans.csv")); err != nil || !strings.HasPrefix(string(b), "unit,n,ncom,wmin,scenario,trial,GUARD*,EMCT*,RANDOM\n") {
		t.Errorf("makespans.csv: %v, %.80q", err, b)
	}
	// The committed results, read by both binaries: the same page.
	pages := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for i, b := range []string{bin, plain} {
		if _, errOut, code := volsched(t, b, "report", filepath.Join("..", "..", "..", "results"), "--out", pages[i]); code != 0 {
			t.Fatalf("report: exit %d, %s", code, errOut)
		}
	}
	a, _ := os.ReadFile(filepath.Join(pages[0], "index.html"))
	b, _ := os.ReadFile(filepath.Join(pages[1], "index.html"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the report of the committed results differs with the heuristics linked in (%d and %d bytes)", len(a), len(b))
	}
}

// TestLiveMaster: the binary's master schedules an application (the
// hashchain example, 6 tasks × 2 iterations) live with GUARD* on three
// worker processes over TLS on loopback; it finishes with the output of a
// sequential run. Bounded: two minutes at most.
func TestLiveMaster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a master and workers as processes")
	}
	bin := build(t, ".")
	app := filepath.Join(t.TempDir(), "hashchain")
	if err := examples.Write("hashchain", app); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "hashchain.conf"), []byte("TASKS=6\nITERATIONS=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "local")
	a, err := manifest.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.RunLocal(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	names := []string{"w0", "w1", "w2"}
	tokens := map[string]string{}
	for _, n := range names {
		out, errOut, code := volsched(t, bin, "master", "token", "add", n, "--state", state)
		if code != 0 {
			t.Fatalf("token add: exit %d, %s", code, errOut)
		}
		tokens[n] = strings.TrimSpace(out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	master := exec.CommandContext(ctx, bin, "master", "--app", app, "--state", state, "--listen", "127.0.0.1:0", "--heuristic", "GUARD*",
		"--slot", "25ms", "--heartbeat", "25ms", "--down-after", "250ms", "--ncom", "2", "--log-level", "info")
	// The master prints its address and CA fingerprint on standard error
	// once it listens, then logs; all of it is kept in mlog.
	stderr, err := master.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := master.Start(); err != nil {
		t.Fatal(err)
	}
	var mlog bytes.Buffer
	listening := make(chan [2]string, 1)
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		var addr string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mlog.WriteString(line + "\n")
			if a, ok := strings.CutPrefix(line, "volsched master: listening on "); ok {
				addr = a
			}
			if _, fp, ok := strings.Cut(line, "CA fingerprint (workers: --fingerprint): "); ok {
				listening <- [2]string{addr, fp}
			}
		}
	}()
	var addr, fp string
	select {
	case l := <-listening:
		addr, fp = l[0], l[1]
	case <-logged:
		master.Wait()
		t.Fatalf("the master ended before listening:\n%s", mlog.String())
	}
	for _, n := range names {
		w := exec.CommandContext(ctx, bin, "worker", "--master", "https://"+addr, "--token", tokens[n], "--fingerprint", fp,
			"--cache", filepath.Join(t.TempDir(), n), "--reclaim", "none", "--exit-when-done", "--log-level", "warn")
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Process.Kill(); w.Wait() })
	}
	<-logged // standard error closed: the master has ended
	if err := master.Wait(); err != nil {
		t.Fatalf("master: %v\n%s", err, mlog.String())
	}
	if !strings.Contains(mlog.String(), "heuristic=GUARD*") {
		t.Errorf("the master's log does not name GUARD*:\n%s", mlog.String())
	}
	got, _ := os.ReadFile(filepath.Join(state, "output", "chains.txt"))
	local, _ := os.ReadFile(filepath.Join(want, "output", "chains.txt"))
	if len(local) == 0 || !bytes.Equal(got, local) {
		t.Errorf("output %q, the sequential run's %q", got, local)
	}
}
