#!/bin/sh
# bench/cpu.sh - CPU time of two weft builds on one run, interleaved: A B A B ...  On a shared,
# noisy machine a single timing says little; the median of runs taken alternately compares
# the two builds under the same load.
#
#   sh bench/cpu.sh WEFT_A WEFT_B N FILE.ini [--set ...]
#
# Prints, for each build: the median, lowest and highest CPU time (user + system, the whole
# process) over N runs, the median system time alone (the kernel's page clearing shows there),
# the peak RSS of the median run, and the events and packet-hops of its summary (the same in
# every run of one build: a run is deterministic).  Needs /usr/bin/time.
set -eu
[ $# -ge 4 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
a=$1 b=$2 n=$3 ini=$4
shift 4
[ -x /usr/bin/time ] || { echo "bench/cpu.sh: apt-get install time" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

one () {
    tag=$1 bin=$2
    shift 2
    /usr/bin/time -f '%U %S %M' -o "$tmp/t" "$bin" run "$ini" --quiet --output "$tmp/x.h5" "$@" \
        > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    awk '{ printf "%.3f %.1f %.3f\n", $1 + $2, $3 / 1024, $2 }' "$tmp/t" >> "$tmp/$tag.cpu"
    awk '/^  wall time/ { e = $5 } /^  packets/ { h = $2 } END { print e, h }' "$tmp/out" \
        > "$tmp/$tag.count"
}

i=0
while [ "$i" -lt "$n" ]; do
    i=$((i + 1))
    one A "$a" "$@"
    one B "$b" "$@"
done
for s in A B; do
    bin=$a; [ $s = A ] || bin=$b
    read -r events hops < "$tmp/$s.count"
    sys=$(sort -n -k3 "$tmp/$s.cpu" | awk '{ y[NR] = $3 }
        END { printf "%.3f", (NR % 2) ? y[(NR + 1) / 2] : (y[NR / 2] + y[NR / 2 + 1]) / 2 }')
    sort -n "$tmp/$s.cpu" | awk -v s="$s" -v bin="$bin" -v e="$events" -v h="$hops" -v sys="$sys" '
        { c[NR] = $1; r[NR] = $2 }
        END {
            m = (NR % 2) ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2
            printf "%s %s: CPU s median %.3f (%.3f to %.3f, %d runs; system time median %s), RSS MiB %.1f (median run), %s events, %s hops, %.3f events/hop\n",
                   s, bin, m, c[1], c[NR], NR, sys, r[int((NR + 1) / 2)], e, h, h ? e / h : 0 }'
done
