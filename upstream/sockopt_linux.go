package upstream

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// setUserTimeout sets TCP_USER_TIMEOUT: how long sent data (and, with
// keep-alive on, probes) may stay unacknowledged before the kernel closes
// the connection with ETIMEDOUT. A live peer that is merely slow to answer
// keeps acknowledging, so it is never cut.
func setUserTimeout(c syscall.RawConn, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
	})
	if err != nil {
		return err
	}
	return serr
}
