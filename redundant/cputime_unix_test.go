//go:build unix

package redundant

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) used by the process so far:
// with -cpu 1 it measures a benchmark's own work even when other jobs share
// the machine, which wall-clock ns/op does not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
