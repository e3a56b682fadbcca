//go:build unix

package experiment

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockResults takes an exclusive advisory lock on the open results file f,
// so that two processes never run the same shard in the same directory at
// once (e.g. a batch job requeued while its first instance still runs).
// The lock goes with the file descriptor.
func lockResults(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%s is being written by another process running the same shard; wait for it to finish or stop it, then run again", f.Name())
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return nil
}
