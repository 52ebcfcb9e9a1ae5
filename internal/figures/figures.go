// Package figures holds what the figures tests (-tags figures, quoted in
// docs/benchmarks.md) share to measure memory and latency the same way.
package figures

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProcKB reads a kB figure of /proc/self/status: VmRSS (resident now),
// VmHWM (the peak). 0 where there is no such file or line.
func ProcKB(key string) int64 { return procKB("self", key) }

// ProcKBOf is ProcKB of the process pid (a child the figure started).
func ProcKBOf(pid int, key string) int64 { return procKB(strconv.Itoa(pid), key) }

func procKB(proc, key string) int64 {
	b, _ := os.ReadFile("/proc/" + proc + "/status")
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

// CPUOf is the CPU time so far, user and system, of the process pid (a
// child the figure started), from /proc/<pid>/stat; 0 when unreadable.
func CPUOf(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields counted are those after its closing one. utime and
	// stime, fields 14 and 15, are in clock ticks of USER_HZ, 100 a
	// second on Linux (proc(5)).
	rest := b[bytes.LastIndexByte(b, ')')+1:]
	f := strings.Fields(string(rest))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100)
}
