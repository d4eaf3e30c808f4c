#!/bin/sh
# Mix and match: spraying over RoCE/PFC is one key ([fabric] spray), not a fabric of its own.
# A random permutation of 2 MiB flows on a 1:1 leaf-spine of 16 hosts at 100 Gb/s, RoCE with
# PFC and DCQCN, the same seed with and without spraying:
#  - both deliver every byte exactly once, drop nothing and resend nothing (PFC keeps the
#    fabric lossless; with spraying the receivers place packets out of order);
#  - sprayed, packets do arrive out of order and no flow has a single path (/paths is empty);
#  - with ECMP the aggregate (all bytes / the last finish) stays at or below what its hashed
#    paths (/paths) allow - no flow set ends before its busiest egress has carried it - and
#    that bound is below spraying's aggregate.
#    (Spraying does not reach line rate here: RoCE senders have no window, the random
#    collisions of sprayed packets cross PFC's xoff, and the pauses hold whole ports; the
#    test prints the aggregate against hosts x rate x 4096 / (4096 + 82) without judging it.)
#  - the key is refused where it would be ignored or means something else (InfiniBand, Ultra
#    Ethernet), exit 2 naming [fabric] spray.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
cat >"$TMP/perm.ini" <<'INI'
[experiment]
seed = 7
hang_timeout = 10ms
[topology]
generator = leafspine
leaves = 4
spines = 4
hosts_per_leaf = 4
link_rate = 100Gbps
uplink_rate = 100Gbps
cable_length = 2m
uplink_cable_length = 20m
[fabric]
kind = roce
routing = ecmp
[workload.perm]
kind = permutation
pattern = random
flow_size = 2MiB
INI
"$WEFT" run -q "$TMP/perm.ini" --set fabric:spray=oblivious -o "$TMP/spray.h5" >/dev/null ||
    fail "sprayed run"
"$WEFT" run -q "$TMP/perm.ini" -o "$TMP/ecmp.h5" >/dev/null || fail "ECMP run"
"$PY" - "$TMP/spray.h5" "$TMP/ecmp.h5" <<'PYEOF' || fail "spraying over RoCE"
import sys, h5py
hosts, rate, mtu, hdr = 16, 100e9, 4096, 82
def run(path):
    with h5py.File(path, "r") as f:
        fl, ports, paths = f["flows"][:], f["ports"][:], f["paths"][:]
    assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all(), path
    assert ports["drops"].sum() == 0 and fl["retransmits"].sum() == 0, path
    span = (fl["finish_ps"].max() - fl["start_ps"].min()) / 1e12
    return fl, paths, float(fl["size_bytes"].sum()) * 8 / span
ideal = hosts * rate * mtu / (mtu + hdr)
fl, paths, spray = run(sys.argv[1])
assert len(paths) == 0 and fl["reorder_count"].sum() > 0
fl, paths, ecmp = run(sys.argv[2])
byid = {int(x["id"]): x for x in fl}
load = {}
for h in paths:
    load.setdefault((int(h["node"]), int(h["port"])), set()).add(int(h["flow"]))
bound = min(
    sum(int(byid[i]["size_bytes"]) for i in byid) * 8 /
    (sum(int(byid[i]["size_bytes"]) for i in ids) * 8 / rate)
    for ids in load.values())
print(f"spray {spray / 1e9:.1f} Gb/s, ideal {ideal / 1e9:.1f}; ecmp {ecmp / 1e9:.1f}, "
      f"bound {bound / 1e9:.1f}")
assert ecmp <= bound * 1.0001, (ecmp, bound)
assert bound < spray, (bound, spray)
PYEOF
for k in infiniband ultra-ethernet; do
    expect_exit 2 "$WEFT" validate "$TMP/perm.ini" --set fabric:kind=$k --set fabric:spray=oblivious
    grep -q "\[fabric\] spray: used on Ethernet and RoCE only" "$TMP/err" || { cat "$TMP/err" >&2; fail "$k: spray accepted"; }
done
echo "roce_spray: ok"
