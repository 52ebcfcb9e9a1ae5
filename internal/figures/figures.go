// Package figures holds what the figures tests (-tags figures, quoted in
// docs/benchmarks.md) share to measure memory and latency the same way.
package figures

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProcKB reads a kB figure of /proc/self/status: VmRSS (resident now),
// VmHWM (the peak). 0 where there is no such file or line.
func ProcKB(key string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// MiB is b bytes in MiB.
func MiB(b int64) float64 { return float64(b) / (1 << 20) }

// Percentiles sorts ds and returns its p50 and p95 (zero when empty).
func Percentiles(ds []time.Duration) (p50, p95 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*95/100]
}
