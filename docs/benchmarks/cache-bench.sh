#!/usr/bin/env bash
# Hit throughput and latency of platform_cache against Caddy's own `respond`
# with a brace-free body of the same size (the real ceiling of a Caddy
# handler, see docs/benchmarks.md), side by side,
# interleaved, on loopback. Caddy (with its upstream) is pinned to CPU 1,
# wrk to CPU 0.
#
#   docs/benchmarks/cache-bench.sh [rounds=3] [duration=10s] [connections=32]
#
# Needs: go, wrk (apt-get install -y wrk), taskset, curl, python3.
set -euo pipefail

ROUNDS=${1:-3}
DUR=${2:-10s}
CONNS=${3:-32}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
CADDY_PID=
cleanup() {
	if [ -n "$CADDY_PID" ]; then kill "$CADDY_PID" 2>/dev/null || true; wait "$CADDY_PID" 2>/dev/null || true; fi
	rm -rf "$WORK"
}
trap cleanup EXIT

echo "building caddy..." >&2
(cd "$ROOT" && go build -o "$WORK/caddy" ./cmd/caddy)

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# A JSON text of exactly $1 bytes without { or } (arrays only).
body() {
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
parts, i = [], 0
s = "["
while True:
    item = '["besluit",%d,"gemeente soest",true],' % i
    if len(s) + len(item) + 2 > n:
        break
    s += item
    i += 1
s = s + '"' + "x" * (n - len(s) - 2 - 1) + '"]'
assert len(s) == n and "{" not in s and "}" not in s, len(s)
sys.stdout.write(s)
PY
}

# wrk's summary line -> "req/s p50_ms p99_ms"
run_wrk() {
	taskset -c 0 wrk -t1 -c"$CONNS" -d"$DUR" --latency "$1" | python3 -c '
import sys, re
txt = sys.stdin.read()
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)", v)
    x = float(m.group(1))
    return x / 1000 if m.group(2) == "us" else (x * 1000 if m.group(2) == "s" else x)
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", txt).group(1))
p50 = ms(re.search(r"\s50%\s+(\S+)", txt).group(1))
p99 = ms(re.search(r"\s99%\s+(\S+)", txt).group(1))
errs = re.search(r"Socket errors: .*|Non-2xx.*", txt)
print("%.0f %.3f %.3f %s" % (rps, p50, p99, "ERR" if errs else "ok"))
'
}

# utime+stime of a process, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

RESULTS="$WORK/results.txt"
: >"$RESULTS"
for SIZE in 2048 65536; do
	A0=$(freeport); PC=$(freeport); UP=$(freeport); ADMIN=$(freeport)
	BODY=$(body "$SIZE")
	cat >"$WORK/Caddyfile" <<CF
{
	admin localhost:$ADMIN
	persist_config off
}
:$A0 {
	header Content-Type application/json
	respond <<BODY
	$BODY
	BODY 200
}
:$UP {
	header Content-Type application/json
	respond <<BODY
	$BODY
	BODY 200
}
:$PC {
	platform_cache obv {
		list {
			path /*
		}
	}
	reverse_proxy 127.0.0.1:$UP
}
CF
	XDG_DATA_HOME="$WORK/data-$SIZE" XDG_CONFIG_HOME="$WORK/config" taskset -c 1 "$WORK/caddy" run --config "$WORK/Caddyfile" --adapter caddyfile >"$WORK/caddy-$SIZE.log" 2>&1 &
	CADDY_PID=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$A0/" >/dev/null && break; sleep 0.1; done
	# Warm up; the first platform_cache request is the one miss.
	curl -fs -o /dev/null "http://127.0.0.1:$PC/"
	STATUS=$(curl -fs -D - -o /dev/null "http://127.0.0.1:$PC/" | tr -d '\r' | grep -i '^cache-status' || true)
	echo "size $SIZE: $STATUS" >&2
	LEN_A0=$(curl -fs "http://127.0.0.1:$A0/" | wc -c); LEN_PC=$(curl -fs "http://127.0.0.1:$PC/" | wc -c)
	[ "$LEN_A0" = "$SIZE" ] && [ "$LEN_PC" = "$SIZE" ] || { echo "body sizes $LEN_A0 / $LEN_PC, want $SIZE" >&2; exit 1; }
	taskset -c 0 wrk -t1 -c"$CONNS" -d3s "http://127.0.0.1:$A0/" >/dev/null
	taskset -c 0 wrk -t1 -c"$CONNS" -d3s "http://127.0.0.1:$PC/" >/dev/null
	# (curl and wrk differ in Accept, so each made one miss; wrk's first 32
	# concurrent misses coalesce into one upstream request.)
	WARM=$(curl -fs "http://localhost:$ADMIN/besluitbron/cache/obv")
	echo "$SIZE warm $WARM" >>"$RESULTS"
	for R in $(seq "$ROUNDS"); do
		for CFG in a0 pc; do
			PORT=$A0; [ "$CFG" = pc ] && PORT=$PC
			CPU0=$(cpu_ticks "$CADDY_PID")
			OUT=$(run_wrk "http://127.0.0.1:$PORT/")
			CPU1=$(cpu_ticks "$CADDY_PID")
			echo "$SIZE $CFG $R $OUT $((CPU1 - CPU0))" | tee -a "$RESULTS" >&2
			sleep 1
		done
	done
	FIG=$(curl -fs "http://localhost:$ADMIN/besluitbron/cache/obv")
	echo "size $SIZE figures: $FIG" >&2
	echo "$SIZE figures $FIG" >>"$RESULTS"
	RSS=$(grep VmHWM /proc/$CADDY_PID/status | awk '{print $2}')
	echo "$SIZE rss_kib $RSS" >>"$RESULTS"
	kill "$CADDY_PID"; wait "$CADDY_PID" 2>/dev/null || true; CADDY_PID=
done

python3 - "$RESULTS" "$HZ" "$DUR" <<'PY'
import sys, json, statistics, re
HZ = float(sys.argv[2])
DUR = float(re.match(r"([\d.]+)", sys.argv[3]).group(1))
rows, figs, warm, rss = {}, {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split(" ", 2)
    if f[1] == "figures":
        figs[f[0]] = json.loads(f[2]); continue
    if f[1] == "warm":
        warm[f[0]] = json.loads(f[2]); continue
    if f[1] == "rss_kib":
        rss[f[0]] = int(f[2]); continue
    size, cfg, r, rest = line.split(" ", 3)
    rps, p50, p99, ok, ticks = rest.split()
    # server CPU microseconds per request (Caddy process, upstream included)
    cpu_us = float(ticks) / HZ * 1e6 / (float(rps) * DUR)
    rows.setdefault((size, cfg), []).append((float(rps), float(p50), float(p99), ok, cpu_us))
for size in ("2048", "65536"):
    print("\n### %s body (median of %d interleaved runs)\n" % ("2 KiB" if size == "2048" else "64 KiB", len(rows[(size, "a0")])))
    print("| config | req/s | x(a0) | p50 ms | p99 ms | CPU us/req | x(a0) | runs req/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    med = {}
    for cfg in ("a0", "pc"):
        rs = rows[(size, cfg)]
        med[cfg] = [statistics.median(x[i] for x in rs) for i in (0, 1, 2, 4)]
    for cfg, name in (("a0", "(a0) Caddy respond, brace-free body"), ("pc", "platform_cache HIT")):
        m = med[cfg]
        runs = "/".join("%.0f" % x[0] for x in rows[(size, cfg)])
        errs = "" if all(x[3] == "ok" for x in rows[(size, cfg)]) else " (errors!)"
        print("| %s | %.0f | %.2f | %.2f | %.2f | %.1f | %.2f | %s%s |" % (name, m[0], m[0] / med["a0"][0], m[1], m[2], m[3], m[3] / med["a0"][3], runs, errs))
    f, w = figs[size], warm[size]
    print("\nplatform_cache during the measured runs: %d hits, %d misses, %d upstream requests (misses and coalesced stay at their warm-up values %d and %d); Caddy peak RSS %.1f MiB" % (
        f["hits"] - w["hits"], f["misses"] - w["misses"], f["stored"] - w["stored"], w["misses"], w["coalesced"], rss[size] / 1024))
PY
