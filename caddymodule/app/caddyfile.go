package app

import (
	"math"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/dustin/go-humanize"

	"github.com/besluitbron/besluitbron/platforms"
)

func init() {
	httpcaddyfile.RegisterGlobalOption(ID, parseGlobal)
}

func parseGlobal(d *caddyfile.Dispenser, _ any) (any, error) {
	a := new(App)
	if err := a.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: ID, Value: caddyconfig.JSON(a, nil)}, nil
}

// UnmarshalCaddyfile sets the app up from the global option block:
//
//	{
//		besluitbron {
//			contact         [<address>]
//			allow_private   [<cidr|ip>...]
//			trusted_sources [<cidr|ip>...]
//			cache_dir       [<path>|off]
//			process_limit   <rate> <burst> | off
//			store           [local|<redis-url>]
//			instances       <n>
//			store_timeout   [<duration>]
//			store_prefix    <prefix>
//			replica_memory  <size>|off
//			replica <key> [on|off] {
//				since    <scope>|all
//				sources  <source>...
//				interval <duration>
//				dir      <path>
//				max_disk <size>
//			}
//			caselaw [on|off] {
//				since    <year>|<YYYY-MM-DD>|all
//				interval <duration>
//				dir      <path>
//				max_disk <size>
//			}
//			platform <key> {
//				base_url              [<url>...]
//				capacity              <units>
//				window                <duration>
//				max_queue             <n>
//				max_wait              <duration>
//				search_paths          <pattern>...|off
//				max_searches_per_host <n>
//				queue_wait            <duration>
//				odata_root            <path>
//				search_path           <path>
//				document_path         <path>
//				text_path             <path>
//				query_param           <name>
//				limit_param           <name>
//				page_param            <name>
//				offset_param          <name>
//				organisation_param    <name>
//			}
//		}
//	}
//
// replica <key> turns on BesluitBron's own replica of platform key's feed,
// for a platform that keeps one (ReplicaConfig: since in the platform's
// terms, default the platform's; sources, for a feed per source, default
// the platform's (also when given none), repeatable; interval default the
// platform's; dir default <cache_dir>/<the replica's name>; max_disk, a
// size such as 20GiB, the most its folder may hold before harvesting
// waits, default none); "replica <key> off" (its
// block is then read and not used), or no replica block, keeps it off.
// replica_memory is a size such as 512MiB (ReplicaMemory; off: none).
// caselaw is the older form of the replica named caselaw (LegacyReplica:
// since default 2015, interval default 1h, dir default <cache_dir>/caselaw).
// odata_root and search_path to organisation_param are a platform's own
// options (platforms.Configurable), read by the platform: odata_root
// belongs to platform tk (its OData root, default /OData/v5), search_path
// to organisation_param to platform oa (Open Archivaris' assumed
// endpoints); another platform refuses them. Every option may be left out: the defaults table (platforms)
// holds the platforms' addresses, budgets, searches and caches. contact,
// allow_private, trusted_sources, cache_dir, store, instances, store_prefix
// and base_url may stand without a value,
// which keeps the default: so an environment variable that is unset, read
// as a {$VAR} placeholder, changes nothing (base_url {$BESLUITBRON_OBV_URL}).
// A value with spaces (several base URLs) gives several arguments.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch opt := d.Val(); opt {
		case "contact":
			args := d.RemainingArgs()
			if len(args) > 1 {
				return d.ArgErr()
			}
			if len(args) == 1 {
				a.Contact = args[0]
			}
		case "allow_private":
			a.AllowPrivate = append(a.AllowPrivate, d.RemainingArgs()...)
		case "trusted_sources":
			a.TrustedSources = append(a.TrustedSources, d.RemainingArgs()...)
		case "store":
			// No value (an unset {$BESLUITBRON_REDIS}) keeps local.
			args := d.RemainingArgs()
			if len(args) > 1 {
				return d.ArgErr()
			}
			if len(args) == 1 {
				a.Store = args[0]
			}
		case "instances":
			args := d.RemainingArgs()
			if len(args) > 1 {
				return d.ArgErr()
			}
			if len(args) == 1 {
				n, err := strconv.Atoi(args[0])
				if err != nil || n <= 0 {
					return d.Errf("instances: want a positive whole number, got %q", args[0])
				}
				a.Instances = n
			}
		case "store_timeout":
			// No value (an unset {$BESLUITBRON_STORE_TIMEOUT}) keeps the
			// default.
			args := d.RemainingArgs()
			if len(args) > 1 {
				return d.ArgErr()
			}
			if len(args) == 1 {
				dur, err := caddy.ParseDuration(args[0])
				if err != nil || dur <= 0 {
					return d.Errf("store_timeout: want a positive duration, got %q", args[0])
				}
				a.StoreTimeout = caddy.Duration(dur)
			}
		case "cache_dir", "store_prefix":
			// No value (an unset {$BESLUITBRON_CACHE_DIR}) keeps the default.
			args := d.RemainingArgs()
			if len(args) > 1 {
				return d.ArgErr()
			}
			if len(args) == 0 {
				continue
			}
			if opt == "store_prefix" {
				a.StorePrefix = args[0]
			} else {
				a.CacheDir = args[0]
			}
		case "replica_memory":
			if !d.NextArg() {
				return d.ArgErr()
			}
			var n uint64
			if d.Val() != "off" {
				var err error
				n, err = humanize.ParseBytes(d.Val())
				if err != nil || n > math.MaxInt64 {
					return d.Errf("replica_memory %q: give a size such as 512MiB, or off", d.Val())
				}
			}
			if d.NextArg() {
				return d.ArgErr()
			}
			size := int64(n)
			a.ReplicaMemory = &size
		case "process_limit":
			args := d.RemainingArgs()
			switch {
			case len(args) == 1 && args[0] == "off":
				a.ProcessLimit = &Limit{Rate: "off"}
			case len(args) == 2:
				n, err := strconv.Atoi(args[1])
				if err != nil || n <= 0 {
					return d.Errf("process_limit: burst must be a positive number, got %q", args[1])
				}
				a.ProcessLimit = &Limit{Rate: args[0], Burst: n}
			default:
				return d.ArgErr()
			}
		case "platform":
			if err := a.unmarshalPlatform(d); err != nil {
				return err
			}
		case LegacyReplica:
			c, err := unmarshalReplica(d, LegacyReplica)
			if err != nil {
				return err
			}
			a.CaseLaw = c
		case "replica":
			if !d.NextArg() {
				return d.ArgErr()
			}
			key := d.Val()
			if _, ok := platforms.Get(key); !ok {
				return d.Errf("replica: unknown platform %q (known: %v)", key, platforms.Keys())
			}
			if _, ok := a.ReplicaConfigs[key]; ok {
				return d.Errf("replica %s configured twice", key)
			}
			c, err := unmarshalReplica(d, "replica "+key)
			if err != nil {
				return err
			}
			if a.ReplicaConfigs == nil {
				a.ReplicaConfigs = map[string]*ReplicaConfig{}
			}
			a.ReplicaConfigs[key] = c // nil when off: read, and kept off
		default:
			return d.Errf("unknown besluitbron option %q", opt)
		}
	}
	return nil
}

// unmarshalReplica reads a replica's block, which the operator named
// what ("caselaw", "replica rechtspraak"); nil when it is off.
func unmarshalReplica(d *caddyfile.Dispenser, what string) (*ReplicaConfig, error) {
	args := d.RemainingArgs()
	on := true
	switch {
	case len(args) == 1 && (args[0] == "on" || args[0] == "off"):
		on = args[0] == "on"
	case len(args) > 0:
		return nil, d.Errf("%s takes on or off, then its block: got %q", what, strings.Join(args, " "))
	}
	c := new(ReplicaConfig)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if opt == "sources" {
			// None given (an empty environment variable) is the
			// platform's default.
			c.Sources = append(c.Sources, d.RemainingArgs()...)
			continue
		}
		if !d.NextArg() {
			return nil, d.ArgErr()
		}
		switch opt {
		case "since":
			c.Since = d.Val()
		case "dir":
			c.Dir = d.Val()
		case "max_disk":
			n, err := humanize.ParseBytes(d.Val())
			if err != nil || n > math.MaxInt64 {
				return nil, d.Errf("%s max_disk %q: give a size such as 20GiB or 500MB", what, d.Val())
			}
			c.MaxDisk = int64(n)
		case "interval":
			v, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return nil, d.Errf("%s interval %q: give a duration such as 1h", what, d.Val())
			}
			c.Interval = caddy.Duration(v)
		default:
			return nil, d.Errf("unknown %s option %q: use since, sources, interval, dir or max_disk", what, opt)
		}
		if d.NextArg() {
			return nil, d.ArgErr()
		}
	}
	// "off" keeps its block readable, so one environment variable turns
	// the index off without editing the block (the default Caddyfile).
	if !on {
		return nil, nil
	}
	return c, nil
}

func (a *App) unmarshalPlatform(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	key := d.Val()
	if _, ok := platforms.Get(key); !ok {
		return d.Errf("unknown platform %q (known: %v)", key, platforms.Keys())
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	if a.Platforms[key] != nil {
		return d.Errf("platform %s configured twice", key)
	}
	c := new(PlatformConfig)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		switch opt {
		case "base_url":
			c.BaseURLs = append(c.BaseURLs, d.RemainingArgs()...)
		case "search_paths":
			c.SearchPaths = d.RemainingArgs()
			if len(c.SearchPaths) == 0 {
				return d.ArgErr()
			}
		case "capacity", "max_queue", "max_searches_per_host":
			if !d.NextArg() {
				return d.ArgErr()
			}
			v := d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
			if opt == "capacity" {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f <= 0 {
					return d.Errf("capacity: want a positive number, got %q", v)
				}
				c.Capacity = f
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return d.Errf("%s: want a positive whole number, got %q", opt, v)
			}
			if opt == "max_queue" {
				c.MaxQueue = n
			} else {
				c.MaxSearchesPerHost = n
			}
		case "window", "max_wait", "queue_wait":
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil || dur <= 0 {
				return d.Errf("%s: want a positive duration, got %q", opt, d.Val())
			}
			if d.NextArg() {
				return d.ArgErr()
			}
			switch opt {
			case "window":
				c.Window = caddy.Duration(dur)
			case "max_wait":
				c.MaxWait = caddy.Duration(dur)
			default:
				c.QueueWait = caddy.Duration(dur)
			}
		default:
			// The platform's own settings (platforms.Configurable), read
			// by the platform: here only whether it takes the option.
			if !platforms.HasOption(key, opt) {
				return d.Errf("unknown option %q in platform %s", opt, key)
			}
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if c.Options == nil {
				c.Options = platforms.Options{}
			}
			c.Options[opt] = args
		}
	}
	if _, err := platforms.SettingsOf(key, c.Options); err != nil {
		return d.Errf("platform %s: %v", key, err)
	}
	if c.empty() {
		return nil // only unset placeholders: the table's defaults
	}
	if a.Platforms == nil {
		a.Platforms = map[string]*PlatformConfig{}
	}
	a.Platforms[key] = c
	return nil
}

func (c *PlatformConfig) empty() bool {
	return len(c.BaseURLs) == 0 && len(c.SearchPaths) == 0 && c.Capacity == 0 && c.Window == 0 &&
		c.MaxQueue == 0 && c.MaxWait == 0 && c.MaxSearchesPerHost == 0 && c.QueueWait == 0 &&
		len(c.Options) == 0
}

var _ caddyfile.Unmarshaler = (*App)(nil)
