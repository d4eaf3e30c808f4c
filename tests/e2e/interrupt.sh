#!/bin/sh
# SIGINT during a run: exit 4, the trace closed, marked interrupted and incomplete
# (/meta complete = 0), and weft report says so and exits 1.
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
echo "interrupt: ok"
