//go:build !unix

package testproc

import "os"

// lockExclusive cannot lock here: FreePort asks the kernel instead.
func lockExclusive(*os.File) bool { return false }

// lockWait cannot lock here: each test process builds its own binaries.
func lockWait(*os.File) bool { return false }

func unlock(*os.File) {}
