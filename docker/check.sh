#!/usr/bin/env bash
# Builds the container image with ./xcaddy.sh image and runs it as an
# operator would, with podman and runc, on the host network:
#
#   - the image: a non-root user, the labels, no shell, the volumes;
#   - /status.json answers 200 with the build's stamp, and the image's
#     HEALTHCHECK passes;
#   - a request to /platforms/obv/ reaches the OpenBesluitvorming emulator
#     on the host (./caddy-offline serving the emulator alone: the image
#     holds none) through BESLUITBRON_OBV_URL;
#   - SIGTERM with an answer in flight and an MCP client's event stream
#     open: the answer arrives whole and Caddy exits 0 within the stop
#     grace period (podman would kill it at the end, exit 137);
#   - the cache survives the container: a new container on the same volume
#     serves the answers the first one stored, the last one written just
#     before SIGTERM, without asking the emulator again;
#   - on a /data it cannot write, caddy does not start and says why.
#
# It prints the image's size, the time from `podman run` to the first 200
# on /status.json and the resident memory of the idle container; with
# BESLUITBRON_IMAGE_FIGURES=1 also that of the bare ./caddy on the host
# (docs/benchmarks.md, issue 34).
#
# Where podman cannot run it says why and skips, unless CI=true, where it
# fails. Everything it makes (the containers.conf, podman's storage, the
# volume, the logs) lives in one temporary directory: the host's podman
# images and configuration are left as they were.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "docker/check.sh [${SECONDS} s]: $*"; }
fail() {
	say "FAIL: $*" >&2
	exit 1
}
# cannot_run: podman cannot run containers on this machine.
cannot_run() {
	if [ "${CI:-}" = true ]; then
		fail "podman cannot run the image here: $*"
	fi
	say "SKIP: podman cannot run the image here: $*" >&2
	exit 0
}

command -v podman >/dev/null 2>&1 || cannot_run "podman is not installed (apt-get install podman runc)"
command -v runc >/dev/null 2>&1 || cannot_run "runc is not installed (apt-get install runc)"
command -v curl >/dev/null 2>&1 || fail "curl is not installed"

work=$(mktemp -d)
pids=()
cleanup() {
	local pid
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	if [ -n "${CONTAINERS_STORAGE_CONF:-}" ]; then
		# This check's own storage (below): its containers, volumes and
		# images only.
		podman rm -a -f -t 0 >/dev/null 2>&1 || true
		podman volume rm -a -f >/dev/null 2>&1 || true
		podman rmi -a -f >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# This check's own podman configuration, in place of the host's (an
# operator's /etc/containers is not touched):
#   - no default ulimits: this sandbox refuses setrlimit, and runc fails
#     to start a container that asks for one;
#   - runc, not crun: crun refuses the machine's hybrid cgroups;
#   - cgroupfs and a file for events: there is no systemd;
#   - storage and podman's own state in the temporary directory.
cat >"$work/containers.conf" <<EOF
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$work/libpod"
EOF
cat >"$work/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$work/storage"
runroot = "$work/run"
EOF
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
if ! podman info >/dev/null 2>"$work/podman-info.err"; then
	cannot_run "podman info failed: $(tail -n 3 "$work/podman-info.err")"
fi

# --- the image ------------------------------------------------------------

# The stamp once: tests running beside this check may add files to the
# tree, which would change a stamp computed again.
BESLUITBRON_VERSION=$(./xcaddy.sh version)
export BESLUITBRON_VERSION
version=$BESLUITBRON_VERSION
tag=${version//+/_}
image=besluitbron:$tag
./xcaddy.sh image
./xcaddy.sh offline-build
say "image $image built"

inspect() { podman image inspect --format "$1" "$image"; }
[ "$(inspect '{{.Config.User}}')" = 10001:10001 ] || fail "the image's user is $(inspect '{{.Config.User}}'), want 10001:10001"
[ "$(inspect '{{index .Labels "org.opencontainers.image.version"}}')" = "$version" ] ||
	fail "the version label is $(inspect '{{index .Labels "org.opencontainers.image.version"}}'), want $version"
[ -n "$(inspect '{{index .Labels "org.opencontainers.image.source"}}')" ] || fail "no org.opencontainers.image.source label"
for volume in /data /config; do
	inspect '{{range $v, $_ := .Config.Volumes}}{{$v}} {{end}}' | grep -qw -- "$volume" || fail "$volume is not a volume"
done
inspect '{{.Config.ExposedPorts}}' | grep -q 8080 || fail "port 8080 is not exposed"
inspect '{{.Config.Healthcheck.Test}}' | grep -q /usr/bin/healthcheck || fail "no HEALTHCHECK"

# The files of the image, read from a container that is never started.
podman create --name bb-check-1 "$image" >/dev/null
podman export bb-check-1 | tar -tvf - >"$work/files"
# (podman, without systemd, logs that it has no health-check timer to remove.)
podman rm bb-check-1 >/dev/null 2>&1
for file in usr/bin/caddy usr/bin/healthcheck etc/caddy/Caddyfile etc/ssl/certs/ca-certificates.crt \
	usr/share/zoneinfo/Europe/Amsterdam etc/passwd; do
	grep -q " $file\$" "$work/files" || fail "the image lacks /$file"
done
if grep -E ' (bin/sh|bin/bash|usr/bin/apt|usr/bin/dpkg|sbin/apk)( |$)' "$work/files"; then
	fail "the image holds a shell or a package manager"
fi
size=$(inspect '{{.Size}}')
say "image size $((size / 1000000)) MB ($size bytes); caddy $(awk '$NF == "usr/bin/caddy" {print $3}' "$work/files") bytes"

# --- the emulator on the host --------------------------------------------

# free_port prints a port nothing on the host listens on.
free_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 12000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	fail "no free port found"
}
emulator_port=$(free_port)
http_port=$(free_port)
admin_port=$(free_port)
emulator=http://127.0.0.1:$emulator_port

cat >"$work/emulator.Caddyfile" <<EOF
{
	admin off
	persist_config off
}
http://127.0.0.1:$emulator_port {
	besluitbron_emulator obv
}
EOF
XDG_DATA_HOME=$work/host-data XDG_CONFIG_HOME=$work/host-config \
	./caddy-offline run --config "$work/emulator.Caddyfile" --adapter caddyfile >"$work/emulator.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
	curl -fsS -o /dev/null "$emulator/_emulator/stats" 2>/dev/null && break
	sleep 0.05
done
curl -fsS -o /dev/null "$emulator/_emulator/stats" || fail "the emulator did not start: $(tail -n 5 "$work/emulator.log")"
# emulator_stat NAME prints a number of the emulator's /_emulator/stats.
# (0 while it is not in the statistics yet).
emulator_stat() {
	local n
	n=$(curl -fsS "$emulator/_emulator/stats" | grep -o "\"$1\": *[0-9]*" | head -n 1 | grep -o '[0-9]*$' || true)
	echo "${n:-0}"
}
# emulator_searches prints how many searches the emulator has answered.
emulator_searches() { emulator_stat /api/search; }
emulator_in_flight() { emulator_stat in_flight; }

# --- the container --------------------------------------------------------

podman volume create bb-check-data >/dev/null
podman volume create bb-check-config >/dev/null
base=http://127.0.0.1:$http_port

# start NAME starts a container of the image as an operator would, on the
# host network (the emulator is on the host's loopback), and waits for the
# first 200 on /status.json; started_ms is the milliseconds that took.
started_ms=
start() {
	local name=$1 t0 t1
	t0=$(date +%s%N)
	if ! podman run -d --name "$name" --network host \
		-v bb-check-data:/data -v bb-check-config:/config \
		-e BESLUITBRON_PORT="$http_port" -e BESLUITBRON_ADMIN="127.0.0.1:$admin_port" \
		-e BESLUITBRON_OBV_URL="$emulator" -e BESLUITBRON_ALLOW_PRIVATE=127.0.0.1/8 \
		-e BESLUITBRON_CASELAW=off -e BESLUITBRON_CONTACT=ci@besluitbron.invalid \
		-e BESLUITBRON_GRACE_PERIOD=3s \
		"$image" >/dev/null 2>"$work/run.err"; then
		if [ "$name" = bb-check-1 ]; then
			cannot_run "podman run failed: $(tail -n 3 "$work/run.err")"
		fi
		fail "podman run failed: $(cat "$work/run.err")"
	fi
	for _ in $(seq 1 600); do
		if curl -fsS -o /dev/null "$base/status.json" 2>/dev/null; then
			t1=$(date +%s%N)
			started_ms=$(((t1 - t0) / 1000000))
			return
		fi
		[ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || break
		sleep 0.02
	done
	podman logs "$name" >&2 || true
	fail "$name did not answer /status.json"
}

# stop NAME sends SIGTERM and waits at most the grace period; Caddy must
# exit 0 by itself.
grace=10
stop() {
	local name=$1 code
	# (Its stderr: without systemd, podman logs that it has no health-check
	# timer to remove.)
	podman stop -t "$grace" "$name" >/dev/null 2>"$work/stop.err"
	code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
	if [ "$code" != 0 ]; then
		cat "$work/stop.err" >&2
		podman logs "$name" 2>&1 | tail -n 20 >&2
		fail "$name exited $code on SIGTERM, want 0 within the ${grace} s grace period"
	fi
}

# get URL prints the answer's Cache-Status and fails unless it is 200.
get() {
	local status
	status=$(curl -sS -o "$work/body" -D "$work/headers" -w '%{http_code}' "$1")
	[ "$status" = 200 ] || fail "GET $1 answered $status: $(head -c 300 "$work/body")"
	tr -d '\r' <"$work/headers" | sed -n 's/^[Cc]ache-[Ss]tatus: //p'
}

start bb-check-1
say "first 200 on /status.json ${started_ms} ms after podman run"

served=$(curl -fsS "$base/status.json" | grep -o '"version": *"[^"]*"' | head -n 1 | sed 's/.*: *"\(.*\)"/\1/')
[ "$served" = "$version" ] || fail "/status.json carries the version \"$served\", want the stamp $version"
podman healthcheck run bb-check-1 >/dev/null || fail "the image's HEALTHCHECK failed"
pid=$(podman inspect --format '{{.State.Pid}}' bb-check-1)
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$uid" = 10001 ] || fail "caddy runs as uid $uid in the container, want 10001"
say "/status.json carries $version; the HEALTHCHECK passes; caddy runs as uid $uid"

# A search reaches the emulator on the host, and is stored.
first=$base'/platforms/obv/api/search?query=woningbouw&limit=3'
before=$(emulator_searches)
status=$(get "$first")
after=$(emulator_searches)
[ "$after" = $((before + 1)) ] ||
	fail "GET $first did not reach the emulator once (searches before $before, after $after; Cache-Status: $status): $(curl -sS "$emulator/_emulator/stats")"
say "a search reached the emulator through BESLUITBRON_OBV_URL (Cache-Status: $status)"

# An MCP client holding its event stream open when SIGTERM comes: the
# stream never ends by itself, so Caddy must end it after its grace period
# (BESLUITBRON_GRACE_PERIOD, 3 s here) and still exit 0 within podman's
# 10 s.
mcp_post() {
	curl -sS -X POST "$base/mcp/alles" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' "$@"
}
session=$(mcp_post -D - -o /dev/null -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"docker-check","version":"1"}}}' |
	tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
[ -n "$session" ] || fail "POST /mcp/alles initialize gave no Mcp-Session-Id"
mcp_post -H "Mcp-Session-Id: $session" -o /dev/null -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
curl -sS -N -D "$work/stream.headers" -o /dev/null "$base/mcp/alles" \
	-H 'Accept: text/event-stream' -H "Mcp-Session-Id: $session" 2>/dev/null &
stream_pid=$!
for _ in $(seq 1 200); do
	grep -q '^HTTP/1.1 200' "$work/stream.headers" 2>/dev/null && break
	sleep 0.01
done
grep -q '^HTTP/1.1 200' "$work/stream.headers" || fail "GET /mcp/alles did not open an event stream: $(cat "$work/stream.headers")"

# An answer in flight when SIGTERM comes: the emulator holds it for 2 s.
curl -fsS -X POST "$emulator/_emulator/faults" -d '{"path_prefix":"/api/search","latency":"2s","count":1}' >/dev/null
slow=$base'/platforms/obv/api/search?query=dijkversterking&limit=3'
{
	code=0
	curl -sS -o "$work/slow.body" -w '%{http_code}' "$slow" >"$work/slow.status" 2>"$work/slow.err" || code=$?
	echo "$code" >"$work/slow.exit"
} &
slow_pid=$!
for _ in $(seq 1 200); do
	[ "$(emulator_in_flight)" -ge 1 ] && break
	sleep 0.01
done
[ "$(emulator_in_flight)" -ge 1 ] || fail "the slow search never reached the emulator"
kill -0 "$stream_pid" 2>/dev/null || fail "the MCP event stream ended before SIGTERM"
t0=$(date +%s%N)
stop bb-check-1
t1=$(date +%s%N)
# podman has stopped the container, so the stream has ended too.
wait "$stream_pid" || true
wait "$slow_pid"
# curl exits non-zero on an answer cut short of its length.
[ "$(cat "$work/slow.status")" = 200 ] && [ "$(cat "$work/slow.exit")" = 0 ] ||
	fail "the answer in flight at SIGTERM: status $(cat "$work/slow.status"), curl exit $(cat "$work/slow.exit") $(cat "$work/slow.err")"
say "SIGTERM with an answer in flight and an MCP stream open: the answer arrived whole (200), caddy exited 0 after $(((t1 - t0) / 1000000)) ms (podman's grace ${grace} s, Caddy's 3 s)"

# An answer stored just before SIGTERM, then a new container on the same
# volume: both searches are hits there, the emulator is not asked.
start bb-check-2
say "bb-check-2: first 200 on /status.json ${started_ms} ms after podman run"
last=$base'/platforms/obv/api/search?query=stikstof&limit=3'
get "$last" >/dev/null
stop bb-check-2
start bb-check-3
say "bb-check-3: first 200 on /status.json ${started_ms} ms after podman run"
before=$(emulator_searches)
for url in "$first" "$slow" "$last"; do
	status=$(get "$url")
	case $status in
	*"; hit"*) ;;
	*) fail "after the restart GET $url is not a cache hit (Cache-Status: $status)" ;;
	esac
done
[ "$(emulator_searches)" = "$before" ] || fail "after the restart the emulator was asked again: $(curl -sS "$emulator/_emulator/stats")"
say "a new container on the same volume served all three searches from the cache (the last stored just before SIGTERM)"

# A data volume the user cannot write (a host directory owned by root):
# Caddy does not start, and says which directory it cannot write.
mkdir -p "$work/root-owned"
chmod 755 "$work/root-owned"
code=0
timeout 120 podman run --rm --name bb-check-4 --network host -v "$work/root-owned:/data" \
	-e BESLUITBRON_PORT="$http_port" -e BESLUITBRON_ADMIN="127.0.0.1:$admin_port" -e BESLUITBRON_CASELAW=off \
	"$image" >"$work/root-owned.log" 2>&1 || code=$?
if [ "$code" = 0 ] || [ "$code" = 124 ] || ! grep -q 'mkdir /data/caddy: permission denied' "$work/root-owned.log"; then
	tail -n 5 "$work/root-owned.log" >&2
	fail "on a /data it cannot write, caddy exited $code without naming the directory"
fi
say "on a /data it cannot write, caddy refuses to start (exit $code) and names /data/caddy"

# Idle memory, after the checks' requests are answered (for the figures
# after 5 s, as the bare binary's below).
if [ "${BESLUITBRON_IMAGE_FIGURES:-}" = 1 ]; then sleep 5; fi
pid=$(podman inspect --format '{{.State.Pid}}' bb-check-3)
conmon=$(podman inspect --format '{{.State.ConmonPid}}' bb-check-3)
say "idle RSS in the container: caddy $(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status") kB, conmon $(awk '/^VmRSS:/ {print $2}' "/proc/$conmon/status") kB"
stop bb-check-3

if [ "${BESLUITBRON_IMAGE_FIGURES:-}" = 1 ]; then
	# Five starts each, side by side: the image on a new volume, and the
	# same binary with the same configuration bare on the host, in a new
	# directory; the resident memory 5 s after the first 200, no requests.
	for i in 1 2 3 4 5; do
		podman volume create "bb-figures-$i" >/dev/null
		t0=$(date +%s%N)
		podman run -d --name "bb-figures-$i" --network host -v "bb-figures-$i:/data" \
			-e BESLUITBRON_PORT="$http_port" -e BESLUITBRON_ADMIN="127.0.0.1:$admin_port" \
			-e BESLUITBRON_OBV_URL="$emulator" -e BESLUITBRON_ALLOW_PRIVATE=127.0.0.1/8 \
			-e BESLUITBRON_CASELAW=off -e BESLUITBRON_CONTACT=ci@besluitbron.invalid \
			"$image" >/dev/null
		until curl -fsS -o /dev/null "$base/status.json" 2>/dev/null; do sleep 0.02; done
		t1=$(date +%s%N)
		sleep 5
		pid=$(podman inspect --format '{{.State.Pid}}' "bb-figures-$i")
		say "figures $i: image: first 200 after $(((t1 - t0) / 1000000)) ms, idle RSS $(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status") kB"
		stop "bb-figures-$i"

		mkdir -p "$work/bare-$i"
		t0=$(date +%s%N)
		XDG_DATA_HOME=$work/bare-$i/data XDG_CONFIG_HOME=$work/bare-$i/config \
			BESLUITBRON_PORT=$http_port BESLUITBRON_ADMIN=127.0.0.1:$admin_port \
			BESLUITBRON_OBV_URL=$emulator BESLUITBRON_ALLOW_PRIVATE=127.0.0.1/8 \
			BESLUITBRON_CASELAW=off BESLUITBRON_CONTACT=ci@besluitbron.invalid \
			./caddy run --config Caddyfile --adapter caddyfile >"$work/bare-$i/log" 2>&1 &
		bare=$!
		pids+=("$bare")
		until curl -fsS -o /dev/null "$base/status.json" 2>/dev/null; do sleep 0.02; done
		t1=$(date +%s%N)
		sleep 5
		say "figures $i: bare ./caddy: first 200 after $(((t1 - t0) / 1000000)) ms, idle RSS $(awk '/^VmRSS:/ {print $2}' "/proc/$bare/status") kB"
		kill -TERM "$bare"
		wait "$bare" || true
	done
fi
say "ok"
