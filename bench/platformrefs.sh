#!/bin/sh
# Counts the references to a platform in generic code (docs/benchmarks.md,
# "One home per platform"): non-test Go outside a platform's folder, its
# emulator and internal/, that names a platform by its key constant
# (platforms.OBV), its key as a string ("obv"), or imports or calls a
# platform's package (obv.SearchRequest). Run at the repository's root:
#   bench/platformrefs.sh [rev]    (default: the working tree)
set -eu
rev=${1:-}
dir=.
if [ -n "$rev" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	git archive "$rev" | tar -x -C "$dir"
fi
keys='obv|tk|opentk|ob|rechtspraak|ori|oa|bwb|cvdr'
consts='OBV|TK|OpenTK|OB|Rechtspraak|ORI|OA|BWB|CVDR'
cd "$dir"
find . -name '*.go' ! -name '*_test.go' | sed 's#^\./##' |
	grep -Ev "^(adapters|platforms)/($keys)/|emulators?/|^internal/|^bench/|^(caddymodule/)?platforms/(platforms|defaults|price)\.go$" |
	xargs grep -nE "platforms\.($consts)\b|\"($keys)\"|besluitbron/(adapters|platforms)/($keys)\b|\b($keys)\.[A-Z]" |
	awk -F: '{ files[$1]++; n++ } END { printf "%d references in %d files\n", n, length(files) }'
