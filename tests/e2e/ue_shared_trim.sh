#!/bin/sh
# Ultra Ethernet trimming with a shared switch buffer ([switch] buffer_sharing = dynamic,
# models/buffer.h): the 32:1 incast of experiments/ue-incast-trimming.ini with a 1 MiB pool
# per switch instead of per-port buffers.  A data packet the pool refuses (its queue at the
# dynamic threshold alpha x free) is trimmed to its header instead of dropped.  Checked:
#  - with trimming: no data packet dropped, packets trimmed, every trim NACKed (trims at the
#    switches = trims that reached receivers = NACKs at the senders), every byte delivered
#    once, and the pools empty once the run has drained (the headers' bytes were charged and
#    released like any packet's);
#  - without trimming the same pool drops data packets.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
sed 's/^buffer = 256KiB$/buffer_sharing = dynamic\nshared_buffer = 1MiB\nalpha = 1/' \
    "$WEFT_SRCDIR/experiments/ue-incast-trimming.ini" >"$TMP/sb.ini"
grep -q "^buffer_sharing = dynamic" "$TMP/sb.ini" || fail "the incast's [switch] buffer moved"
"$WEFT" run -q "$TMP/sb.ini" -o "$TMP/trim.h5" >/dev/null || fail "shared buffer with trimming"
"$WEFT" run -q "$TMP/sb.ini" --set uet:trimming=false -o "$TMP/drop.h5" >/dev/null ||
    fail "shared buffer without trimming"
"$PY" - "$TMP/trim.h5" "$TMP/drop.h5" <<'PYEOF' || fail "trimming at a shared buffer"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    fl, ports, buf = f["flows"][:], f["ports"][:], f["buffers"][:]
    assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all()
    trims = int(ports["trims"].sum())
    print(f"shared buffer: {trims} trimmed, {int(ports['drops'].sum())} dropped, "
          f"{int(fl['nacks'].sum())} NACKs")
    assert trims > 0 and int(ports["drops"].sum()) == 0, (trims, ports["drops"].sum())
    assert int(fl["trims"].sum()) == trims == int(fl["nacks"].sum())
    assert len(buf) > 0
    last = {}
    for r in buf:
        last[int(r["node"])] = int(r["used_bytes"])
    assert all(v == 0 for v in last.values()), last
with h5py.File(sys.argv[2], "r") as f:
    ports = f["ports"][:]
    assert int(ports["drops"].sum()) > 0 and int(ports["trims"].sum()) == 0
PYEOF
