//go:build unix

package testproc

import (
	"os"
	"syscall"
)

// lockExclusive takes an exclusive lock on f without waiting; the lock
// ends with the process.
func lockExclusive(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// lockWait takes an exclusive lock on f, waiting for it; false when the
// file cannot be locked here.
func lockWait(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) == nil
}

// unlock releases a lock lockWait took.
func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
