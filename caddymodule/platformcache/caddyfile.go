package platformcache

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/besluitbron/besluitbron/cache"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("platform_cache", parseCaddyfile)
	// Outside a route block, the cache goes before platform_limit and
	// platform_proxy (both register before reverse_proxy).
	httpcaddyfile.RegisterDirectiveOrder("platform_cache", httpcaddyfile.Before, "invoke")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var hd Handler
	err := hd.UnmarshalCaddyfile(h.Dispenser)
	return &hd, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	platform_cache <platform> {
//		version          <string>
//		memory           <size>
//		disk             <size>
//		max_body         <size>
//		max_request_body <size>
//		dir              <path>|off
//		list|search|document|other [off|<ttl>] {
//			<request matcher> <args...>   # list, search, document only; ANDed
//			ttl                    <duration>|off
//			stale_while_revalidate <duration>
//			stale_if_error         <duration>
//			negative_ttl           <duration>
//			post                   on|off
//		}
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Platform = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "version", "dir":
			if !d.NextArg() {
				return d.ArgErr()
			}
			v := d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
			if opt == "version" {
				h.Version = v
			} else {
				h.Dir = v
			}
		case "memory", "disk", "max_body", "max_request_body":
			n, err := sizeArg(d)
			if err != nil {
				return err
			}
			switch opt {
			case "memory":
				h.MemoryBytes = n
			case "disk":
				h.DiskBytes = n
			case "max_body":
				h.MaxBody = n
			default:
				h.MaxRequestBody = n
			}
		case cache.KindList, cache.KindSearch, cache.KindDocument, cache.KindOther:
			if h.Kinds == nil {
				h.Kinds = map[string]*KindConfig{}
			}
			if h.Kinds[opt] != nil {
				return d.Errf("kind %s configured twice", opt)
			}
			kc, err := parseKind(d, opt)
			if err != nil {
				return err
			}
			h.Kinds[opt] = kc
		default:
			return d.Errf("unknown platform_cache option %q", opt)
		}
	}
	return nil
}

func parseKind(d *caddyfile.Dispenser, kind string) (*KindConfig, error) {
	kc := &KindConfig{}
	if d.NextArg() {
		ttl, err := ttlValue(d)
		if err != nil {
			return nil, err
		}
		kc.TTL = ttl
		if d.NextArg() {
			return nil, d.ArgErr()
		}
	}
	tokensByMatcher := map[string][]caddyfile.Token{}
	var order []string
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		switch opt {
		case "ttl":
			if !d.NextArg() {
				return nil, d.ArgErr()
			}
			ttl, err := ttlValue(d)
			if err != nil {
				return nil, err
			}
			kc.TTL = ttl
			if d.NextArg() {
				return nil, d.ArgErr()
			}
		case "stale_while_revalidate", "stale_if_error", "negative_ttl":
			if !d.NextArg() {
				return nil, d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil || dur < 0 {
				return nil, d.Errf("%s: bad duration %q", opt, d.Val())
			}
			if d.NextArg() {
				return nil, d.ArgErr()
			}
			switch opt {
			case "stale_while_revalidate":
				kc.StaleWhileRevalidate = caddy.Duration(dur)
			case "stale_if_error":
				kc.StaleIfError = caddy.Duration(dur)
			default:
				kc.NegativeTTL = caddy.Duration(dur)
			}
		case "post":
			if !d.NextArg() {
				return nil, d.ArgErr()
			}
			var on bool
			switch d.Val() {
			case "on":
				on = true
			case "off":
			default:
				return nil, d.Errf("post: want on or off, got %q", d.Val())
			}
			kc.POST = &on
			if d.NextArg() {
				return nil, d.ArgErr()
			}
		default:
			// A request matcher, as in a named matcher's block.
			if kind == cache.KindOther {
				return nil, d.Errf("kind other takes what no other kind matched; unknown option %q", opt)
			}
			name := opt
			if d.Token().Quoted() {
				expr := d.Token().Clone()
				expr.Text = "expression"
				tokensByMatcher["expression"] = append(tokensByMatcher["expression"], expr, d.Token())
				if !contains(order, "expression") {
					order = append(order, "expression")
				}
				continue
			}
			if _, err := caddy.GetModule("http.matchers." + name); err != nil {
				return nil, d.Errf("unknown option or request matcher %q in %s", name, kind)
			}
			tokensByMatcher[name] = append(tokensByMatcher[name], d.NextSegment()...)
			if !contains(order, name) {
				order = append(order, name)
			}
		}
	}
	if len(order) > 0 {
		set := caddy.ModuleMap{}
		for _, name := range order {
			mod, _ := caddy.GetModule("http.matchers." + name)
			unm, ok := mod.New().(caddyfile.Unmarshaler)
			if !ok {
				return nil, d.Errf("matcher %q cannot be set up from a Caddyfile", name)
			}
			if err := unm.UnmarshalCaddyfile(caddyfile.NewDispenser(tokensByMatcher[name])); err != nil {
				return nil, err
			}
			_, isReq := unm.(caddyhttp.RequestMatcher)
			_, isReqErr := unm.(caddyhttp.RequestMatcherWithError)
			if !isReq && !isReqErr {
				return nil, d.Errf("%q is not a request matcher", name)
			}
			raw, err := json.Marshal(unm)
			if err != nil {
				return nil, fmt.Errorf("marshaling matcher %s: %v", name, err)
			}
			set[name] = raw
		}
		kc.MatcherSetsRaw = caddyhttp.RawMatcherSets{set}
	}
	return kc, nil
}

// ttlValue reads a TTL argument: a duration, or off (caching off).
func ttlValue(d *caddyfile.Dispenser) (caddy.Duration, error) {
	if d.Val() == "off" {
		return caddy.Duration(-1), nil
	}
	dur, err := caddy.ParseDuration(d.Val())
	if err != nil || dur <= 0 {
		return 0, d.Errf("ttl: bad duration %q (a positive duration or off)", d.Val())
	}
	return caddy.Duration(dur), nil
}

func sizeArg(d *caddyfile.Dispenser) (int64, error) {
	opt := d.Val()
	if !d.NextArg() {
		return 0, d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return 0, d.ArgErr()
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		return n, nil
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n == 0 || n > 1<<50 {
		return 0, d.Errf("%s: bad size %q (e.g. 64MiB)", opt, v)
	}
	return int64(n), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

var _ caddyfile.Unmarshaler = (*Handler)(nil)
