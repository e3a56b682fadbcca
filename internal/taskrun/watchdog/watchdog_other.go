//go:build unix && !linux

package watchdog

import "syscall"

// becomeSubreaper: only Linux re-parents a task's orphans to the watchdog;
// elsewhere they go to init (a process that left its task's process group
// survives the task).
func becomeSubreaper() error { return nil }

// forkTask starts a task: its own process group (no parent-death signal
// outside Linux: the watchdog kills the group when its caller dies) and,
// with limit > 0, a soft limit on the size of its files (the watchdog's
// own, lowered around the start; the task could raise it to the hard
// limit, which the watchdog cannot lower for one child only).
func forkTask(path string, argv, env []string, dir string, files []uintptr, limit int64) (int, error) {
	attr := &syscall.ProcAttr{Dir: dir, Env: env, Files: files, Sys: &syscall.SysProcAttr{Setpgid: true}}
	if limit <= 0 {
		return syscall.ForkExec(path, argv, attr)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		return 0, err
	}
	soft := syscall.Rlimit{Cur: min(uint64(limit)+1, old.Max), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &soft); err != nil {
		return 0, err
	}
	pid, err := syscall.ForkExec(path, argv, attr)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	return pid, err
}

// waitExited reaps a child that has exited (0: none, without block): the
// only children are the tasks' leaders. Without waitid's WNOWAIT in
// package syscall here, the leader is reaped before its group is killed:
// the group's id stays taken while a member lives, so the kill reaches no
// other group unless the whole group is gone and its id was given to a new
// group leader in between.
func waitExited(block bool) (pid int, status syscall.WaitStatus, reaped bool, err error) {
	opt := 0
	if !block {
		opt = syscall.WNOHANG
	}
	pid, err = syscall.Wait4(-1, &status, opt, nil)
	return pid, status, true, err
}

// children: none to find (no /proc).
func children() []int { return nil }

// owner: no child of the watchdog is a task's but its leader.
func (k *keeper) owner(pid int) *task {
	for _, t := range k.byID {
		if t.leader == pid {
			return t
		}
	}
	return nil
}
