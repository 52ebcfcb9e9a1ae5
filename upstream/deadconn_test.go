package upstream

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestDeadPath(t *testing.T) {
	for _, tc := range []struct {
		err  error
		dead bool
	}{
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ETIMEDOUT)}, true},
		{fmt.Errorf("wrapped: %w", syscall.EHOSTUNREACH), true},
		{syscall.ENETUNREACH, true},
		{syscall.ECONNRESET, false}, // a live peer hanging up
		{io.EOF, false},
		{os.ErrDeadlineExceeded, false},
		{errors.New("other"), false},
	} {
		if got := DeadPath(tc.err); got != tc.dead {
			t.Errorf("DeadPath(%v) = %v, want %v", tc.err, got, tc.dead)
		}
	}
}

// failingConn fails every read and write with err.
type failingConn struct {
	net.Conn
	err error
}

func (c failingConn) Read([]byte) (int, error)  { return 0, c.err }
func (c failingConn) Write([]byte) (int, error) { return 0, c.err }

func TestWatchedConnReportsADeadPathOnce(t *testing.T) {
	var reported []error
	dead := &watchedConn{Conn: failingConn{err: syscall.ETIMEDOUT}, dead: func(err error) { reported = append(reported, err) }}
	for i := 0; i < 3; i++ {
		dead.Read(make([]byte, 1))
		dead.Write([]byte("x"))
	}
	if len(reported) != 1 || !errors.Is(reported[0], syscall.ETIMEDOUT) {
		t.Errorf("reported %v, want ETIMEDOUT once", reported)
	}
	reset := &watchedConn{Conn: failingConn{err: syscall.ECONNRESET}, dead: func(err error) { t.Errorf("reset reported as dead: %v", err) }}
	reset.Read(make([]byte, 1))
	reset.Write([]byte("x"))
}
