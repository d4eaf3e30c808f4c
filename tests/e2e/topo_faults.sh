#!/bin/sh
# weft topo --faults [--at TIME] (cli/topo.c, models/fault.h weft_faults_apply_topology): the
# fabric as an experiment's fault groups leave it.  Expectations, computed here from the
# healthy description of the same file:
#  - without --faults nothing changes: no "Faults" block, every cable there;
#  - dead-link.ini (link-down at 100 us): --at 50us applies nothing (the same cables);
#    --at 150us and --faults alone leave the one dead cable out: one fabric link fewer in the
#    summary and the JSON export, and its "link" line gone from --format topo; --routes from
#    dgx-1/gpu1 to dgx-2/gpu1 then avoids dgx-2/mlx5_3 (the routes are recomputed);
#  - bad-cable.ini (a 4x link trained at 1x): --faults --format json gives that link a quarter
#    of its healthy rate and every other link its healthy rate;
#  - nic-lost.ini: the removed NIC's cable is gone;
#  - bad input: --at without a unit, an unknown link in a fault group: exit 2, one line.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
ex="$WEFT_SRCDIR/experiments"
fabric_links() { sed -n 's/^  links [0-9]*: \([0-9]*\) fabric.*/\1/p' "$TMP/out"; }

expect_exit 0 "$WEFT" topo "$ex/dead-link.ini"
! grep -q "^Faults" "$TMP/out" || fail "weft topo applies faults unasked"
healthy=$(fabric_links)
[ -n "$healthy" ] && [ "$healthy" -gt 1 ] || fail "no fabric link count in weft topo's summary"
expect_exit 0 "$WEFT" topo --faults --at 50us "$ex/dead-link.ini"
grep -q "^\[fault.cable\] link-down: not in effect at that time" "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "--at 50us: the fault is not said to be out of effect"; }
[ "$(fabric_links)" -eq "$healthy" ] || fail "--at 50us: $(fabric_links) fabric links, expected $healthy"
for opt in "--at 150us" ""; do
    expect_exit 0 "$WEFT" topo --faults $opt "$ex/dead-link.ini"
    grep -q "dgx-2/mlx5_3:2 <-> su0-rail1-leaf:2 Down: left out" "$TMP/out" ||
        { cat "$TMP/out" >&2; fail "--faults $opt: the dead link is not named"; }
    [ "$(fabric_links)" -eq $((healthy - 1)) ] ||
        fail "--faults $opt: $(fabric_links) fabric links, expected $((healthy - 1))"
done
expect_exit 0 "$WEFT" topo --format topo "$ex/dead-link.ini"
grep -q "^link dgx-2/mlx5_3:2 su0-rail1-leaf:2 " "$TMP/out" || fail "the healthy topo file lacks the cable"
expect_exit 0 "$WEFT" topo --format topo --at 150us "$ex/dead-link.ini"
! grep -q "^link dgx-2/mlx5_3:2 " "$TMP/out" || fail "the faulted topo file still has the cable"
grep -q "Down: left out" "$TMP/err" || fail "--format: what was applied is not on stderr"
expect_exit 0 "$WEFT" topo --at 150us --routes dgx-1/gpu1 dgx-2/gpu1 "$ex/dead-link.ini"
grep -q "dgx-2/gpu1" "$TMP/out" || { cat "$TMP/out" >&2; fail "no route printed"; }
! grep -v "^\(Faults\|\[fault\|  dgx-2/mlx5_3:2 <->\)" "$TMP/out" | grep -q "dgx-2/mlx5_3" ||
    { cat "$TMP/out" >&2; fail "the route still crosses the dead cable's NIC"; }

# a degraded link's rate, from the JSON exports
expect_exit 0 "$WEFT" topo --format json "$ex/bad-cable.ini"
cp "$TMP/out" "$TMP/healthy.json"
expect_exit 0 "$WEFT" topo --format json --faults "$ex/bad-cable.ini"
"$PY" - "$TMP/healthy.json" "$TMP/out" <<'PYEOF' || fail "bad-cable.ini's rates"
import json
import sys
h, f = (json.load(open(p)) for p in sys.argv[1:3])
names = {n["id"]: n["name"] for n in h["nodes"]}
hr = {l["id"]: l["rate_bps"] for l in h["links"]}
fr = {l["id"]: l["rate_bps"] for l in f["links"]}
assert hr.keys() == fr.keys()
slow = [i for i in hr if fr[i] != hr[i]]
assert len(slow) == 1, slow
l = next(x for x in h["links"] if x["id"] == slow[0])
assert "dgx-2/mlx5_3" in (names[l["a"]], names[l["b"]]), l
assert fr[slow[0]] * 4 == hr[slow[0]], (fr[slow[0]], hr[slow[0]])  # 4x trained at 1x
print(f"{names[l['a']]} - {names[l['b']]}: {hr[slow[0]] / 1e9:g} -> {fr[slow[0]] / 1e9:g} Gb/s")
PYEOF

# a removed NIC's cable
expect_exit 0 "$WEFT" topo "$ex/nic-lost.ini"
healthy=$(fabric_links)
expect_exit 0 "$WEFT" topo --faults "$ex/nic-lost.ini"
grep -q "dgx-2/mlx5_3:2 <-> su0-rail1-leaf:2 removed with its NIC" "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "nic-lost.ini: the removed NIC's cable is not named"; }
[ "$(fabric_links)" -eq $((healthy - 1)) ] || fail "nic-lost.ini: $(fabric_links) fabric links"

# bad input
expect_exit 2 "$WEFT" topo --at 150 "$ex/dead-link.ini"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^weft topo: --at 150" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "--at without a unit"; }
expect_exit 2 "$WEFT" topo --faults --set fault.cable:link=dgx-9/mlx5_3 "$ex/dead-link.ini"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "\[fault.cable\] link: unknown node 'dgx-9/mlx5_3'" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "an unknown link"; }
echo "weft topo --faults: ok"
