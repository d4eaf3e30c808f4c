#!/bin/sh
# [fault.NAME] after = EVENT (+ TIME): a fault that begins at an event of the run rather than a
# time (doc/faults.md).  Expectations computed here from the traces:
#  - a link-down after = workload.allreduce.collective.2 + 20us on the 4-server cluster: the
#    second all-reduce (nccl-tests' out-of-place one) starts when a healthy run's trace says it
#    does (the faulty run is the healthy one up to the fault), the fault's /faults row is at
#    that start + 20 us exactly, and the run hangs (exit 3), reported no earlier than
#    hang_timeout after the resolved time and no later than hang_timeout after the healthy
#    run's end; the first all-reduce's /collectives row is the healthy run's;
#  - until counts from the resolved start: a link trained at 1x from that event comes back to
#    its rate 30 us later, and the run completes;
#  - bad input: an unknown event (with a "did you mean"), a collective past the run's, a bad
#    "+ TIME", both at and after, until = 0 with after: exit 2, group and key named.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

allreduce_ini "$TMP/ar.ini" 1ms 4MB
allreduce_ini "$TMP/dead.ini" 1ms 4MB "after = workload.allreduce.collective.2 + 20us"
expect_exit 0 "$WEFT" run -q "$TMP/ar.ini" -o "$TMP/healthy.h5"
expect_exit 3 "$WEFT" run -q "$TMP/dead.ini" -o "$TMP/dead.h5"
grep -q "link dgx-2/mlx5_3:2 <-> su0-rail1-leaf:2 is Down since" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "the hang report does not name the Down link"; }
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/healthy.h5" "$TMP/dead.h5" <<'PYEOF' ||
import sys
import weft_trace as wt
healthy = wt.open_trace(sys.argv[1])
hc = sorted(wt.collectives(sys.argv[1]), key=lambda r: int(r["id"]))
assert len(hc) == 2, len(hc)
start2 = int(hc[1]["start_ps"])
assert start2 > 0 and start2 >= int(hc[0]["finish_ps"]), (start2, int(hc[0]["finish_ps"]))
resolved = start2 + 20 * 10**6
info = wt.open_trace(sys.argv[2])
assert info["status"] == "hang", info["status"]
f = wt.faults(sys.argv[2])
assert len(f) >= 1
first = f[0]
fault = first["fault"].decode() if isinstance(first["fault"], bytes) else first["fault"]
action = first["action"].decode() if isinstance(first["action"], bytes) else first["action"]
assert fault == "fault.cable" and action == "down", (fault, action)
print(f"collective 2 starts at {start2 / 1e6:.3f} us; fault at {int(first['time_ps']) / 1e6:.3f} us")
assert int(first["time_ps"]) == resolved, (int(first["time_ps"]), resolved)
dc = sorted(wt.collectives(sys.argv[2]), key=lambda r: int(r["id"]))
assert len(dc) == 1 and int(dc[0]["start_ps"]) == int(hc[0]["start_ps"]) and \
    int(dc[0]["finish_ps"]) == int(hc[0]["finish_ps"]), dc
got, hang, end = int(info["sim_time_ps"]), 10**9, int(healthy["sim_time_ps"])
print(f"hang reported at {got / 1e6:.3f} us; healthy end {end / 1e6:.3f} us")
assert resolved + hang <= got <= max(end, resolved) + hang, (got, resolved, end)
PYEOF
    fail "the resolved time or the hang's"

# until counts from the resolved start: 1x for 30 us, then the run completes.
sed -e 's/^kind = link-down/kind = degraded\nwidth = 1x/' "$TMP/dead.ini" >"$TMP/back.ini"
echo "until = 30us" >>"$TMP/back.ini"
expect_exit 0 "$WEFT" run -q "$TMP/back.ini" -o "$TMP/back.h5"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/back.h5" <<'PYEOF' || fail "until after an event"
import sys
import weft_trace as wt
f = wt.faults(sys.argv[1])
acts = [(r["action"].decode() if isinstance(r["action"], bytes) else r["action"]) for r in f]
assert acts == ["rate", "rate"], acts
assert f[0]["value"] * 4 == f[1]["value"], [r["value"] for r in f]
assert int(f[1]["time_ps"]) - int(f[0]["time_ps"]) == 30 * 10**6, [int(r["time_ps"]) for r in f]
PYEOF

# ---- bad input ----
bad () {
    key=$1; file=$2
    expect_exit 2 "$WEFT" run -q "$file" -o "$TMP/bad.h5"
    grep -q "\[fault.cable\] $key" "$TMP/err" || { cat "$TMP/err" >&2; fail "$file: [fault.cable] $key not named"; }
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$file: more than one line"; }
}
sed -e 's/^after = .*/after = workload.allreduce.colective.2/' "$TMP/dead.ini" >"$TMP/b1.ini"
bad after "$TMP/b1.ini"
grep -q "did you mean workload.allreduce.collective.2" "$TMP/err" || fail "no suggestion"
sed -e 's/^after = .*/after = workload.allreduce.collective.3/' "$TMP/dead.ini" >"$TMP/b2.ini"
bad after "$TMP/b2.ini"
sed -e 's/^after = .*/after = collective.1 + 20 parsecs/' "$TMP/dead.ini" >"$TMP/b3.ini"
bad after "$TMP/b3.ini"
sed -e 's/^after = .*/after = collective.1\nat = 10us/' "$TMP/dead.ini" >"$TMP/b4.ini"
bad after "$TMP/b4.ini"
cp "$TMP/dead.ini" "$TMP/b5.ini"
echo "until = 0s" >>"$TMP/b5.ini"
bad until "$TMP/b5.ini"
# collective.N counts the run's collectives: collective.2 is the same event here.
sed -e 's/^after = .*/after = collective.2 + 20us/' "$TMP/dead.ini" >"$TMP/same.ini"
expect_exit 3 "$WEFT" run -q "$TMP/same.ini" -o "$TMP/same.h5"
echo "ok"
