package platformproxy

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("platform_proxy", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("platform_proxy", httpcaddyfile.Before, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	p := new(Handler)
	err := p.UnmarshalCaddyfile(h.Dispenser)
	return p, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	platform_proxy <platform> [<base_url>...] {
//		contact                 <address>
//		dial_timeout            <duration>
//		idle_timeout            <duration>
//		max_idle_conns_per_host <n>
//	}
//
// Without base URLs, the platform's environment variable or public address
// is used.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Platform = d.Val()
	h.BaseURLs = append(h.BaseURLs, d.RemainingArgs()...)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "contact":
			if !d.NextArg() {
				return d.ArgErr()
			}
			h.Contact = d.Val()
		case "dial_timeout", "idle_timeout":
			name := d.Val()
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("%s: %v", name, err)
			}
			if name == "dial_timeout" {
				h.DialTimeout = caddy.Duration(dur)
			} else {
				h.IdleTimeout = caddy.Duration(dur)
			}
		case "max_idle_conns_per_host":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 1 {
				return d.Errf("max_idle_conns_per_host: want a positive number, got %q", d.Val())
			}
			h.MaxIdleConnsPerHost = n
		default:
			return d.Errf("unrecognized subdirective '%s'", d.Val())
		}
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
