#!/bin/sh
# bench/cachegrind.sh - instruction and cache-miss counts of the benchmarks, from valgrind's
# cachegrind (the machines have no hardware counters; the counts, unlike CPU time, do not
# depend on what else the machine is doing).  One row per benchmark:
#   name  Ir (instructions)  D1 misses (first-level data, read + write)  LL misses (last level)
#
#   WEFT=path/to/weft BENCH_BIN=dir sh bench/cachegrind.sh
#
# Compare two builds by running it on each in one session.  The trace flush reads the wall
# clock (at most one flush a second), so runs that last several seconds under valgrind flush
# a few more times than natively: a small, known difference, the same for both builds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
WEFT=${WEFT:-./weft}
BENCH_BIN=${BENCH_BIN:-$(dirname "$WEFT")/bench}
command -v valgrind > /dev/null || { echo "bench/cachegrind.sh: apt-get install valgrind" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-cg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

count () {
    name=$1; shift
    valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$tmp/cg.out" "$@" \
        > /dev/null 2> "$tmp/cg.err" || { cat "$tmp/cg.err" >&2; exit 1; }
    # the summary line of the out file: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
    awk -v n="$name" '/^summary:/ { printf "%-24s %16.0f %14.0f %12.0f\n", n, $2, $6 + $9, $4 + $7 + $10 }' \
        "$tmp/cg.out"
}

printf "%-24s %16s %14s %12s\n" benchmark Ir "D1 misses" "LL misses"
count evq_hold "$BENCH_BIN/evq_hold" 1e6
for s in permutation-64 leafspine-1024 roce-fattree-k16; do
    count "$s" "$WEFT" run "$here/scenarios/$s.ini" --quiet --output "$tmp/$s.h5"
done
