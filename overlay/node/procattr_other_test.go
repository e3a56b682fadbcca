//go:build unix && !linux

package node

import "syscall"

// procAttr: only Linux ties a child's life to its parent's; the tests'
// deferred kills stop the daemons elsewhere.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
