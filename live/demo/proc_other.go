//go:build !linux

package demo

import "os/exec"

// dieWithParent: only Linux can tie a child's life to its parent's; the
// demo's deferred clean-up kills the workers elsewhere.
func dieWithParent(cmd *exec.Cmd) {}
