package clientlimit

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/inbound"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("client_limit", parseCaddyfile)
	// Before anything expensive (basic_auth hashes passwords) and before
	// the handle/route blocks that hold the connectors.
	httpcaddyfile.RegisterDirectiveOrder("client_limit", httpcaddyfile.Before, "basic_auth")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	client_limit [<zone>] {
//		process   <rate> <burst> | off
//		connector <rate> <burst> | off
//		session   <rate> <burst> | off
//		address   <rate> <burst> | off
//		max_keys  <n>
//		ipv6_prefix <bits>
//		trusted_sources <cidr|address...>
//	}
//
// <zone> names the connector layer (default "default"): use one zone per
// MCP endpoint, and one for the /platforms/* routes. Every handler with
// the same zone shares its buckets and must repeat the same settings.
//
// <rate> is requests per unit: 20/s, 600/m, 100/h, 3/10s, or a bare
// number per second. <burst> is how many may come at once. "off" removes
// the layer. Everything is optional; the defaults (process 1000/s 2000,
// connector 300/s 600, session 20/s 60, address 50/s 150, max_keys
// 1000000) are generous, so normal use never meets them.
//
// process is one bucket for the whole server: set it in one client_limit
// (or the same in all); two different values in one config are an error.
// session counts MCP sessions the connectors issued; address counts every
// request of a client address, its sessions' included, so sessions divide
// an address's room and never multiply it. A request without a session
// (or with a made-up id) counts against its address alone. address must
// be at least session (rate and burst).
//
// trusted_sources (may be repeated) names addresses whose issued sessions
// each count as a client of their own, passing their session's bucket but
// not the address's: a hosted assistant's egress range. A front proxy
// belongs in the server's trusted_proxies instead.
//
// ipv6_prefix (default 64) counts IPv6 clients per prefix in the address
// layer, since one client usually holds a whole /64; 128 counts every
// address apart.
//
// The block may be left out: `client_limit raad` uses every default.
// The directive is ordered before basic_auth; inside route blocks it runs
// where it is written.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		h.Zone = d.Val()
		if !zoneName.MatchString(h.Zone) {
			return d.Errf("zone %q: use 1 to 64 letters, digits, '.', '_' or '-'", h.Zone)
		}
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		if seen[sub] && sub != "trusted_sources" {
			return d.Errf("%s given twice", sub)
		}
		seen[sub] = true
		switch sub {
		case "process", "connector", "session", "address":
			args := d.RemainingArgs()
			l, err := inbound.ParseLimit(args)
			if err != nil {
				return d.Errf("%s: %v", sub, err)
			}
			c := &LimitConfig{Rate: "off"}
			if !l.Unlimited() {
				c = &LimitConfig{Rate: args[0], Burst: l.Burst}
			}
			switch sub {
			case "process":
				h.Process = c
			case "connector":
				h.Connector = c
			case "session":
				h.Session = c
			case "address":
				h.Address = c
			}
		case "max_keys":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 1 {
				return d.Errf("max_keys %q: want a whole number of at least 1", d.Val())
			}
			h.MaxKeys = n
			if d.NextArg() {
				return d.ArgErr()
			}
		case "ipv6_prefix":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 1 || n > 128 {
				return d.Errf("ipv6_prefix %q: want a prefix length from 1 to 128", d.Val())
			}
			h.IPv6Prefix = n
			if d.NextArg() {
				return d.ArgErr()
			}
		case "trusted_sources":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if _, err := session.ParsePrefixes(args); err != nil {
				return d.Errf("bad trusted_sources: %v; want CIDR ranges or addresses", err)
			}
			h.TrustedSources = append(h.TrustedSources, args...)
		default:
			return d.Errf("unrecognized subdirective '%s' (want process, connector, session, address, max_keys, ipv6_prefix or trusted_sources)", sub)
		}
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
