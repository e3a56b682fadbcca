//go:build unix && !linux

package node

import "syscall"

// procAttr puts a task in its own process group (killed whole when the
// task is cancelled).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
