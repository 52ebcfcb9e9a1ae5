package site

import (
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("besluitbron_site", parseCaddyfile)
	// Inside route blocks it runs where it is written; elsewhere after
	// client_limit (ordered before basic_auth) and before respond.
	httpcaddyfile.RegisterDirectiveOrder("besluitbron_site", httpcaddyfile.Before, "respond")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	besluitbron_site {
//		platforms      <key...>
//		deadline       <duration>
//		languages      <lang...>
//		limit          <n>
//		page_chars     <n>
//		status_refresh <duration>
//		<key>_<option> <value...>
//	}
//
// platforms are the platforms the page searches and shows (default: obv
// tk opentk ob rechtspraak, those whose MCP tools are on by default, plus
// ori when the besluitbron app names its base_url).
// deadline bounds one search across every platform and one reader call
// (default 8s, 1s to 1m). languages the page speaks, the first being the
// default (default nl en). limit is the hits asked of each platform
// (default 10, 1 to 24). page_chars is the text on one reader page
// (default 6000, 1000 to 50000). status_refresh is how often the status
// page refreshes itself (default 15s, 5s to 10m). <key>_<option> sets a
// platform's own option here over the besluitbron app's platform block,
// as an mcp connector's does: tk_odata_root <path> the Tweede Kamer's
// OData root (docs/caddyfile.md lists every platform's options).
//
// The block may be left out. The handler serves /, /search,
// /search/events, /lezen, /status, /status.json and /assets/*, and passes
// every other path to the next handler. Put a client_limit zone with a
// strict address rate in front of it (see the default Caddyfile).
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		opt := d.Val()
		if seen[opt] {
			return d.Errf("%s given twice", opt)
		}
		seen[opt] = true
		switch opt {
		case "platforms":
			h.Platforms = d.RemainingArgs()
			if len(h.Platforms) == 0 {
				return d.ArgErr()
			}
		case "languages":
			h.Languages = d.RemainingArgs()
			if len(h.Languages) == 0 {
				return d.ArgErr()
			}
		case "deadline", "status_refresh":
			if !d.NextArg() {
				return d.ArgErr()
			}
			v, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("%s %q: %v", opt, d.Val(), err)
			}
			if opt == "deadline" {
				h.Deadline = caddy.Duration(v)
			} else {
				h.StatusRefresh = caddy.Duration(v)
			}
			if d.NextArg() {
				return d.ArgErr()
			}
		case "limit", "page_chars":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil {
				return d.Errf("%s %q: not a whole number", opt, d.Val())
			}
			if opt == "limit" {
				h.Limit = n
			} else {
				h.PageChars = n
			}
			if d.NextArg() {
				return d.ArgErr()
			}
		default:
			args := d.RemainingArgs()
			if app.PlatformOption(&h.PlatformOptions, opt, args) {
				if len(args) == 0 {
					return d.ArgErr()
				}
				continue
			}
			return d.Errf("unknown option %q: use platforms, deadline, languages, limit, page_chars, status_refresh or a platform's option (%s)", opt, strings.Join(platforms.PrefixedOptions(), ", "))
		}
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
