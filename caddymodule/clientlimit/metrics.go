package clientlimit

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// The collectors live as long as the process (counters must not restart at
// a reload); each config's registry gets them registered again. Labels are
// zone names and layer names from the config, never a session or address.
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "client_limit",
		Name:      "requests_total",
		Help:      "Requests judged by client_limit, by zone and result (allowed, rejected, internal: in-process sub-requests that pass uncounted).",
	}, []string{"zone", "result"})
	rejectedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "client_limit",
		Name:      "rejected_total",
		Help:      "Requests answered 429 by client_limit, by zone and by the layer that refused with the longest wait (process, connector, session, address).",
	}, []string{"zone", "layer"})
	keysGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy",
		Subsystem: "client_limit",
		Name:      "keys",
		Help:      "Sessions and addresses a zone remembers (after the last sweep; idle keys are dropped every minute).",
	}, []string{"zone"})
	tierTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "client_limit",
		Name:      "tier_total",
		Help:      "With a shared store: requests whose session and address buckets were judged in the store (tier shared) or, while it was degraded, on this instance's local share of the limits (tier local_share), by zone.",
	}, []string{"zone", "tier"})
	evictedGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy",
		Subsystem: "client_limit",
		Name:      "evicted_keys",
		Help:      "Keys a zone dropped over its max_keys cap before their bucket was full, since the zone was created (as of the last sweep).",
	}, []string{"zone"})
)

func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{requestsTotal, rejectedTotal, tierTotal, keysGauge, evictedGauge} {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}
