package platformproxy

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// live holds the provisioned handlers, so the collector can read their
// upstream counters at scrape time. A reload provisions new handlers (new
// counters, so the totals restart, which Prometheus reads as a counter
// reset) before the old ones are cleaned up.
var live sync.Map // *Handler -> struct{}

// proxyFigures reports each platform's upstream counters, labelled by
// platform only.
var proxyFigures = &figuresCollector{
	requests:  prometheus.NewDesc("caddy_platform_proxy_requests_total", "Requests the platform's proxy handled.", []string{"platform"}, nil),
	attempts:  prometheus.NewDesc("caddy_platform_proxy_attempts_total", "Requests actually sent to one of the platform's hosts (failovers included, stale-connection resends not).", []string{"platform"}, nil),
	resends:   prometheus.NewDesc("caddy_platform_proxy_stale_resends_total", "Requests sent once more on a new connection because the pooled one was found closed before any answer.", []string{"platform"}, nil),
	failovers: prometheus.NewDesc("caddy_platform_proxy_failovers_total", "Moves to the platform's next host after a failure.", []string{"platform"}, nil),
	noPlace:   prometheus.NewDesc("caddy_platform_proxy_no_place_total", "Requests refused because every host stayed at its concurrency cap for the whole wait.", []string{"platform"}, nil),
	dead:      prometheus.NewDesc("caddy_platform_proxy_dead_connections_total", "Connections to the platform's hosts the kernel found dead (probes or sent data unanswered for the TCP user timeout, or host unreachable).", []string{"platform"}, nil),
}

type figuresCollector struct {
	requests, attempts, resends, failovers, noPlace, dead *prometheus.Desc
}

func (c *figuresCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.requests, c.attempts, c.resends, c.failovers, c.noPlace, c.dead} {
		ch <- d
	}
}

func (c *figuresCollector) Collect(ch chan<- prometheus.Metric) {
	type sums struct{ requests, attempts, resends, failovers, noPlace, dead int64 }
	byPlatform := map[string]*sums{}
	live.Range(func(key, _ any) bool {
		h := key.(*Handler)
		st := h.Stats()
		s := byPlatform[h.Platform]
		if s == nil {
			s = new(sums)
			byPlatform[h.Platform] = s
		}
		s.requests += st.Requests
		s.attempts += st.Sent
		s.resends += st.StaleResends
		s.failovers += st.Failovers
		s.noPlace += st.NoPlace
		s.dead += st.DeadConns
		return true
	})
	for p, s := range byPlatform {
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(s.requests), p)
		ch <- prometheus.MustNewConstMetric(c.attempts, prometheus.CounterValue, float64(s.attempts), p)
		ch <- prometheus.MustNewConstMetric(c.resends, prometheus.CounterValue, float64(s.resends), p)
		ch <- prometheus.MustNewConstMetric(c.failovers, prometheus.CounterValue, float64(s.failovers), p)
		ch <- prometheus.MustNewConstMetric(c.noPlace, prometheus.CounterValue, float64(s.noPlace), p)
		ch <- prometheus.MustNewConstMetric(c.dead, prometheus.CounterValue, float64(s.dead), p)
	}
}

// registerMetrics registers the collector with a config's registry (every
// reload brings a new one); it is built once per process.
func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	if err := reg.Register(proxyFigures); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	return nil
}
