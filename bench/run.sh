#!/bin/sh
# bench/run.sh - run weft's benchmarks and print one table row per benchmark.
#
# Builds nothing: run `make bench` first.  Run from the build directory, or say
# where things are:
#   WEFT=path/to/weft     the weft binary (default ./weft)
#   BENCH_BIN=dir         where evq_hold and evq_hold_heap were built (default: bench/ next to weft)
#   REPEAT=n              runs of each benchmark; the row shows the fastest (default 3: timings
#                         on a shared machine are noisy)
#   EVQ_OPS=n             hold operations for evq_hold (default 1e7)
#   SCENARIOS="a b"       which bench/scenarios/*.ini to run, by name (default: all of them;
#                         roce-fattree-k32 takes about a minute of CPU per run)
#
# Columns: wall s is the timed part (the hold loop; weft's run loop, which includes trace
# sampling but not building the fabric or closing the trace); CPU s is the whole process's
# user + system time (setup and trace closing included), which suffers less than wall time
# when other jobs share the machine; events and the rates are over the wall time; packet-hops
# are packets (data and ACKs) sent on any link, ev/hop the events per packet-hop; peak RSS
# is the whole process's maximum resident set, from /usr/bin/time -v; FCT p50/p99 are weft's summary of the finished flows
# (- when none finished); drops are packets dropped anywhere, pauses the PFC PAUSE frames
# sent (- when the fabric has no PFC).
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
    # row NAME WALL EVENTS HOPS [P50 P99 DROPS PAUSES]   (- for what does not apply)
    rss=$(field "$tmp/best.time" "Maximum resident set size" '$6 / 1024')
    usr=$(field "$tmp/best.time" "User time" '$4')
    sys=$(field "$tmp/best.time" "System time" '$4')
    awk -v n="$1" -v w="$2" -v e="$3" -v h="$4" -v r="$rss" -v u="$usr" -v s="$sys" \
        -v p50="${5:--}" -v p99="${6:--}" -v d="${7:--}" -v pf="${8:--}" 'BEGIN {
        hs = (h == "-") ? "-" : sprintf ("%.2fM", h / w / 1e6);
        eh = (h == "-" || h == 0) ? "-" : sprintf ("%.2f", e / h);
        printf "%-28s %8.3f %7.2f %12d %10.2fM %10s %6s %9.1f %9s %9s %6s %7s\n", n, w, u + s, e,
               e / w / 1e6, hs, eh, r, p50, p99, d, pf }'
}

printf "# weft bench: %s, %s, best of %s\n" "$("$WEFT" --version | head -1)" \
    "$(uname -m), $(getconf _NPROCESSORS_ONLN) cores" "$REPEAT"
printf "%-28s %8s %7s %12s %11s %10s %6s %9s %9s %9s %6s %7s\n" scenario "wall s" "CPU s" \
    events "events/s" "hops/s" ev/hop "RSS MiB" "FCT p50" "FCT p99" drops pauses

for p in evq_hold evq_hold_heap; do
    best_of "$p" "$BENCH_BIN/$p" "$EVQ_OPS"
    pending=$(sed -n 's/^evq_hold: .*, \([0-9]*\) pending, .*/\1/p' "$tmp/best.out")
    ops=$(sed -n 's/^evq_hold: .* pending, \([0-9]*\) hold ops.*/\1/p' "$tmp/best.out")
    row "$p ${pending}p" "$best" "$ops" -
done

for name in ${SCENARIOS:-$(cd "$here/scenarios" && ls *.ini | sed 's/\.ini$//')}; do
    ini=$here/scenarios/$name.ini
    [ -f "$ini" ] || die "no scenario $ini"
    best_of "$name" "$WEFT" run "$ini" --quiet --output "$tmp/$name.h5"
    events=$(field "$tmp/best.out" "wall time" '$5')
    hops=$(field "$tmp/best.out" "^  packets" '$2')
    # "  FCT          p50 135.262 us  p99 247.696 us  max ...": absent when no flow finished.
    p50=$(field "$tmp/best.out" "^  FCT" '$3 $4')
    p99=$(field "$tmp/best.out" "^  FCT" '$6 $7')
    drops=$(field "$tmp/best.out" "^  drops" '$2')
    pauses=$(field "$tmp/best.out" "^  pfc" '$2')
    row "$name" "$best" "$events" "$hops" "${p50:--}" "${p99:--}" "${drops:--}" "${pauses:--}"
done
