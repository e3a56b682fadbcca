package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/live/livepb"
)

// TestReclaimStopsTask: a worker reclaimed by hand (what SIGUSR1 does)
// while its task runs stops the task's process group (SIGSTOP: see
// groupStopped) and the master sees it RECLAIMED; back UP, the task
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

	var group string // the task's processes "pid:state" at the last look
	poll := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("not %s after 60 s (the task's processes: %s)", what, group)
			}
		}
	}
	var pid int
	poll("started", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
		return err == nil && pid > 0
	})
	stopped := func() (bool, string) {
		ok, desc, err := groupStopped(pid)
		if err != nil {
			t.Fatalf("the task's process group: %v", err)
		}
		group = desc
		return ok, desc
	}
	masterSees := func(want livepb.State) func() bool {
		return func() bool {
			r, err := cl.Status(t.Context(), authed(&livepb.StatusRequest{}, toks["w00"]))
			return err == nil && len(r.Msg.Workers) == 1 && r.Msg.Workers[0].State == want
		}
	}
	if ok, desc := stopped(); ok {
		t.Fatalf("the task is stopped before the worker is reclaimed: %s", desc)
	}
	w.SetManual(true)
	poll("stopped", func() bool { ok, _ := stopped(); return ok })
	poll("RECLAIMED at the master", masterSees(livepb.State_STATE_RECLAIMED))
	w.SetManual(false)
	poll("continued", func() bool { ok, _ := stopped(); return !ok })
	poll("UP at the master", masterSees(livepb.State_STATE_UP))
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(90 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// groupStopped tells whether every process of the process group pgid is
// stopped by a signal (state T) or is a vfork parent blocked on a stopped
// child: a shell that vforks `sleep` waits in state D (uninterruptible)
// until its child has exec'd, and a SIGSTOP to the group that lands
// between the vfork and the exec stops the child, so the shell stays in D
// — not T — as long as the group is stopped. desc lists "pid:state" of
// the group's processes, for the failure message.
func groupStopped(pgid int) (bool, string, error) {
	type proc struct {
		state      byte
		ppid, pgrp int
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false, "", err
	}
	group := map[int]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone since the listing
		}
		i := bytes.LastIndexByte(b, ')') // pid (comm) state ppid pgrp ...
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || len(f[0]) != 1 {
			return false, "", fmt.Errorf("/proc/%d/stat: %q", pid, b)
		}
		ppid, err1 := strconv.Atoi(f[1])
		pgrp, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			return false, "", fmt.Errorf("/proc/%d/stat: %q", pid, b)
		}
		if pgrp == pgid {
			group[pid] = proc{f[0][0], ppid, pgrp}
		}
	}
	if len(group) == 0 {
		return false, "", fmt.Errorf("no process in group %d", pgid)
	}
	var desc []string
	all := true
	for pid, p := range group {
		desc = append(desc, fmt.Sprintf("%d:%c", pid, p.state))
		if p.state == 'T' {
			continue
		}
		vforkWait := false
		if p.state == 'D' {
			for _, c := range group {
				if c.ppid == pid && c.state == 'T' {
					vforkWait = true
				}
			}
		}
		if !vforkWait {
			all = false
		}
	}
	sort.Strings(desc)
	return all, strings.Join(desc, " "), nil
}
