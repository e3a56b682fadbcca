//go:build unix

package headless

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the browser in a process group of its own, so
// that its helper processes (renderer, zygote) are stopped with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the browser's process group to exit.
func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

// kill ends the browser's process group.
func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
