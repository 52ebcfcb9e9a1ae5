package platformcache

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/cache"
)

// The collectors live as long as the process (counters must not restart at
// a reload); each config's registry gets them registered again. Labels are
// bounded: platform (seven keys), kind (four), result (five), tier (two).
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "platform_cache",
		Name:      "requests_total",
		Help:      "Requests seen by platform_cache, by platform, kind (list, search, document, other) and result (hit, miss, stale, coalesced, bypass).",
	}, []string{"platform", "kind", "result"})
	storeFigures = &figuresCollector{
		entries: prometheus.NewDesc("caddy_platform_cache_entries", "Entries held per platform and tier (memory, disk).", []string{"platform", "tier"}, nil),
		bytes:   prometheus.NewDesc("caddy_platform_cache_bytes", "Bytes held per platform and tier: memory (bigcache's allocated queues plus hot decoded entries) and disk (entries in the durable file).", []string{"platform", "tier"}, nil),
		shared: prometheus.NewDesc("caddy_platform_cache_shared_total",
			"Shared (Redis) tier events per platform, with several instances: hit and miss (lookups after the local tiers missed), error (failed calls), skipped (not tried: degraded), coalesced (misses answered by another instance's platform request), lead (platform requests made holding the lease), takeover (leases taken after a holder's lapsed), kept_for_remote (requests kept for waiting instances after their own callers hung up), purge_received (purges of other instances applied here).",
			[]string{"platform", "result"}, nil),
		degraded: prometheus.NewDesc("caddy_platform_cache_shared_degraded",
			"1 while the platform's shared (Redis) tier is degraded (local tiers and the platform serve), else 0; absent without a shared tier.",
			[]string{"platform"}, nil),
	}
)

func observe(platform string) func(kind, result string) {
	return func(kind, result string) {
		requestsTotal.WithLabelValues(platform, kind, result).Inc()
	}
}

// figuresCollector reads the pooled stores' sizes and shared-tier
// figures when scraped.
type figuresCollector struct{ entries, bytes, shared, degraded *prometheus.Desc }

func (c *figuresCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.entries
	ch <- c.bytes
	ch <- c.shared
	ch <- c.degraded
}

func (c *figuresCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range allStats() {
		ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(st.MemoryEntries), st.Platform, "memory")
		ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(st.DiskEntries), st.Platform, "disk")
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(st.MemoryBytes), st.Platform, "memory")
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(st.DiskBytes), st.Platform, "disk")
		sh := st.Shared
		if sh == nil {
			continue
		}
		for _, f := range []struct {
			result string
			n      int64
		}{
			{"hit", sh.Hits}, {"miss", sh.Misses}, {"error", sh.Errors}, {"skipped", sh.Skipped},
			{"coalesced", sh.Coalesced}, {"lead", sh.Leads}, {"takeover", sh.Takeovers},
			{"kept_for_remote", sh.KeptForRemote}, {"purge_received", sh.PurgesReceived},
		} {
			ch <- prometheus.MustNewConstMetric(c.shared, prometheus.CounterValue, float64(f.n), st.Platform, f.result)
		}
		degraded := 0.0
		if sh.Mode == "degraded" {
			degraded = 1
		}
		ch <- prometheus.MustNewConstMetric(c.degraded, prometheus.GaugeValue, degraded, st.Platform)
	}
}

func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{requestsTotal, storeFigures} {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}

// allStats returns every pooled store's figures.
func allStats() []cache.Stats {
	var out []cache.Stats
	pool.Range(func(_, v any) bool {
		out = append(out, v.(pooled).Stats())
		return true
	})
	return out
}

// storeOf returns the pooled store of a platform, or nil.
func storeOf(platform string) *cache.Store {
	var s *cache.Store
	pool.Range(func(k, v any) bool {
		if k == platform {
			s = v.(pooled).Store
			return false
		}
		return true
	})
	return s
}

// StoreOf returns the pooled store of a platform, or nil: for tests of
// other packages (an MCP connector's result memo under a moved clock).
func StoreOf(platform string) *cache.Store { return storeOf(platform) }
