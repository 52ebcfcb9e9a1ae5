//go:build !linux

package upstream

import (
	"syscall"
	"time"
)

// setUserTimeout is Linux-only; elsewhere the keep-alive probes alone find
// a dead path while waiting, and unacknowledged data is retransmitted for
// as long as the system's own limit.
func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
