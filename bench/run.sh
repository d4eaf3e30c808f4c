#!/bin/sh
# bench/run.sh - run weft's benchmarks and print one table row per benchmark.
#
# Builds nothing: run `make` (or `make bench`) first.  Run from the build directory, or say
# where things are:
#   WEFT=path/to/weft     the weft binary (default ./weft)
#   BENCH_BIN=dir         where evq_hold and evq_hold_heap were built (default: bench/ next to weft)
#   REPEAT=n              runs of each benchmark; the row shows the fastest (default 3: timings
#                         on a shared machine are noisy)
#   EVQ_OPS=n             hold operations for evq_hold (default 1e7)
#
# Columns: wall s is the timed part (the hold loop; weft's run loop, which includes trace
# sampling but not building the fabric or closing the trace); events and the rates are over
# that time; packet-hops are packets (data and ACKs) sent on any link; peak RSS is the whole
# process's maximum resident set, from /usr/bin/time -v.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
WEFT=${WEFT:-./weft}
BENCH_BIN=${BENCH_BIN:-$(dirname "$WEFT")/bench}
REPEAT=${REPEAT:-3}
EVQ_OPS=${EVQ_OPS:-1e7}

die () { echo "bench/run.sh: $*" >&2; exit 1; }

[ -x /usr/bin/time ] || die "/usr/bin/time is missing (it measures peak RSS): apt-get install time"
[ -x "$WEFT" ] || die "no weft binary at $WEFT: run make first, or set WEFT=path/to/weft"
for p in evq_hold evq_hold_heap; do
    [ -x "$BENCH_BIN/$p" ] || die "no $BENCH_BIN/$p: run make bench first, or set BENCH_BIN"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# field FILE PATTERN AWK-EXPR: the first line matching PATTERN, through an awk expression.
field () { awk "/$2/ { print $3; exit }" "$1"; }

# One benchmark, REPEAT times; keeps the output of the fastest run in $tmp/best.out/.time.
# run NAME WALL-AWK-EXPR COMMAND...
best_of () {
    name=$1; shift
    best=
    i=0
    while [ "$i" -lt "$REPEAT" ]; do
        i=$((i + 1))
        /usr/bin/time -v -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" ||
            { cat "$tmp/err" >&2; die "$name failed (see above)"; }
        wall=$(field "$tmp/out" "wall time" '$3')
        if [ -z "$best" ] || awk "BEGIN { exit !($wall < $best) }"; then
            best=$wall
            cp "$tmp/out" "$tmp/best.out"
            cp "$tmp/time" "$tmp/best.time"
        fi
    done
}

row () {
    # row NAME WALL EVENTS HOPS   (HOPS may be -)
    rss=$(field "$tmp/best.time" "Maximum resident set size" '$6 / 1024')
    awk -v n="$1" -v w="$2" -v e="$3" -v h="$4" -v r="$rss" 'BEGIN {
        hs = (h == "-") ? "-" : sprintf ("%.2fM", h / w / 1e6);
        printf "%-28s %8.3f %12d %10.2fM %12s %9.1f\n", n, w, e, e / w / 1e6, hs, r }'
}

printf "# weft bench: %s, %s, best of %s\n" "$("$WEFT" --version | head -1)" \
    "$(uname -m), $(getconf _NPROCESSORS_ONLN) cores" "$REPEAT"
printf "%-28s %8s %12s %11s %12s %9s\n" scenario "wall s" events "events/s" "hops/s" "RSS MiB"

for p in evq_hold evq_hold_heap; do
    best_of "$p" "$BENCH_BIN/$p" "$EVQ_OPS"
    pending=$(sed -n 's/^evq_hold: .*, \([0-9]*\) pending, .*/\1/p' "$tmp/best.out")
    ops=$(sed -n 's/^evq_hold: .* pending, \([0-9]*\) hold ops.*/\1/p' "$tmp/best.out")
    row "$p ${pending}p" "$best" "$ops" -
done

for ini in "$here"/scenarios/*.ini; do
    name=$(basename "$ini" .ini)
    best_of "$name" "$WEFT" run "$ini" --quiet --output "$tmp/$name.h5"
    events=$(field "$tmp/best.out" "wall time" '$5')
    hops=$(field "$tmp/best.out" "^  packets" '$2')
    row "$name" "$best" "$events" "$hops"
done
