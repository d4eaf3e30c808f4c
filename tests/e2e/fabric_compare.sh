#!/bin/sh
# The fabric comparison (experiments/fabric-compare-{ib,roce,ue}.ini, one shared include with
# the topology and workload), each run judged against bounds computed here:
#  - every flow finishes and every byte is delivered exactly once;
#  - no receiver's flows can all end before its downlink carried their payload at the link
#    rate, no sender's before its uplink did, and where a fabric routes per flow (/paths: IB's
#    static routes, RoCE's ECMP) no egress port's flows before that port carried them;
#  - the lossless fabrics (InfiniBand's credits, RoCE's PFC) drop nothing and resend nothing;
#    Ultra Ethernet resends only what was trimmed (retransmits == NACKs == trims, no timeouts);
#  - one experiment carries another fabric's groups: fabric-compare-ue.ini run with only
#    `--set fabric:kind=roce` lists [uet] and [nscc] as unused and gives the same /flows as
#    fabric-compare-roce.ini (the RoCE file sets only RoCE's defaults).
# It prints the comparison table (aggregate throughput, FCT p50/p99, drops, trims, pause or
# credit-stall time, retransmissions); the figures are not asserted beyond the bounds above.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
x="$WEFT_SRCDIR/experiments"
for k in ib roce ue; do
    "$WEFT" run -q "$x/fabric-compare-$k.ini" -o "$TMP/$k.h5" >"$TMP/$k.out" ||
        fail "fabric-compare-$k.ini"
done
"$WEFT" run -q "$x/fabric-compare-ue.ini" --set fabric:kind=roce -o "$TMP/ue-on-roce.h5" \
    >"$TMP/ue-on-roce.out" || fail "fabric-compare-ue.ini on RoCE"
grep -q "^  unused       \[uet\] (ultra-ethernet), \[nscc\] (ultra-ethernet): not used with \[fabric\] kind = roce" \
    "$TMP/ue-on-roce.out" || { cat "$TMP/ue-on-roce.out" >&2; fail "unused groups not listed"; }
"$PY" - "$TMP" <<'PYEOF' || fail "fabric comparison"
import sys, h5py
import numpy as np
d = sys.argv[1]
rate = 100e9
rows = []
for k in ("ib", "roce", "ue"):
    with h5py.File(f"{d}/{k}.h5", "r") as f:
        fl, ports, paths = f["flows"][:], f["ports"][:], f["paths"][:]
    assert len(fl) == 16 + 8 and fl["finished"].all(), k
    assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), k
    byid = {int(x["id"]): x for x in fl}
    def bound(ids, what):
        sel = [byid[i] for i in ids]
        span = (max(x["finish_ps"] for x in sel) - min(x["start_ps"] for x in sel)) / 1e12
        need = sum(int(x["size_bytes"]) for x in sel) * 8 / rate
        assert span >= need, (k, what, span, need)
    for end in ("src", "dst"):
        for n in np.unique(fl[end]):
            bound([int(i) for i in fl[fl[end] == n]["id"]], f"{end} {n}")
    egress = {}
    for h in paths:
        egress.setdefault((int(h["node"]), int(h["port"])), set()).add(int(h["flow"]))
    for where, ids in egress.items():
        bound(ids, f"egress {where}")
    if k == "ue":
        assert len(paths) == 0, "sprayed flows have no single path"
        assert (fl["retransmits"] == fl["nacks"]).all() and (fl["timeouts"] == 0).all()
        assert fl["nacks"].sum() == ports["trims"].sum() == fl["trims"].sum()
    else:
        assert len(egress) > 0, f"{k}: no /paths"
        assert ports["drops"].sum() == 0 and ports["lossless_drops"].sum() == 0, k
        assert fl["retransmits"].sum() == 0, k
    fct = np.sort(fl["fct_ps"]) / 1e6
    span = (fl["finish_ps"].max() - fl["start_ps"].min()) / 1e12
    rows.append((k, fl["size_bytes"].sum() * 8 / span / 1e9, np.percentile(fct, 50),
                 np.percentile(fct, 99), ports["drops"].sum(), ports["trims"].sum(),
                 ports["xmit_wait_ps"].sum() / 1e6, fl["retransmits"].sum()))
print(f"{'fabric':8} {'Gb/s':>8} {'p50 us':>8} {'p99 us':>8} {'drops':>6} {'trims':>6} "
      f"{'stall us':>9} {'rexmit':>6}")
for r in rows:
    print(f"{r[0]:8} {r[1]:8.1f} {r[2]:8.1f} {r[3]:8.1f} {r[4]:6d} {r[5]:6d} {r[6]:9.1f} {r[7]:6d}")
with h5py.File(f"{d}/roce.h5", "r") as a, h5py.File(f"{d}/ue-on-roce.h5", "r") as b:
    assert (a["flows"][:] == b["flows"][:]).all(), "the UE file on RoCE is not the RoCE run"
PYEOF
echo "fabric_compare: ok"
