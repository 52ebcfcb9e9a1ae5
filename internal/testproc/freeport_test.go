package testproc

import (
	"net"
	"strconv"
	"testing"
)

// FreePort hands out ports below the kernel's ephemeral range (where
// outgoing connections never take them), never the same one twice, and
// each is free to bind.
func TestFreePortOutsideTheEphemeralRange(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p := FreePort(t)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if ports.base != 0 && (p < portBlockBase || p >= 32768) {
			t.Fatalf("port %d outside the test blocks", p)
		}
		l, err := net.Listen("tcp", ":"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		l.Close()
	}
	if ports.base == 0 {
		t.Log("no port block could be claimed; the kernel's ports were used")
	}
}
