package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/taskrun/taskruntest"
)

// TestWorkerSIGKILLKillsTask runs a worker as a volsched process, gives it
// a task that forks a child and a grandchild (and, on Linux, a process in
// a session of its own), and SIGKILLs the worker while the task runs:
// every process of the task dies with it (the task runner's watchdog,
// internal/taskrun), none is left running with parent 1.
func TestWorkerSIGKILLKillsTask(t *testing.T) {
	taskruntest.NeedProc(t)
	bin := volschedBinary(t)
	escape := runtime.GOOS == "linux"
	pids := t.TempDir()
	app := t.TempDir()
	files := map[string]string{
		"volsched.toml": "program = \"task.sh\"\ndriver = \"driver.sh\"\n",
		"task.sh":       taskruntest.Script(pids, escape),
		"driver.sh":     "#!/bin/sh\nset -eu\n[ \"$1\" -ge 1 ] && exit 0\necho task > \"$3/t0\"\n",
	}
	for f, c := range files {
		if err := os.WriteFile(filepath.Join(app, f), []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "w00")
	c := startMaster(t, masterOptions(loadApp(t, app), state))
	cmd := exec.Command(bin, "worker", "--master", c.url, "--token", toks["w00"], "--fingerprint", c.fp, "--cache", filepath.Join(t.TempDir(), "w00"),
		"--reclaim", "none", "--log-level", "warn")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	roles := taskruntest.Roles
	if escape {
		roles = taskruntest.EscapeRoles
	}
	ps := taskruntest.Procs(t, pids, 60*time.Second, roles...)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	taskruntest.WaitDead(t, ps, 30*time.Second)
}
