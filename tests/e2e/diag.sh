#!/bin/sh
# weft diag over real runs, checked against the tools' own layouts and the trace's counters:
#  - ibstat and perfquery (and -x) of a healthy port and of a port a dead link left Down match
#    the layouts of infiniband-diags field for field: the checker below is written from
#    ibstat.c's printf()s and libibmad's PortCounters / PortCountersExtended field tables and
#    _mad_dump_field() (names, order, tabs, "Name:" + dots to column 33), and each value is
#    computed here from /ports (state names, Rate in Gb/s, data in 4-byte words, the basic
#    counters capped at their IB widths);
#  - bad-cable.ini (one NIC link at 1x): links --worst ranks that link first and ibstat
#    shows Rate: 100 on that NIC;
#  - bad usage and unknown names: exit 2.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"

# ---- a link that dies: dgx-2/mlx5_3's cable, Down from 10 us ----
allreduce_ini "$TMP/dead.ini" 500us 4MB "at = 10us"
expect_exit 3 "$WEFT" run -q "$TMP/dead.ini" -o "$TMP/dead.h5"
for t in "ibstat dgx-2/mlx5_3" "ibstat dgx-1/mlx5_0" "perfquery dgx-2/mlx5_3:2" \
    "perfquery su0-rail1-leaf:2" "perfquery dgx-1/mlx5_0" ; do
    set -- $t
    expect_exit 0 "$WEFT" diag "$1" "$TMP/dead.h5" "$2"
    cp "$TMP/out" "$TMP/$1-$(echo "$2" | tr '/:' '__').txt"
done
expect_exit 0 "$WEFT" diag perfquery -x "$TMP/dead.h5" su0-rail1-leaf:2
cp "$TMP/out" "$TMP/perfquery-x.txt"
expect_exit 0 "$WEFT" diag perfquery -x "$TMP/dead.h5" dgx-1/mlx5_0
cp "$TMP/out" "$TMP/perfquery-x-healthy.txt"

PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP" <<'PYEOF' || fail "the tools' layouts"
import re, sys
import weft_trace as wt
d = sys.argv[1]
h5 = d + "/dead.h5"
names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(h5)["name"]]
ports = {(names[int(r["node"])], int(r["port"])): r for r in wt.ports(h5)}

# ibstat.c: ca_dump() and port_dump() (not "alone"): one tab before CA fields and "Port N:",
# two before port fields; state and physical-state names from its tables.
STATE = ["???", "Down", "Initializing", "Armed", "Active"]
PHYS = ["No state change", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
        "LinkUp", "LinkErrorRecovery", "PhyTest"]
def check_ibstat(text, ca, row):
    lines = text.rstrip("\n").split("\n")
    pat = [r"CA '%s'" % re.escape(ca), r"\tCA type: \S+", r"\tNumber of ports: 1",
           r"\tFirmware version: .+", r"\tHardware version: \S+",
           r"\tNode GUID: 0x[0-9a-f]{16}", r"\tSystem image GUID: 0x[0-9a-f]{16}",
           r"\tPort 1:", r"\t\tState: (.+)", r"\t\tPhysical state: (.+)", r"\t\tRate: (\S+)",
           r"\t\tBase lid: \d+", r"\t\tLMC: \d+", r"\t\tSM lid: \d+",
           r"\t\tCapability mask: 0x[0-9a-f]{8}", r"\t\tPort GUID: 0x[0-9a-f]{16}",
           r"\t\tLink layer: (InfiniBand|Ethernet)"]
    assert len(lines) == len(pat), (len(lines), lines)
    got = {}
    for l, p in zip(lines, pat):
        m = re.fullmatch(p, l)
        assert m, (p, l)
        got[p] = m.groups()
    assert got[pat[8]][0] == STATE[int(row["state"])], got[pat[8]]
    assert got[pat[9]][0] == PHYS[int(row["phys_state"])], got[pat[9]]
    assert got[pat[10]][0] == str(int(row["rate_bps"]) // 10**9), got[pat[10]]
    return got[pat[8]][0], got[pat[9]][0]

assert check_ibstat(open(d + "/ibstat-dgx-2_mlx5_3.txt").read(), "mlx5_3",
                    ports[("dgx-2/mlx5_3", 2)]) == ("Down", "Polling")
assert check_ibstat(open(d + "/ibstat-dgx-1_mlx5_0.txt").read(), "mlx5_0",
                    ports[("dgx-1/mlx5_0", 2)]) == ("Active", "LinkUp")

# libibmad fields.c, PortCounters in mad_dump_perfcounters() order (QP1Dropped before
# VL15Dropped), with each field's width in bits; hex fields print 0x and 2 digits a byte.
BASIC = [("PortSelect", 8), ("CounterSelect", "0x0000"), ("SymbolErrorCounter", 16),
         ("LinkErrorRecoveryCounter", 8), ("LinkDownedCounter", 8), ("PortRcvErrors", 16),
         ("PortRcvRemotePhysicalErrors", 16), ("PortRcvSwitchRelayErrors", 16),
         ("PortXmitDiscards", 16), ("PortXmitConstraintErrors", 8),
         ("PortRcvConstraintErrors", 8), ("CounterSelect2", "0x00"),
         ("LocalLinkIntegrityErrors", 4), ("ExcessiveBufferOverrunErrors", 4),
         ("QP1Dropped", 16), ("VL15Dropped", 16), ("PortXmitData", 32), ("PortRcvData", 32),
         ("PortXmitPkts", 32), ("PortRcvPkts", 32), ("PortXmitWait", 32)]
EXT = [("PortSelect", 8), ("CounterSelect", "0x0000"), ("PortXmitData", 64),
       ("PortRcvData", 64), ("PortXmitPkts", 64), ("PortRcvPkts", 64),
       ("PortUnicastXmitPkts", 64), ("PortUnicastRcvPkts", 64), ("PortMulticastXmitPkts", 64),
       ("PortMulticastRcvPkts", 64), ("CounterSelect2", "0x00000000"),
       ("SymbolErrorCounter", 64), ("LinkErrorRecoveryCounter", 64), ("LinkDownedCounter", 64),
       ("PortRcvErrors", 64), ("PortRcvRemotePhysicalErrors", 64),
       ("PortRcvSwitchRelayErrors", 64), ("PortXmitDiscards", 64),
       ("PortXmitConstraintErrors", 64), ("PortRcvConstraintErrors", 64),
       ("LocalLinkIntegrityErrors", 64), ("ExcessiveBufferOverrunErrors", 64),
       ("VL15Dropped", 64), ("PortXmitWait", 64), ("QP1Dropped", 64)]
def counters(row, port):
    return {"PortSelect": port, "SymbolErrorCounter": int(row["symbol_errors"]),
            "LinkDownedCounter": int(row["link_downed"]), "PortRcvErrors": int(row["rcv_errors"]),
            "PortXmitDiscards": int(row["drops"]),
            "PortXmitData": int(row["tx_bytes"]) // 4, "PortRcvData": int(row["rx_bytes"]) // 4,
            "PortXmitPkts": int(row["tx_packets"]), "PortRcvPkts": int(row["rx_packets"]),
            "PortUnicastXmitPkts": int(row["tx_packets"]),
            "PortUnicastRcvPkts": int(row["rx_packets"]),
            "PortXmitWait": int(row["xmit_wait_ps"]) // 1000}
def check_perfquery(text, fields, header, row, port):
    lines = text.rstrip("\n").split("\n")
    assert re.fullmatch(header, lines[0]), lines[0]
    assert len(lines) == len(fields) + 1, lines
    want = counters(row, port)
    for l, (name, width) in zip(lines[1:], fields):
        # _mad_dump_field(): "%s:%s" with 32 - strlen(name) dots, then the value
        prefix = name + ":" + "." * (32 - len(name))
        assert l.startswith(prefix), (prefix, l)
        value = l[len(prefix):]
        if isinstance(width, str):
            assert value == width, (name, value)
        else:
            expect = min(want.get(name, 0), 2**width - 1)
            assert value == str(expect), (name, value, expect)
    return {n: l[33:] for l, (n, _) in zip(lines[1:], fields)}

H = r"# Port counters: Lid \d+ port %d \(CapMask: 0x[0-9A-F]{2,}\)"
HX = r"# Port extended counters: Lid \d+ port %d \(CapMask: 0x[0-9A-F]{2,} CapMask2: 0x[0-9A-F]{7}\)"
down = check_perfquery(open(d + "/perfquery-dgx-2_mlx5_3_2.txt").read(), BASIC, H % 1,
                       ports[("dgx-2/mlx5_3", 2)], 1)
assert down["LinkDownedCounter"] == "1", down
leaf = check_perfquery(open(d + "/perfquery-su0-rail1-leaf_2.txt").read(), BASIC, H % 2,
                       ports[("su0-rail1-leaf", 2)], 2)
assert leaf["LinkDownedCounter"] == "1", leaf
ok = check_perfquery(open(d + "/perfquery-dgx-1_mlx5_0.txt").read(), BASIC, H % 1,
                     ports[("dgx-1/mlx5_0", 2)], 1)
assert ok["LinkDownedCounter"] == "0" and int(ok["PortXmitData"]) > 0, ok
check_perfquery(open(d + "/perfquery-x.txt").read(), EXT, HX % 2,
                ports[("su0-rail1-leaf", 2)], 2)
check_perfquery(open(d + "/perfquery-x-healthy.txt").read(), EXT, HX % 1,
                ports[("dgx-1/mlx5_0", 2)], 1)
print("ibstat and perfquery layouts: ok (a Down and a healthy port)")
PYEOF

# ---- one NIC link at 1x: the worst link, and ibstat's Rate ----
expect_exit 0 "$WEFT" run -q "$WEFT_SRCDIR/experiments/bad-cable.ini" \
    --set workload.allreduce:minbytes=4MB --set workload.allreduce:maxbytes=4MB -o "$TMP/bc.h5"
expect_exit 0 "$WEFT" diag links "$TMP/bc.h5" --worst 3
first=$(sed -n 3p "$TMP/out" | awk '{print $2, $3, $4}')
[ "$first" = "dgx-2/mlx5_3:2 <-> su0-rail1-leaf:2" ] ||
    { cat "$TMP/out" >&2; fail "links --worst ranks '$first' first, not the 1x link"; }
grep -q "rate 75% below nominal" "$TMP/out" || fail "links --worst does not say why"
[ "$(grep -c '^[0-9]' "$TMP/out")" = 3 ] || fail "links --worst 3 printed another number of links"
expect_exit 0 "$WEFT" diag ibstat "$TMP/bc.h5" dgx-2/mlx5_3
grep -q "^		Rate: 100$" "$TMP/out" || fail "ibstat does not show the 1x link's Rate: 100"
expect_exit 0 "$WEFT" diag ibstat "$TMP/bc.h5" dgx-2
[ "$(grep -c "^CA '" "$TMP/out")" = 8 ] || fail "ibstat dgx-2 should list its 8 NICs"

# ---- per-rail perftest finds the slow NIC (experiments/bad-cable-ib-write-bw.ini) ----
expect_exit 0 "$WEFT" run "$WEFT_SRCDIR/experiments/bad-cable-ib-write-bw.ini" -o "$TMP/bw.h5"
"$PY" - "$TMP/out" <<'PYEOF' || fail "per-rail ib_write_bw"
import re, sys
text = open(sys.argv[1]).read()
devs = re.findall(r"Device\s+: (\S+)", text)
rows = [float(m.split()[3]) for m in re.findall(r"^ 65536 .*$", text, re.M)]
assert len(devs) == 8 and len(rows) == 8, (devs, rows)
# payload ceiling: the link rate x MTU / (MTU + IB headers 26 B)
ceil = lambda gbps: gbps * 4096 / (4096 + 26)
for dev, bw in zip(devs, rows):
    want = ceil(100 if dev == "mlx5_3" else 400)
    assert 0.95 * want <= bw <= want, (dev, bw, want)
print("ib_write_bw per rail:", dict(zip(devs, rows)))
PYEOF
expect_exit 0 "$WEFT" diag links "$TMP/bw.h5" --worst 1
sed -n 3p "$TMP/out" | grep -q "dgx-2/mlx5_3:2 <-> su0-rail1-leaf:2" ||
    { cat "$TMP/out" >&2; fail "links --worst after perftest: not the 1x link first"; }

# ---- bad usage ----
expect_exit 2 "$WEFT" diag
expect_exit 2 "$WEFT" diag ibstat
expect_exit 2 "$WEFT" diag ifconfig "$TMP/bc.h5"
expect_exit 2 "$WEFT" diag links "$TMP/bc.h5"
expect_exit 2 "$WEFT" diag links "$TMP/bc.h5" --worst many
expect_exit 2 "$WEFT" diag perfquery "$TMP/bc.h5"
expect_exit 2 "$WEFT" diag perfquery "$TMP/bc.h5" dgx-2/mlx5_3:1
grep -q "no fabric port 1" "$TMP/err" || fail "perfquery of a PCIe port: no clear line"
expect_exit 2 "$WEFT" diag ibstat "$TMP/bc.h5" dgx-9
expect_exit 2 "$WEFT" diag ibstat "$TMP/nothing.h5"
echo "diag: ok"
