#!/bin/sh
# RCCC, Ultra Ethernet's receiver credits (models/rccc.h), on the 32:1 incast of
# experiments/ue-incast-trimming.ini with an 8 MiB switch buffer (so that the queue is not
# capped by the buffer).  Expectations computed here from the parameters:
#  - R, the unloaded RTT: 4 hops of a full packet (4096 + 82 B at 100 Gb/s) and 3 switches
#    (300 ns) one way, 44 m of cable (5 ns/m) each way, the ACK's 84 B over 4 hops and 3
#    switches back, the NICs' receive latency (600 ns) at both ends; BDP = R x 100 Gb/s;
#  - a sender's initial credit: floor(1.5 x BDP / packet) packets ([rccc] initial_credit_bdp);
#  - what the pacing can over-grant: the pulls of one unloaded RTT (pull_rate x 100 Gb/s x R)
#    arriving together, plus one pull (4 packets);
#  - with the defaults (speculative start, NSCC on, and NSCC off), host0's port queues at most
#    senders x the initial credit + the over-grant; with initial_credit_bdp = 0, at most the
#    over-grant (the check can fail: without RCCC the same incast queues far more);
#  - every byte is delivered once; a sender never holds more credit than max_credit_bdp; the
#    incast ends within 32 x 128 packets at pull_rate x 100 Gb/s plus 2 R (near line rate);
#  - with NSCC on, no flow times out (a flow waiting for credit with nothing out is not a
#    loss), and with the speculative start the window cuts too (a packet needs both window
#    and credit);
#  - under experiments/ue-reps-failure.ini (a spine's link dies mid-run) every byte still
#    arrives: credit requests and pulls go over the flow's EVs in turn, so the dead spine
#    cannot swallow all of them (with them on the flow's ECMP hash, a flow hung);
#  - RCCC with [uet] delivery = rod is refused (exit 2, the group and key named).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
inc="$WEFT_SRCDIR/experiments/ue-incast-trimming.ini"
for v in on:true:true:1.5 nscc-off:true:false:1.5 asked:true:true:0 off:false:false:1.5; do
    n=${v%%:*}; r=${v#*:}; c=${r#*:}; i=${c#*:}; r=${r%%:*}; c=${c%%:*}
    "$WEFT" run -q "$inc" --set switch:buffer=8MiB --set rccc:enabled=$r --set nscc:enabled=$c \
        --set rccc:initial_credit_bdp=$i -o "$TMP/$n.h5" >"$TMP/$n" || fail "incast $n"
done
"$PY" - "$TMP" <<'PYEOF' || fail "RCCC bound"
import sys, math, h5py
d = sys.argv[1]
rate, wire, ack, senders, pkts = 100e9, 4096 + 82, 84, 32, 128
ser = lambda b: b * 8 / rate
R = 4 * ser(wire) + 3 * 300e-9 + 44 * 5e-9 + 4 * ser(ack) + 3 * 300e-9 + 44 * 5e-9 + 2 * 600e-9
bdp = R * rate / 8
init = math.floor(1.5 * bdp / wire)
pull_rate, per_pull = 0.99, 4
over = pull_rate * rate / 8 * R + per_pull * wire
ideal_end = senders * pkts * ser(wire) / pull_rate + 2 * R
def run(path):
    with h5py.File(path, "r") as f:
        fl = f["flows"][:]
        assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all(), path
        names = {int(n["id"]): n["name"].decode() for n in f["topology/nodes"][:]}
        links = f["topology/links"][:]
        l = [x for x in links if "host0" in (names[int(x["node_a"])], names[int(x["node_b"])])][0]
        toward = 0 if names[int(l["node_b"])] == "host0" else 1
        s = f["links"][:]
        q = s[(s["link"] == l["id"]) & (s["direction"] == toward)]["max_queue_bytes"].max()
        return int(q), f["uet"][:], fl
print("R %.3f us, initial credit %d packets, over-grant %d B" % (R * 1e6, init, over))
for n, bound in (("on", senders * init * wire + over), ("nscc-off", senders * init * wire + over),
                 ("asked", over)):
    q, uet, fl = run(f"{d}/{n}.h5")
    end = fl["finish_ps"].max() * 1e-12
    print(n, "queue", q, "bound", int(bound), "end %.4f ms (bound %.4f)" % (end * 1e3, ideal_end * 1e3))
    assert q <= bound, (n, q, bound)
    assert (uet["credit_bytes"] <= init * wire).all(), n
    assert end <= ideal_end, (n, end, ideal_end)
    if n != "nscc-off":  # waiting for credit is no timeout
        assert (fl["timeouts"] == 0).all(), n
    if n == "on":  # the window worked alongside (the speculative start queues: ECN marks)
        assert fl["window_decreases"].sum() > 0, n
q, _, _ = run(f"{d}/off.h5")
print("off queue", q)
assert q > over, (q, over)
PYEOF
"$WEFT" run -q "$WEFT_SRCDIR/experiments/ue-reps-failure.ini" --set rccc:enabled=true \
    -o "$TMP/fail.h5" >"$TMP/fail" || fail "RCCC under a failure"
"$PY" - "$TMP/fail.h5" <<'PYEOF' || fail "RCCC under a failure: bytes"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    fl = f["flows"][:]
    assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all()
PYEOF
expect_exit 2 "$WEFT" validate "$inc" --set rccc:enabled=true --set uet:delivery=rod
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "\[rccc\] enabled:.*delivery = rud" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "RCCC under ROD not refused"; }
echo "ue_rccc: ok"
