#!/bin/sh
# tests/e2e/server_presets.sh - `[server] preset` builds the DGX it names, a key set beside it
# wins, perftest prints the preset's NIC names, and an unknown preset is bad input.
#
# For each preset, the servers `weft topo --format json` exports for the seed cluster
# (experiments/dgx4.ini, whose [server] is the dgx-h100 preset) are checked against figures
# worked out here from the cited sources (doc/servers.md): GPUs and NICs per server; each
# GPU's NVLink at half the per-GPU bidirectional figure (H100: 900 GB/s; B200: 14.4 TB/s of
# NVSwitch bandwidth over 8 GPUs; A100: 4.8 TB/s over 8); the NIC-leaf cable at the NIC's rate
# (ConnectX-7 400 Gb/s; ConnectX-6 HDR 4 x 50 Gb/s); PCIe links at the Gen5 x16 effective
# rate, or half of it for Gen4 (half the transfer rate, same encoding); NIC r of every server
# named by the preset's list and cabled to the rail-r leaf.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
dgx4="$WEFT_SRCDIR/experiments/dgx4.ini"

topo () { # OUT ARGS...: weft topo --format json on the seed cluster, with ARGS
    out=$1; shift
    "$WEFT" topo "$dgx4" --format json "$@" >"$TMP/$out.json" 2>"$TMP/err" ||
        { cat "$TMP/err" >&2; fail "weft topo $*"; }
}
topo h100
topo b200 --set server:preset=dgx-b200
topo a100 --set server:preset=dgx-a100
# an explicit key beside the preset wins, the preset gives the rest
topo a100-400g --set server:preset=dgx-a100 --set server:nic_rate=400Gbps

"$PY" - "$TMP" <<'PYEOF' || fail "preset servers"
import json, os, sys
tmp = sys.argv[1]
GB = 8e9    # GB/s (10^9 bytes) in bit/s
gen5 = 50 * GB
want = {
    "h100": dict(nvlink=900 / 2 * GB, nic=400e9, pcie=gen5,
                 names="mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
    "b200": dict(nvlink=14400 / 8 / 2 * GB, nic=400e9, pcie=gen5,
                 names="mlx5_4 mlx5_7 mlx5_8 mlx5_9 mlx5_10 mlx5_13 mlx5_14 mlx5_15"),
    "a100": dict(nvlink=4800 / 8 / 2 * GB, nic=4 * 50e9, pcie=gen5 / 2,
                 names="mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_6 mlx5_7 mlx5_8 mlx5_9"),
}
want["a100-400g"] = dict(want["a100"], nic=400e9)
for name, w in want.items():
    g = json.load(open(os.path.join(tmp, name + ".json")))
    nodes = {n["id"]: n for n in g["nodes"]}
    for server in range(4):
        gpus = [n for n in g["nodes"] if n["kind"] == "gpu" and n["server"] == server]
        nics = sorted((n for n in g["nodes"] if n["kind"] == "nic" and n["server"] == server),
                      key=lambda n: n["rail"])
        assert len(gpus) == 8 and len(nics) == 8, (name, server, len(gpus), len(nics))
        got = [n["name"].split("/", 1)[1] for n in nics]
        assert got == w["names"].split(), (name, got)
        assert all(n["name"].startswith("dgx-%d/" % (server + 1)) for n in nics), name
    for l in g["links"]:
        a, b = nodes[l["a"]], nodes[l["b"]]
        kinds = {a["kind"], b["kind"]}
        if l["kind"] == "nvlink":
            assert l["rate_bps"] == w["nvlink"], (name, l)
        elif l["kind"] == "pcie":
            assert l["rate_bps"] == w["pcie"], (name, l)
        elif kinds == {"nic", "switch"}:
            nic, leaf = (a, b) if a["kind"] == "nic" else (b, a)
            assert l["rate_bps"] == w["nic"], (name, l)
            assert leaf["rail"] == nic["rail"], (name, nic["name"], leaf["name"])
    print(name, "as cited")
PYEOF

# perftest names the preset's NIC: mlx5_7 is GPU 5's HCA on a DGX A100 and no NIC of an H100
out="$TMP/bw.txt"
set -- --set workload.bw:device=dgx-1/mlx5_7 --set workload.bw:peer=dgx-2/mlx5_7 \
    --set workload.bw:all=false --set workload.bw:size=64KiB
"$WEFT" run -q "$WEFT_SRCDIR/experiments/dgx4-ib-write-bw.ini" --set server:preset=dgx-a100 "$@" \
    -o "$TMP/bw.h5" >"$out" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "ib_write_bw on a DGX A100"; }
grep -q "Device         : mlx5_7$" "$out" || { cat "$out" >&2; fail "perftest does not name mlx5_7"; }
# a 200 Gb/s HDR port carries at most 200 x 4096 / (4096 + 26) Gb/s of payload
"$PY" - "$out" <<'PYEOF' || fail "ib_write_bw on a DGX A100: not at the HDR rate"
import sys
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "65536":
        avg = float(f[3])
        assert 0.95 * 200 * 4096 / 4122 < avg <= 200 * 4096 / 4122, avg
        break
else:
    sys.exit("no 65536-byte row")
PYEOF
expect_exit 2 "$WEFT" validate "$WEFT_SRCDIR/experiments/dgx4-ib-write-bw.ini" "$@"
grep -q "unknown node 'dgx-1/mlx5_7'" "$TMP/err" || fail "mlx5_7 on a DGX H100: $(cat "$TMP/err")"

# an unknown preset: exit 2, one line naming the group and key
expect_exit 2 "$WEFT" validate "$dgx4" --set server:preset=dgx-b300
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "more than one line: $(cat "$TMP/err")"
grep -q "^--set: \[server\] preset: 'dgx-b300'" "$TMP/err" || fail "unnamed: $(cat "$TMP/err")"
printf '[experiment]\ninclude = %s\n[server]\npreset = hgx\n' "$dgx4" >"$TMP/bad.ini"
expect_exit 2 "$WEFT" run "$TMP/bad.ini"
grep -q "^$TMP/bad.ini: \[server\] preset: 'hgx'" "$TMP/err" || fail "unnamed: $(cat "$TMP/err")"
