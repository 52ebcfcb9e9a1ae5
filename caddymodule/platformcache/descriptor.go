package platformcache

import (
	"encoding/json"
	"net/url"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/platforms"
)

// kindDefaults is one kind as the platform's descriptor gives it: the
// lifetimes and the loaded matchers (nil: the descriptor names none).
type kindDefaults struct {
	KindConfig
	matchers caddyhttp.MatcherSets
}

// descriptorKind lays the descriptor's kind over the generic lifetimes and
// loads its matchers (path, path_regexp, query: the same request matchers
// a Caddyfile kind block would name).
func descriptorKind(ctx caddy.Context, desc platforms.Platform, kind string) (kindDefaults, error) {
	gen, _ := platforms.CacheLifetime(kind)
	k := desc.Cache[kind]
	pick := func(own, generic time.Duration) caddy.Duration {
		if own != 0 {
			return caddy.Duration(own)
		}
		return caddy.Duration(generic)
	}
	out := kindDefaults{KindConfig: KindConfig{
		TTL:                  pick(k.TTL, gen.TTL),
		StaleWhileRevalidate: pick(k.StaleWhileRevalidate, gen.StaleWhileRevalidate),
		StaleIfError:         pick(k.StaleIfError, gen.StaleIfError),
		NegativeTTL:          pick(k.NegativeTTL, gen.NegativeTTL),
	}}
	if k.Off {
		out.TTL = -1
	}
	set := caddy.ModuleMap{}
	if len(k.Paths) > 0 {
		set["path"] = caddyconfigJSON(caddyhttp.MatchPath(k.Paths))
	}
	if k.PathRegexp != "" {
		set["path_regexp"] = caddyconfigJSON(caddyhttp.MatchPathRE{MatchRegexp: caddyhttp.MatchRegexp{Pattern: k.PathRegexp}})
	}
	if len(k.Query) > 0 {
		q := url.Values{}
		for name, v := range k.Query {
			q.Set(name, v)
		}
		set["query"] = caddyconfigJSON(caddyhttp.MatchQuery(q))
	}
	if len(set) == 0 {
		return out, nil
	}
	holder := &KindConfig{MatcherSetsRaw: caddyhttp.RawMatcherSets{set}}
	mods, err := ctx.LoadModule(holder, "MatcherSetsRaw")
	if err != nil {
		return out, err
	}
	if err := out.matchers.FromInterface(mods); err != nil {
		return out, err
	}
	return out, nil
}

// caddyconfigJSON marshals a matcher the table builds (never fails for
// these types).
func caddyconfigJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
