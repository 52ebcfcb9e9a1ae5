#!/usr/bin/env bash
# Upstream connection benchmark: short requests through platform_proxy to a
# TLS upstream across an emulated 50 ms round trip (25 ms each way, NFQUEUE
# delay on ingress in two network namespaces; tc netem is missing on these
# kernels, see docs/upstream.md).
#
#   sudo bench/upstream/run.sh [path/to/caddy]
#
# Needs root, iproute2 and iptables (apt-get install -y iptables). Builds
# the helper programs (own Go module, not part of the test suite) and, when
# no caddy binary is given, ./cmd/caddy. Prints one line per case; the
# figures in docs/benchmarks/upstream.md come from it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
N=${N:-200}
NIDLE=${NIDLE:-15}

(cd "$here" && go build -o "$work/" ./nfdelay ./upstream ./client)
if [ $# -ge 1 ]; then cp "$1" "$work/caddy"; else (cd "$root" && go build -o "$work/caddy" ./cmd/caddy); fi

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	# whatever still runs inside the benchmark's own namespaces
	for n in rttA rttB; do
		for p in $(ip netns pids $n 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	done
	wait 2>/dev/null || true
	ip netns del rttA 2>/dev/null || true
	ip netns del rttB 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add rttA
ip netns add rttB
ip link add vA type veth peer name vB
ip link set vA netns rttA
ip link set vB netns rttB
ip -n rttA addr add 10.200.0.1/24 dev vA
ip -n rttB addr add 10.200.0.2/24 dev vB
for n in rttA rttB; do ip -n $n link set lo up; done
ip -n rttA link set vA up
ip -n rttB link set vB up

# Delay on ingress only (egress NFQUEUE trips TCP small queues, see the reference).
ip netns exec rttA "$work/nfdelay" -queue 0 -delay 25ms >"$work/nfA.log" 2>&1 & pids+=($!)
ip netns exec rttB "$work/nfdelay" -queue 0 -delay 25ms >"$work/nfB.log" 2>&1 & pids+=($!)
sleep 0.5
ip netns exec rttA iptables -t mangle -A PREROUTING -i vA -j NFQUEUE --queue-num 0
ip netns exec rttB iptables -t mangle -A PREROUTING -i vB -j NFQUEUE --queue-num 0

# Two upstreams: one keeps idle connections 5 min, one closes them after 2 s.
ip netns exec rttB "$work/upstream" -addr 10.200.0.2:8443 -cert "$work/upstream.pem" -idle 5m 2>"$work/up1.log" & pids+=($!)
ip netns exec rttB "$work/upstream" -addr 10.200.0.2:8444 -cert "$work/upstream2.pem" -idle 2s 2>"$work/up2.log" & pids+=($!)
sleep 1
cat "$work/upstream.pem" "$work/upstream2.pem" >"$work/ca.pem"

cat >"$work/Caddyfile" <<CADDY
{
	admin off
	auto_https off
	persist_config off
}
http://127.0.0.1:8080 {
	# pooled, defaults (idle_timeout 30s)
	handle_path /platforms/ori/* {
		platform_proxy ori https://10.200.0.2:8443 {
			tls_ca $work/ca.pem
			allow_private 10.200.0.0/24
		}
	}
	# pooled, idle_timeout 2s: a 3 s pause empties the pool
	handle_path /platforms/obv/* {
		platform_proxy obv https://10.200.0.2:8443 {
			tls_ca $work/ca.pem
			allow_private 10.200.0.0/24
			idle_timeout 2s
		}
	}
	# pooled, defaults; the upstream closes idle connections after 2 s
	handle_path /platforms/tk/* {
		platform_proxy tk https://10.200.0.2:8444 {
			tls_ca $work/ca.pem
			allow_private 10.200.0.0/24
		}
	}
	# reference: stock reverse_proxy, a new connection per request
	handle_path /newconn/* {
		reverse_proxy https://10.200.0.2:8443 {
			transport http {
				tls_trust_pool file $work/ca.pem
				keepalive off
				versions 1.1
			}
		}
	}
}
CADDY
ip netns exec rttA env XDG_DATA_HOME="$work" XDG_CONFIG_HOME="$work" "$work/caddy" run --config "$work/Caddyfile" --adapter caddyfile >"$work/caddy.log" 2>&1 & pids+=($!)
for i in $(seq 50); do
	ip netns exec rttA "$work/client" -n 1 -warm 0 -case probe -url http://127.0.0.1:8080/platforms/ori/x >/dev/null 2>&1 && break
	sleep 0.2
done

c() { ip netns exec rttA "$work/client" "$@"; }
q=ori_x/_search?q=woningbouw
echo "# $(date -u +%FT%TZ) load: $(cut -d" " -f1-3 /proc/loadavg)"
echo "# RTT 50 ms emulated; latencies in ms, client -> Caddy (loopback) -> TLS upstream"
c -case "platform_proxy pooled, back-to-back" -n "$N" -url "http://127.0.0.1:8080/platforms/ori/$q" -stats http://127.0.0.1:8080/platforms/ori/stats
c -case "new connection per request (keepalive off)" -n "$N" -url "http://127.0.0.1:8080/newconn/$q"
c -case "platform_proxy, 3 s idle (< idle_timeout 30s)" -n "$NIDLE" -idle 3s -url "http://127.0.0.1:8080/platforms/ori/$q" -stats http://127.0.0.1:8080/platforms/ori/stats
c -case "platform_proxy, 3 s idle (> idle_timeout 2s)" -n "$NIDLE" -idle 3s -url "http://127.0.0.1:8080/platforms/obv/$q" -stats http://127.0.0.1:8080/platforms/obv/stats
c -case "platform_proxy, 3 s idle, upstream closes at 2s" -n "$NIDLE" -idle 3s -url "http://127.0.0.1:8080/platforms/tk/$q" -stats http://127.0.0.1:8080/platforms/tk/stats
if grep -q -i "error" "$work/nfA.log" "$work/nfB.log"; then echo "# nfdelay reported errors:"; cat "$work/nfA.log" "$work/nfB.log"; fi
