#!/bin/sh
# Same experiment and seed twice: /flows and /links identical (h5diff); another seed changes
# the flows of a random permutation.  On RoCE (PFC, ECN marking draws, DCQCN, ECMP, a shared
# buffer) every data set, /paths, /pfc, /dcqcn and /buffers included, is identical too.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
need h5diff
exp="$WEFT_SRCDIR/tests/data/permutation-small.ini"
"$WEFT" run -q "$exp" -o "$TMP/a.h5" >/dev/null
"$WEFT" run -q "$exp" -o "$TMP/b.h5" >/dev/null
h5diff "$TMP/a.h5" "$TMP/b.h5" /flows /flows || fail "/flows differ between identical runs"
h5diff "$TMP/a.h5" "$TMP/b.h5" /links /links || fail "/links differ between identical runs"
h5diff "$TMP/a.h5" "$TMP/b.h5" /ports /ports || fail "/ports differ between identical runs"
"$WEFT" run -q "$exp" --seed 2 -o "$TMP/c.h5" >/dev/null
if h5diff -q "$TMP/a.h5" "$TMP/c.h5" /flows /flows >/dev/null 2>&1; then
    fail "seed 2 gave the same flows as seed 1"
fi
roce="$WEFT_SRCDIR/experiments/roce-ecmp-permutation.ini"
set -- --set experiment:duration=300us --set switch:buffer_sharing=dynamic
"$WEFT" run -q "$roce" "$@" -o "$TMP/r1.h5" >/dev/null
"$WEFT" run -q "$roce" "$@" -o "$TMP/r2.h5" >/dev/null
for d in flows links ports paths pfc dcqcn buffers; do
    h5diff "$TMP/r1.h5" "$TMP/r2.h5" /$d /$d || fail "RoCE: /$d differs between identical runs"
done
"$PY" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert all(len(f[d]) > 0 for d in ("paths", "pfc", "dcqcn", "buffers")), "empty RoCE data sets"' \
    "$TMP/r1.h5" || fail "RoCE data sets empty: nothing compared"
echo "determinism: ok"
