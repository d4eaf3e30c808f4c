#!/bin/sh
# [fault.NAME] kind = nic-removed (doc/faults.md): one NIC missing from one server
# (experiments/nic-lost.ini).  Expectations computed here from the configured rates:
#  - the GPU whose NIC is gone reaches the network through another NIC of its server, so two of
#    NCCL's 8 rings share one NIC: each gets half of min(NIC rate, PCIe rate) (the stand-in
#    NIC's fabric link and its PCIe link both carry the two rings), and since every ring
#    carries an eighth of the data the ring all-reduce's bus bandwidth is at most
#    8 x that / 8 x 4096/4122 (IB headers), and within 10 % of it;
#  - the same file without its fault group is faster than that bound (the missing NIC is what
#    limits);
#  - in the faulted trace, the removed NIC's link carries nothing either way and its ports are
#    Down without a LinkDowned transition; the NIC that stands in sends and receives twice what
#    each of the server's other NICs does (within 5 %), and twice what it does in the healthy
#    run; the /faults data set has the one nic-removed row at time 0;
#  - weft diag ibstat lists one CA fewer on dgx-2 than the server has NICs (/topology/nodes),
#    not dgx-2/mlx5_3 (named, it exits 2 saying it was removed);
#  - bad input: exit 2 naming the group and key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
exp="$WEFT_SRCDIR/experiments/nic-lost.ini"
expect_exit 0 "$WEFT" run -q "$exp" -o "$TMP/lost.h5"
grep "busbw " "$TMP/out" | sed -n 's/.*ranks: \([0-9.]*\) GB\/s.*/\1/p' >"$TMP/lost.bw"
# the healthy run: the same file without its fault group
sed '/^\[fault.nic\]/,/^nic =/d' "$exp" |
    sed "s|^include = dgx4.ini|include = $WEFT_SRCDIR/experiments/dgx4.ini|" >"$TMP/healthy.ini"
! grep -q "nic-removed" "$TMP/healthy.ini" || fail "the healthy copy still has the fault"
expect_exit 0 "$WEFT" run -q "$TMP/healthy.ini" -o "$TMP/healthy.h5"
grep "busbw " "$TMP/out" | sed -n 's/.*ranks: \([0-9.]*\) GB\/s.*/\1/p' >"$TMP/healthy.bw"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$(cat "$TMP/lost.bw")" "$(cat "$TMP/healthy.bw")" \
    "$TMP/lost.h5" "$TMP/healthy.h5" <<'PYEOF' ||
import sys
import weft_trace as wt
lost, healthy = float(sys.argv[1]), float(sys.argv[2])
nic, pcie = 400e9, 50e9 * 8            # [server] defaults of the dgx-h100 preset, bits/s
share = min(nic, pcie) / 2             # two rings through the stand-in NIC and its PCIe link
bound = 8 * share / 8 / 1e9 * 4096 / 4122  # GB/s: 8 rings, bits to bytes, IB headers
print(f"busbw {lost} GB/s with dgx-2/mlx5_3 removed, bound {bound:.1f}; healthy {healthy}")
assert 0.90 * bound <= lost <= bound, (lost, bound)
assert healthy > 1.1 * bound, (healthy, bound)


def nic_ports(path):
    """(tx, rx, state, link_downed) of every NIC's fabric port, by NIC name."""
    names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(path)["name"]]
    fabric = {int(l["id"]) for l in wt.links(path)
              if (l["kind"].decode() if isinstance(l["kind"], bytes) else l["kind"]) == "fabric"}
    out = {}
    for p in wt.ports(path):
        name = names[int(p["node"])]
        if "/mlx5_" in name and int(p["link"]) in fabric:
            out[name] = (int(p["tx_bytes"]), int(p["rx_bytes"]), int(p["state"]),
                         int(p["link_downed"]))
    return out


lp, hp = nic_ports(sys.argv[3]), nic_ports(sys.argv[4])
gone, stand_in = "dgx-2/mlx5_3", "dgx-2/mlx5_0"
assert lp[gone][:2] == (0, 0), lp[gone]
assert lp[gone][2] == 1 and lp[gone][3] == 0, lp[gone]   # Down, never counted a transition
assert hp[gone][0] > 0 and hp[gone][2] == 4, hp[gone]
others = [n for n in lp if n.startswith("dgx-2/") and n not in (gone, stand_in)]
assert len(others) == 6, others
for d in (0, 1):                                          # tx, rx
    one = sum(lp[n][d] for n in others) / len(others)
    assert all(abs(lp[n][d] / one - 1) < 0.05 for n in others), (d, [lp[n] for n in others])
    assert abs(lp[stand_in][d] / (2 * one) - 1) < 0.05, (d, lp[stand_in], one)
    assert abs(lp[stand_in][d] / (2 * hp[stand_in][d]) - 1) < 0.05, (d, lp[stand_in], hp[stand_in])
rows = wt.faults(sys.argv[3])
assert len(rows) == 1, rows
r = rows[0]
assert r["time_ps"] == 0 and r["kind"] in (b"nic-removed", "nic-removed"), r
PYEOF
    fail "nic-removed on dgx-2"
# ibstat on dgx-2 does not see the NIC that is gone
expect_exit 0 "$WEFT" diag ibstat "$TMP/lost.h5" dgx-2
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/lost.h5" "$(grep -c "^CA '" "$TMP/out")" <<'PYEOF' ||
import sys
import weft_trace as wt
dec = lambda v: v.decode() if isinstance(v, bytes) else v
nics = [dec(n["name"]) for n in wt.nodes(sys.argv[1])
        if dec(n["kind"]) == "nic" and dec(n["name"]).startswith("dgx-2/")]
print(f"ibstat dgx-2 lists {sys.argv[2]} CAs; the server has {len(nics)} NICs, one removed")
assert int(sys.argv[2]) == len(nics) - 1
PYEOF
    fail "ibstat dgx-2 with a NIC removed"
! grep -q "^CA 'mlx5_3'" "$TMP/out" || fail "ibstat lists the removed NIC"
expect_exit 2 "$WEFT" diag ibstat "$TMP/lost.h5" dgx-2/mlx5_3
grep -q "dgx-2/mlx5_3 was removed from its server at 0.000 us (\[fault.nic\])" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "ibstat of the removed NIC"; }
# bad input
for bad in "fault.nic:nic=dgx-2/mlx5_7|nic|unknown NIC 'dgx-2/mlx5_7', did you mean 'dgx-2/mlx5_" \
    "fault.nic:nic=dgx-9/mlx5_3|nic|unknown server 'dgx-9', did you mean 'dgx-" \
    "fault.nic:nic=mlx5_3|server|required" "fault.nic:nic=|nic|required" \
    "fault.nic:server=dgx-3|server|not the server of nic = dgx-2/mlx5_3" \
    "fault.nic:at=10|at|expected a time" "fault.nic:until=1ms|until|not used" \
    "fault.nic:link=dgx-2/mlx5_3|link|not used by kind = nic-removed" \
    "fault.nic:ber=0.001|ber|not used by kind = nic-removed"; do
    set=${bad%%|*}; rest=${bad#*|}; key=${rest%%|*}; text=${rest#*|}
    expect_exit 2 "$WEFT" validate "$exp" --set "$set"
    grep -q "\[fault.nic\] $key: .*$text" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "--set $set: no line naming [fault.nic] $key"; }
done
# the same NIC twice, and a server left without any NIC
sed "s|^include = dgx4.ini|include = $WEFT_SRCDIR/experiments/dgx4.ini|" "$exp" >"$TMP/twice.ini"
printf '[fault.again]\nkind = nic-removed\nserver = dgx-2\nnic = mlx5_3\n' >>"$TMP/twice.ini"
expect_exit 2 "$WEFT" validate "$TMP/twice.ini"
grep -q "\[fault.again\] nic: .*removed by another group" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "a NIC removed twice"; }
sed "s|^include = dgx4.ini|include = $WEFT_SRCDIR/experiments/dgx4.ini|" "$exp" >"$TMP/none.ini"
for n in mlx5_0 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11; do
    printf '[fault.%s]\nkind = nic-removed\nnic = dgx-2/%s\n' "$n" "$n" >>"$TMP/none.ini"
done
expect_exit 2 "$WEFT" validate "$TMP/none.ini"
grep -q "\[fault.mlx5_11\] nic: dgx-2 has no other NIC" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "a server without NICs"; }
echo "nic-removed: ok"
