package node

import "syscall"

// procAttr: a daemon a test starts has its own process group and is killed
// if the test process dies (a test binary that times out runs no deferred
// kill).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
