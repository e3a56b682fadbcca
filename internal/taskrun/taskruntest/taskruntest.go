// Package taskruntest helps the tests of the task runner and of its users
// (the worker, the node daemon) check what becomes of a task's processes:
// a shell program whose first process starts a child, which starts a
// grandchild (and, optionally, a process in a session of its own), each
// writing its pid to a file; and the checks, in /proc, that they run, are
// stopped or are dead. Tests only; Linux (/proc).
package taskruntest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Script is a task program (sh) that never ends by itself: its first
// process writes its pid to dir/task, starts a child (dir/child) which
// starts a grandchild (dir/grandchild, a sleep) and, with escape, a process
// in a session of its own (dir/escaped: out of the task's process group).
// Each file appears whole (written, then renamed).
func Script(dir string, escape bool) string {
	q := "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	esc := ""
	if escape {
		esc = `setsid sh -c 'echo $$ > "$1/escaped.tmp"; mv "$1/escaped.tmp" "$1/escaped"; exec sleep 600' sh "$1" &` + "\n"
	}
	child := esc + `sleep 600 & echo $! > "$1/grandchild.tmp"; mv "$1/grandchild.tmp" "$1/grandchild"; wait`
	return "#!/bin/sh\n" +
		"d=" + q + "\n" +
		`echo $$ > "$d/task.tmp"; mv "$d/task.tmp" "$d/task"` + "\n" +
		"sh -c '" + strings.ReplaceAll(child, "'", `'\''`) + `' sh "$d" &` + "\n" +
		`echo $! > "$d/child.tmp"; mv "$d/child.tmp" "$d/child"` + "\n" +
		"wait\n"
}

// Roles are the pid files of Script, without and with escape.
var (
	Roles       = []string{"task", "child", "grandchild"}
	EscapeRoles = []string{"task", "child", "grandchild", "escaped"}
)

// Proc is a process of a test's task, known by its pid and its start time
// (a pid reused by another process is not it).
type Proc struct {
	Role  string
	Pid   int
	start string
}

// Stat returns a process's state letter, process group, session and start
// time (state "": no such process).
func Stat(pid int) (state string, pgrp, sid int, start string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, 0, ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return "", 0, 0, ""
	}
	pgrp, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return f[0], pgrp, sid, f[19]
}

// State is the process's state letter ("": gone, or its pid reused).
func (p Proc) State() string {
	st, _, _, start := Stat(p.Pid)
	if start != p.start {
		return ""
	}
	return st
}

// Alive: the process exists and is not a zombie.
func (p Proc) Alive() bool {
	st := p.State()
	return st != "" && st != "Z"
}

// Poll calls cond until it holds, failing the test after d.
func Poll(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Procs waits (up to d) for the pid files of roles in dir and returns
// their processes, each checked to be running. The test's clean-up kills
// any of them still alive.
func Procs(t testing.TB, dir string, d time.Duration, roles ...string) []Proc {
	t.Helper()
	var out []Proc
	t.Cleanup(func() {
		for _, p := range out {
			if p.Alive() {
				syscall.Kill(p.Pid, syscall.SIGKILL)
			}
		}
	})
	for _, r := range roles {
		var pid int
		Poll(t, r+"'s pid file in "+dir, d, func() bool {
			b, err := os.ReadFile(filepath.Join(dir, r))
			if err != nil {
				return false
			}
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		})
		st, _, _, start := Stat(pid)
		if st == "" || st == "Z" {
			t.Fatalf("%s (pid %d): not running", r, pid)
		}
		out = append(out, Proc{r, pid, start})
	}
	return out
}

// Dead fails the test for each process still alive.
func Dead(t testing.TB, ps []Proc) {
	t.Helper()
	for _, p := range ps {
		if p.Alive() {
			t.Errorf("%s (pid %d) still alive (state %s)", p.Role, p.Pid, p.State())
		}
	}
}

// WaitDead waits (up to d) until every process is dead, failing the test
// with those still alive.
func WaitDead(t testing.TB, ps []Proc, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var alive []string
		for _, p := range ps {
			if p.Alive() {
				alive = append(alive, fmt.Sprintf("%s (pid %d, state %s)", p.Role, p.Pid, p.State()))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still alive: %s", d, strings.Join(alive, ", "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// NeedProc skips the test where there is no /proc.
func NeedProc(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
}
