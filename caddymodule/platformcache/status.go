package platformcache

import "github.com/besluitbron/besluitbron/caddymodule/platformcache/cache"

// StoreStats returns every platform cache's figures (entries, hits,
// misses: counts since its store was opened), read-only, for the site's
// status page (caddymodule/site).
func StoreStats() []cache.Stats { return allStats() }
