#!/usr/bin/env bash
# Lays out the files of the container image in a directory:
#
#   docker/rootfs.sh CADDY_BINARY OUTPUT_DIRECTORY
#
#   usr/bin/caddy                     the static binary of ./xcaddy.sh build
#   usr/bin/healthcheck               the HEALTHCHECK (docker/healthcheck)
#   etc/caddy/Caddyfile               the default Caddyfile
#   etc/ssl/certs/ca-certificates.crt Debian's ca-certificates bundle
#   usr/share/zoneinfo/               Debian's tzdata
#   etc/passwd, etc/group             root and the user besluitbron (10001)
#   data/, config/, tmp/              empty: the volumes, and a /tmp
#
# Both ways of building the image run it, so they cannot drift:
# docker/Dockerfile's builder stage (an operator with the golang image)
# and ./xcaddy.sh image (on this host, no registry). The certificates and
# the time zones come from the Debian the script runs on: the golang
# image's bookworm there, the host's here.
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 CADDY_BINARY OUTPUT_DIRECTORY" >&2
	exit 2
fi
binary=$1
out=$2
cd "$(dirname "$0")/.."

certs=/etc/ssl/certs/ca-certificates.crt
zoneinfo=/usr/share/zoneinfo
if [ ! -s "$certs" ]; then
	echo "rootfs.sh: no CA certificates at $certs (install Debian's ca-certificates)" >&2
	exit 1
fi
if [ ! -e "$zoneinfo/Europe/Amsterdam" ]; then
	echo "rootfs.sh: no time-zone data in $zoneinfo (install Debian's tzdata)" >&2
	exit 1
fi

mkdir -p "$out/usr/bin" "$out/etc/caddy" "$out/etc/ssl/certs" "$out/usr/share/zoneinfo" \
	"$out/data" "$out/config" "$out/tmp"
chmod 1777 "$out/tmp"
cp "$binary" "$out/usr/bin/caddy"
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$out/usr/bin/healthcheck" ./docker/healthcheck
cp Caddyfile "$out/etc/caddy/Caddyfile"
cp "$certs" "$out/etc/ssl/certs/ca-certificates.crt"
# localtime is the host's own zone, a link out of the directory.
tar -C "$zoneinfo" --exclude=./localtime -cf - . | tar -C "$out/usr/share/zoneinfo" -xf -
cat >"$out/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
besluitbron:x:10001:10001:BesluitBron:/data:/sbin/nologin
EOF
cat >"$out/etc/group" <<'EOF'
root:x:0:
besluitbron:x:10001:
EOF
