//go:build unix

package testcaddy

import (
	"os"
	"syscall"
)

// lockExclusive takes an exclusive lock on f without waiting; the lock
// ends with the process.
func lockExclusive(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
