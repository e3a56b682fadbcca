package node

import "syscall"

// procAttr puts a task in its own process group (killed whole when the
// task is cancelled) and kills it if the daemon dies (SIGKILL included).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
