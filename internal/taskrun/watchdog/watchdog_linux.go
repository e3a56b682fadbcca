package watchdog

import (
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// becomeSubreaper makes the tasks' processes whose parent dies the
// watchdog's children instead of init's.
func becomeSubreaper() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	return nil
}

// forkTask starts a task: its own process group, SIGKILL when the thread
// that started it (the caller's, locked) ends, and, with limit > 0, no
// file larger than limit bytes. The watchdog lowers its own soft limit
// around the start (it writes no file), so that the task has it from its
// first instruction; then it sets the task's soft and hard limits to it
// (prlimit: the task cannot raise it back).
func forkTask(path string, argv, env []string, dir string, files []uintptr, limit int64) (int, error) {
	attr := &syscall.ProcAttr{Dir: dir, Env: env, Files: files, Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	if limit <= 0 {
		return syscall.ForkExec(path, argv, attr)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		return 0, err
	}
	// One byte more than the limit: a file of the limit's size is allowed;
	// one the kernel cut is over it.
	lim := syscall.Rlimit{Cur: min(uint64(limit)+1, old.Max), Max: min(uint64(limit)+1, old.Max)}
	soft := syscall.Rlimit{Cur: lim.Cur, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &soft); err != nil {
		return 0, err
	}
	pid, err := syscall.ForkExec(path, argv, attr)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if err != nil {
		return 0, err
	}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 && e != syscall.ESRCH {
		syscall.Kill(-pid, syscall.SIGKILL)
		return 0, e
	}
	return pid, nil
}

// waitid's constants (linux/wait.h).
const (
	pAll     = 0
	wNoHang  = 1
	wExited  = 4
	wNoWait  = 0x1000000
	infoSize = 128 // sizeof(siginfo_t)
)

// waitExited returns a child that has exited (0: none, without block)
// without reaping it (waitid with WNOWAIT): a leader not yet reaped still
// holds its process group's id.
func waitExited(block bool) (pid int, status syscall.WaitStatus, reaped bool, err error) {
	var info [infoSize]byte
	opt := wExited | wNoWait
	if !block {
		opt |= wNoHang
	}
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])), uintptr(opt), 0, 0)
	if e != 0 {
		return 0, 0, false, e
	}
	// si_pid follows si_signo, si_errno and si_code, at the union's
	// alignment (a pointer's).
	off := 3 * 4
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return int(*(*int32)(unsafe.Pointer(&info[off]))), 0, false, nil
}

// children lists the watchdog's children: from the children files of its
// threads (/proc/self/task/*/children; a re-parented process belongs to
// one of them), or, without those (a kernel without CONFIG_PROC_CHILDREN),
// from the parent field of every /proc/*/stat.
func children() []int {
	tasks, err := readDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var kids []int
	for _, tk := range tasks {
		b, err := readFile("/proc/self/task/" + tk + "/children")
		if err != nil {
			return scanChildren(syscall.Getpid())
		}
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				kids = append(kids, p)
			}
		}
	}
	return kids
}

// stat returns a process's parent and process group from /proc/PID/stat.
func stat(pid int) (ppid, pgrp int, ok bool) {
	b, err := readFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid pgrp ...: comm may hold anything but ends at
	// the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	return ppid, pgrp, err1 == nil && err2 == nil
}

// scanChildren lists the processes whose parent is pid, from /proc/*/stat.
func scanChildren(pid int) []int {
	names, err := readDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, n := range names {
		p, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if pp, _, ok := stat(p); ok && pp == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

// owner (k.mu held) is the task a child of the watchdog belongs to: the
// one whose process group it is in, else the one named by the Marker of
// its environment (inherited from the task, unless a process in between
// replaced its environment); nil: none known.
func (k *keeper) owner(pid int) *task {
	if _, pgrp, ok := stat(pid); ok {
		for _, t := range k.byID {
			if t.leader == pgrp {
				return t
			}
		}
	}
	b, err := readFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil
	}
	for _, e := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(e, Marker+"="); ok {
			for _, t := range k.byID {
				if t.marker == v {
					return t
				}
			}
			return nil
		}
	}
	return nil
}
