#!/bin/sh
# bench/cachegrind.sh - instruction and cache-miss counts of the benchmarks, from valgrind's
# cachegrind (the machines have no hardware counters; the counts, unlike CPU time, do not
# depend on what else the machine is doing).  One row per benchmark:
#   name, Ir (instructions), D1 misses (first-level data, read + write), LL misses (last level,
#   instructions and data), events executed, packet-hops, and per event: Ir, D1 and LL misses
#
#   WEFT=path/to/weft BENCH_BIN=dir sh bench/cachegrind.sh            the default set (below)
#   WEFT=path/to/weft sh bench/cachegrind.sh NAME FILE.ini [--set ...] one run of weft
#   WEFT=path/to/weft sh bench/cachegrind.sh --window T1 T2 NAME FILE.ini [--set ...]
#       the simulated time from T1 to T2 alone (e.g. 3us 6us): the difference of the run
#       stopped at T1 (experiment:duration) and at T2, which leaves out building the fabric
#
# The last level is simulated as CG_LL (valgrind's --LL=size,assoc,line; default
# 33554432,16,64, a 32 MiB L3 slice as on the development machines, whose VM reports a
# 512 MiB L3 that would hold a whole k = 32 run and count first touches only).  CG_LL=host
# takes what the machine reports.
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
CG_LL=${CG_LL:-33554432,16,64}
ll_opt=--LL=$CG_LL
[ "$CG_LL" != host ] || ll_opt=--cache-sim=yes

# measure EVENTS-FROM COMMAND...: runs COMMAND under cachegrind and leaves in $tmp/row
# "Ir D1 LL events hops".  EVENTS-FROM is "weft" (read the events and packet-hops from weft's
# summary) or a fixed event count.
measure () {
    from=$1; shift
    valgrind --tool=cachegrind --cache-sim=yes "$ll_opt" --cachegrind-out-file="$tmp/cg.out" \
        "$@" > "$tmp/out" 2> "$tmp/cg.err" || { cat "$tmp/cg.err" >&2; exit 1; }
    if [ "$from" = weft ]; then
        events=$(awk '/^  wall time/ { print $5; exit }' "$tmp/out")
        hops=$(awk '/^  packets/ { print $2; exit }' "$tmp/out")
    else
        events=$from hops=0
    fi
    # the summary line of the out file: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
    awk -v e="${events:-0}" -v h="${hops:-0}" '/^summary:/ {
        printf "%.0f %.0f %.0f %d %d\n", $2, $6 + $9, $4 + $7 + $10, e, h }' "$tmp/cg.out" \
        > "$tmp/row"
}

# row NAME "Ir D1 LL events hops": one line of the table
row () {
    echo "$2" | awk -v n="$1" '{
        e = $4
        printf "%-24s %14.0f %12.0f %11.0f %11d %11s %8.1f %6.2f %6.2f\n", n, $1, $2, $3, e,
               $5 ? $5 : "-", e ? $1 / e : 0, e ? $2 / e : 0, e ? $3 / e : 0 }'
}

count () {
    name=$1; shift
    measure "$@"
    row "$name" "$(cat "$tmp/row")"
}

if [ "${1:-}" = --window ] && [ $# -lt 5 ] || [ $# -eq 1 ]; then
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
printf "%-24s %14s %12s %11s %11s %11s %8s %6s %6s\n" benchmark Ir "D1 misses" "LL misses" \
    events hops "Ir/ev" "D1/ev" "LL/ev"
if [ "${1:-}" = --window ]; then
    t1=$2 t2=$3 name=$4 ini=$5; shift 5
    measure weft "$WEFT" run "$ini" --quiet --output "$tmp/run.h5" "$@" \
        --set experiment:duration="$t1"
    first=$(cat "$tmp/row")
    measure weft "$WEFT" run "$ini" --quiet --output "$tmp/run.h5" "$@" \
        --set experiment:duration="$t2"
    row "$name ($t1-$t2)" "$(echo "$first" "$(cat "$tmp/row")" |
        awk '{ print $6 - $1, $7 - $2, $8 - $3, $9 - $4, $10 - $5 }')"
    exit 0
fi
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
