package platformproxy

import (
	"path"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	up "github.com/besluitbron/besluitbron/upstream"
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
//		response_header_timeout <duration>
//		idle_timeout            <duration>
//		max_idle_conns_per_host <n>
//		probe_interval          <duration>
//		attempts                <n>
//		max_requests_per_host   <n>
//		max_searches_per_host   <n>
//		queue_wait              <duration>
//		search_paths            <pattern...>|off
//		allow_private           <cidr|ip...>
//		redirect_prefix         <path>|off
//		tls_ca                  <pem file>
//		max_body                <size>
//	}
//
// Without base URLs, the platform's environment variable or public address
// is used. response_header_timeout bounds the wait for the answer's
// headers (default 60s, at most 10m; a body that has started is never
// cut). See docs/upstream.md.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Platform = d.Val()
	h.BaseURLs = append(h.BaseURLs, d.RemainingArgs()...)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		switch name {
		case "contact", "redirect_prefix", "tls_ca":
			if !d.NextArg() {
				return d.ArgErr()
			}
			switch name {
			case "contact":
				h.Contact = d.Val()
			case "redirect_prefix":
				if v := d.Val(); v != "off" && !strings.HasPrefix(v, "/") {
					return d.Errf("redirect_prefix: want a path starting with / or off, got %q", v)
				}
				h.RedirectPrefix = d.Val()
			case "tls_ca":
				h.TLSCA = d.Val()
			}
		case "dial_timeout", "response_header_timeout", "idle_timeout", "probe_interval", "queue_wait":
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("%s: %v", name, err)
			}
			if dur <= 0 {
				return d.Errf("%s: want a positive duration, got %q", name, d.Val())
			}
			switch name {
			case "dial_timeout":
				h.DialTimeout = caddy.Duration(dur)
			case "response_header_timeout":
				h.ResponseHeaderTimeout = caddy.Duration(dur)
			case "idle_timeout":
				h.IdleTimeout = caddy.Duration(dur)
			case "probe_interval":
				h.ProbeInterval = caddy.Duration(dur)
			case "queue_wait":
				h.QueueWait = caddy.Duration(dur)
			}
		case "max_idle_conns_per_host", "attempts", "max_requests_per_host", "max_searches_per_host":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 1 {
				return d.Errf("%s: want a positive number, got %q", name, d.Val())
			}
			switch name {
			case "max_idle_conns_per_host":
				h.MaxIdleConnsPerHost = n
			case "attempts":
				h.Attempts = n
			case "max_requests_per_host":
				h.MaxRequestsPerHost = n
			case "max_searches_per_host":
				h.MaxSearchesPerHost = n
			}
		case "max_body":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := humanize.ParseBytes(d.Val())
			if err != nil || n == 0 || n > 1<<40 {
				return d.Errf("max_body: want a size such as 64KiB, got %q", d.Val())
			}
			h.MaxBody = int64(n)
		case "search_paths":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if len(args) == 1 && args[0] == "off" {
				h.SearchPaths = []string{"off"}
				continue
			}
			for _, a := range args {
				if _, err := path.Match(a, "/"); err != nil || !strings.HasPrefix(a, "/") {
					return d.Errf("search_paths: bad pattern %q (want a path pattern starting with /)", a)
				}
			}
			h.SearchPaths = args
			continue
		case "allow_private":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if _, err := up.ParsePrefixes(args); err != nil {
				return d.Errf("allow_private: %v", err)
			}
			h.AllowPrivate = append(h.AllowPrivate, args...)
			continue
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
