#!/bin/sh
# weft topo on the shipped experiments: the summary's counts and ratios, the JSON and DOT
# exports, --routes, and a taper the ports cannot realise.  Expected counts come from the
# generator's formulas (topologies/railopt.h, topologies/server.h) worked out here, never from
# weft's own output.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
need dot
X="$WEFT_SRCDIR/experiments"

# has FILE TEXT: the fixed string TEXT is in FILE
has() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "no '$2' in the output"; }; }

# --- the formulas -----------------------------------------------------------------------------
# DGX H100 server: G GPUs, R NICs (one PCIe switch each), one NVSwitch, one CPU; links: one
# NVLink per GPU, PCIe GPU-switch, NIC-switch and switch-CPU, and R fabric cables to the leaves.
G=8 R=8
server_nodes=$((G + 1 + R + R + 1))
server_links=$((G + G + R + R + R))
# Rail-optimised, two tiers, radix K, S slots per SU, leaf ratio down:up = S : U:
#   leaves = SUs x R, uplinks U = S / ratio, spines = leaves x U / K, cables leaves x U.
railopt2() { # railopt2 SUS SERVERS S RATIO K -> sets leaves spines nodes links
    leaves=$(($1 * R)) up=$(($3 / $4))
    spines=$((leaves * up / $5))
    nodes=$(($2 * server_nodes + leaves + spines))
    links=$(($2 * server_links + leaves * up))
}

# --- dgx4.ini: 4 servers in one 32-slot SU, 1:1 --------------------------------------------------
"$WEFT" topo "$X/dgx4.ini" >"$TMP/dgx4.txt"
railopt2 1 4 32 1 64
has "$TMP/dgx4.txt" "servers 4, GPUs $((4 * G)), NICs $((4 * R))"
has "$TMP/dgx4.txt" "switches $((leaves + spines)): $leaves leaves $spines spines"
[ "$leaves" = 8 ] && [ "$spines" = 4 ] || fail "formula: dgx4 is 8 leaves, 4 spines"
# designed 32 down : 32 up; 4 of 32 down ports cabled = 0.125:1
has "$TMP/dgx4.txt" "leaf 1:1 (populated 0.125:1: 4 of 32 down ports used per leaf)"
has "$TMP/dgx4.txt" "spine top"

# JSON: parses, node and link counts, kinds, and every link end on a port that exists
"$WEFT" topo --format json "$X/dgx4.ini" >"$TMP/dgx4.json"
$PY - "$TMP/dgx4.json" "$nodes" "$links" "$((4 * G))" "$leaves" "$spines" <<'EOF' || fail "dgx4 JSON"
import json, sys
g = json.load(open(sys.argv[1]))
nodes, links, gpus, leaves, spines = map(int, sys.argv[2:])
N, L = g["nodes"], g["links"]
assert len(N) == nodes, (len(N), nodes)
assert len(L) == links, (len(L), links)
assert sum(n["kind"] == "gpu" for n in N) == gpus
assert sum(n["kind"] == "switch" and n["tier"] == 1 for n in N) == leaves
assert sum(n["kind"] == "switch" and n["tier"] == 2 for n in N) == spines
assert [n["id"] for n in N] == list(range(nodes))
for l in L:
    for end, port in (("a", "port_a"), ("b", "port_b")):
        assert 1 <= l[port] <= N[l[end]]["ports"], l
    assert l["rate_bps"] > 0
EOF

# DOT: Graphviz renders it, and it declares every node and every link once
"$WEFT" topo --format dot "$X/dgx4.ini" >"$TMP/dgx4.dot"
dot -Tsvg "$TMP/dgx4.dot" >"$TMP/dgx4.svg" || fail "dot -Tsvg refused the DOT export"
grep -q "<svg" "$TMP/dgx4.svg" || fail "dot -Tsvg wrote no SVG"
[ "$(grep -c ' -- ' "$TMP/dgx4.dot")" = "$links" ] || fail "DOT: expected $links edges"
[ "$(grep -c '\[shape=' "$TMP/dgx4.dot")" = "$nodes" ] || fail "DOT: expected $nodes nodes"

# --routes: same rail, same SU: one switch, the rail-0 leaf (checked against the JSON)
"$WEFT" topo --routes dgx-1/gpu0 dgx-2/gpu0 "$X/dgx4.ini" >"$TMP/route.txt"
has "$TMP/route.txt" "dgx-1/gpu0 -> dgx-2/gpu0:"
has "$TMP/route.txt" "1 switch hop;"
has "$TMP/route.txt" " -> su0-rail0-leaf:1"
$PY - "$TMP/dgx4.json" "$TMP/route.txt" <<'EOF' || fail "--routes path"
import json, sys
kind = {n["name"]: n for n in json.load(open(sys.argv[1]))["nodes"]}
path = [l.split()[0] for l in open(sys.argv[2]).read().splitlines()[1:]]
assert path[0] == "dgx-1/gpu0" and path[-1] == "dgx-2/gpu0", path
switches = [kind[v] for v in path if kind[v]["kind"] == "switch"]
assert len(switches) == 1, path
assert switches[0]["tier"] == 1 and switches[0]["rail"] == 0, switches[0]
EOF
expect_exit 2 "$WEFT" topo --routes dgx-1/gpu0 "$X/dgx4.ini"

# a 3:1 leaf with 32 downlinks cannot be built: exit 2, one line, the nearest ratios named
expect_exit 2 "$WEFT" topo "$X/dgx4.ini" --set topology:leaf_oversubscription=3:1
[ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "3:1 x 32: expected one line"; }
has "$TMP/err" "[topology] leaf_oversubscription:"
has "$TMP/err" "2:1 (16 up)"
has "$TMP/err" "4:1 (8 up)"

# --- leafspine-3to1.ini: 48 down, 16 up per leaf ------------------------------------------------
"$WEFT" topo "$X/leafspine-3to1.ini" >"$TMP/ls.txt"
railopt2 1 48 48 3 64
has "$TMP/ls.txt" "switches $((leaves + spines)): $leaves leaves $spines spines"
has "$TMP/ls.txt" "leaf 3:1,"
# the same ratio from the exported ports: every leaf's down- over up-bandwidth
"$WEFT" topo --format json "$X/leafspine-3to1.ini" >"$TMP/ls.json"
$PY - "$TMP/ls.json" "$nodes" "$links" <<'EOF' || fail "3:1 JSON"
import json, sys
g = json.load(open(sys.argv[1]))
N, L = g["nodes"], g["links"]
assert (len(N), len(L)) == (int(sys.argv[2]), int(sys.argv[3])), (len(N), len(L))
tier = lambda i: N[i]["tier"] if N[i]["kind"] == "switch" else 0
for v, n in enumerate(N):
    if n["kind"] != "switch" or n["tier"] != 1:
        continue
    down = up = 0
    for l in L:
        if v in (l["a"], l["b"]) and l["kind"] == "fabric":
            other = l["b"] if l["a"] == v else l["a"]
            if tier(other) > 1:
                up += l["rate_bps"]
            else:
                down += l["rate_bps"]
    assert down == 3 * up, (n["name"], down, up)
EOF

# --- superpod-16su.ini: three tiers --------------------------------------------------------------
# 16 SUs x 8 rails = 128 leaves with 32 uplinks; a pod (SU) of 8 leaves fills 8 spines of 32
# down ports; each spine's 32 uplinks go to 64-port cores: 128 x 32 / 64 = 64 cores.
su=16 S=32 K=64
leaves=$((su * R)) up=$((S / 1)) d2=$((K / 2))
spines=$((su * (R * up / d2))) cores=$((su * (R * up / d2) * (K - d2) / K))
nodes=$((su * S * server_nodes + leaves + spines + cores))
links=$((su * S * server_links + leaves * up + spines * (K - d2)))
"$WEFT" topo "$X/superpod-16su.ini" >"$TMP/16.txt"
has "$TMP/16.txt" "switches $((leaves + spines + cores)): $leaves leaves $spines spines $cores cores"
[ "$leaves $spines $cores" = "128 128 64" ] || fail "formula: 16 SU is 128, 128, 64"
has "$TMP/16.txt" "leaf 1:1, spine 1:1, core top"
"$WEFT" topo --format json "$X/superpod-16su.ini" >"$TMP/16.json"
$PY - "$TMP/16.json" "$nodes" "$links" <<'EOF' || fail "16 SU JSON"
import json, sys
g = json.load(open(sys.argv[1]))
assert (len(g["nodes"]), len(g["links"])) == (int(sys.argv[2]), int(sys.argv[3]))
assert {n["tier"] for n in g["nodes"] if n["kind"] == "switch"} == {1, 2, 3}
EOF
echo "topo: ok"
