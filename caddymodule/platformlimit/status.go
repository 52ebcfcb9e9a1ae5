package platformlimit

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/besluitbron/besluitbron/caddymodule/app"
)

// waitHistogram returns the waits of the platform's admitted calls since
// the process started (caddy_platform_limit_wait_seconds), as the budget
// publishes them in the besluitbron app for the status page.
func waitHistogram(platform string) app.WaitHistogram {
	var m dto.Metric
	var h app.WaitHistogram
	if err := waitSeconds.WithLabelValues(platform).(prometheus.Metric).Write(&m); err != nil || m.Histogram == nil {
		return h
	}
	for _, b := range m.Histogram.GetBucket() {
		h.Bounds = append(h.Bounds, b.GetUpperBound())
		h.Cumulative = append(h.Cumulative, b.GetCumulativeCount())
	}
	h.Count = m.Histogram.GetSampleCount()
	return h
}
