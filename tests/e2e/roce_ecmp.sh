#!/bin/sh
# ECMP on RoCE (experiments/roce-ecmp-permutation.ini: a random permutation of 64 hosts on a
# non-blocking 8 x 8 leaf-spine, seed pinned, PFC and DCQCN on), judged from the trace:
#  - /paths gives every flow a connected path from its sender to its receiver, and the paths
#    are the ones taken: a switch-to-switch egress that paths use carried data (over a fifth
#    of a fair share of the busiest), one that no path uses carried no data (only ACKs, under
#    5 % of the busiest);
#  - hash collisions: some egress carries two or more flows;
#  - the aggregate delivered rate is within 10 % of the sum of the max-min fair rates over
#    those paths, computed here by water-filling (each egress a resource of capacity line
#    rate x 4096 / (4096 + 82), the payload share of a RoCEv2 frame on the wire), and
#    `weft report`'s max-min field is that same total;
#  - adaptive routing on the same permutation (1 ms): each packet takes the least-loaded
#    uplink, so the collisions are gone - the total beats ECMP's by far and reaches three
#    quarters of 64 uncontended flows even with the start-up transient - and packets arrive
#    out of order (/flows reorder_max) yet are delivered in order; /paths is empty.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/roce-ecmp-permutation.ini" -o "$TMP/p.h5" >"$TMP/summary"
grep -q "lossless violations 0" "$TMP/summary" || { cat "$TMP/summary" >&2; fail "lossless violations"; }
"$WEFT" report --format json "$TMP/p.h5" >"$TMP/report.json" || fail "weft report"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/p.h5" "$TMP/report.json" <<'PYEOF' || fail "ECMP max-min"
import json, sys
import weft_trace as wt
path = sys.argv[1]
report = json.load(open(sys.argv[2]))
info = wt.open_trace(path)
assert info["complete"] and info["status"] == "duration", info["status"]
T = int(info["sim_time_ps"]) / 1e12
flows = wt.flows(path)
assert len(flows) == 64
nodes = wt.nodes(path)
kind = {int(n["id"]): n["kind"].decode() for n in nodes}
links = {int(l["id"]): l for l in wt.links(path)}
hops = wt.paths(path)
paths = {}
for h in sorted(hops, key=lambda h: (int(h["flow"]), int(h["hop"]))):
    paths.setdefault(int(h["flow"]), []).append((int(h["node"]), int(h["port"]), int(h["link"])))
assert sorted(paths) == sorted(int(i) for i in flows["id"])

port_link = {}
for i, l in links.items():
    port_link[(int(l["node_a"]), int(l["port_a"]))] = i
    port_link[(int(l["node_b"]), int(l["port_b"]))] = i

def far_end(node, port, link):
    l = links[link]
    if (int(l["node_a"]), int(l["port_a"])) == (node, port):
        return int(l["node_b"])
    assert (int(l["node_b"]), int(l["port_b"])) == (node, port), (node, port, link)
    return int(l["node_a"])

# Each path is connected and ends at the receiver.
for fl in flows:
    p = paths[int(fl["id"])]
    assert p[0][0] == int(fl["src"]), (fl, p)
    for (n, pt, l), nxt in zip(p, p[1:] + [None]):
        end = far_end(n, pt, l)
        assert end == (nxt[0] if nxt else int(fl["dst"])), (fl["id"], p)

eff = 4096 / (4096 + 82)
load = {}
for f, p in paths.items():
    for n, pt, l in p:
        load.setdefault((n, pt), set()).add(f)
crowded = max(len(v) for v in load.values())
print("egresses with >= 2 flows:", sum(len(v) >= 2 for v in load.values()), "most:", crowded)
assert crowded >= 2, "no hash collision"

# The paths are the ones taken: /ports tx_bytes of switch egresses toward spines/leaves.
tx = {(int(p["node"]), int(p["port"])): int(p["tx_bytes"]) for p in wt.ports(path)}
fabric = [(n, pt) for (n, pt) in tx
          if kind[n] == "switch" and kind[far_end(n, pt, port_link[(n, pt)])] == "switch"]
busiest = max(tx[k] for k in fabric)
for k in fabric:
    if k in load:
        assert tx[k] > 0.2 * busiest / len(load[k]) / crowded, (k, tx[k], busiest)
    else:
        assert tx[k] < 0.05 * busiest, (k, tx[k], busiest)

# Max-min fair rates over the hashed paths: water-filling.
left = {r: float(links[port_link[r]]["rate_bps"]) * eff for r in load}
rate, active = {}, set(paths)
while active:
    share = {r: left[r] / len(load[r] & active) for r in load if load[r] & active}
    r0 = min(share, key=share.get)
    for f in load[r0] & active:
        rate[f] = share[r0]
        for n, pt, l in paths[f]:
            left[(n, pt)] -= share[r0]
    active -= load[r0]
want = sum(rate.values())
got = float(flows["bytes_delivered"].sum()) * 8 / T
print(f"aggregate {got / 1e9:.1f} Gb/s, max-min over the hashed paths {want / 1e9:.1f} Gb/s, "
      f"ratio {got / want:.3f}")
assert abs(got / want - 1) <= 0.10, (got, want)
# weft report's max-min field (analysis/derived.c) is this same allocation, and its delivered
# total these flows' payload rates
assert report["maxmin_flows"] == 64, report.get("maxmin_flows")
assert abs(report["maxmin_fair_total_bps"] / want - 1) <= 1e-9, (report["maxmin_fair_total_bps"], want)
assert abs(report["maxmin_delivered_bps"] / got - 1) <= 1e-9, (report["maxmin_delivered_bps"], got)
# Collisions cost something: the max-min total is below what 64 uncontended flows would get.
assert want < 0.9 * 64 * 400e9 * eff, want
open(sys.argv[1] + ".ecmp", "w").write(str(got))
PYEOF
"$WEFT" run -q "$WEFT_SRCDIR/experiments/roce-ecmp-permutation.ini" -o "$TMP/ar.h5" \
    --set fabric:routing=adaptive --set experiment:duration=1ms >"$TMP/ar"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/ar.h5" "$(cat "$TMP/p.h5.ecmp")" <<'PYEOF' \
    || fail "adaptive routing on RoCE"
import sys
import weft_trace as wt
path, ecmp = sys.argv[1], float(sys.argv[2])
info = wt.open_trace(path)
T = int(info["sim_time_ps"]) / 1e12
f = wt.flows(path)
got = float(f["bytes_delivered"].sum()) * 8 / T
full = 64 * 400e9 * 4096 / (4096 + 82)
print(f"adaptive {got / 1e9:.1f} Gb/s (ECMP {ecmp / 1e9:.1f}, uncontended {full / 1e9:.1f}); "
      f"flows reordered: {int((f['reorder_max'] > 0).sum())}, deepest {int(f['reorder_max'].max())}")
assert got > 1.3 * ecmp and got > 0.75 * full
assert (f["reorder_max"] > 0).sum() > 0
assert len(wt.paths(path)) == 0
PYEOF
echo "roce ecmp: ok"
