#!/bin/sh
# The InfiniBand incast, read back from its trace: nothing dropped anywhere (/ports drops and
# lossless drops are 0), every flow delivered exactly its bytes, the senders' ports record
# PortXmitWait, the /links samples show credit stall time on the sender -> switch direction,
# and `weft report --ports` names the counters as perfquery does.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/ib-incast.ini" -o "$TMP/ib.h5" >"$TMP/summary"
grep -q "lossless drops 0" "$TMP/summary" || fail "summary: lossless drops"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/ib.h5" <<'PYEOF'
import sys
import weft_trace as wt
path = sys.argv[1]
f = wt.flows(path)
assert len(f) == 16 and (f["finished"] == 1).all()
assert (f["bytes_delivered"] == f["size_bytes"]).all()
ports = wt.ports(path)
assert ports["drops"].sum() == 0 and ports["lossless_drops"].sum() == 0
nodes = wt.nodes(path)
names = [n.decode() for n in nodes["name"]]
senders = [names.index(f"host{i}") for i in range(1, 17)]
for p in ports:
    if p["node"] in senders:
        assert p["xmit_wait_ps"] > 0, p
    assert p["link_layer"].decode() == "InfiniBand"
s = wt.link_samples(path)
assert (s["stall_ps"] > 0).sum() > 0, "no credit stall in /links"
print("stalled samples:", int((s["stall_ps"] > 0).sum()))
PYEOF
"$WEFT" report --ports "$TMP/ib.h5" >"$TMP/ports"
grep -q "^host1 .*PortXmitWait=[1-9]" "$TMP/ports" || fail "weft report --ports: host1 PortXmitWait"
echo "ib trace: ok"
