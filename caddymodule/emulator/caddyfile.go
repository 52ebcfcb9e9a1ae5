package emulator

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("besluitbron_emulator", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("besluitbron_emulator", httpcaddyfile.Before, "respond")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var m Handler
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return &m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	besluitbron_emulator <platform> {
//		seed <n>
//		instance <name>
//	}
//
// <platform> is a key of the platforms table (platforms). seed
// (an integer, default 1) chooses the generated data: the same seed gives the
// same organisations, documents and texts. Handlers with the same platform,
// seed and instance share one emulator, also across config reloads, so
// request counts, injected faults and OBV's rate-limit bucket survive a
// reload. instance (default empty) makes a separate emulator with the same
// data, e.g. for OpenTK's two hosts, so a fault on one leaves the other
// answering.
//
// The emulator answers every request itself (it is terminal, ordered
// before respond). Besides the platform's own paths it serves the control
// endpoints /_emulator/stats, /_emulator/faults and /_emulator/reset
// (see docs/emulators.md).
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Platform = d.Val()
	if d.NextArg() {
		return d.Errf("unexpected argument %q; the seed goes in a block: seed <n>", d.Val())
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "seed":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.ParseInt(d.Val(), 10, 64)
			if err != nil {
				return d.Errf("seed %q: must be an integer", d.Val())
			}
			if d.NextArg() {
				return d.ArgErr()
			}
			h.Seed = &n
		case "instance":
			if !d.NextArg() {
				return d.ArgErr()
			}
			h.Instance = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
		default:
			return d.Errf("unknown subdirective %q (known: seed, instance)", d.Val())
		}
	}
	if d.Next() {
		return d.Errf("unexpected token %q", d.Val())
	}
	return nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
