#!/bin/sh
# [fault.NAME] kind = gpudirect-off (doc/faults.md): one server's GPUs stage their inter-server
# data in host memory.  Expectations computed here from the configured rates:
#  - each staged byte crosses the PCIe switch's link to the CPU twice in each direction (the
#    rail's sends and receipts), so a rail through dgx-2 carries at most min(NIC rate, PCIe
#    rate / 2); with NCCL's 8 rings each crossing dgx-2 on one rail, the ring all-reduce's bus
#    bandwidth is at most 8 x that / 8 x 4096/4122 (IB headers), and within 15 % of it;
#  - the same run with GPUDirect on is faster than that bound (the fault is what limits);
#  - on the staged server, data crosses its CPU node (its PCIe uplinks carry data), on the
#    others it does not;
#  - bad input: exit 2 naming the group and key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
exp="$WEFT_SRCDIR/experiments/gpudirect-off.ini"
expect_exit 0 "$WEFT" run -q "$exp" -o "$TMP/off.h5"
grep "busbw " "$TMP/out" | sed -n 's/.*ranks: \([0-9.]*\) GB\/s.*/\1/p' >"$TMP/off.bw"
# the healthy run: the same file without its fault group
sed '/^\[fault.gdr\]/,$d' "$exp" | sed "s|^include = dgx4.ini|include = $WEFT_SRCDIR/experiments/dgx4.ini|" \
    >"$TMP/healthy.ini"
expect_exit 0 "$WEFT" run -q "$TMP/healthy.ini" -o "$TMP/healthy.h5"
grep "busbw " "$TMP/out" | sed -n 's/.*ranks: \([0-9.]*\) GB\/s.*/\1/p' >"$TMP/healthy.bw"
PYTHONPATH="$WEFT_SRCDIR/analysis:$WEFT_SRCDIR/tests/e2e" "$PY" - "$(cat "$TMP/off.bw")" "$(cat "$TMP/healthy.bw")" "$TMP/off.h5" <<'PYEOF' ||
import sys
import weft_trace as wt
from staging import assert_only_server_staged
off, healthy = float(sys.argv[1]), float(sys.argv[2])
nic, pcie = 400e9, 50e9 * 8            # [server] defaults of the dgx-h100 preset, bits/s
rail = min(nic, pcie / 2)              # the uplink carries sends and receipts each way
bound = 8 * rail / 8 / 1e9 * 4096 / 4122  # GB/s: 8 rings, bits to bytes, IB headers
print(f"busbw {off} GB/s with dgx-2 staged, bound {bound:.1f}; healthy {healthy}")
assert 0.85 * bound <= off <= bound, (off, bound)
assert healthy > 1.1 * bound, (healthy, bound)
path = sys.argv[3]
assert_only_server_staged(path)
PYEOF
    fail "GPUDirect off on dgx-2"
# bad input
# (at = TIME and until are tests/e2e/gpudirect_at.sh's; until = 0s here: not after the start)
for bad in "fault.gdr:server=dgx-9|server|did you mean 'dgx-" "fault.gdr:until=0s|until|not after at" \
    "fault.gdr:link=dgx-2/mlx5_3|link|not used by kind = gpudirect-off" \
    "fault.gdr:server=|server|required"; do
    set=${bad%%|*}; rest=${bad#*|}; key=${rest%%|*}; text=${rest#*|}
    expect_exit 2 "$WEFT" validate "$exp" --set "$set"
    grep -q "\[fault.gdr\] $key: .*$text" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "--set $set: no line naming [fault.gdr] $key"; }
done
echo "gpudirect-off: ok"
