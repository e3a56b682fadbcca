//go:build !unix

package headless

import (
	"os"
	"os/exec"
)

func ownProcessGroup(cmd *exec.Cmd) {}

func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Signal(os.Interrupt)
	}
}

func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
