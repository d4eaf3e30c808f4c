#!/bin/sh
# SIGINT during a run: exit 4, the trace closed and marked interrupted.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
cat >"$TMP/long.ini" <<INI
[topology]
generator = single_switch
hosts = 16
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 1GiB
INI
"$WEFT" run -q "$TMP/long.ini" -o "$TMP/long.h5" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" = 4 ] || { cat "$TMP/err" >&2; fail "exit $rc after SIGINT, expected 4"; }
expect_exit 0 "$WEFT" report "$TMP/long.h5"
grep -q "interrupted" "$TMP/out" || fail "trace not marked interrupted"
echo "interrupt: ok"
