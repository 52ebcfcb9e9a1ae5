#!/usr/bin/env bash
# Builds and runs Caddy with BesluitBron's modules.
#
#   ./xcaddy.sh build     build ./caddy (standard Caddy modules + ours)
#   ./xcaddy.sh run       build, then run the repository's Caddyfile
#   ./xcaddy.sh offline   build ./caddy-offline (./caddy plus the platform
#                         emulators), then run everything offline: the
#                         proxy on :8080 with all seven platforms pointed at
#                         the emulators, each on its own loopback port
#   ./xcaddy.sh offline-build
#                         build ./caddy-offline only (the emulators' binary,
#                         e.g. for docker/check.sh), skipped when it is built
#                         from this source already
#   ./xcaddy.sh image     build ./caddy, then the container image
#                         besluitbron:<version> and :latest from
#                         docker/Dockerfile, with podman (docker if there is
#                         no podman), no registry needed (docs/docker.md)
#   ./xcaddy.sh version   print the version stamp a build would carry
#
# Every build is static (CGO_ENABLED=0 unless set otherwise): the image
# runs ./caddy on an empty base (FROM scratch, docker/Dockerfile), and
# ./caddy, ./caddy-offline and the image's binary then share one build
# cache, as Caddy's own release builds do.
#
# xcaddy runs pinned from the Go module proxy (no global install); the Caddy
# version is the one go.mod pins.
#
# The product (./caddy, the Docker image, any `xcaddy --with
# github.com/besluitbron/besluitbron`) holds no emulator: they invent data
# and serve unauthenticated fault injection under /_emulator/. Offline mode
# adds them as a separate package, a second
# `--with github.com/besluitbron/besluitbron/caddymodule/emulator`, the
# same package cmd/caddy-offline imports. A separate package rather than a
# build tag: the product's import graph cannot reach it at all (go list
# -deps shows it, TestProductHoldsNoEmulators checks it), while a tag lives
# in the build command, where one stray -tags would ship the emulators
# unnoticed. The offline binary gets its own name, so ./caddy is always the
# product.
#
# xcaddy v0.4.5 `go get`s every --with package unless it lies under a
# replace written without a version; ours is written @v0.0.0=. (the module
# itself must be fetched at a version), so the sub-package would be looked
# up on the module proxy and not be found. Offline mode therefore adds
# `--replace github.com/besluitbron/besluitbron=.` too: the same directory,
# without a version, so xcaddy takes the sub-package from it.
#
# Every build is stamped with the source it was built from (linked into
# caddymodule/version.Override), because the cache drops entries another
# version wrote and xcaddy's replace of our module (@v0.0.0=.) hides the
# real version from Go's build info:
#
#   BESLUITBRON_VERSION set   that value, verbatim (the Docker build arg)
#   HEAD tagged vX.Y.Z        vX.Y.Z                       (a release)
#   otherwise, in git         <Base>-dev+g<12-hex commit>
#   uncommitted changes       ... + "dirty.<12-hex hash of the changes>"
#   no git at all             <Base>-dev+src.<12-hex hash of the files>
#
# The dirty hash covers `git diff HEAD` and the untracked, not ignored files
# (names and contents), so two different dirty trees differ while rebuilding
# the same tree (./xcaddy.sh run twice) keeps the same stamp and its cache.
# Go's own VCS stamping is not used: CI builds with -buildvcs=false, and
# it only says "modified", not which modification.
set -euo pipefail
cd "$(dirname "$0")"

XCADDY_VERSION=v0.4.5
MODULE=github.com/besluitbron/besluitbron

# sha prints the SHA-256 of stdin, hex only.
sha() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum | cut -c1-64
	else
		shasum -a 256 | cut -c1-64
	fi
}

# base prints version.Base from the source, the version a development build
# is counted from.
base() {
	local b
	b=$(sed -n 's/^const Base = "\(.*\)"$/\1/p' caddymodule/version/version.go 2>/dev/null || true)
	echo "${b:-0.0.0}"
}

# Git pathspecs that leave out the builds' own output.
NOT_OUTPUT=(':(exclude)caddy' ':(exclude)caddy.exe' ':(exclude)caddy-offline' ':(exclude)caddy-offline.exe')

# dirty_hash prints a hash of the uncommitted changes, or nothing when the
# tree is clean. The build's own output (./caddy, ./caddy-offline) never
# counts.
dirty_hash() {
	local untracked
	untracked=$(git ls-files --others --exclude-standard -- . "${NOT_OUTPUT[@]}")
	if git diff --quiet HEAD -- . && [ -z "$untracked" ]; then
		return
	fi
	{
		git -c core.quotepath=off diff --no-color --no-ext-diff --binary HEAD -- .
		git ls-files -z --others --exclude-standard -- . "${NOT_OUTPUT[@]}" |
			while IFS= read -r -d '' f; do
				printf 'untracked %s %s\n' "$f" "$(git hash-object -- "$f")"
			done
	} | sha | cut -c1-12
}

# source_hash prints a hash of the files when there is no git: a Docker
# context without .git and without the build arg still stamps its source.
source_hash() {
	find . -path ./.git -prune -o -name node_modules -prune -o -type f \
		! -path ./caddy ! -path ./caddy.exe ! -path ./caddy-offline ! -path ./caddy-offline.exe -print0 |
		LC_ALL=C sort -z |
		while IFS= read -r -d '' f; do
			printf '%s %s\n' "$f" "$(sha <"$f")"
		done | sha | cut -c1-12
}

# stamp prints the version this source builds as (see the top).
stamp() {
	local v tag dirty
	if [ -n "${BESLUITBRON_VERSION:-}" ]; then
		v=$BESLUITBRON_VERSION
	elif command -v git >/dev/null 2>&1 && git rev-parse --verify -q HEAD >/dev/null 2>&1; then
		tag=$(git tag --points-at HEAD --list 'v[0-9]*.[0-9]*.[0-9]*' --sort=-v:refname | head -n1)
		dirty=$(dirty_hash)
		if [ -n "$tag" ]; then
			v=$tag${dirty:++dirty.$dirty}
		else
			v=$(base)-dev+g$(git rev-parse --short=12 HEAD)${dirty:+.dirty.$dirty}
		fi
	else
		v=$(base)-dev+src.$(source_hash)
	fi
	# The stamp goes into linker flags and into every cache entry (at most
	# 255 bytes): semver characters only.
	if ! [[ $v =~ ^[0-9A-Za-z][0-9A-Za-z.+_-]{0,99}$ ]]; then
		echo "xcaddy.sh: version stamp \"$v\" is not [0-9A-Za-z.+_-], at most 100 characters" >&2
		return 1
	fi
	echo "$v"
}

# build OUTPUT [PACKAGE...] builds OUTPUT from Caddy, our module and the
# given extra packages of our module (each one more --with).
build() {
	local v out=$1 pkg
	shift
	local with=(--with "${MODULE}@v0.0.0=.")
	if [ $# -gt 0 ]; then
		# Sub-packages come from the same directory (see the top).
		with+=(--replace "${MODULE}=.")
	fi
	for pkg in "$@"; do
		with+=(--with "${MODULE}/${pkg}")
	done
	v=$(stamp)
	export CGO_ENABLED=${CGO_ENABLED:-0}
	CADDY_VERSION=$(go list -m -f '{{.Version}}' github.com/caddyserver/caddy/v2)
	export CADDY_VERSION
	# xcaddy's own defaults (-w -s, -trimpath, its tags) apply only when
	# XCADDY_GO_BUILD_FLAGS is empty, so they are repeated here with the stamp.
	export XCADDY_GO_BUILD_FLAGS="-ldflags '-w -s -X ${MODULE}/caddymodule/version.Override=${v}' -trimpath -tags nobadger,nomysql,nopgx"
	echo "xcaddy.sh: building ${out}, BesluitBron ${v}" >&2
	go run "github.com/caddyserver/xcaddy/cmd/xcaddy@${XCADDY_VERSION}" build "${CADDY_VERSION}" \
		--output "$out" \
		"${with[@]}"
}

# The packages offline mode adds to the product, the same ones
# cmd/caddy-offline imports.
OFFLINE_PACKAGES=(caddymodule/emulator)

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
	export BESLUITBRON_BWB_URL=${BESLUITBRON_BWB_URL:-http://127.0.0.1:9109}
	export BESLUITBRON_CVDR_URL=${BESLUITBRON_CVDR_URL:-http://127.0.0.1:9110}
	export BESLUITBRON_ALLOW_PRIVATE=${BESLUITBRON_ALLOW_PRIVATE:-127.0.0.1/8}
}

# emulators_running tells whether the emulators of an earlier
# ./xcaddy.sh offline already answer (OBV's, at BESLUITBRON_OBV_URL).
emulators_running() {
	local hostport=${BESLUITBRON_OBV_URL#http://}
	hostport=${hostport%%/*}
	timeout 2 bash -c '
		exec 3<>"/dev/tcp/${1%:*}/${1##*:}" || exit 1
		printf "GET /_emulator/stats HTTP/1.0\r\nHost: %s\r\n\r\n" "$1" >&3
		IFS= read -r line <&3 || exit 1
		[[ $line == "HTTP/1."?" 200"* ]]' _ "$hostport" 2>/dev/null
}

# build_offline builds ./caddy-offline unless it is built from this source
# already (./caddy-offline.stamp holds the stamp it was built with).
build_offline() {
	if [ -x ./caddy-offline ] && [ "$(cat ./caddy-offline.stamp 2>/dev/null)" = "$(stamp)" ]; then
		echo "xcaddy.sh: ./caddy-offline is built from this source already" >&2
	else
		build ./caddy-offline "${OFFLINE_PACKAGES[@]}"
		stamp >./caddy-offline.stamp
	fi
}

# image builds ./caddy and the container image from it, without a
# registry: docker/rootfs.sh lays out the image's files (the binary, the
# Caddyfile, CA certificates, time zones, the user) in a directory, and
# docker/Dockerfile takes them from there instead of from its builder
# stage (BESLUITBRON_ROOTFS=prebuilt). One Dockerfile, so the image an
# operator builds from the registry's golang image is this one.
image() {
	local v tag engine ctx
	v=$(stamp)
	build ./caddy
	if ! go version -m ./caddy | grep -q 'CGO_ENABLED=0'; then
		echo "xcaddy.sh: ./caddy is not static (CGO_ENABLED=0); the image has no C library" >&2
		return 1
	fi
	if command -v podman >/dev/null 2>&1; then
		# podman's default OCI format has no HEALTHCHECK.
		engine=(podman build --format docker)
	elif command -v docker >/dev/null 2>&1; then
		engine=(docker build)
	else
		echo "xcaddy.sh: neither podman nor docker is installed" >&2
		return 1
	fi
	ctx=$(mktemp -d)
	# shellcheck disable=SC2064 # the directory is known now
	trap "rm -rf '$ctx'" EXIT
	docker/rootfs.sh ./caddy "$ctx/rootfs"
	# An image tag has no "+": a build's metadata follows "_" there.
	tag=${v//+/_}
	echo "xcaddy.sh: building the image besluitbron:${tag} with ${engine[0]}" >&2
	"${engine[@]}" -f docker/Dockerfile \
		--build-arg BESLUITBRON_ROOTFS=prebuilt \
		--build-arg "BESLUITBRON_VERSION=${v}" \
		-t "besluitbron:${tag}" -t besluitbron:latest \
		"$ctx"
	if [ "${engine[0]}" = podman ]; then
		# The prebuilt stage's layers, kept by podman as build cache, are
		# a second copy of the binary.
		podman image prune -f --filter label=org.besluitbron.stage=prebuilt >/dev/null
	fi
}

case "${1:-}" in
build)
	build ./caddy
	;;
run)
	build ./caddy
	exec ./caddy run --config Caddyfile --adapter caddyfile
	;;
offline)
	offline_env
	# Several instances on one machine (docs/scaling.md): one at a time
	# builds and looks for running emulators, so two started together
	# neither build over each other nor both start emulators.
	exec 9>"${TMPDIR:-/tmp}/besluitbron-offline.lock"
	if command -v flock >/dev/null 2>&1; then flock 9; fi
	build_offline
	config=Caddyfile.offline
	if emulators_running; then
		# Caddy binds with SO_REUSEPORT: a second set of emulators on the
		# same ports would silently take half the traffic (two OBV buckets,
		# statistics of half). Join the running ones instead.
		config=Caddyfile
		echo "xcaddy.sh: the emulators already answer at ${BESLUITBRON_OBV_URL}; this instance uses them" >&2
	fi
	./caddy-offline run --config "$config" --adapter caddyfile 9>&- &
	pid=$!
	trap 'kill -TERM "$pid" 2>/dev/null' INT TERM
	if [ "$config" = Caddyfile.offline ]; then
		# Hold the lock until this instance's emulators answer.
		for _ in $(seq 1 300); do
			emulators_running && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	exec 9>&-
	wait "$pid"
	;;
offline-build)
	build_offline
	;;
image)
	image
	;;
version)
	stamp
	;;
*)
	echo "usage: $0 build|run|offline|offline-build|image|version" >&2
	exit 2
	;;
esac
