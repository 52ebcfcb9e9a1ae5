#!/usr/bin/env bash
# Builds and runs Caddy with BesluitBron's modules.
#
#   ./xcaddy.sh build     build ./caddy (standard Caddy modules + ours)
#   ./xcaddy.sh run       build, then run the repository's Caddyfile
#   ./xcaddy.sh offline   build, then run everything offline: the proxy on
#                         :8080 with all seven platforms pointed at the
#                         emulators, each on its own loopback port
#
# xcaddy runs pinned from the Go module proxy (no global install); the Caddy
# version is the one go.mod pins.
set -euo pipefail
cd "$(dirname "$0")"

XCADDY_VERSION=v0.4.5
MODULE=github.com/besluitbron/besluitbron
CADDY_VERSION=$(go list -m -f '{{.Version}}' github.com/caddyserver/caddy/v2)
export CADDY_VERSION

build() {
	go run "github.com/caddyserver/xcaddy/cmd/xcaddy@${XCADDY_VERSION}" build "${CADDY_VERSION}" \
		--output ./caddy \
		--with "${MODULE}@v0.0.0=."
}

# Loopback ports of the emulators in offline mode; Caddyfile.offline serves
# them and the platform routes are pointed at them.
offline_env() {
	export BESLUITBRON_ORI_URL=${BESLUITBRON_ORI_URL:-http://127.0.0.1:9101}
	export BESLUITBRON_OBV_URL=${BESLUITBRON_OBV_URL:-http://127.0.0.1:9102}
	export BESLUITBRON_TK_URL=${BESLUITBRON_TK_URL:-http://127.0.0.1:9103}
	export BESLUITBRON_OPENTK_URL=${BESLUITBRON_OPENTK_URL:-http://127.0.0.1:9104 http://127.0.0.1:9105/tkconv}
	export BESLUITBRON_OB_URL=${BESLUITBRON_OB_URL:-http://127.0.0.1:9106}
	export BESLUITBRON_RECHTSPRAAK_URL=${BESLUITBRON_RECHTSPRAAK_URL:-http://127.0.0.1:9107}
	export BESLUITBRON_OA_URL=${BESLUITBRON_OA_URL:-http://127.0.0.1:9108}
	export BESLUITBRON_ALLOW_PRIVATE=${BESLUITBRON_ALLOW_PRIVATE:-127.0.0.1/8}
}

case "${1:-}" in
build)
	build
	;;
run)
	build
	exec ./caddy run --config Caddyfile --adapter caddyfile
	;;
offline)
	build
	offline_env
	exec ./caddy run --config Caddyfile.offline --adapter caddyfile
	;;
*)
	echo "usage: $0 build|run|offline" >&2
	exit 2
	;;
esac
