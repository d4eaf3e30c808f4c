#!/bin/sh
# The flagship incast, read back from its trace with the Python reader: every flow finished
# with exactly its bytes, drops happened and are in /ports, the receiver's link is busy at
# least 90 % of the sample intervals in which data waits for it (mean queue above one packet),
# and per-sender shares are printed (reported, not asserted).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/incast.ini" -o "$TMP/incast.h5" >"$TMP/summary"
grep -q "Jain's index" "$TMP/summary" || fail "no fairness in the summary"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/incast.h5" <<'PYEOF'
import sys
import numpy as np
import weft_trace as wt
path = sys.argv[1]
f = wt.flows(path)
assert len(f) == 15, len(f)
assert (f["finished"] == 1).all()
assert (f["bytes_delivered"] == f["size_bytes"]).all(), "a flow did not deliver exactly its size"
ports = wt.ports(path)
assert ports["drops"].sum() > 0, "expected tail drops with a 256 KiB buffer"
import h5py
with h5py.File(path, "r") as h:
    nodes = h["/topology/nodes"][:]
    links = h["/topology/links"][:]
    s = h["/links"][:]
names = [n.decode() for n in nodes["name"]]
host0, sw0 = names.index("host0"), names.index("sw0")
# the link sw0 -> host0 and its direction
for l in links:
    if {l["node_a"], l["node_b"]} == {host0, sw0}:
        lid, direction, rate = l["id"], (0 if l["node_a"] == sw0 else 1), l["rate_bps"]
rows = s[(s["link"] == lid) & (s["direction"] == direction)]
interval = 10e-12 * 1e6  # [trace] interval = 10us, in seconds
busy = rows[rows["mean_queue_bytes"] > 4178]
util = busy["bytes"] * 8 / rate / interval
frac = util.mean()
print(f"receiver link busy {100*frac:.1f}% of {len(busy)} intervals with data queued")
assert len(busy) > 10 and frac >= 0.90, frac
fct = (f["finish_ps"] - f["start_ps"]) * 1e-12
share = f["size_bytes"] * 8 / fct / 1e9
print("per-sender throughput Gb/s:", " ".join(f"{x:.1f}" for x in share))
print(f"Jain's index {share.sum()**2 / (len(share) * (share**2).sum()):.4f}")
PYEOF
echo "incast trace: ok"
