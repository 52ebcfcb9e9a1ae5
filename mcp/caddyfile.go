package mcp

import (
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("mcp", parseCaddyfile)
	// A connector answers everything routed to it, so it goes late, after
	// the inbound limits that guard it.
	httpcaddyfile.RegisterDirectiveOrder("mcp", httpcaddyfile.After, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	mcp <name> {
//	    platforms <key...>
//	    experimental_<key>
//	    max_body <size>
//	    max_text_chars <n>
//	    allowed_origins <origin...>
//	    allowed_hosts <host...>
//	    session_idle <duration>
//	    status_refresh <duration|off>
//	    search_deadline <duration>
//	    <key>_<option> <value...>
//	}
//
// experimental_<key> turns on the tools of an experimental platform
// (experimental_oa: Open Archivaris, whose API is assumed). <key>_<option>
// sets a platform's own option for this connector over the besluitbron
// app's platform block: tk_odata_root <path> (the Tweede Kamer's OData
// root); oa_search_path, oa_document_path (with {id}), oa_text_path (with
// {id} and {page}), oa_query_param, oa_limit_param, oa_page_param,
// oa_offset_param, oa_organisation_param (Open Archivaris' assumed
// endpoints; only with experimental_oa). docs/caddyfile.md lists them.
func (m *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.Errf("mcp needs a connector name: mcp <name> { platforms ... }")
	}
	m.Name = d.Val()
	if d.NextArg() {
		return d.Errf("mcp takes one name; list platforms inside the block: platforms %s", d.Val())
	}
	for d.NextBlock(0) {
		switch opt := d.Val(); opt {
		case "platforms":
			m.Platforms = append(m.Platforms, d.RemainingArgs()...)
			if len(m.Platforms) == 0 {
				return d.ArgErr()
			}
		case "max_body":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := humanize.ParseBytes(d.Val())
			if err != nil || n == 0 {
				return d.Errf("max_body %q: give a size such as 1MB", d.Val())
			}
			m.MaxBodyBytes = int64(n)
		case "max_text_chars":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 200 {
				return d.Errf("max_text_chars %q: give a number of at least 200", d.Val())
			}
			m.MaxTextChars = n
		case "allowed_origins":
			m.AllowedOrigins = append(m.AllowedOrigins, d.RemainingArgs()...)
		case "allowed_hosts":
			m.AllowedHosts = append(m.AllowedHosts, d.RemainingArgs()...)
		case "search_deadline":
			if !d.NextArg() {
				return d.ArgErr()
			}
			v, err := caddy.ParseDuration(d.Val())
			if err != nil || v <= 0 {
				return d.Errf("search_deadline %q: give a duration such as 20s", d.Val())
			}
			m.SearchDeadline = caddy.Duration(v)
			if d.NextArg() {
				return d.ArgErr()
			}
		case "session_idle", "status_refresh":
			if !d.NextArg() {
				return d.ArgErr()
			}
			var dur caddy.Duration
			if d.Val() == "off" && opt == "status_refresh" {
				dur = -1
			} else {
				v, err := caddy.ParseDuration(d.Val())
				if err != nil || v <= 0 {
					return d.Errf("%s %q: give a duration such as 10m", opt, d.Val())
				}
				dur = caddy.Duration(v)
			}
			if opt == "session_idle" {
				m.SessionIdle = dur
			} else {
				m.StatusRefresh = dur
			}
		default:
			if key, ok := strings.CutPrefix(opt, "experimental_"); ok {
				// A platform whose API is assumed: its tools need an
				// explicit yes (checked at Validate).
				m.Experimental = append(m.Experimental, key)
				continue
			}
			args := d.RemainingArgs()
			if app.PlatformOption(&m.PlatformOptions, opt, args) {
				if len(args) == 0 {
					return d.ArgErr()
				}
				continue
			}
			return d.Errf("mcp: unknown option %q (known: platforms, experimental_<key>, max_body, max_text_chars, allowed_origins, allowed_hosts, session_idle, status_refresh, search_deadline, %s)", opt, strings.Join(platforms.PrefixedOptions(), ", "))
		}
		if d.NextArg() {
			return d.Errf("mcp: too many arguments to %s", d.Val())
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Handler)(nil)
