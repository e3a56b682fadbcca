package node

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/taskrun/taskruntest"
)

// TestDaemonSIGKILLKillsTask runs one daemon as a process of the real
// binary (a membership of one), submits a task that forks a child and a
// grandchild (and, on Linux, a process in a session of its own), and
// SIGKILLs the daemon while the task runs: every process of the task dies
// with it (the task runner's watchdog, internal/taskrun).
func TestDaemonSIGKILLKillsTask(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a daemon as a process (not in -short)")
	}
	taskruntest.NeedProc(t)
	bin := volschedBinary(t)
	dir := t.TempDir()
	if _, err := InitCA(filepath.Join(dir, "ca")); err != nil {
		t.Fatal(err)
	}
	lns, addrs := listeners(t, 1)
	lns[0].Close() // the daemon listens on it
	d := &daemon{addr: addrs[0], state: filepath.Join(dir, "node"), creds: filepath.Join(dir, "creds"),
		args: []string{"--peers", addrs[0], "--heartbeat", "100ms"}}
	if err := Issue(filepath.Join(dir, "ca"), d.addr, []string{"127.0.0.1"}, time.Hour, d.creds); err != nil {
		t.Fatal(err)
	}
	if err := Issue(filepath.Join(dir, "ca"), "operator", []string{"127.0.0.1"}, time.Hour, filepath.Join(dir, "op")); err != nil {
		t.Fatal(err)
	}
	d.start(t, bin)
	defer d.kill()
	cert, ca, err := LoadCredentials(filepath.Join(dir, "op"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	escape := runtime.GOOS == "linux"
	pids := t.TempDir()
	job := &Job{Name: "tree", Tasks: 1, Length: 10, Program: []byte(taskruntest.Script(pids, escape)), Inputs: [][]byte{[]byte("x")}}
	waitFor(t, 30*time.Second, "submission", func() (bool, string) {
		c, err := Dial(ctx, d.addr, cert, ca)
		if err != nil {
			return false, err.Error()
		}
		defer c.Close()
		_, err = c.Submit(ctx, job)
		return err == nil, fmt.Sprint(err)
	})
	roles := taskruntest.Roles
	if escape {
		roles = taskruntest.EscapeRoles
	}
	ps := taskruntest.Procs(t, pids, 60*time.Second, roles...)
	d.cmd.Process.Signal(syscall.SIGKILL)
	d.cmd.Wait()
	d.cmd = nil
	taskruntest.WaitDead(t, ps, 30*time.Second)
}
