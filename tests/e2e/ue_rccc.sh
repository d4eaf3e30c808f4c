#!/bin/sh
# RCCC, Ultra Ethernet's receiver credits (models/rccc.h), on the 32:1 incast of
# experiments/ue-incast-trimming.ini with an 8 MiB switch buffer (so that the queue is not
# capped by the buffer):
#  - with RCCC the data in flight toward host0, and so the queue at its switch port, stays
#    below what the credits allow: the receiver's budget in whole packets (128 KiB / (4096 +
#    82 B) = 31) plus, per sender, its one free packet and at most one packet of overdraft:
#    (31 + 32 x 2) x 4178 B; with NSCC on and off;
#  - without RCCC the same incast queues far more than that (the check can fail);
#  - every byte is delivered once, and the senders' credit (/uet credit_bytes) never exceeds
#    the budget plus one packet;
#  - RCCC with [uet] delivery = rod is refused (exit 2, the group and key named).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
inc="$WEFT_SRCDIR/experiments/ue-incast-trimming.ini"
for v in on:true:true nscc-off:true:false off:false:true; do
    n=${v%%:*}; r=${v#*:}; r=${r%%:*}; c=${v##*:}
    "$WEFT" run -q "$inc" --set switch:buffer=8MiB --set rccc:enabled=$r --set nscc:enabled=$c \
        -o "$TMP/$n.h5" >"$TMP/$n" || fail "incast $n"
done
"$PY" - "$TMP" <<'PYEOF' || fail "RCCC bound"
import sys, h5py
d = sys.argv[1]
wire, senders = 4096 + 82, 32
budget = max(128 * 1024 // wire, 1)
bound = (budget + senders * 2) * wire
def peak(path):
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
for n in ("on", "nscc-off"):
    q, uet, fl = peak(f"{d}/{n}.h5")
    print(n, "queue", q, "bound", bound)
    assert q <= bound, (n, q, bound)
    assert (fl["timeouts"] == 0).all(), n
    assert (uet["credit_bytes"] <= (budget + 1) * wire).all(), n
q, _, _ = peak(f"{d}/off.h5")
print("off queue", q)
assert q > bound, (q, bound)
PYEOF
expect_exit 2 "$WEFT" validate "$inc" --set rccc:enabled=true --set uet:delivery=rod
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "\[rccc\] enabled:.*delivery = rud" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "RCCC under ROD not refused"; }
echo "ue_rccc: ok"
