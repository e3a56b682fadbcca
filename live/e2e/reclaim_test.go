package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/volsched/volsched/live/livepb"
)

// TestReclaimStopsTask: a worker reclaimed by hand (what SIGUSR1 does)
// while its task runs stops the task's process group (SIGSTOP: the task's
// shell is in state T) and the master sees it RECLAIMED; back UP, the task
// continues (SIGCONT) and the application finishes. The task waits for a
// file the test writes, so that it cannot end before the test has looked.
func TestReclaimStopsTask(t *testing.T) {
	dir := t.TempDir()
	app := t.TempDir()
	files := map[string]string{
		"volsched.toml": "program = \"task.sh\"\ndriver = \"driver.sh\"\n",
		"task.sh": fmt.Sprintf("#!/bin/sh\necho $$ > %[1]s/pid.tmp && mv %[1]s/pid.tmp %[1]s/pid\nwhile [ ! -e %[1]s/go ]; do sleep 0.02; done\ncp \"$1\" \"$2\"\n",
			dir),
		"driver.sh": "#!/bin/sh\nset -eu\n[ \"$1\" -ge 1 ] && exit 0\necho task > \"$3/t0\"\n",
	}
	for f, c := range files {
		if err := os.WriteFile(filepath.Join(app, f), []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.WriteFile(filepath.Join(dir, "go"), nil, 0o644) }) // never leave the task waiting
	state := filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "w00")
	c := startMaster(t, masterOptions(loadApp(t, app), state))
	w := c.addWorker(c.workerOptions("w00", toks["w00"]))
	_, cl := rawClient(t, c)

	poll := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("not %s after 60 s", what)
			}
		}
	}
	var pid int
	poll("started", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
		return err == nil && pid > 0
	})
	procState := func() byte {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatalf("the task's process: %v", err)
		}
		i := bytes.LastIndexByte(b, ')') // pid (comm) state ...
		if i < 0 || i+2 >= len(b) {
			t.Fatalf("/proc/%d/stat: %q", pid, b)
		}
		return b[i+2]
	}
	masterSees := func(want livepb.State) func() bool {
		return func() bool {
			r, err := cl.Status(t.Context(), authed(&livepb.StatusRequest{}, toks["w00"]))
			return err == nil && len(r.Msg.Workers) == 1 && r.Msg.Workers[0].State == want
		}
	}
	if s := procState(); s == 'T' {
		t.Fatalf("the task is stopped (state %c) before the worker is reclaimed", s)
	}
	w.SetManual(true)
	poll("stopped (state T)", func() bool { return procState() == 'T' })
	poll("RECLAIMED at the master", masterSees(livepb.State_STATE_RECLAIMED))
	w.SetManual(false)
	poll("continued", func() bool { return procState() != 'T' })
	poll("UP at the master", masterSees(livepb.State_STATE_UP))
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(90 * time.Second); err != nil {
		t.Fatal(err)
	}
}
