package session

import (
	"net/http"
	"net/netip"
	"strings"
)

// Who a client is (docs/rules.md, "Who a client is"): a client is its address, unless the
// operator names the address as a trusted source, in which case each of
// its sessions is a client of its own. Within an address, sessions are
// told apart (an MCP session id a connector issued, else the
// Besluitbron-Session header, else the address alone); they divide the
// address's share and never multiply it, so a made-up session name buys
// nothing.

// Who is what a request tells about whom it is for: the address it comes
// from and the session it names there.
type Who struct {
	// Addr is the client address (Caddy's client IP, which honours the
	// server's trusted_proxies); empty for the shared session.
	Addr string
	// Session is "mcp:<id>", "app:<name>", or "" (the address alone).
	Session string
	// Shared marks the shared session (the search page, maintenance).
	Shared bool
}

// Identify returns whom r is for. An in-process sub-request is for the
// session its internal key names, from the sub-request's address (the
// MCP request's); otherwise the session is the issued MCP session id, else
// the Besluitbron-Session header (at most 128 bytes), else none.
func (g *Registry) Identify(r *http.Request) Who {
	if key, ok := Internal(r.Context()); ok {
		switch {
		case key == Shared:
			return Who{Shared: true}
		case strings.HasPrefix(key, "addr:"):
			return Who{Addr: strings.TrimPrefix(key, "addr:")}
		default:
			return Who{Addr: ClientIP(r), Session: key}
		}
	}
	w := Who{Addr: ClientIP(r)}
	if id := r.Header.Get(MCPHeader); id != "" && g.Has(id) {
		w.Session = "mcp:" + id
	} else if v := strings.TrimSpace(r.Header.Get(Header)); v != "" && len(v) <= 128 {
		w.Session = "app:" + v
	}
	return w
}

// Key returns the fair queue's client and session for w: the address
// (an IPv6 address's /64, AddrGroup) and the session within it; for an
// address in trusted, the session as a client of its own (the address
// alone when it names none); for the shared session, the Shared client.
func (w Who) Key(trusted []netip.Prefix) (client, sess string) {
	switch {
	case w.Shared:
		return Shared, ""
	case w.Session != "" && Trusted(w.Addr, trusted):
		return w.Session, ""
	default:
		return "addr:" + AddrGroup(w.Addr, IPv6ClientBits), w.Session
	}
}

// IPv6ClientBits is how much of an IPv6 address names one client: its
// /64, the usual allocation to one subscriber or one network segment
// (RIPE-690), whose addresses a single client can cycle through at will.
// The session registry, the fair queue and client_limit's default
// ipv6_prefix count by it.
const IPv6ClientBits = 64

// AddrGroup returns the address addr counts as when clients are counted
// by address: an IPv6 address's network of its first ipv6Bits bits
// ("2001:db8:1:2::/64"; the bare address, zone dropped, from 128 bits),
// an IPv4 address or an IPv4-mapped IPv6 address its IPv4 address, and
// anything else (no address, not an IP) unchanged. It is the one rule the
// session registry, client_limit and the fair queue share.
func AddrGroup(addr string, ipv6Bits int) string {
	if addr == "" {
		return addr // no address: and ParseAddr's error would allocate
	}
	ip, err := netip.ParseAddr(addr)
	switch {
	case err != nil:
		return addr
	case ip.Is4():
		return addr // already its own form: no allocation on the hot path
	case ip.Is4In6():
		return ip.Unmap().String()
	case ipv6Bits >= 128:
		return ip.WithZone("").String()
	}
	p, err := ip.Prefix(max(ipv6Bits, 0)) // Prefix drops the zone
	if err != nil {
		return addr
	}
	return p.String()
}

// Trusted reports whether addr falls in one of the prefixes.
func Trusted(addr string, prefixes []netip.Prefix) bool {
	if len(prefixes) == 0 {
		return false
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParsePrefixes reads trusted sources: CIDR ranges or single addresses
// (a single address is its /32 or /128).
func ParsePrefixes(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, err
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
