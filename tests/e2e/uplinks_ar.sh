#!/bin/sh
# experiments/leaf-uplinks-lost.ini with adaptive routing and no subnet-manager re-route
# (doc/faults.md, "How routing reacts"): su0-rail3-leaf has lost four of its eight uplinks,
# so four spines have no way down to it.  Expectations computed here from the topology, the
# configured rates and the transport's timeout:
#  - with fault notifications (the default): the spines tell the other leaves, adaptive
#    routing stops sending su0-rail3-leaf's traffic to them, and the all-to-all finishes,
#    within 10 % of what the four uplinks left allow (tests/e2e/uplinks_bound.py, shared with
#    uplinks.sh);
#  - without them: the leaves keep choosing the dead-end spines for part of the packets and
#    a connection runs out of retries (exit 6), on a path through a spine into that leaf;
#  - notifications that arrive 50 us after the all-to-all starts: the packets sent into the
#    dead ends before then are lost and recovered by the RC timeout (4.096 us x 2^8), so the
#    all-to-all takes at least one timeout and at most the notification's lateness + one
#    timeout + the bound / 0.9.
# Shrunk as uplinks.sh shrinks it: the all-to-all over two GPUs of each server (4 MB).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

EXP="$WEFT_SRCDIR/experiments/leaf-uplinks-lost.ini"
A2A=""
for i in $(seq 1 16); do A2A="$A2A${A2A:+;}dgx-$i/gpu2..3"; done
SHRINK="--set workload.ar:gpus=dgx-3/gpu0..7;dgx-4/gpu0..7
 --set workload.a2a:minbytes=4MB --set workload.a2a:maxbytes=4MB --set workload.a2a:start=2ms
 --set experiment:hang_timeout=2ms --set workload.a2a:gpus=$A2A
 --set fabric:routing=adaptive --set routing:sm_reroute=false"

# Bad input: one line naming the file, [routing] and the key.
for kv in "fault_notification_delay = 11s" "fault_notification_delay = 5" \
    "fault_notifications = yes"; do
    sed "s/^\[routing\]\$/[routing]\n$kv/" "$EXP" >"$TMP/bad.ini"
    expect_exit 2 "$WEFT" run -q "$TMP/bad.ini" -o "$TMP/bad.h5"
    key=${kv%% *}
    [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "bad.ini.*\[routing\] $key" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "bad $kv: not one line naming the file, group and key"; }
done

# shellcheck disable=SC2086
expect_exit 0 "$WEFT" run -q "$EXP" $SHRINK -o "$TMP/frn.h5"
# shellcheck disable=SC2086
expect_exit 0 "$WEFT" run -q "$EXP" $SHRINK --set routing:fault_notification_delay=2050us \
    -o "$TMP/late.h5"
# shellcheck disable=SC2086
expect_exit 6 "$WEFT" run -q "$EXP" $SHRINK --set routing:fault_notifications=false \
    -o "$TMP/off.h5"
grep -q "transport retry counter exceeded" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "no notifications: no retry error"; }
grep -q "spine[0-9]*:4->su0-rail3-leaf" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "no notifications: the failed flow's path is not through a dead-end spine"; }

PYTHONPATH="$WEFT_SRCDIR/analysis:$WEFT_SRCDIR/tests/e2e" "$PY" - "$TMP" <<'PYEOF' || fail "the all-to-all's times"
import sys
import weft_trace as wt
from uplinks_bound import LEAF, a2a_bound
d = sys.argv[1]

def coll(name, workload):
    rows = [r for r in wt.collectives(f"{d}/{name}.h5") if r["workload"] == workload.encode()]
    assert len(rows) == 2, (name, workload, rows)  # out of place, in place
    return rows

ranks = [f"dgx-{i}/gpu{g}" for i in range(1, 17) for g in (2, 3)]
bound, _, _, n_left = a2a_bound(f"{d}/frn.h5", ranks, int(coll("frn", "a2a")[0]["bytes"]))
print(f"all-to-all: at least {bound * 1e6:.1f} us through {LEAF}'s {n_left} uplinks left")
for r in coll("frn", "a2a"):
    t = r["time_ps"] / 1e12
    print(f"  notifications: {t * 1e6:.1f} us ({t / bound:.3f} x the bound)")
    assert bound <= t <= bound / 0.9, (t, bound)

timeout = 4.096e-6 * 2 ** 8
late = 2.05e-3 - 2e-3
t = coll("late", "a2a")[0]["time_ps"] / 1e12
hi = late + timeout + bound / 0.9
print(f"  notified {late * 1e6:.0f} us late: {t * 1e6:.1f} us, expected "
      f"{timeout * 1e6:.1f} to {hi * 1e6:.1f} us")
assert timeout <= t <= hi, (t, timeout, hi)
t2 = coll("late", "a2a")[1]["time_ps"] / 1e12
assert bound <= t2 <= bound / 0.9, ("the in-place call, notified by then", t2, bound)
PYEOF
echo "leaf uplinks lost, adaptive routing: ok"
