//go:build !unix

package testcaddy

import "os"

// lockExclusive cannot lock here: FreePort asks the kernel instead.
func lockExclusive(*os.File) bool { return false }
