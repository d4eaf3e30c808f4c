#!/bin/sh
# Crash drills: SIGINT, SIGTERM and SIGKILL during setup, early in the run and late in it,
# against an output path that already holds a complete trace.  Every cell:
#   - the complete trace at the output path is byte for byte the one that was there;
#   - SIGINT / SIGTERM: exit 4; during setup no trace is written at all; later the new trace is
#     closed at PATH.partial with status "interrupted" (weft report: incomplete, exit 1);
#   - SIGKILL: killed (exit 137); during setup nothing is written; later PATH.partial is left
#     with status "running" (weft report: incomplete, exit 1), never under the final name.
# Prints the table of outcomes.  Moments (counted from when weft's handlers are installed, so
# that a loaded machine's slow start does not move them): "setup" 0.3 s into building a k = 64 fat tree (seconds
# of setup), "early" 0.3 s and "late" 2 s into a run of 8 GiB flows that lasts far longer.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
cat >"$TMP/big.ini" <<INI
[topology]
generator = fattree
k = 64
[workload.p]
kind = permutation
flow_size = 4KiB
INI
cat >"$TMP/long.ini" <<INI
[topology]
generator = single_switch
hosts = 16
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 8GiB
INI
"$WEFT" run -q "$WEFT_SRCDIR/experiments/incast.ini" -o "$TMP/first.h5" >/dev/null || fail "first run"
printf '%-7s %-6s %-5s %-9s %s\n' signal moment exit old.h5 "out.h5.partial (weft report)"
for sig in INT TERM KILL; do
    for moment in setup early late; do
        case $moment in
            setup) ini=$TMP/big.ini; delay=0.3 ;;
            early) ini=$TMP/long.ini; delay=0.3 ;;
            late) ini=$TMP/long.ini; delay=2 ;;
        esac
        rm -f "$TMP/out.h5" "$TMP/out.h5.partial"
        cp "$TMP/first.h5" "$TMP/out.h5"
        "$WEFT" run -q "$ini" -o "$TMP/out.h5" >"$TMP/run.out" 2>"$TMP/run.err" &
        pid=$!
        handlers_up $pid
        sleep $delay
        kill -$sig $pid
        set +e; wait $pid; rc=$?; set -e
        cmp -s "$TMP/out.h5" "$TMP/first.h5" || fail "$sig $moment: the complete trace was touched"
        partial=none
        if [ -e "$TMP/out.h5.partial" ]; then
            set +e; "$WEFT" report "$TMP/out.h5.partial" >"$TMP/rep" 2>&1; rrc=$?; set -e
            partial="$(sed -n 's/^status: *//p' "$TMP/rep") (exit $rrc)"
            [ "$rrc" = 1 ] || { cat "$TMP/rep" >&2; fail "$sig $moment: report exit $rrc"; }
        fi
        printf '%-7s %-6s %-5s %-9s %s\n' "$sig" "$moment" "$rc" intact "$partial"
        if [ $sig = KILL ]; then
            [ "$rc" = 137 ] || fail "$sig $moment: exit $rc, expected 137"
            case $moment in
                setup) [ "$partial" = none ] || fail "$sig setup: a partial trace was written" ;;
                *) case $partial in "INCOMPLETE: "*running*) ;; *) fail "$sig $moment: $partial" ;; esac ;;
            esac
        else
            [ "$rc" = 4 ] || { cat "$TMP/run.err" >&2; fail "$sig $moment: exit $rc, expected 4"; }
            case $moment in
                setup) [ "$partial" = none ] || fail "$sig setup: a partial trace was written" ;;
                *) case $partial in "incomplete (interrupted): "*"(exit 1)") ;; *) fail "$sig $moment: $partial" ;; esac ;;
            esac
        fi
    done
done
echo "crash drills: ok"
