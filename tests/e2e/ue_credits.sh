#!/bin/sh
# Ultra Ethernet with link-level credit-based flow control ([uet] link_credits, InfiniBand's
# credit machinery): the 32:1 incast of experiments/ue-incast-trimming.ini (5 leaves x 8 hosts,
# 8 spines, 100 Gb/s) with credits on.  Judged against figures computed here:
#  - nothing is dropped or trimmed anywhere (/ports drops and trims all 0), while the same run
#    without credits trims;
#  - the queue toward the receiver (leaf0's port to host0) never exceeds what the credits
#    admit: every packet in it holds credits of one of leaf0's other input ports, each of
#    which advertises credit_buffer, so the bound is (ports of leaf0 - 1) x credit_buffer;
#  - every flow finishes with every byte delivered exactly once;
#  - with [switch] buffer_sharing, link_credits is refused (exit 2).
# Leaves unchecked: the credit return delay against a real UE link layer (unverified).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
exp="$WEFT_SRCDIR/experiments/ue-incast-trimming.ini"
"$WEFT" run -q "$exp" --set uet:link_credits=true --set uet:credit_buffer=64KiB \
    -o "$TMP/cr.h5" >/dev/null || fail "credits run"
"$WEFT" run -q "$exp" -o "$TMP/tr.h5" >/dev/null || fail "trimming run"
# Credits stand for per-input-port buffers: a shared pool with them is refused (exit 2, the
# group and key named).
sed 's/^buffer = 256KiB$/buffer_sharing = dynamic/' "$exp" >"$TMP/shared.ini"
st=0
"$WEFT" run -q "$TMP/shared.ini" --set uet:link_credits=true -o "$TMP/x.h5" >/dev/null \
    2>"$TMP/err" || st=$?
[ "$st" = 2 ] && grep -q "\[uet\] link_credits" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "credits with a shared buffer: exit $st"; }
"$PY" - "$TMP/cr.h5" "$TMP/tr.h5" <<'PYEOF' || fail "credits: lossless incast"
import sys, h5py
credit_buffer = 64 * 1024
def load(path):
    f = h5py.File(path, "r")
    return f, f["ports"][:], {int(n["id"]): n["name"].decode() for n in f["topology/nodes"][:]}
f, ports, names = load(sys.argv[1])
fl = f["flows"][:]
assert fl["finished"].all(), "unfinished flows"
assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), "bytes not delivered once"
assert ports["drops"].sum() == 0 and ports["trims"].sum() == 0, "drops or trims with credits"
leaf0 = [i for i, n in names.items() if n == "leaf0"][0]
host0 = [i for i, n in names.items() if n == "host0"][0]
links = f["topology/links"][:]
lid = [int(l["id"]) for l in links
       if {int(l["node_a"]), int(l["node_b"])} == {leaf0, host0}][0]
mine = ports[ports["node"] == leaf0]
q = int(mine[mine["link"] == lid]["max_queue_bytes"][0])
bound = (len(mine) - 1) * credit_buffer
print(f"credits: 0 drops, 0 trims; queue toward host0 {q} B, bound {bound} B "
      f"({len(mine) - 1} inputs x {credit_buffer} B)")
assert 0 < q <= bound, (q, bound)
f, ports, names = load(sys.argv[2])
assert ports["trims"].sum() > 0, "the run without credits trims nothing: no contrast"
PYEOF
