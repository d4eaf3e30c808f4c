#!/bin/sh
# SIGINT during a run whose output path already holds a complete trace: exit 4; the old trace
# is untouched; the new one is closed as long.h5.partial, marked interrupted and incomplete
# (/meta complete = 0), and weft report says so and exits 1.  SIGTERM during setup: exit 4.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
cat >"$TMP/long.ini" <<INI
[topology]
generator = single_switch
hosts = 16
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 8GiB
INI
cat >"$TMP/short.ini" <<INI
[topology]
generator = single_switch
hosts = 4
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 64KiB
INI
"$WEFT" run -q "$TMP/short.ini" -o "$TMP/long.h5" >/dev/null || fail "the first run"
cp "$TMP/long.h5" "$TMP/first.h5"
"$WEFT" run -q "$TMP/long.ini" -o "$TMP/long.h5" >"$TMP/out" 2>"$TMP/err" &
pid=$!
handlers_up $pid
sleep 1
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" = 4 ] || { cat "$TMP/err" >&2; fail "exit $rc after SIGINT, expected 4"; }
cmp -s "$TMP/long.h5" "$TMP/first.h5" || fail "the complete trace at long.h5 was touched"
grep -q "kept as $TMP/long.h5.partial" "$TMP/err" || { cat "$TMP/err" >&2; fail "stderr"; }
grep -q "trace        $TMP/long.h5.partial" "$TMP/out" || { cat "$TMP/out" >&2; fail "summary"; }
expect_exit 0 "$WEFT" report "$TMP/long.h5"
mv "$TMP/long.h5.partial" "$TMP/long.h5"
expect_exit 1 "$WEFT" report "$TMP/long.h5"
grep -q "incomplete (interrupted)" "$TMP/out" \
    || { cat "$TMP/out" >&2; fail "trace not reported incomplete (interrupted)"; }
"$PY" - "$TMP/long.h5" <<'EOF' || fail "/meta of the interrupted trace"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    meta = f["meta"].attrs
    status = meta["status"]
    status = status.decode() if isinstance(status, bytes) else status
    assert status == "interrupted" and int(meta["complete"]) == 0, dict(meta)
EOF
expect_exit 1 "$PY" "$WEFT_SRCDIR/analysis/weft_trace.py" "$TMP/long.h5"
grep -q "incomplete (interrupted)" "$TMP/out" || fail "weft_trace.py: not incomplete (interrupted)"

# SIGTERM while the fabric is still being built (a k = 64 fat tree takes seconds): the
# run ends cleanly with exit 4, not by the signal, and writes no trace at all.
cat >"$TMP/big.ini" <<INI
[topology]
generator = fattree
k = 64
[workload.p]
kind = permutation
flow_size = 4KiB
INI
"$WEFT" run -q "$TMP/big.ini" -o "$TMP/big.h5" >"$TMP/out" 2>"$TMP/err" &
pid=$!
handlers_up $pid
sleep 0.3
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" = 4 ] || { cat "$TMP/err" >&2; fail "exit $rc after SIGTERM during setup, expected 4"; }
grep -q "interrupted before the run started; no trace written" "$TMP/err" || fail "setup stderr"
[ ! -e "$TMP/big.h5" ] && [ ! -e "$TMP/big.h5.partial" ] || fail "a trace was left"
echo "interrupt: ok"
