//go:build !unix

package manifest

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
