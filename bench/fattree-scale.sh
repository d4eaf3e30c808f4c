#!/bin/sh
# bench/fattree-scale.sh - CPU time and peak memory of building large k-ary fat trees.
#
#   bench/fattree-scale.sh [K]...     (default: 32 64 96 128)
#
# For each k, `weft topo` (the graph and its route tables) and `weft validate` (everything a
# run builds before simulating: graph, routes, models and a permutation's k^3/4 flows), with
# $WEFT (default ./weft) and, when set, $BASE (another build, e.g. the one before a change),
# one after the other.  Prints CPU time (user + system) and peak RSS from /usr/bin/time
# (Debian: apt-get install time).  A run refused by the memory estimate, or killed, prints its
# exit status instead.  Not a test: nothing here passes or fails.
set -eu
WEFT=${WEFT:-./weft}
BASE=${BASE:-}
TIME=${TIME:-/usr/bin/time}
[ -x "$TIME" ] || { echo "fattree-scale: $TIME is missing" >&2; exit 2; }
ini=$(mktemp "${TMPDIR:-/tmp}/fattree-scale.XXXXXX.ini")
trap 'rm -f "$ini" "$ini.time"' EXIT
printf '[topology]\ngenerator = fattree\nk = 4\n[workload.perm]\nkind = permutation\n' >"$ini"
[ $# -gt 0 ] || set -- 32 64 96 128
printf '%-6s %-5s %-9s %10s %12s\n' build k command "CPU s" "peak MiB"
for k in "$@"; do
    for build in ${BASE:+base} this; do
        bin=$WEFT; [ "$build" = base ] && bin=$BASE
        for cmd in topo validate; do
            rc=0
            "$TIME" -f '%U %S %M' -o "$ini.time" "$bin" "$cmd" --set "topology:k=$k" "$ini" \
                >/dev/null 2>&1 || rc=$?
            if [ "$rc" -eq 0 ]; then
                awk -v b="$build" -v k="$k" -v c="$cmd" '{ printf "%-6s %-5s %-9s %10.2f %12.0f\n", b, k, c, $1 + $2, $3 / 1024 }' "$ini.time"
            else
                printf '%-6s %-5s %-9s %10s %12s\n' "$build" "$k" "$cmd" "exit $rc" -
            fi
        done
    done
done
