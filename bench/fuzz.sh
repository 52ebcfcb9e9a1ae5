#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 5m), one after another,
# and prints a summary: executions, new corpus entries and crashes per
# target. A crash leaves its input under the package's testdata/fuzz/<target>/,
# where plain `go test` replays it from then on (commit it with the fix).
#
#   bench/fuzz.sh                      every target, 5 minutes each
#   FUZZTIME=20s bench/fuzz.sh         every target, 20 seconds each
#   bench/fuzz.sh FuzzKey FuzzParse    only targets with these names
#
# FUZZPARALLEL sets go test -parallel (the fuzzing workers; default: all
# cores). FUZZMINIMIZETIME bounds the minimizing of each new input
# (default 10s; go test's own default, 60s, can eat a short run whole
# while the counters stand still). The exit status is 1 when any target
# crashed or did not build.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-5m}
FUZZPARALLEL=${FUZZPARALLEL:-}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-10s}

# package:target, the platform answer parsers first.
TARGETS=(
	./platforms/obv:FuzzParse
	./platforms/tk:FuzzParse
	./platforms/ob:FuzzParse
	./platforms/rechtspraak:FuzzParse
	./platforms/rechtspraak:FuzzParseFeed
	./platforms/opentk:FuzzParse
	./platforms/ori:FuzzParse
	./platforms/oa:FuzzParse
	./platforms/bwb:FuzzParse
	./platforms/cvdr:FuzzParse
	./cache:FuzzKey
	./canonical:FuzzBuild
	./canonical:FuzzMultipart
	./caddymodule/platformcache:FuzzUnmarshalCaddyfile
	./caddymodule/platformlimit:FuzzUnmarshalCaddyfile
	./caddymodule/platformproxy:FuzzUnmarshalCaddyfile
	./caddymodule/clientlimit:FuzzUnmarshalCaddyfile
	./mcp:FuzzUnmarshalCaddyfile
	./mcp:FuzzToolArguments
)

logs=$(mktemp -d)
summary=()
crashed=0
for t in "${TARGETS[@]}"; do
	pkg=${t%%:*}
	name=${t##*:}
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
		continue
	fi
	log="$logs/$(echo "$pkg" | tr -c 'A-Za-z0-9\n' _)_$name.log"
	echo "== $pkg $name ($FUZZTIME)" >&2
	start=$(date +%s)
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" ${FUZZPARALLEL:+-parallel "$FUZZPARALLEL"} "$pkg" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	last=$(grep -E '^fuzz: elapsed' "$log" | tail -n1)
	execs=$(echo "$last" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
	newc=$(echo "$last" | sed -n 's/.*new interesting: \([0-9]*\).*/\1/p')
	if [ $rc -eq 0 ]; then
		result=ok
	elif grep -q 'build failed\|^# ' "$log" && [ -z "$last" ]; then
		crashed=1
		result="BUILD FAILED (see $log)"
	else
		crashed=1
		input=$(sed -n 's/.*Failing input written to \(.*\)$/\1/p' "$log" | head -n1)
		result="CRASH ${input:-(see $log)}"
		grep -E '^\s+(fuzz_test|.*\.go):[0-9]+:' "$log" | head -n3 >&2
	fi
	summary+=("$(printf '%-30s %-24s %6ss %12s %6s  %s' "$pkg" "$name" "$took" "${execs:-?}" "${newc:-?}" "$result")")
done

printf '\n%-30s %-24s %7s %12s %6s  %s\n' package target wall execs new result
printf '%s\n' "${summary[@]}"
echo "logs: $logs"
exit $crashed
