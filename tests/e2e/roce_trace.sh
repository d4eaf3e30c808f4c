#!/bin/sh
# RoCE's congestion signals, read back from the traces (doc/hdf5-schema.md, schema 4):
#  - pause propagation on a two-tier fabric: an incast behind leaf1 (four senders behind
#    leaf0 cross spine0) pauses spine0's port toward leaf1 and leaf0's port toward spine0, and
#    /pfc shows paused time at both tiers; /pfc's paused time per port adds up to /ports
#    xmit_wait_ps, its frame counts to the run summary, and only the RDMA priority (3) pauses;
#  - DCQCN (experiments/roce-dcqcn-fairness.ini): /flows counts the CNPs each flow's receiver
#    sent and its sender received (equal: nothing drops a CNP there), /links and /ports
#    count the CE marks (equal to what the receivers saw), and /dcqcn's last samples show both
#    flows cut below line rate while the two share the bottleneck;
#  - RoCE's RC timeout at NCCL's default (rc_timeout = 20: 4.3 s) outlasts the queues PFC
#    builds: the 16-to-1 incast of experiments/roce-incast.ini retransmits nothing, where
#    16 us (rc_timeout = 2) fires spuriously behind the paused queues (and resends what was
#    only waiting).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
cat >"$TMP/spread.ini" <<'INI'
[topology]
generator = leafspine
leaves = 2
spines = 1
hosts_per_leaf = 4
link_rate = 400Gbps
cable_length = 2m
[fabric]
kind = roce
routing = static
[ecn]
enabled = false
[dcqcn]
enabled = false
[trace]
interval = 5us
[workload.w]
kind = flows
flows = host0>host4 2MiB; host1>host4 2MiB; host2>host4 2MiB; host3>host4 2MiB; host5>host4 2MiB; host6>host4 2MiB; host7>host4 2MiB
INI
"$WEFT" run -q "$TMP/spread.ini" -o "$TMP/spread.h5" >"$TMP/summary"
sed -n 's/.*pfc *\([0-9]*\) pauses sent (\([0-9]*\) received), \([0-9]*\) resumes.*/\1 \2 \3/p' \
    "$TMP/summary" >"$TMP/counts"
[ -s "$TMP/counts" ] || { cat "$TMP/summary" >&2; fail "no pfc line in the summary"; }
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/spread.h5" $(cat "$TMP/counts") <<'PYEOF'
import sys
import weft_trace as wt
path, sent, received, resumes = sys.argv[1], *map(int, sys.argv[2:5])
nodes = wt.nodes(path)
name = {int(n["id"]): n["name"].decode() for n in nodes}
tier = {int(n["id"]): int(n["tier"]) for n in nodes}
links = wt.links(path)
pfc = wt.pfc_samples(path)
assert len(pfc) > 0, "no /pfc rows"
assert set(pfc["priority"].tolist()) == {3}, set(pfc["priority"].tolist())
assert int(pfc["pauses_sent"].sum()) == sent, (pfc["pauses_sent"].sum(), sent)
assert int(pfc["pauses_received"].sum()) == received
assert int(pfc["resumes_sent"].sum()) == resumes
assert int(pfc["violations"].sum()) == 0
paused = {}
for r in pfc:
    key = (int(r["node"]), int(r["port"]))
    paused[key] = paused.get(key, 0) + int(r["paused_ps"])
for p in wt.ports(path):
    assert paused.get((int(p["node"]), int(p["port"])), 0) == int(p["xmit_wait_ps"]), p
def toward(a, b):
    """paused ps of a's port whose link leads to b"""
    ia = [i for i, n in name.items() if n == a][0]
    ib = [i for i, n in name.items() if n == b][0]
    for l in links:
        ends = ((int(l["node_a"]), int(l["port_a"])), (int(l["node_b"]), int(l["port_b"])))
        if {ends[0][0], ends[1][0]} == {ia, ib}:
            me = ends[0] if ends[0][0] == ia else ends[1]
            return paused.get(me, 0)
    raise KeyError((a, b))
spine, leaf = toward("spine0", "leaf1"), toward("leaf0", "spine0")
print(f"paused from /pfc: spine0->leaf1 {spine / 1e6:.1f} us, leaf0->spine0 {leaf / 1e6:.1f} us")
assert spine > 0 and leaf > 0
assert toward("leaf1", "host4") == 0
tiers = {tier[int(r["node"])] for r in pfc if r["paused_ps"] > 0}
assert {1, 2} <= tiers, tiers
PYEOF
[ $? -eq 0 ] || fail "pause propagation in /pfc"

"$WEFT" run -q "$WEFT_SRCDIR/experiments/roce-dcqcn-fairness.ini" -o "$TMP/dc.h5" >/dev/null
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/dc.h5" <<'PYEOF' || fail "DCQCN in the traces"
import sys
import weft_trace as wt
path = sys.argv[1]
f = wt.flows(path)
assert len(f) == 2 and (f["finished"] == 1).all()
assert (f["cnps_sent"] > 0).all() and (f["cnps_sent"] == f["cnps_received"]).all(), f
assert (f["rate_cuts"] > 0).all() and (f["rate_cuts"] <= f["cnps_received"]).all()
assert (f["min_rate_bps"] < 400e9).all() and (f["min_rate_bps"] > 0).all()
marks = int(wt.link_samples(path)["ecn_marks"].sum())
assert marks == int(wt.ports(path)["ecn_marks"].sum()) == int(f["ecn_marked"].sum()) > 0, marks
d = wt.dcqcn_samples(path)
assert len(d) > 0
# Both flows under way and cut: the last sample time when both are present.
both = [t for t in sorted(set(d["time_ps"].tolist()))
        if len(d[d["time_ps"] == t]) == 2]
assert both, "no sample with both flows"
last = d[d["time_ps"] == both[-1]]
assert (last["rate_bps"] < 400e9).all(), last
assert (last["rate_bps"] <= last["target_bps"]).all()
# CNPs and cuts only grow, per flow.
for fl in (0, 1):
    rows = d[d["flow"] == fl]
    assert (rows["cnps_received"][1:] >= rows["cnps_received"][:-1]).all()
    assert (rows["rate_cuts"][1:] >= rows["rate_cuts"][:-1]).all()
print("dcqcn rows:", len(d), "marks:", marks)
PYEOF
"$WEFT" run -q "$WEFT_SRCDIR/experiments/roce-incast.ini" -o "$TMP/in.h5" >"$TMP/in"
grep -q "retransmits  0 (0 timeouts)" "$TMP/in" || { cat "$TMP/in" >&2; fail "roce-incast retransmitted"; }
grep -q "drops        0 (0 data)" "$TMP/in" || { cat "$TMP/in" >&2; fail "roce-incast dropped"; }
"$WEFT" run -q "$WEFT_SRCDIR/experiments/roce-incast.ini" -o "$TMP/in16.h5" \
    --set transport:rc_timeout=2 >"$TMP/in16"
grep -q "retransmits  [1-9][0-9]* ([1-9][0-9]* timeouts)" "$TMP/in16" \
    || { cat "$TMP/in16" >&2; fail "a 16 us RC timeout did not fire behind PFC queues"; }
echo "roce trace: ok"
