#!/bin/sh
# tests/e2e/trace_python.sh - a trace written by sim/trace.c (via tests/mktrace) is read by
# h5dump, by analysis/weft_trace.py (h5py) and by `weft report`; identical inputs give data
# sets h5diff calls identical; a "running" file and a truncated copy read as incomplete
# (exit 1) and a text file as not a trace (exit 2).  Missing h5py or h5dump is a FAILURE, not
# a skip: the trace format's promise is that these standard tools read it.  The layouts
# weft_trace.py gives older files (ADDED_SETS, ADDED_FIELDS) are the ones written today.
set -u
: "${WEFT_BUILDDIR:?}" "${WEFT_SRCDIR:?}"
PY=/usr/bin/python3
MKTRACE="$WEFT_BUILDDIR/tests/mktrace"
WEFT_BIN="${WEFT:-$WEFT_BUILDDIR/weft}"
READER="$WEFT_SRCDIR/analysis/weft_trace.py"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/trace_python.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$((failures + 1)); }

command -v h5dump >/dev/null 2>&1 || { echo "FAIL: h5dump not found (Debian: hdf5-tools)"; exit 1; }
command -v h5diff >/dev/null 2>&1 || { echo "FAIL: h5diff not found (Debian: hdf5-tools)"; exit 1; }
"$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "FAIL: $PY cannot import h5py and numpy (Debian: python3-h5py)"; exit 1; }
test -x "$MKTRACE" || { echo "FAIL: $MKTRACE not built"; exit 1; }

"$MKTRACE" "$tmp/a.h5" || fail "mktrace a.h5"
"$MKTRACE" "$tmp/b.h5" || fail "mktrace b.h5"
"$MKTRACE" "$tmp/running.h5" running || fail "mktrace running.h5"

# h5dump reads the whole file, and the header shows every data set.
h5dump "$tmp/a.h5" >"$tmp/a.dump" 2>&1 || fail "h5dump cannot read a.h5"
for d in /meta /topology/nodes /topology/links /flows /links /ports; do
    h5dump -H -o /dev/null "$tmp/a.h5" | grep -q "\"${d##*/}\"" || fail "h5dump shows no $d"
done

# Determinism: same inputs, identical data sets and attributes.
h5diff "$tmp/a.h5" "$tmp/b.h5" >"$tmp/diff" 2>&1 || { cat "$tmp/diff"; fail "h5diff: a.h5 and b.h5 differ"; }

# The Python reader: summary, exit 0, values independent of weft's own report.
"$PY" "$READER" "$tmp/a.h5" >"$tmp/py.out" 2>&1 || { cat "$tmp/py.out"; fail "weft_trace.py a.h5 exited $?"; }
grep -q "complete (done)" "$tmp/py.out" || fail "weft_trace.py: a.h5 not complete"
grep -q "4500 finished / 5000 total" "$tmp/py.out" || fail "weft_trace.py: flow counts"
grep -q "drops:      6" "$tmp/py.out" || fail "weft_trace.py: drops"
"$PY" - "$READER" "$tmp/a.h5" <<'EOF' || fail "weft_trace.py API"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("weft_trace", sys.argv[1])
wt = importlib.util.module_from_spec(spec); spec.loader.exec_module(wt)
info = wt.open_trace(sys.argv[2])
assert info["complete"] and info["status"] == "done" and int(info["seed"]) == 7, info
f = wt.flows(sys.argv[2])
assert len(f) == 5000 and f["id"][4097] == 4097 and f["workload"][0] == b"incast", f[:2]
assert len(wt.link_samples(sys.argv[2])) == 6000
# The reader spells out the layouts it gives for older files (data sets and members a later
# schema added); they must be what the writer writes today.
import h5py, numpy as np
with h5py.File(sys.argv[2], "r") as h5:
    for name, (since, dtype) in wt.ADDED_SETS.items():
        assert h5[name].dtype == dtype, (name, h5[name].dtype, dtype)
    for name, fields in wt.ADDED_FIELDS.items():
        for member, t in fields:
            assert h5[name].dtype[member] == np.dtype(t), (name, member, h5[name].dtype, t)
EOF

"$PY" "$READER" "$tmp/running.h5" >"$tmp/py.run" 2>&1
rc=$?; test $rc -eq 1 || fail "weft_trace.py running.h5: exit $rc, want 1"
grep -q "INCOMPLETE" "$tmp/py.run" || fail "weft_trace.py running.h5 not reported incomplete"

# weft report agrees: 0 complete, 1 incomplete ("running" or truncated), 2 not a trace.
"$WEFT_BIN" report "$tmp/a.h5" >"$tmp/rep.out" 2>&1 || { cat "$tmp/rep.out"; fail "weft report a.h5"; }
grep -q "4500 finished / 5000 total" "$tmp/rep.out" || fail "weft report: flow counts"
"$WEFT_BIN" report --json "$tmp/a.h5" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); assert d["complete"] and d["drops"] == 6, d' \
    || fail "weft report --json"
"$WEFT_BIN" report "$tmp/running.h5" >/dev/null 2>&1; rc=$?
test $rc -eq 1 || fail "weft report running.h5: exit $rc, want 1"
size=$(wc -c <"$tmp/a.h5")
head -c $((size / 2)) "$tmp/a.h5" >"$tmp/cut.h5"
"$WEFT_BIN" report "$tmp/cut.h5" >"$tmp/cut.out" 2>&1; rc=$?
test $rc -eq 1 || { cat "$tmp/cut.out"; fail "weft report cut.h5: exit $rc, want 1"; }
"$PY" "$READER" "$tmp/cut.h5" >/dev/null 2>&1; rc=$?
test $rc -eq 1 || fail "weft_trace.py cut.h5: exit $rc, want 1"
echo "[experiment]" >"$tmp/text.h5"
"$WEFT_BIN" report "$tmp/text.h5" >/dev/null 2>&1; rc=$?
test $rc -eq 2 || fail "weft report text.h5: exit $rc, want 2"

test $failures -eq 0 || exit 1
echo "PASS: trace_python"
