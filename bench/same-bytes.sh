#!/bin/sh
# bench/same-bytes.sh - a refactor keeps the bytes: every shipped experiment and bench scenario
# gives the same data sets and the same printed tables before and after.
#
#   bench/same-bytes.sh record DIR     run everything with $WEFT, keep traces and stdout in DIR
#   bench/same-bytes.sh compare A B    h5diff every data set (all but /meta, whose attributes
#                                      hold wall time and the git revision) and diff stdout
#   bench/same-bytes.sh REV            build REV in a scratch git worktree, record it and the
#                                      current build (WEFT, default ./weft), compare the two
#
# It is not part of `make check`: a byte-exact baseline belongs to a refactor, not to the suite.
# Stdout is compared with the wall-time, events/s and trace-path figures masked; everything else
# (every table, every summary figure) must match.  Runs that take over a minute are shrunk with
# --set (see `points` below), the same shrink on both sides.  Exit 0 when everything matches.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
WEFT=${WEFT:-./weft}
H5DIFF=${H5DIFF:-h5diff}
H5LS=${H5LS:-h5ls}

die () { echo "same-bytes: $*" >&2; exit 2; }

# points: one line per run, "NAME|EXPERIMENT|--set arguments".  Every experiment with a
# workload, every bench scenario.  Topology-only files have no traces to compare.
points () {
    for f in "$src"/experiments/*.ini; do
        grep -q '^\[workload\.' "$f" || continue
        n=$(basename "$f" .ini)
        echo "$n|$f|"
    done
    for f in "$src"/bench/scenarios/*.ini; do
        n=bench-$(basename "$f" .ini)
        case $n in
            # ~1 ms of 64 MiB flows: 200 us keeps the steady state and every code path
            bench-permutation-64) echo "$n|$f|--set experiment:duration=200us" ;;
            # a minute of CPU to completion: its first 20 us cross every tier and pause
            bench-roce-fattree-k32) echo "$n|$f|--set experiment:duration=20us" ;;
            *) echo "$n|$f|" ;;
        esac
    done
}

# mask: stdout with the figures that legitimately differ between runs masked.
mask () {
    sed -e 's/^\(  wall time *\).*/\1<masked>/' \
        -e 's/^\(  trace *\).*/\1<masked>/' \
        -e 's/[0-9.]*M events\/s/<masked> events\/s/g' "$1"
}

# masktxt DIR FILE: a report or topo text with the run folder, the source folder, wall time and
# revision masked
masktxt () {
    sed -E -e "s|$1/||g" -e 's#[^ ]*/(experiments|bench/scenarios)/#<src>/\1/#g' \
        -e 's/^(wall time: *).*/\1<masked>/' \
        -e 's/"wall_time_s": [0-9.e+-]*/"wall_time_s": <masked>/' \
        -e 's/^(weft[ :] *).*/\1<masked>/' -e 's/^(revision: *).*/\1<masked>/' "$2"
}

record () {
    out=$1
    [ -x "$WEFT" ] || die "no weft binary at $WEFT (set WEFT=...)"
    mkdir -p "$out"
    points | while IFS='|' read -r name ini sets; do
        rc=0
        # shellcheck disable=SC2086
        "$WEFT" run "$ini" --quiet --output "$out/$name.h5" $sets > "$out/$name.out" \
            2> "$out/$name.err" || rc=$?
        echo "$rc" > "$out/$name.rc"
        # what `weft report` prints of the trace: the summary, the ports, the nccl-tests table
        for mode in summary ports nccl; do
            flag=; [ $mode = summary ] || flag=--$mode
            status=0
            "$WEFT" report "$out/$name.h5" $flag > "$out/$name.report-$mode.txt" 2>&1 || status=$?
            echo "exit $status" >> "$out/$name.report-$mode.txt"
        done
        echo "recorded $name (exit $rc)"
    done
    # what `weft topo` and `weft params` print
    for f in "$src"/experiments/*.ini; do
        n=$(basename "$f" .ini)
        for fmt in text dot json; do
            flag=; [ $fmt = text ] || flag="--format $fmt"
            # shellcheck disable=SC2086
            "$WEFT" topo "$f" $flag > "$out/$n.topo-$fmt.txt" 2>&1 || echo "exit $?" >> "$out/$n.topo-$fmt.txt"
        done
    done
    "$WEFT" params > "$out/params.txt" 2>&1 || echo "exit $?" >> "$out/params.txt"
}

compare () {
    a=$1 b=$2 bad=0 n=0
    for f in "$a"/*.out; do
        name=$(basename "$f" .out)
        n=$((n + 1))
        [ -f "$b/$name.out" ] || { echo "DIFF $name: missing in $b"; bad=$((bad + 1)); continue; }
        if ! cmp -s "$a/$name.rc" "$b/$name.rc"; then
            echo "DIFF $name: exit $(cat "$a/$name.rc") vs $(cat "$b/$name.rc")"
            bad=$((bad + 1))
        fi
        mask "$a/$name.out" > "$b/$name.base.masked"
        mask "$b/$name.out" > "$b/$name.out.masked"
        if ! diff "$b/$name.base.masked" "$b/$name.out.masked" > "$b/$name.stdout.diff"; then
            echo "DIFF $name: stdout (see $b/$name.stdout.diff)"
            bad=$((bad + 1))
        fi
        if [ -f "$a/$name.h5" ]; then
            sets_a=$("$H5LS" "$a/$name.h5" | awk '{ print $1 }' | grep -v '^meta$' | sort)
            sets_b=$("$H5LS" "$b/$name.h5" | awk '{ print $1 }' | grep -v '^meta$' | sort)
            if [ "$sets_a" != "$sets_b" ]; then
                echo "DIFF $name: data sets differ: [$sets_a] vs [$sets_b]" | tr '\n' ' '
                echo
                bad=$((bad + 1))
            fi
            for s in $sets_a; do
                # h5diff exits 0 on data sets it cannot compare (a member added, a type
                # changed): -c lists those, and any such line counts as a difference too
                # (empty data sets are never comparable to h5diff: their headers, type
                # included, are compared instead)
                rc=0
                out=$("$H5DIFF" -c "$a/$name.h5" "$b/$name.h5" "/$s" "/$s" 2>&1) || rc=$?
                if printf '%s\n' "$out" | grep -q "is an empty dataset"; then
                    ha=$(h5dump -H -d "/$s" "$a/$name.h5" | tail -n +2)
                    hb=$(h5dump -H -d "/$s" "$b/$name.h5" | tail -n +2)
                    [ "$ha" = "$hb" ] && out= || rc=1
                fi
                if [ "$rc" != 0 ] || printf '%s\n' "$out" | grep -qi "not comparable"; then
                    echo "DIFF $name: /$s"
                    bad=$((bad + 1))
                fi
            done
        fi
    done
    for f in "$a"/*.txt; do
        t=$(basename "$f")
        n=$((n + 1))
        # a report names the trace it read, its wall time and the revision that wrote it
        masktxt "$a" "$f" > "$b/$t.base.masked"
        masktxt "$b" "$b/$t" > "$b/$t.masked" 2> /dev/null || :
        if ! diff "$b/$t.base.masked" "$b/$t.masked" > "$b/$t.diff"; then
            echo "DIFF $t (see $b/$t.diff)"
            bad=$((bad + 1))
        fi
    done
    echo "same-bytes: $n outputs compared, $bad differences"
    [ "$bad" -eq 0 ]
}

case ${1:-} in
    record) [ $# -eq 2 ] || die "usage: $0 record DIR"; record "$2" ;;
    compare) [ $# -eq 3 ] || die "usage: $0 compare A B"; compare "$2" "$3" ;;
    ""|-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *)
        rev=$1
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-same-bytes.XXXXXX")
        git -C "$src" worktree add --detach "$tmp/base" "$rev" > /dev/null
        trap 'git -C "$src" worktree remove --force "$tmp/base"; rm -rf "$tmp"' EXIT INT TERM
        (cd "$tmp/base" && ./autogen.sh > /dev/null 2>&1 && ./configure > /dev/null &&
            make -j2 weft > /dev/null) || die "could not build $rev"
        WEFT=$tmp/base/weft record "$tmp/a"
        WEFT=$(cd "$(dirname "$WEFT")" && pwd)/$(basename "$WEFT") record "$tmp/b"
        compare "$tmp/a" "$tmp/b"
        ;;
esac
