#!/bin/sh
# tests/e2e/superpod64_ranks.sh - issue 17's 16,384-GPU fabric (experiments/superpod-64su.ini:
# 64 scalable units, three tiers) builds and runs its permutation on one process and on 2 MPI
# ranks, with the same results: /flows, /links, /ports and /paths identical (h5diff).  The
# flows are shortened to one packet each (flow_size = 4KiB), so that the run is mostly the
# build, which is what the size tests; every flow finishes.  Split by scalable unit
# (doc/parallel.md), both ranks run events and send packets to the other.
# Unchecked: the full-size run's speed and memory (bench/README.md "A 64-SU SuperPOD").
# Skipped (77) only when weft was built without MPI; CI builds with it.
. "$WEFT_SRCDIR/tests/e2e/lib.sh"
[ "${WEFT_MPI:-no}" = yes ] || { echo "weft built without MPI: skipped"; exit 77; }
need mpirun
need h5diff
ini="$WEFT_SRCDIR/experiments/superpod-64su.ini"
set -- --set workload.perm:flow_size=4KiB --quiet

"$WEFT" run "$ini" -o "$TMP/one.h5" "$@" >"$TMP/one.out" || fail "one process"
timeout 300 $MPIRUN -np 2 "$WEFT" run "$ini" -o "$TMP/two.h5" "$@" >"$TMP/two.out" \
    2>"$TMP/two.err" || { cat "$TMP/two.err" >&2; fail "2 ranks"; }
"$PY" - "$TMP/one.h5" <<'PY' || fail "the one-process trace"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f["/meta"].attrs["status"] == "done", f["/meta"].attrs["status"]
    flows = f["/flows"]
    assert len(flows) == 16384 and all(flows["finished"]), len(flows)
PY
for ds in /flows /links /ports /paths; do
    h5diff "$TMP/one.h5" "$TMP/two.h5" "$ds" >/dev/null || fail "2 ranks: $ds differs from one process"
done
n=$(grep -c "^weft run: rank [01]: [1-9][0-9]* events, [1-9][0-9]* packets crossed" "$TMP/two.err") || true
[ "$n" = 2 ] || { cat "$TMP/two.err" >&2; fail "a rank ran no events or sent no packet across"; }
grep -q "^weft run: 2 ranks, partition = unit: " "$TMP/two.err" ||
    { cat "$TMP/two.err" >&2; fail "not split by unit"; }
echo "superpod64_ranks: 16,384 GPUs identical on 1 and 2 ranks"
