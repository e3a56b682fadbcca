package demo

import (
	"os/exec"
	"syscall"
)

// dieWithParent: a worker process is killed if the demo dies (even by a
// signal or a crash that runs no deferred clean-up).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
