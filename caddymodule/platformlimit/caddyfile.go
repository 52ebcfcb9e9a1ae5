package platformlimit

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/caddymodule/session"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("platform_limit", parseCaddyfile)
	// Outside a route block: after platform_cache (before invoke) and the
	// handle/route blocks, before platform_proxy and reverse_proxy.
	httpcaddyfile.RegisterDirectiveOrder("platform_limit", httpcaddyfile.Before, "abort")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var hd Handler
	err := hd.UnmarshalCaddyfile(h.Dispenser)
	return &hd, err
}

func caddyJSON(v any) json.RawMessage { return caddyconfig.JSON(v, nil) }

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	platform_limit <platform> {
//		capacity      <units>
//		window        <duration>
//		cost          <matcher> <units> [default <n>] [max <n>]
//		@name         <request matcher...> | { <request matchers...> }
//		max_queue     <n>
//		max_wait      <duration>
//		session_key   <placeholder>
//		trusted_sources <cidr|address...>
//		reject_status 503|429
//	}
//
// <matcher> is * (every request), a path pattern starting with / (as the
// path matcher), or @name defined in the block. <units> is a number, a
// fraction such as 1/8, or ceil(<query param>/<n>) such as ceil(limit/24),
// optionally followed by the parameter's default and cap. cost rules are
// tried in order; a request none matches costs 1. With no capacity and
// window, the budget of the platform's descriptor applies (the
// besluitbron app over platforms: obv, oa, ob, rechtspraak);
// with no cost rules, its prices (obv). trusted_sources may be repeated;
// from those addresses each session counts as a client of its own;
// without it, the besluitbron app's trusted_sources apply.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Platform = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	named := map[string]caddy.ModuleMap{}
	type pendingCost struct {
		name string
		rule *CostRule
	}
	var pending []pendingCost
	for d.NextBlock(0) {
		opt := d.Val()
		if strings.HasPrefix(opt, "@") {
			if _, dup := named[opt]; dup {
				return d.Errf("matcher %s defined twice", opt)
			}
			set, err := caddyhttp.ParseCaddyfileNestedMatcherSet(d)
			if err != nil {
				return err
			}
			named[opt] = set
			continue
		}
		switch opt {
		case "capacity":
			v, err := numberArg(d)
			if err != nil {
				return err
			}
			h.Capacity = v
		case "window", "max_wait":
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("bad %s %q: %v", opt, d.Val(), err)
			}
			if d.NextArg() {
				return d.ArgErr()
			}
			if opt == "window" {
				h.Window = caddy.Duration(dur)
			} else {
				h.MaxWait = caddy.Duration(dur)
			}
		case "max_queue", "reject_status":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 1 {
				return d.Errf("bad %s %q: want a whole number ≥ 1", opt, d.Val())
			}
			if d.NextArg() {
				return d.ArgErr()
			}
			if opt == "max_queue" {
				h.MaxQueue = n
			} else {
				h.RejectStatus = n
			}
		case "session_key":
			if !d.NextArg() {
				return d.ArgErr()
			}
			h.SessionKey = d.Val()
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
		case "cost":
			args := d.RemainingArgs()
			if len(args) < 2 {
				return d.Errf("cost needs a matcher and units: cost <matcher> <units> [default <n>] [max <n>]")
			}
			rule := &CostRule{}
			if err := parseUnits(args[1], rule); err != nil {
				return d.Err(err.Error())
			}
			rest := args[2:]
			for len(rest) > 0 {
				if len(rest) < 2 || rule.Param == "" {
					return d.Errf("unexpected %q after the units; only ceil(<param>/<n>) takes default and max", rest[0])
				}
				v, err := strconv.ParseFloat(rest[1], 64)
				if err != nil || v < 0 || math.IsInf(v, 0) {
					return d.Errf("bad %s %q", rest[0], rest[1])
				}
				switch rest[0] {
				case "default":
					rule.ParamDefault = v
				case "max":
					rule.ParamMax = v
				default:
					return d.Errf("unknown cost option %q; want default or max", rest[0])
				}
				rest = rest[2:]
			}
			m := args[0]
			switch {
			case m == "*":
			case strings.HasPrefix(m, "/"):
				rule.MatcherSetsRaw = pathMatch(m)
			case strings.HasPrefix(m, "@"):
				pending = append(pending, pendingCost{m, rule})
			default:
				return d.Errf("bad cost matcher %q: want *, a path starting with /, or @name", m)
			}
			h.Costs = append(h.Costs, rule)
		default:
			return d.Errf("unrecognized subdirective %q", opt)
		}
	}
	for _, p := range pending {
		set, ok := named[p.name]
		if !ok {
			return d.Errf("cost uses matcher %s, which the block does not define", p.name)
		}
		p.rule.MatcherSetsRaw = caddyhttp.RawMatcherSets{set}
	}
	return nil
}

func numberArg(d *caddyfile.Dispenser) (float64, error) {
	if !d.NextArg() {
		return 0, d.ArgErr()
	}
	v, err := parseNumber(d.Val())
	if err != nil || !(v > 0) {
		return 0, d.Errf("bad %s %q: want a positive number", d.Token().Text, d.Val())
	}
	if d.NextArg() {
		return 0, d.ArgErr()
	}
	return v, nil
}

// parseNumber reads a number or a fraction a/b.
func parseNumber(s string) (float64, error) {
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || y == 0 {
			return 0, fmt.Errorf("bad fraction %q", s)
		}
		return x / y, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}

// parseUnits reads a cost's units: a number, a fraction, or
// ceil(<param>/<n>).
func parseUnits(s string, rule *CostRule) error {
	if inner, ok := strings.CutPrefix(s, "ceil("); ok {
		inner, ok = strings.CutSuffix(inner, ")")
		param, per, ok2 := strings.Cut(inner, "/")
		if !ok || !ok2 || param == "" {
			return fmt.Errorf("bad cost %q: want ceil(<query param>/<n>)", s)
		}
		n, err := strconv.ParseFloat(per, 64)
		if err != nil || !(n > 0) || math.IsInf(n, 0) {
			return fmt.Errorf("bad cost %q: the divisor must be a positive number", s)
		}
		rule.Param, rule.Per, rule.Units = param, n, 1
		return nil
	}
	v, err := parseNumber(s)
	if err != nil || v < 0 {
		return fmt.Errorf("bad cost units %q: want a number ≥ 0, a fraction like 1/8, or ceil(<param>/<n>)", s)
	}
	rule.Units = v
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
