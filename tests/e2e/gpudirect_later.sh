#!/bin/sh
# [fault.NAME] kind = gpudirect-off with after = collective.N, or after =
# workload.NAME.collective.N (doc/faults.md): one server loses GPUDirect RDMA from the run's
# (or the group's) Nth collective on.  Collectives are laid out before the run,
# so the change takes effect at a collective's first step, never inside one.  Expectations
# computed here from the configured rates, as in tests/e2e/gpudirect_off.sh:
#  - nccl-tests' out-of-place call (collective 1) runs with GPUDirect: faster than the staged
#    bound 8 x min(NIC rate, PCIe rate / 2) / 8 x 4096/4122;
#  - its in-place call (collective 2, after = collective.2, and the same collective named as
#    after = workload.allreduce.collective.2) is staged through dgx-2's host memory: at most
#    that bound and within 15 % of it;
#  - only dgx-2's CPU node carries data;
#  - bad input: a collective the run or the group does not have, an unknown group, an event
#    other than the two collective forms, a time: exit 2 naming the group and key.
# How a group's Nth collective is numbered among several groups: tests/check_graph.c.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
exp="$WEFT_SRCDIR/experiments/gpudirect-off.ini"
sed -e "s|^include = dgx4.ini|include = $WEFT_SRCDIR/experiments/dgx4.ini|" \
    -e 's/^server = dgx-2/server = dgx-2\nafter = collective.2/' "$exp" >"$TMP/later.ini"
grep -q "^after = collective.2" "$TMP/later.ini" || fail "the experiment has no server = dgx-2 line"
for event in collective.2 workload.allreduce.collective.2; do
expect_exit 0 "$WEFT" run -q "$TMP/later.ini" -o "$TMP/later.h5" --set "fault.gdr:after=$event"
PYTHONPATH="$WEFT_SRCDIR/analysis:$WEFT_SRCDIR/tests/e2e" "$PY" - "$TMP/later.h5" <<'PYEOF' || fail "GPUDirect off from $event"
import sys
import weft_trace as wt
from staging import assert_only_server_staged
path = sys.argv[1]
nic, pcie = 400e9, 50e9 * 8            # [server] defaults of the dgx-h100 preset, bits/s
rail = min(nic, pcie / 2)              # the uplink carries sends and receipts each way
bound = 8 * rail / 8 / 1e9 * 4096 / 4122  # GB/s: 8 rings, bits to bytes, IB headers
rows = sorted(wt.collectives(path), key=lambda r: int(r["id"]))
assert len(rows) == 2 and rows[0]["in_place"] == 0 and rows[1]["in_place"] == 1, rows
before, after = float(rows[0]["busbw_gbs"]), float(rows[1]["busbw_gbs"])
print(f"busbw {before:.1f} GB/s before, {after:.1f} after; staged bound {bound:.1f}")
assert before > 1.1 * bound, (before, bound)
assert 0.85 * bound <= after <= bound, (after, bound)
assert_only_server_staged(path)
PYEOF
done
for bad in "fault.gdr:after=collective.3|the run has 2 collectives" \
    "fault.gdr:after=workload.allreduce|takes after = collective.N" \
    "fault.gdr:after=collective.2 + 10us|takes after = collective.N" \
    "fault.gdr:after=workload.allreduce.collective.3|unknown event 'workload.allreduce.collective.3'" \
    "fault.gdr:after=workload.allreduc.collective.1|unknown event .*did you mean workload.allreduce" \
    "fault.gdr:after=workload..collective.1|takes after = collective.N"; do
    set=${bad%%|*}; text=${bad#*|}
    expect_exit 2 "$WEFT" validate "$TMP/later.ini" --set "$set"
    grep -q "\[fault.gdr\] after: .*$text" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "--set $set: no line naming [fault.gdr] after"; }
done
expect_exit 2 "$WEFT" validate "$TMP/later.ini" --set fault.gdr:at=0s
grep -q "\[fault.gdr\] after: give at or after, not both" "$TMP/err" || fail "both at and after"
echo "gpudirect-off from a collective: ok"
