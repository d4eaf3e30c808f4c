#!/bin/sh
# tests/e2e/report_ports.sh - `weft report --ports` on the trace tests/mktrace writes: one line
# per port with the node's name, state, physical state, rate, link layer and the counters under
# perfquery's names (PortXmitData / PortRcvData in 4-byte words, PortXmitWait in ps); the
# --json form carries the same values; a schema-1 trace prints "-" (JSON null) for what it did
# not record; a "running" trace prints its ports but exits 1; a non-trace exits 2.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
MKTRACE="$WEFT_BUILDDIR/tests/mktrace"
test -x "$MKTRACE" || fail "$MKTRACE not built"
"$PY" -c 'import h5py, numpy' 2>/dev/null || fail "$PY cannot import h5py and numpy (Debian: python3-h5py)"
"$MKTRACE" "$TMP/a.h5" || fail "mktrace a.h5"
"$MKTRACE" "$TMP/running.h5" running || fail "mktrace running.h5"

# Text: one line per port (6), in /ports order, every value as mktrace wrote it.
expect_exit 0 "$WEFT" report --ports "$TMP/a.h5"
cp "$TMP/out" "$TMP/ports.txt"
test "$(grep -vc '^#' "$TMP/ports.txt")" = 6 || { cat "$TMP/ports.txt" >&2; fail "want 6 port lines"; }
grep -q '^#.*PortXmitData/PortRcvData in 4-byte words.*PortXmitWait in ps' "$TMP/ports.txt" \
    || fail "header does not give the units"
# port i of mktrace: node i/2, port i%2+1; tx_bytes 1000 i, rx_bytes 1000 i + 36, packets
# 10 i + 2 / + 3, drops 1, symbol errors 100 i + 4, link downed + 5, rcv errors + 6,
# lossless drops + 7, xmit wait 10^6 i + 8 ps.
cat >"$TMP/want.txt" <<'WANT'
host0 1 Active LinkUp 400 Gb/s InfiniBand PortXmitData=0 PortRcvData=9 PortXmitPkts=2 PortRcvPkts=3 PortXmitWait=8 PortXmitDiscards=1 SymbolErrorCounter=4 LinkDownedCounter=5 PortRcvErrors=6 LosslessDrops=7
host0 2 Active LinkUp 400 Gb/s InfiniBand PortXmitData=250 PortRcvData=259 PortXmitPkts=12 PortRcvPkts=13 PortXmitWait=1000008 PortXmitDiscards=1 SymbolErrorCounter=104 LinkDownedCounter=105 PortRcvErrors=106 LosslessDrops=107
host1 1 Down Disabled 200 Gb/s InfiniBand PortXmitData=500 PortRcvData=509 PortXmitPkts=22 PortRcvPkts=23 PortXmitWait=2000008 PortXmitDiscards=1 SymbolErrorCounter=204 LinkDownedCounter=205 PortRcvErrors=206 LosslessDrops=207
host1 2 Init LinkUp 100 Gb/s InfiniBand PortXmitData=750 PortRcvData=759 PortXmitPkts=32 PortRcvPkts=33 PortXmitWait=3000008 PortXmitDiscards=1 SymbolErrorCounter=304 LinkDownedCounter=305 PortRcvErrors=306 LosslessDrops=307
sw2 1 Armed LinkUp 800 Gb/s Ethernet PortXmitData=1000 PortRcvData=1009 PortXmitPkts=42 PortRcvPkts=43 PortXmitWait=4000008 PortXmitDiscards=1 SymbolErrorCounter=404 LinkDownedCounter=405 PortRcvErrors=406 LosslessDrops=407
sw2 2 Down Polling 53.125 Gb/s Ethernet PortXmitData=1250 PortRcvData=1259 PortXmitPkts=52 PortRcvPkts=53 PortXmitWait=5000008 PortXmitDiscards=1 SymbolErrorCounter=504 LinkDownedCounter=505 PortRcvErrors=506 LosslessDrops=507
WANT
grep -v '^#' "$TMP/ports.txt" | tr -s ' ' >"$TMP/got.txt"
diff "$TMP/want.txt" "$TMP/got.txt" >&2 || fail "weft report --ports: lines differ (- want, + got)"

# JSON: the same values, and each agrees with the file as h5py reads it.
expect_exit 0 "$WEFT" report --ports --json "$TMP/a.h5"
"$PY" - "$TMP/out" "$TMP/a.h5" <<'PYEOF' || fail "weft report --ports --json"
import json, sys
import h5py
d = json.load(open(sys.argv[1]))
assert d["complete"] and d["schema_version"] == 11 and d["problem"] is None, d
assert d["units"]["PortXmitData"] == "4-byte words" and d["units"]["PortXmitWait"] == "ps"
with h5py.File(sys.argv[2], "r") as f:
    rows = f["ports"][()]
    names = {int(n["id"]): n["name"].decode() for n in f["topology/nodes"][()]}
assert len(d["ports"]) == len(rows) == 6
states = {1: "Down", 2: "Init", 3: "Armed", 4: "Active"}
phys = {2: "Polling", 3: "Disabled", 5: "LinkUp"}
for p, r in zip(d["ports"], rows):
    want = {"node": r["node"], "node_name": names[int(r["node"])], "port": r["port"],
            "link": r["link"], "state": r["state"], "state_name": states[int(r["state"])],
            "phys_state": r["phys_state"], "phys_state_name": phys[int(r["phys_state"])],
            "rate_bps": r["rate_bps"], "link_layer": r["link_layer"].decode(),
            "tx_bytes": r["tx_bytes"], "rx_bytes": r["rx_bytes"],
            "PortXmitData": r["tx_bytes"] // 4, "PortRcvData": r["rx_bytes"] // 4,
            "PortXmitPkts": r["tx_packets"], "PortRcvPkts": r["rx_packets"],
            "PortXmitWait": r["xmit_wait_ps"], "PortXmitDiscards": r["drops"],
            "SymbolErrorCounter": r["symbol_errors"], "LinkDownedCounter": r["link_downed"],
            "PortRcvErrors": r["rcv_errors"], "LosslessDrops": r["lossless_drops"]}
    want = {k: (v if isinstance(v, str) else int(v)) for k, v in want.items()}
    assert p == want, (p, want)
assert d["ports"][5]["rate_bps"] == 53125000000 and d["ports"][2]["state_name"] == "Down"
PYEOF

# The Python reader sees the new fields, and /links stall_ps.
"$PY" - "$WEFT_SRCDIR/analysis/weft_trace.py" "$TMP/a.h5" <<'PYEOF' || fail "weft_trace.py: schema-2 fields"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("weft_trace", sys.argv[1])
wt = importlib.util.module_from_spec(spec); spec.loader.exec_module(wt)
p = wt.ports(sys.argv[2])
assert list(p["lossless_drops"]) == [7, 107, 207, 307, 407, 507], p
assert [wt.PORT_STATES[s] for s in p["state"]] == ["Active", "Active", "Down", "Init", "Armed", "Down"]
assert p["link_layer"][4] == b"Ethernet" and wt.nodes(sys.argv[2])["name"][2] == b"sw2"
s = wt.link_samples(sys.argv[2])
assert s["stall_ps"][16] == 16000 and s["stall_ps"][17] == 0, s[:20]
PYEOF

# A schema-1 trace (made here from a.h5 by dropping the schema-2 members) still reads: "-"
# for what it did not record, the old counters as they were.
"$PY" - "$TMP/a.h5" "$TMP/v1.h5" <<'PYEOF' || fail "cannot make a schema-1 trace"
import sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "w") as g:
    for name in ("meta", "topology", "flows"):
        f.copy(name, g)
    for name, last in (("ports", "busy_ps"), ("links", "drops")):
        rows = f[name][()]
        keep = list(rows.dtype.names)[: rows.dtype.names.index(last) + 1]
        old = np.zeros(rows.shape, dtype=[(k, rows.dtype[k]) for k in keep])
        for k in keep:
            old[k] = rows[k]
        g.create_dataset(name, data=old, maxshape=(None,))
    g["meta"].attrs["schema_version"] = np.uint32(1)
PYEOF
expect_exit 0 "$WEFT" report --ports "$TMP/v1.h5"
grep -q '^# schema version 1: .*not recorded' "$TMP/out" || fail "schema-1 trace: no note"
grep -v '^#' "$TMP/out" | tr -s ' ' | sed -n 2p >"$TMP/got1.txt"
echo "host0 2 - - - - PortXmitData=250 PortRcvData=259 PortXmitPkts=12 PortRcvPkts=13 PortXmitWait=- PortXmitDiscards=1 SymbolErrorCounter=- LinkDownedCounter=- PortRcvErrors=- LosslessDrops=-" >"$TMP/want1.txt"
diff "$TMP/want1.txt" "$TMP/got1.txt" >&2 || fail "schema-1 trace: port line differs"
expect_exit 0 "$WEFT" report --ports --json "$TMP/v1.h5"
"$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["ports"][1]; assert p["PortXmitWait"] is None and p["state"] is None and p["PortRcvData"] == 259, p' "$TMP/out" \
    || fail "schema-1 trace: --json"
"$PY" - "$WEFT_SRCDIR/analysis/weft_trace.py" "$TMP/v1.h5" <<'PYEOF' || fail "weft_trace.py: schema-1 trace"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("weft_trace", sys.argv[1])
wt = importlib.util.module_from_spec(spec); spec.loader.exec_module(wt)
p = wt.ports(sys.argv[2])
assert p["symbol_errors"].sum() == 0 and p["rx_bytes"][1] == 1036 and p["link_layer"][0] == b""
assert wt.link_samples(sys.argv[2])["stall_ps"].sum() == 0
PYEOF

# Incomplete and not-a-trace files: the same exit statuses as the summary.
expect_exit 1 "$WEFT" report --ports "$TMP/running.h5"
test "$(grep -vc '^#' "$TMP/out")" = 6 || fail "running.h5: ports not printed"
grep -q "incomplete" "$TMP/err" || fail "running.h5: not reported incomplete"
expect_exit 1 "$WEFT" report --ports --json "$TMP/running.h5"
echo "[experiment]" >"$TMP/text.h5"
expect_exit 2 "$WEFT" report --ports "$TMP/text.h5"
expect_exit 0 "$WEFT" report --help
grep -q -- "--ports" "$TMP/out" && grep -q "PortXmitWait" "$TMP/out" || fail "--help does not describe --ports"
echo "PASS: report_ports"
