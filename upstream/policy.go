package upstream

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// sharedAddressSpace is 100.64.0.0/10 (RFC 6598, carrier-grade NAT): not
// public, not covered by netip's IsPrivate.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// AddrPolicy decides which IP addresses a platform proxy may connect to.
// Public unicast addresses are allowed. Loopback, private (RFC 1918, RFC
// 4193), shared (RFC 6598), link-local, multicast and unspecified addresses
// are refused unless they fall in one of the Allow ranges.
//
// The check runs on the address actually dialled, after name resolution,
// so a platform host name that resolves (or is rebound) to an internal
// address is refused as well.
type AddrPolicy struct {
	Allow []netip.Prefix
}

// ParsePrefixes parses CIDRs ("127.0.0.1/8", "fd00::/8") and single
// addresses ("10.0.0.5", taken as /32 or /128).
func ParsePrefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("address range %q: %v", s, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("address %q: want an IP address or a CIDR range", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// Internal tells whether a is an address that is not publicly routable.
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() ||
		a.IsUnspecified() || sharedAddressSpace.Contains(a)
}

// Check returns an error when the policy refuses a.
func (p AddrPolicy) Check(a netip.Addr) error {
	a = a.Unmap()
	if !a.IsValid() {
		return fmt.Errorf("refusing to dial an invalid address")
	}
	if !Internal(a) {
		return nil
	}
	for _, pre := range p.Allow {
		if pre.Contains(a) {
			return nil
		}
	}
	return &RefusedAddrError{Addr: a}
}

// RefusedAddrError is returned when a dial is refused by the policy.
type RefusedAddrError struct{ Addr netip.Addr }

func (e *RefusedAddrError) Error() string {
	return fmt.Sprintf("refusing to dial %s: private, loopback or link-local address not allowed (allow_private)", e.Addr)
}

// Control is a net.Dialer Control function enforcing the policy on the
// address being dialled (already resolved).
func (p AddrPolicy) Control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("refusing to dial %q: not an IP address", address)
	}
	return p.Check(a)
}
