package session

import (
	"net/netip"
	"testing"
)

func TestAddrGroup(t *testing.T) {
	cases := []struct {
		addr string
		bits int
		want string
	}{
		{"2001:db8:1:2::1", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", 64, "2001:db8:1:2::/64"},
		{"2001:DB8:1:2::1", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2::1", 48, "2001:db8:1::/48"},
		{"2001:db8:1:2::1%eth0", 128, "2001:db8:1:2::1"},
		{"fe80::1%eth0", 64, "fe80::/64"},
		{"192.0.2.1", 64, "192.0.2.1"},
		{"::ffff:192.0.2.1", 64, "192.0.2.1"},
		{"::ffff:192.0.2.1", 128, "192.0.2.1"},
		{"", 64, ""},
		{"not-an-ip", 64, "not-an-ip"},
		{"192.0.2.1:80", 64, "192.0.2.1:80"},
	}
	for _, c := range cases {
		if got := AddrGroup(c.addr, c.bits); got != c.want {
			t.Errorf("AddrGroup(%q, %d) = %q, want %q", c.addr, c.bits, got, c.want)
		}
	}
}

// FuzzAddrGroup: whatever the client address string (a header can set
// it, through client_ip_headers), the group is the address's own network
// or its IPv4 address, and anything that is no address comes back as it
// was, so it can never be taken for another client's group.
func FuzzAddrGroup(f *testing.F) {
	for _, s := range []string{"2001:db8::1", "::ffff:10.0.0.1", "10.0.0.1", "fe80::1%eth0", "", "x"} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, addr string, bits int) {
		got := AddrGroup(addr, bits)
		ip, err := netip.ParseAddr(addr)
		switch {
		case err != nil:
			if got != addr {
				t.Fatalf("AddrGroup(%q) = %q; not an address, want it unchanged", addr, got)
			}
		case ip.Unmap().Is4():
			if g, err := netip.ParseAddr(got); err != nil || g != ip.Unmap() {
				t.Fatalf("AddrGroup(%q) = %q; want the IPv4 address", addr, got)
			}
		case bits >= 128:
			if g, err := netip.ParseAddr(got); err != nil || g != ip.WithZone("") {
				t.Fatalf("AddrGroup(%q, %d) = %q; want the address", addr, bits, got)
			}
		default:
			p, err := netip.ParsePrefix(got)
			if err != nil || p.Bits() != max(bits, 0) || !p.Contains(ip.WithZone("")) || p != p.Masked() {
				t.Fatalf("AddrGroup(%q, %d) = %q; want the address's /%d", addr, bits, got, max(bits, 0))
			}
		}
	})
}
