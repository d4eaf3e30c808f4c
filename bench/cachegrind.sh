#!/bin/sh
# bench/cachegrind.sh - instruction and cache-miss counts of the benchmarks, from valgrind's
# cachegrind (the machines have no hardware counters; the counts, unlike CPU time, do not
# depend on what else the machine is doing).  One row per benchmark:
#   name, Ir (instructions), D1 misses (first-level data, read + write), LL misses (last level,
#   instructions and data), events executed, packet-hops, and per event: Ir, D1 and LL misses
#
#   WEFT=path/to/weft BENCH_BIN=dir sh bench/cachegrind.sh            the default set (below)
#   WEFT=path/to/weft sh bench/cachegrind.sh NAME FILE.ini [--set ...] one run of weft
#
# The default set: evq_hold (10^6 hold operations, one per event), permutation-64 (1 ms),
# leafspine-1024, roce-fattree-k16, and the flagship experiment experiments/dgx4-allreduce.ini
# shrunk to its 1 MB all-reduce (--set workload.allreduce:maxbytes=1MB: the full
# sweep would take most of an hour under valgrind).
#
# Compare two builds by running it on each in one session.  The trace is flushed by the
# events executed and the rows written, never by the wall clock (sim/trace.h), so a run does
# the same work under valgrind as natively, and two runs of one build count the same.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
WEFT=${WEFT:-./weft}
BENCH_BIN=${BENCH_BIN:-$(dirname "$WEFT")/bench}
command -v valgrind > /dev/null || { echo "bench/cachegrind.sh: apt-get install valgrind" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-cg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# count NAME EVENTS-FROM COMMAND...: EVENTS-FROM is "weft" (read the events and packet-hops
# from weft's summary) or a fixed event count.
count () {
    name=$1 from=$2; shift 2
    valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$tmp/cg.out" "$@" \
        > "$tmp/out" 2> "$tmp/cg.err" || { cat "$tmp/cg.err" >&2; exit 1; }
    if [ "$from" = weft ]; then
        events=$(awk '/^  wall time/ { print $5; exit }' "$tmp/out")
        hops=$(awk '/^  packets/ { print $2; exit }' "$tmp/out")
    else
        events=$from hops=-
    fi
    # the summary line of the out file: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
    awk -v n="$name" -v e="${events:-0}" -v h="${hops:--}" '/^summary:/ {
        d1 = $6 + $9; ll = $4 + $7 + $10
        printf "%-24s %14.0f %12.0f %11.0f %11d %11s %8.1f %6.2f %6.2f\n", n, $2, d1, ll, e, h,
               e ? $2 / e : 0, e ? d1 / e : 0, e ? ll / e : 0 }' "$tmp/cg.out"
}

printf "%-24s %14s %12s %11s %11s %11s %8s %6s %6s\n" benchmark Ir "D1 misses" "LL misses" \
    events hops "Ir/ev" "D1/ev" "LL/ev"
if [ $# -ge 2 ]; then
    name=$1 ini=$2; shift 2
    count "$name" weft "$WEFT" run "$ini" --quiet --output "$tmp/run.h5" "$@"
    exit 0
fi
count evq_hold 1000000 "$BENCH_BIN/evq_hold" 1e6
for s in permutation-64 leafspine-1024 roce-fattree-k16; do
    count "$s" weft "$WEFT" run "$here/scenarios/$s.ini" --quiet --output "$tmp/$s.h5"
done
count dgx4-allreduce-1MB weft "$WEFT" run "$here/../experiments/dgx4-allreduce.ini" --quiet \
    --output "$tmp/dgx4.h5" --set workload.allreduce:maxbytes=1MB
