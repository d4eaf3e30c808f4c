#!/bin/sh
# tests/e2e/report_nccl.sh - `weft report --nccl` prints one nccl-tests table per workload of
# /collectives (tests/mktrace writes them).  The expected lines are built here with
# nccl-tests' printf formats (2.19.6, src/util.cu: "%12li  %12li  %8s  %6s  %6s" with the root
# through "%6i", then "  %7s  %6s  %6s  %6g" per placement, time, algbw and busbw with two
# decimals while they fit 7, 6 and 6 characters) and nccl-tests' arithmetic, from the rows
# mktrace writes:
#   ar: all_reduce, 4 ranks (busbw factor 2*3/4 = 1.5), timed 10, 20, 30 us out of place
#       (mean 20 us) and 11, 21, 31 us in place (mean 21 us); warm-ups of 999 us left out.
#   bc: broadcast, root 2, factor 1, the same times.
set -u
: "${WEFT_BUILDDIR:?}" "${WEFT_SRCDIR:?}"
PY=/usr/bin/python3
MKTRACE="$WEFT_BUILDDIR/tests/mktrace"
WEFT_BIN="${WEFT:-$WEFT_BUILDDIR/weft}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/report_nccl.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$((failures + 1)); }

"$MKTRACE" "$tmp/a.h5" || fail "mktrace"
"$WEFT_BIN" report --nccl "$tmp/a.h5" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "weft report --nccl: exit $?"; }
"$PY" - "$tmp/out" <<'PYEOF' || fail "report --nccl text"
import sys
out = open(sys.argv[1]).read()
def num(value, width):
    for f in ("%*.2f", "%*.1f", "%*.0f"):
        t = f % (width, value)
        if len(t) <= width:
            return t
    return (("%*.1e" if width >= 7 else "%*.0e") % (width, value))[:width]
def line(size, count, redop, root, factor):
    s = "%12li  %12li  %8s  %6s  %6s" % (size, count, "float", redop, "%6i" % root)
    bus = []
    for us in (20.0, 21.0):
        alg = size / 1e9 / (us * 1e-6)
        s += "  %7s  %6s  %6s  %6g" % (num(us, 7), num(alg, 6), num(alg * factor, 6), 0.0)
        bus.append(alg * factor)
    return s + "\n", bus
want = []
for size in (1024, 1048576):
    want.append(line(size, size // 4, "sum", -1, 1.5))
for l, _ in want:
    assert l in out, (l, out)
bc, bcbus = line(4096, 1024, "none", 2, 1.0)
assert bc in out, (bc, out)
avg_ar = sum(b for _, bs in want for b in bs) / 4
assert "# Avg bus bandwidth    : %g \n#\n# Collective test concluded: all_reduce_perf\n#\n\n" % avg_ar in out, (avg_ar, out)
assert "# Avg bus bandwidth    : %g \n#\n# Collective test concluded: broadcast_perf\n#\n\n" % (sum(bcbus) / 2) in out, out
assert out.count("# nThread 1 nGpus 1 ") == 2, out
assert "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1048576 step: 1024(factor) warmup iters: 1 iters: 3 " in out, out
assert "# weft workload ar\n# nccl-tests version " in out and "\n\n# weft workload bc\n" in out, out
assert out.index("# weft workload ar") < out.index("# weft workload bc"), out
PYEOF

# the Python reader sees the same 24 rows
"$PY" - "$WEFT_SRCDIR/analysis/weft_trace.py" "$tmp/a.h5" <<'PYEOF' || fail "weft_trace.collectives"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("weft_trace", sys.argv[1])
wt = importlib.util.module_from_spec(spec); spec.loader.exec_module(wt)
c = wt.collectives(sys.argv[2])
assert len(c) == 24 and c["op"][0] == b"all_reduce" and c["root"][16] == 2, c[:2]
assert int(c["warmup"].sum()) == 6
PYEOF

# A schema-3 trace stored type and redop in 8 bytes: rewritten so, it prints the same table.
"$PY" - "$tmp/a.h5" "$tmp/v3.h5" <<'PYEOF' || fail "writing a schema-3 copy"
import sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r") as src, h5py.File(sys.argv[2], "w") as dst:
    for k in src:
        if k != "collectives":
            src.copy(k, dst)
    rows = src["collectives"][()]
    dt = [(n, "S8" if n in ("type", "redop") else rows.dtype[n]) for n in rows.dtype.names]
    old = np.zeros(rows.shape, dtype=dt)
    for n in rows.dtype.names:
        old[n] = rows[n]
    dst.create_dataset("collectives", data=old, maxshape=(None,), chunks=True)
    dst["meta"].attrs["schema_version"] = np.uint32(3)
PYEOF
"$WEFT_BIN" report --nccl "$tmp/v3.h5" >"$tmp/out3" 2>"$tmp/err" || { cat "$tmp/err"; fail "report --nccl, schema 3"; }
cmp -s "$tmp/out" "$tmp/out3" || fail "report --nccl: a schema-3 trace prints differently"

# --nccl and --ports do not combine: usage error
"$WEFT_BIN" report --nccl --ports "$tmp/a.h5" >/dev/null 2>&1
rc=$?; test $rc -eq 2 || fail "--nccl --ports: exit $rc, want 2"

test $failures -eq 0
