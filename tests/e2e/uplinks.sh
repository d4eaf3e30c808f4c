#!/bin/sh
# experiments/leaf-uplinks-lost.ini (doc/faults.md): half of one leaf's uplinks lost on a
# two-SU rail-optimised InfiniBand fabric; every expectation is computed here from the
# topology and the configured rates:
#  - with the subnet manager's re-route (and again with adaptive routing), a rail-aligned ring
#    all-reduce within SU 0 keeps its bus bandwidth within 2 % of the healthy fabric's;
#  - an all-to-all with PXN off across both SUs slows to within 10 % of what the remaining
#    uplinks allow: the bytes that must cross su0-rail3-leaf's uplinks (each way), counted
#    here rank pair by rank pair from the NICs' leaves, over the uplinks left Up at their rate;
#  - static routing without a re-route: the flows hashed onto the lost uplinks hang, exit 3,
#    and the report says where they stop (the Down uplink);
#  - the ToR layout (layout = tor) under the same fault: the all-reduce within SU 0 crosses
#    the spines and the all-to-all's flows of the leaf's server too, so both slow down.
# Shrunk with --set: the all-reduce over dgx-3 and dgx-4, the all-to-all over two GPUs of
# each server (4 MB).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

EXP="$WEFT_SRCDIR/experiments/leaf-uplinks-lost.ini"
A2A=""
for i in $(seq 1 16); do A2A="$A2A${A2A:+;}dgx-$i/gpu2..3"; done
SHRINK="--set workload.ar:gpus=dgx-3/gpu0..7;dgx-4/gpu0..7
 --set workload.ar:minbytes=64MB --set workload.ar:maxbytes=64MB
 --set workload.a2a:minbytes=4MB --set workload.a2a:maxbytes=4MB --set workload.a2a:start=2ms
 --set experiment:hang_timeout=2ms --set workload.a2a:gpus=$A2A"
HEALTHY="--set fault.half:at=10s --set experiment:duration=20s"
# With layout = tor, su0-rail3-leaf is dgx-4's top-of-rack switch: the all-to-all there runs
# over every GPU of dgx-3, dgx-4, dgx-11 and dgx-12, so that the leaf carries eight ranks.
TOR="--set topology:layout=tor --set workload.a2a:minbytes=2MB --set workload.a2a:maxbytes=2MB
 --set workload.a2a:gpus=dgx-3/gpu0..7;dgx-4/gpu0..7;dgx-11/gpu0..7;dgx-12/gpu0..7"

# shellcheck disable=SC2086
run () { out=$1; shift; expect_exit 0 "$WEFT" run -q "$EXP" $SHRINK -o "$TMP/$out.h5" "$@"; }
run healthy $HEALTHY
run sm
run ar --set fabric:routing=adaptive
run tor_healthy $TOR $HEALTHY
run tor $TOR

PYTHONPATH="$WEFT_SRCDIR/analysis:$WEFT_SRCDIR/tests/e2e" "$PY" - "$TMP" <<'PYEOF' || fail "the collectives' times"
import sys
import weft_trace as wt
from uplinks_bound import LEAF, a2a_bound
d = sys.argv[1]

def coll(name, workload):
    rows = [r for r in wt.collectives(f"{d}/{name}.h5") if r["workload"] == workload.encode()]
    assert len(rows) == 2, (name, workload, rows)  # out of place, in place
    return rows

ranks = [f"dgx-{i}/gpu{g}" for i in range(1, 17) for g in (2, 3)]
bound, up, dn, n_left = a2a_bound(f"{d}/sm.h5", ranks, int(coll("sm", "a2a")[0]["bytes"]))
healthy_a2a = max(r["time_ps"] for r in coll("healthy", "a2a")) / 1e12
print(f"all-to-all: {max(up, dn) / 1e6:.2f} MB each way through {LEAF}'s {n_left} remaining "
      f"uplinks: at least {bound * 1e6:.1f} us (healthy fabric: {healthy_a2a * 1e6:.1f} us)")
assert healthy_a2a < 0.9 * bound, "the healthy fabric must not be limited by those uplinks"
for name in ("sm", "ar"):
    for r in coll(name, "a2a"):
        t = r["time_ps"] / 1e12
        print(f"  {name}: {t * 1e6:.1f} us ({t / bound:.3f} x the bound)")
        assert bound <= t <= bound / 0.9, (name, t, bound)

# The rail-aligned all-reduce within SU 0: its rings stay on the rail leaves.
h = coll("healthy", "ar")
for name in ("sm", "ar"):
    for r, q in zip(coll(name, "ar"), h):
        print(f"all-reduce {name}: {r['busbw_gbs']:.2f} GB/s, healthy {q['busbw_gbs']:.2f}")
        assert abs(r["busbw_gbs"] - q["busbw_gbs"]) <= 0.02 * q["busbw_gbs"], (name, r, q)

# The ToR layout: the same fault slows both.
for w in ("ar", "a2a"):
    t_h = max(r["time_ps"] for r in coll("tor_healthy", w))
    t_f = max(r["time_ps"] for r in coll("tor", w))
    print(f"tor {w}: {t_f / 1e6:.1f} us against {t_h / 1e6:.1f} us healthy")
    assert t_f > 1.1 * t_h, (w, t_f, t_h)
PYEOF

# Static routing, no re-route: a hang, and the report says where the flows stop.
# shellcheck disable=SC2086
expect_exit 3 "$WEFT" run -q "$EXP" $SHRINK --set routing:sm_reroute=false -o "$TMP/static.h5"
grep -q "link su0-rail3-leaf:9 <-> spine0:4 is Down since 0.000 ns (\[fault.half\])" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "the hang report does not name the lost uplinks"; }
grep -q "stops at su0-rail3-leaf:[0-9]*->spine[0-3]:4: port Down since 0.000 ns (\[fault.half\])" \
    "$TMP/err" || { cat "$TMP/err" >&2; fail "the report does not say where the flows stop"; }
echo "leaf uplinks lost: ok"
