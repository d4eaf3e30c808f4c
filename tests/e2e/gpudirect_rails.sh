#!/bin/sh
# From the traces: (1) in a 4-server ring all-reduce every inter-server packet stays on its
# rail - no data crosses a spine (/ports of the leaf-spine links), and the NIC ports of all 8
# rails carry data; (2) GPUDirect off leaves a one-way ib_write_bw between two NICs as it is
# (perftest moves host memory either way), while it slows the all-reduce (checked in
# check_collective_run with the rates it implies).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
exp="$WEFT_SRCDIR/experiments/dgx4-allreduce.ini"
"$WEFT" run -q "$exp" --set workload.allreduce:minbytes=8MB --set workload.allreduce:maxbytes=8MB \
    -o "$TMP/ar.h5" >/dev/null
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/ar.h5" <<'PYEOF'
import sys
import weft_trace as wt
path = sys.argv[1]
nodes = wt.nodes(path)
kind = {int(n["id"]): n["kind"].decode() for n in nodes}
tier = {int(n["id"]): int(n["tier"]) for n in nodes}
name = {int(n["id"]): n["name"].decode() for n in nodes}
import h5py
with h5py.File(path, "r") as h:
    links = h["/topology/links"][:]
peer = {}
for l in links:
    peer[(int(l["node_a"]), int(l["port_a"]))] = int(l["node_b"])
    peer[(int(l["node_b"]), int(l["port_b"]))] = int(l["node_a"])
spine_bytes, rails = 0, set()
for p in wt.ports(path):
    a, b = int(p["node"]), peer[(int(p["node"]), int(p["port"]))]
    if kind[a] == "switch" and kind[b] == "switch" and 2 in (tier[a], tier[b]):
        spine_bytes += int(p["tx_bytes"])
    if kind[a] == "nic" and kind[b] == "switch" and p["tx_bytes"] > 1_000_000:
        rails.add(name[b])
assert spine_bytes == 0, f"{spine_bytes} bytes crossed a spine"
assert len(rails) == 8, f"data left through the NICs of {len(rails)} rails: {sorted(rails)}"
print("rails used:", len(rails), "- spine bytes:", spine_bytes)
PYEOF
bw="$WEFT_SRCDIR/experiments/dgx4-ib-write-bw.ini"
avg() { grep -E '^ 65536 ' "$1" | awk '{print $4}'; }
"$WEFT" run -q "$bw" --set workload.bw:all=false --set workload.bw:size=64KiB -o "$TMP/on.h5" >"$TMP/on.txt"
"$WEFT" run -q "$bw" --set workload.bw:all=false --set workload.bw:size=64KiB \
    --set server:gpudirect=false -o "$TMP/off.h5" >"$TMP/off.txt"
on=$(avg "$TMP/on.txt"); off=$(avg "$TMP/off.txt")
[ -n "$on" ] && [ -n "$off" ] || fail "no 64 KiB row in ib_write_bw's table"
"$PY" -c "import sys; on, off = $on, $off; sys.exit(0 if abs(on - off) <= 0.02 * on else 1)" ||
    fail "ib_write_bw changed with GPUDirect off: $on -> $off Gb/s"
echo "gpudirect/rails: ok (ib_write_bw $on / $off Gb/s)"
