#!/bin/sh
# The RDMA reliable connection's timeout as a user meets it (doc/transport.md):
#  - every shipped experiment on a lossless fabric (InfiniBand, or RoCE with PFC on) and
#    without [fault.*] groups retransmits nothing and never times out (slow ones shrunk with
#    --set);
#  - a forwarding table that blackholes host1 (its packets leave by host2's port, and host2
#    discards them): with rc_timeout = 10 and hang_timeout = 100ms the run ends with exit
#    status 6 and "transport retry counter exceeded" 8 x 4.096 us x 2^10 = 33.55 ms after the
#    first packet was lost (within 1 %, from the trace's /meta sim_time_ps), and the trace is
#    complete with status workload-failed; with the default hang_timeout (10 ms) the hang is
#    reported first (exit 3);
#  - an rc_timeout or rc_retry_cnt beyond the hardware's range (0-31, 0-7) is bad input
#    (exit 2) naming [transport] and the key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

# ---- shipped lossless experiments: no retransmission, no timeout ----
n=0
for f in "$WEFT_SRCDIR"/experiments/*.ini; do
    grep -q '^\[workload\.' "$f" || continue
    grep -q '^\[fault\.' "$f" && continue
    name=$(basename "$f" .ini)
    # Shrunk to seconds: the sweep to 4 MB, one training step of small buckets, the 64-SU
    # permutation to one packet per flow; the rest stops at 2 ms of simulated time (every
    # congested phase has begun by then).
    case $name in
        dgx4-allreduce) set -- --set workload.allreduce:maxbytes=4MB ;;
        dgx4-training)
            set -- --set workload.train:steps=1 --set workload.train:bucket_size=1MiB \
                --set workload.train:compute=200us
            ;;
        # 16,384 GPUs: one 4 KiB packet each still crosses every tier (a few seconds)
        superpod-64su) set -- --set workload.perm:flow_size=4KiB ;;
        *) set -- --set experiment:duration=2ms ;;
    esac
    set +e
    "$WEFT" run -q "$f" -o "$TMP/$name.h5" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    set -e
    # Lossless: InfiniBand's credits line, or RoCE's pfc line when PFC is on.
    if ! grep -q '^  credits ' "$TMP/$name.out" &&
        ! grep '^  pfc ' "$TMP/$name.out" | grep -qv '^  pfc *off$'; then
        continue
    fi
    # Done, or (roce-pfc-deadlock.ini) the hang it is there to show.
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || { cat "$TMP/$name.err" >&2; fail "$name exited $rc"; }
    grep -q '^  retransmits  0 (0 timeouts)$' "$TMP/$name.out" ||
        { cat "$TMP/$name.out" >&2; fail "$name retransmitted on a lossless fabric"; }
    grep -q '^  drops        0 (0 data)$' "$TMP/$name.out" ||
        { cat "$TMP/$name.out" >&2; fail "$name dropped on a lossless fabric"; }
    echo "lossless: $name: 0 retransmits"
    n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n lossless experiments found"

# ---- a blackholed destination ----
cat >"$TMP/star.topo" <<'TOPO'
node sw0 switch
node host0 host
node host1 host
node host2 host
link host0 sw0 400Gbps 100ns
link host1 sw0 400Gbps 100ns
link host2 sw0 400Gbps 100ns
TOPO
cat >"$TMP/blackhole.lft" <<'LFT'
# switch destination port: host1's packets leave by host2's port, and host2 discards them
sw0 host1 3
LFT
cat >"$TMP/bh.ini" <<'INI'
[topology]
generator = file
file = star.topo
forwarding_table = blackhole.lft
[fabric]
kind = infiniband
routing = static
[transport]
rc_timeout = 10
[workload.w]
kind = flows
flows = host0>host1 64KiB
INI
expect_exit 6 "$WEFT" run -q "$TMP/bh.ini" -o "$TMP/bh.h5" --set experiment:hang_timeout=100ms
grep -q "transport retry counter exceeded" "$TMP/err" || fail "no completion error on stderr"
grep -q "flow 0 host0 -> host1" "$TMP/err" || fail "the failed connection is not named"
grep -q "workload-failed at" "$TMP/out" || fail "the summary does not say the workload failed"
# 8 timeouts of 4.096 us x 2^10 after the first loss (at 2 x (4122 B at 400 Gb/s + 100 ns)).
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/bh.h5" <<'PYEOF' || fail "the trace of the failure"
import sys
import weft_trace as wt
info = wt.open_trace(sys.argv[1])
assert info["status"] == "workload-failed", info["status"]
assert info["complete"], info["reason"]
assert "transport retry counter exceeded" in info["message"], info["message"]
lost = 2 * (4122 * 8 / 400e9 + 100e-9)
expect = lost + (7 + 1) * 4.096e-6 * 2 ** 10
got = int(info["sim_time_ps"]) / 1e12
print(f"failed at {got * 1e3:.4f} ms, expected {expect * 1e3:.4f} ms")
assert abs(got - expect) <= 0.01 * expect, (got, expect)
f = wt.flows(sys.argv[1])
assert len(f) == 1 and f["finished"][0] == 0 and f["bytes_delivered"][0] == 0
assert f["retransmits"][0] == 7 * 16, f["retransmits"][0]
PYEOF
expect_exit 0 "$WEFT" report "$TMP/bh.h5"
grep -q "complete (workload-failed)" "$TMP/out" || fail "weft report: not a complete failed run"
# The default hang watchdog (10 ms) reports the dead path long before 33.55 ms.
expect_exit 3 "$WEFT" run -q "$TMP/bh.ini" -o "$TMP/bh-hang.h5"
grep -q "hang detected at 10.000 ms" "$TMP/err" || fail "the hang is not reported first"

# ---- bad input ----
expect_exit 2 "$WEFT" run -q "$TMP/bh.ini" -o "$TMP/bad.h5" --set transport:rc_timeout=32
grep -q "\[transport\] rc_timeout" "$TMP/err" || fail "rc_timeout 32: group and key not named"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "rc_timeout 32: more than one line"
expect_exit 2 "$WEFT" run -q "$TMP/bh.ini" -o "$TMP/bad.h5" --set transport:rc_retry_cnt=8
grep -q "\[transport\] rc_retry_cnt" "$TMP/err" || fail "rc_retry_cnt 8: group and key not named"
echo "rc timeout: ok"
