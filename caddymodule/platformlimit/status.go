package platformlimit

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/besluitbron/besluitbron/caddymodule/platformlimit/fairqueue"
)

// Read-only figures for the site's status page (caddymodule/site), which
// shows no client or session: only a budget's totals and its waits.

// BudgetStats returns the platform's budget figures; false when no config
// keeps a budget for it.
func BudgetStats(platform string) (fairqueue.Stats, bool) {
	var st fairqueue.Stats
	found := false
	budgets.Range(func(_, value any) bool {
		if pb := value.(*pooledBudget); pb.platform == platform {
			st, found = pb.Stats(), true
			return false
		}
		return true
	})
	return st, found
}

// WaitHistogram returns the waits of the platform's admitted calls since
// the process started (caddy_platform_limit_wait_seconds): the bucket
// bounds in seconds, the cumulative count at or under each, and the count
// of all calls.
func WaitHistogram(platform string) (bounds []float64, cumulative []uint64, count uint64) {
	var m dto.Metric
	if err := waitSeconds.WithLabelValues(platform).(prometheus.Metric).Write(&m); err != nil || m.Histogram == nil {
		return nil, nil, 0
	}
	for _, b := range m.Histogram.GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
		cumulative = append(cumulative, b.GetCumulativeCount())
	}
	return bounds, cumulative, m.Histogram.GetSampleCount()
}
