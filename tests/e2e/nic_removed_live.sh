#!/bin/sh
# [fault.NAME] kind = nic-removed during the run (doc/faults.md, "A NIC removed during the
# run").  NCCL does not move a running communicator to another NIC: the removed device reports
# a fatal async event, every queue pair on it is in error, and the next operation on it fails
# the communicator.  Expectations, computed here:
#  - a ring all-reduce over the 4 x DGX H100 cluster with dgx-2/mlx5_3 removed at a time AT
#    fails (exit 6, trace status workload-failed) at AT exactly when a collective (whose rings
#    cross every NIC) or a flow through that NIC is under way then, else when the next flow
#    through it starts (read from the healthy run's /collectives, /flows and /paths): no retry span (4.096 us x 2^rc_timeout x (rc_retry_cnt + 1)) or
#    hang_timeout to wait for, and before the healthy run's end;
#  - stderr names the NIC, the fault group, NCCL's async fatal event and a flow whose path
#    crosses that NIC;
#  - its link is Down both ways; the switch's end counts one LinkDowned transition, the NIC's
#    end (gone) none; /faults has its one row at 40 us;
#  - with after = collective.2 + 10us, the NIC goes 10 us after collective 2's start (read
#    from the healthy run's /collectives) and the failure follows by the same rule;
#  - flows outside collectives: the NIC removed while no flow crosses it fails nothing then;
#    the next flow through it fails as it starts (its start in the healthy run), and a run
#    whose remaining flows avoid the NIC completes with the NIC's link Down;
#  - weft diag ibstat dgx-2 lists every NIC of the server (/topology/nodes) --at a time before
#    the removal, mlx5_3 Active, and one fewer at or after it; named, it exits 2;
#  - at = 0s (and no time) keeps a NIC that is absent from the start (nic_lost.sh);
#  - bad input: exit 2 naming the group and key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
allreduce_ini "$TMP/ar.ini" 2ms 16MB
cp "$TMP/ar.ini" "$TMP/gone.ini"
cat >>"$TMP/gone.ini" <<'INI'
[fault.nic]
kind = nic-removed
nic = dgx-2/mlx5_3
at = 40us
INI
expect_exit 0 "$WEFT" run -q "$TMP/ar.ini" -o "$TMP/healthy.h5"
# When the failure must come, from the healthy run (the same up to the fault): the flows whose
# data crosses the NIC's fabric link (/paths); at AT if a collective or one of those flows is
# under way then, else when the first of them starts after AT.  Printed as "AT EXPECTED" for
# AT = 40 us and for the middle of a gap between the collectives, if there is one.
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/healthy.h5" >"$TMP/when" <<'PYEOF' ||
import sys
import weft_trace as wt
h = sys.argv[1]
dec = lambda v: v.decode() if isinstance(v, bytes) else v
names = [dec(n) for n in wt.nodes(h)["name"]]
nic = names.index("dgx-2/mlx5_3")
link = [int(l["id"]) for l in wt.links(h) if dec(l["kind"]) == "fabric"
        and nic in (int(l["node_a"]), int(l["node_b"]))]
assert len(link) == 1, link
crossing = {int(p["flow"]) for p in wt.paths(h) if int(p["link"]) == link[0]}
fl = [f for f in wt.flows(h) if int(f["id"]) in crossing]
assert fl, "no flow crosses dgx-2/mlx5_3 in the healthy run"


c = sorted(wt.collectives(h), key=lambda r: int(r["id"]))
assert len(c) == 2, len(c)


def expect(at):
    """At AT when a collective is under way then (each of its 8 rings runs on its own rail, so
    one crosses every NIC) or a flow through the NIC is; else the next such flow's start."""
    if any(int(r["start_ps"]) <= at < int(r["finish_ps"]) for r in c) or \
            any(int(f["start_ps"]) <= at < int(f["finish_ps"]) for f in fl):
        return at
    return min(int(f["start_ps"]) for f in fl if int(f["start_ps"]) >= at)


# 40 us (into the first collective), and between the two collectives if they leave a gap
print(40_000_000, expect(40_000_000))
gap = (int(c[0]["finish_ps"]), int(c[1]["start_ps"]))
if gap[1] > gap[0] + 1:
    at = (gap[0] + gap[1]) // 2
    print(at, expect(at))
    assert expect(at) > at
# after = collective.2 + 10us: the in-place call, which starts when the first one ends
after = int(c[1]["start_ps"]) + 10_000_000
print("after", after, expect(after))
PYEOF
    fail "the healthy run's flows through dgx-2/mlx5_3"
grep -v '^after' "$TMP/when" | while read -r at expect; do
    expect_exit 6 "$WEFT" run -q "$TMP/gone.ini" -o "$TMP/gone.h5" --set "fault.nic:at=${at}ps"
    grep -q "NIC dgx-2/mlx5_3 removed at .* (\[fault.nic\]): NET/IB : mlx5_3:1 async fatal event" \
        "$TMP/err" || { cat "$TMP/err" >&2; fail "the failure does not name the removed NIC"; }
    grep -q "communicator encountered a fatal error" "$TMP/err" || fail "no NCCL error"
    grep "workload failed" "$TMP/err" | grep -q "path.*dgx-2/mlx5_3" ||
        { cat "$TMP/err" >&2; fail "the failed flow's path does not cross the removed NIC"; }
    PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/healthy.h5" "$TMP/gone.h5" "$at" "$expect" \
        <<'PYEOF' || fail "the run with dgx-2/mlx5_3 removed at $at ps"
import sys
import weft_trace as wt
healthy = int(wt.open_trace(sys.argv[1])["sim_time_ps"])
info = wt.open_trace(sys.argv[2])
at, expect = int(sys.argv[3]), int(sys.argv[4])
assert info["status"] == "workload-failed", info["status"]
got = int(info["sim_time_ps"])
# The transport's defaults (doc/transport.md): rc_timeout 20, rc_retry_cnt 7.
retry_span = 4_096_000 * 2 ** 20 * (7 + 1)
print(f"removed at {at / 1e6:.3f} us, failed at {got / 1e6:.3f} us, expected {expect / 1e6:.3f}"
      f" us; healthy end {healthy / 1e6:.3f} us; a retry span would be {retry_span / 1e12:.1f} s")
assert got == expect, (got, expect)
assert got < healthy
dec = lambda v: v.decode() if isinstance(v, bytes) else v
names = [dec(n) for n in wt.nodes(sys.argv[2])["name"]]
p = wt.ports(sys.argv[2])
down = sorted((names[r["node"]], int(r["port"]), int(r["link_downed"]))
              for r in p if r["state"] == 1)
assert down == [("dgx-2/mlx5_3", 2, 0), ("su0-rail1-leaf", 2, 1)], down
rows = wt.faults(sys.argv[2])
assert [(int(r["time_ps"]), dec(r["kind"]), dec(r["action"])) for r in rows] == \
    [(at, "nic-removed", "down")], rows
PYEOF
done
[ "$(wc -l <"$TMP/when")" -ge 2 ] || fail "expected removal times"

# after = collective.2 + 10us: collective 2 (the in-place call) starts when collective 1 ends.
cp "$TMP/ar.ini" "$TMP/after.ini"
cat >>"$TMP/after.ini" <<'INI'
[fault.nic]
kind = nic-removed
server = dgx-2
nic = mlx5_3
after = collective.2 + 10us
INI
expect_exit 6 "$WEFT" run -q "$TMP/after.ini" -o "$TMP/after.h5"
grep -q "NIC dgx-2/mlx5_3 removed at .* (\[fault.nic\])" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "after = collective.2: the NIC is not named"; }
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/after.h5" $(sed -n 's/^after //p' "$TMP/when") <<'PYEOF' ||
import sys
import weft_trace as wt
at, expect = int(sys.argv[2]), int(sys.argv[3])
info = wt.open_trace(sys.argv[1])
got = int(info["sim_time_ps"])
print(f"after = collective.2 + 10us: removed at {at / 1e6:.3f} us, failed at {got / 1e6:.3f} us,"
      f" expected {expect / 1e6:.3f} us")
assert info["status"] == "workload-failed", info["status"]
assert got == expect, (got, expect)
assert [int(r["time_ps"]) for r in wt.faults(sys.argv[1])] == [at]
assert len(wt.collectives(sys.argv[1])) == 1  # the first finished, the second did not
PYEOF
    fail "after = collective.2 + 10us"

# Flows outside collectives: one on rail 0 from 0 s, one through dgx-2/mlx5_3 from 100 us;
# the NIC goes at 50 us, when nothing crosses it.  Its flow fails as it starts (the first
# operation on the failed device), at its start in the healthy run; without it, the run
# completes with the link Down.
{ dgx4_ib 1; cat <<INI; } >"$TMP/flows.ini"
[workload.early]
kind = flows
flows = dgx-1/gpu0>dgx-3/gpu0 4MB 0us
[workload.late]
kind = flows
flows = dgx-1/gpu1>dgx-2/gpu1 1MB 100us
INI
cp "$TMP/flows.ini" "$TMP/flows-gone.ini"
printf '[fault.nic]\nkind = nic-removed\nnic = dgx-2/mlx5_3\nat = 50us\n' >>"$TMP/flows-gone.ini"
expect_exit 0 "$WEFT" run -q "$TMP/flows.ini" -o "$TMP/flows.h5"
expect_exit 6 "$WEFT" run -q "$TMP/flows-gone.ini" -o "$TMP/flows-gone.h5"
grep -q "NIC dgx-2/mlx5_3 removed at 50.000 us (\[fault.nic\]).*flow 1 dgx-1/gpu1 -> dgx-2/gpu1" \
    "$TMP/err" || { cat "$TMP/err" >&2; fail "the late flow's failure"; }
sed '/^\[workload.late\]/,/^flows = .*100us/d' "$TMP/flows-gone.ini" >"$TMP/flows-idle.ini"
expect_exit 0 "$WEFT" run -q "$TMP/flows-idle.ini" -o "$TMP/flows-idle.h5"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/flows.h5" "$TMP/flows-gone.h5" \
    "$TMP/flows-idle.h5" <<'PYEOF' || fail "a NIC removed while no flow crosses it"
import sys
import weft_trace as wt
f = {int(r["id"]): r for r in wt.flows(sys.argv[1])}
late = int(f[1]["start_ps"])
assert late >= 100_000_000, late
gone = wt.open_trace(sys.argv[2])
print(f"late flow starts at {late / 1e6:.3f} us in the healthy run; the run with the NIC gone "
      f"fails at {int(gone['sim_time_ps']) / 1e6:.3f} us")
assert gone["status"] == "workload-failed" and int(gone["sim_time_ps"]) == late
idle = wt.open_trace(sys.argv[3])
assert idle["status"] == "done", idle["status"]
assert all(int(r["finished"]) == 1 for r in wt.flows(sys.argv[3]))
dec = lambda v: v.decode() if isinstance(v, bytes) else v
names = [dec(n) for n in wt.nodes(sys.argv[3])["name"]]
down = sorted(names[r["node"]] for r in wt.ports(sys.argv[3]) if r["state"] == 1)
assert down == ["dgx-2/mlx5_3", "su0-rail1-leaf"], down
PYEOF
# ibstat on dgx-2 lists the NIC before its removal (Active), not at or after it
nics=$(PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" -c '
import sys
import weft_trace as wt
dec = lambda v: v.decode() if isinstance(v, bytes) else v
print(sum(1 for n in wt.nodes(sys.argv[1])
          if dec(n["kind"]) == "nic" and dec(n["name"]).startswith("dgx-2/")))' "$TMP/flows-idle.h5")
[ "$nics" -gt 1 ] || fail "dgx-2 has $nics NICs in /topology/nodes"
for at in 49.999us 50us ""; do
    expect_exit 0 "$WEFT" diag ibstat "$TMP/flows-idle.h5" dgx-2 ${at:+--at $at}
    got=$(grep -c "^CA '" "$TMP/out")
    if [ "$at" = 49.999us ]; then
        [ "$got" -eq "$nics" ] || fail "ibstat --at $at: $got CAs, expected $nics"
        grep -A 12 "^CA 'mlx5_3'" "$TMP/out" | grep -q "State: Active" ||
            fail "ibstat --at $at: mlx5_3 not Active"
    else
        [ "$got" -eq $((nics - 1)) ] || fail "ibstat ${at:---at end}: $got CAs, expected $((nics - 1))"
        ! grep -q "^CA 'mlx5_3'" "$TMP/out" || fail "ibstat ${at:-at the end} lists mlx5_3"
    fi
done
expect_exit 2 "$WEFT" diag ibstat "$TMP/flows-idle.h5" dgx-2/mlx5_3 --at 60us
grep -q "removed from its server at 50.000 us (\[fault.nic\])" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "ibstat of the removed NIC"; }

# bad input
for bad in "fault.nic:until=100us|until|not used by kind = nic-removed" \
    "fault.nic:after=collective.2|after|give at or after, not both" \
    "fault.nic:at=40|at|expected a time" \
    "fault.nic:at=1s|at|past the run's duration" ; do
    set=${bad%%|*}; rest=${bad#*|}; key=${rest%%|*}; text=${rest#*|}
    expect_exit 2 "$WEFT" validate "$TMP/gone.ini" --set experiment:duration=10ms --set "$set"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "--set $set: not one line"; }
    grep -q "\[fault.nic\] $key: .*$text" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "--set $set: no line naming [fault.nic] $key"; }
done
sed '/^at = 40us/d' "$TMP/gone.ini" >"$TMP/bad.ini"
echo "after = collective.9" >>"$TMP/bad.ini"
expect_exit 2 "$WEFT" validate "$TMP/bad.ini"
grep -q "\[fault.nic\] after: .*unknown event 'collective.9'" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "an unknown event"; }
# NCCL's words are its InfiniBand plugin's (verbs: InfiniBand and RoCE).  Over RoCE the same
# lines; over plain Ethernet and Ultra Ethernet another plugin runs, and weft says the device
# is gone without claiming that plugin's words.  The failure still comes at 40 us.
for kind in roce ethernet ultra-ethernet; do
    expect_exit 6 "$WEFT" run -q "$TMP/gone.ini" -o "$TMP/gone-$kind.h5" --set "fabric:kind=$kind"
    grep -q "workload failed at 40.000 us: NIC dgx-2/mlx5_3 removed at 40.000 us" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "$kind: the failure is not at the removal"; }
    if [ "$kind" = roce ]; then
        grep -q "NET/IB : mlx5_3:1 async fatal event" "$TMP/err" ||
            { cat "$TMP/err" >&2; fail "roce: not NCCL's IB plugin's words"; }
    else
        ! grep -q "NET/IB\|IBV_" "$TMP/err" || { cat "$TMP/err" >&2; fail "$kind: verbs words"; }
        grep -q "the device is gone and its connections fail" "$TMP/err" ||
            { cat "$TMP/err" >&2; fail "$kind: no failure line"; }
    fi
done
echo "nic-removed during the run: ok"
