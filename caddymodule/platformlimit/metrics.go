package platformlimit

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics carry the platform key only: never a session.
var (
	waitSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "caddy",
		Subsystem: "platform_limit",
		Name:      "wait_seconds",
		Help:      "Time calls waited for room in the platform's budget.",
		Buckets:   []float64{0.001, 0.01, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300},
	}, []string{"platform"})
	upstream429 = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy",
		Subsystem: "platform_limit",
		Name:      "upstream_429_total",
		Help:      "429 answers from the platform (each pauses or empties its budget; should stay 0).",
	}, []string{"platform"})
	budgetFigures = &figuresCollector{
		queue:     prometheus.NewDesc("caddy_platform_limit_queue_length", "Calls waiting for room in the platform's budget.", []string{"platform"}, nil),
		available: prometheus.NewDesc("caddy_platform_limit_available_units", "Units left in the platform's budget now.", []string{"platform"}, nil),
		sessions:  prometheus.NewDesc("caddy_platform_limit_sessions", "Sessions whose usage the platform's budget remembers.", []string{"platform"}, nil),
		clients:   prometheus.NewDesc("caddy_platform_limit_clients", "Clients (addresses, or sessions from trusted sources) whose usage the platform's budget remembers.", []string{"platform"}, nil),
		spent:     prometheus.NewDesc("caddy_platform_limit_units_spent_total", "Units charged to the platform's budget (refunded ones included, so the counter never goes down; see units_refunded_total).", []string{"platform"}, nil),
		calls:     prometheus.NewDesc("caddy_platform_limit_calls_total", "Calls by outcome: admitted, rejected (queue full or waited too long), cancelled (client hung up).", []string{"platform", "outcome"}, nil),
		paused:    prometheus.NewDesc("caddy_platform_limit_paused", "1 while the platform's budget is paused after a 429.", []string{"platform"}, nil),
		refunds:   prometheus.NewDesc("caddy_platform_limit_refunds_total", "Admitted calls whose units went back to the platform's budget: they got no answer from the platform (nothing sent, or the path died first).", []string{"platform"}, nil),
		refunded:  prometheus.NewDesc("caddy_platform_limit_units_refunded_total", "Units given back to the platform's budget by refunds.", []string{"platform"}, nil),
		mode:      prometheus.NewDesc("caddy_platform_limit_mode", "With a shared store: 1 for the budget's current mode, global (Redis decides) or fallback (this instance's local share while Redis does not answer), 0 for the other.", []string{"platform", "mode"}, nil),
		degraded:  prometheus.NewDesc("caddy_platform_limit_fallbacks_total", "With a shared store: switches of the platform's budget to this instance's local share.", []string{"platform"}, nil),
		local:     prometheus.NewDesc("caddy_platform_limit_fallback_units_total", "With a shared store: units this instance admitted from its local share while Redis did not answer.", []string{"platform"}, nil),
	}
)

// figuresCollector reads every budget's figures at scrape time.
type figuresCollector struct {
	queue, available, sessions, clients, spent, calls, paused, refunds, refunded *prometheus.Desc
	mode, degraded, local                                                        *prometheus.Desc
}

func (c *figuresCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.queue, c.available, c.sessions, c.clients, c.spent, c.calls, c.paused, c.refunds, c.refunded, c.mode, c.degraded, c.local} {
		ch <- d
	}
}

func (c *figuresCollector) Collect(ch chan<- prometheus.Metric) {
	budgets.Range(func(_, value any) bool {
		pb := value.(*pooledBudget)
		p := pb.platform
		st := pb.Stats()
		ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(st.Waiting), p)
		ch <- prometheus.MustNewConstMetric(c.available, prometheus.GaugeValue, st.Available, p)
		ch <- prometheus.MustNewConstMetric(c.sessions, prometheus.GaugeValue, float64(st.Sessions), p)
		ch <- prometheus.MustNewConstMetric(c.clients, prometheus.GaugeValue, float64(st.Clients), p)
		// A counter never goes down: the units charged, refunds included.
		ch <- prometheus.MustNewConstMetric(c.spent, prometheus.CounterValue, st.UnitsSpent+st.UnitsRefunded, p)
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(st.Admitted), p, "admitted")
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(st.Rejected), p, "rejected")
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(st.Cancelled), p, "cancelled")
		ch <- prometheus.MustNewConstMetric(c.refunds, prometheus.CounterValue, float64(st.Refunded), p)
		ch <- prometheus.MustNewConstMetric(c.refunded, prometheus.CounterValue, st.UnitsRefunded, p)
		paused := 0.0
		if !st.PausedUntil.IsZero() {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(c.paused, prometheus.GaugeValue, paused, p)
		if pb.global != nil {
			f := pb.global.Figures()
			for _, m := range []string{"global", "fallback"} {
				v := 0.0
				if f.Mode == m {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(c.mode, prometheus.GaugeValue, v, p, m)
			}
			ch <- prometheus.MustNewConstMetric(c.degraded, prometheus.CounterValue, float64(f.Degradations), p)
			ch <- prometheus.MustNewConstMetric(c.local, prometheus.CounterValue, f.LocalUnits, p)
		}
		return true
	})
}

// registerMetrics registers the collectors with a config's registry
// (every reload brings a new one); they are built once per process.
func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{waitSeconds, upstream429, budgetFigures} {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}
