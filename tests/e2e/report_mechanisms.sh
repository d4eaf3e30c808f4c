#!/bin/sh
# weft report prints each mechanism's lines from the trace, through the registry: on every
# fabric, the lines it can rebuild from the data sets are the run summary's own, character for
# character (the trace's /ports, /flows and /pfc add up to the counters the run printed), and a
# fabric's report holds no line of another fabric's mechanisms.
#   ib-incast      credits: PortXmitWait and lossless drops from /ports
#   roce-incast    ecn/dcqcn from /ports and /flows, pfc from /pfc
#   shared-buffer  shared buf: the peak and the refusals (threshold + pool full) from /buffers
#   incast         plain Ethernet: no mechanism line at all
#   a trace whose experiment text no longer configures: a note instead of the lines, exit 0
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

run () { # run NAME: the run summary in $TMP/NAME.out, the report in $TMP/NAME.rep
    expect_exit 0 "$WEFT" run "$WEFT_SRCDIR/experiments/$1.ini" --quiet -o "$TMP/$1.h5"
    cp "$TMP/out" "$TMP/$1.out"
    expect_exit 0 "$WEFT" report "$TMP/$1.h5"
    cp "$TMP/out" "$TMP/$1.rep"
}
same_line () { # same_line NAME LABEL: the report's line equals the run's
    a=$(grep "^  $2 " "$TMP/$1.out") || fail "$1: no '$2' line in the run summary"
    b=$(grep "^  $2 " "$TMP/$1.rep") || fail "$1: no '$2' line in weft report"
    [ "$a" = "$b" ] || fail "$1: run '$a', report '$b'"
}
absent () { # absent NAME LABEL
    ! grep -q "^  $2 " "$TMP/$1.rep" || fail "$1: weft report prints a '$2' line"
}

run ib-incast
same_line ib-incast credits
absent ib-incast pfc
absent ib-incast ecn/dcqcn

run roce-incast
same_line roce-incast ecn/dcqcn
same_line roce-incast pfc
absent roce-incast credits

run shared-buffer
peak_run=$(sed -n 's/^  shared buf   peak \([^ ]*\) .*/\1/p' "$TMP/shared-buffer.out")
peak_rep=$(sed -n 's/^  shared buf   peak \([^ ]*\) .*/\1/p' "$TMP/shared-buffer.rep")
[ -n "$peak_run" ] && [ "$peak_run" = "$peak_rep" ] || fail "shared buf peak: run $peak_run, report $peak_rep"
refused_run=$(sed -n 's/.*; \([0-9]*\) packets over their threshold, \([0-9]*\) with.*/\1 \2/p' \
    "$TMP/shared-buffer.out" | awk '{ print $1 + $2 }')
refused_rep=$(sed -n 's/.*; \([0-9]*\) packets refused$/\1/p' "$TMP/shared-buffer.rep")
[ "$refused_run" = "$refused_rep" ] || fail "shared buf refusals: run $refused_run, report $refused_rep"

run incast
grep -q '^mechanisms:' "$TMP/incast.rep" && fail "incast: weft report prints mechanism lines"

# A trace whose text names an sl2vl_file that is gone: the summary still prints, with a note.
: > "$TMP/tables.txt"
expect_exit 0 "$WEFT" run "$WEFT_SRCDIR/experiments/ib-incast.ini" --quiet -o "$TMP/gone.h5" \
    --set "infiniband:sl2vl_file=$TMP/tables.txt"
rm "$TMP/tables.txt"
expect_exit 0 "$WEFT" report "$TMP/gone.h5"
grep -q "^  (the mechanisms' lines: .*sl2vl_file" "$TMP/out" || fail "no note for a text that no longer configures"
grep -q '^flows: ' "$TMP/out" || fail "the summary is gone with the mechanisms' lines"
echo "report_mechanisms: ok"
