"""The all-to-all's bound on experiments/leaf-uplinks-lost.ini, shared by uplinks.sh and
uplinks_ar.sh: the bytes that must cross su0-rail3-leaf's uplinks each way (rank pairs with
one end's NIC on that leaf and the other's elsewhere, different servers), over the uplinks the
fault left Up, at their rate.  GPU g of a server sends through the NIC on its PCIe switch,
rail g (NIC names in rail order, doc/servers.md): the server's g-th NIC cabled to a leaf."""
import weft_trace as wt

LEAF = "su0-rail3-leaf"


def a2a_bound(path, ranks, a2a_bytes):
    """Returns (seconds at least, bytes up, bytes down, uplinks left) for an all-to-all of
    @a2a_bytes per rank over @ranks ("dgx-N/gpuG"), from the trace at @path."""
    nm = [n["name"].decode() for n in wt.nodes(path)]
    idx = {n: i for i, n in enumerate(nm)}
    links = wt.links(path)
    leaf_of = {}
    for l in links:
        a, b = nm[int(l["node_a"])], nm[int(l["node_b"])]
        if "/mlx5_" in a and b.endswith("-leaf"):
            leaf_of[a] = b
        if "/mlx5_" in b and a.endswith("-leaf"):
            leaf_of[b] = a
    ups = [l for l in links if LEAF in (nm[int(l["node_a"])], nm[int(l["node_b"])])
           and any(nm[int(l[k])].startswith("spine") for k in ("node_a", "node_b"))]
    down = {(int(p["node"]), int(p["port"])) for p in wt.ports(path) if p["state"] == 1}
    left = [l for l in ups if (int(l["node_a"]), int(l["port_a"])) not in down
            and (int(l["node_b"]), int(l["port_b"])) not in down]
    assert len(ups) == 8 and len(left) == 4, (len(ups), len(left))
    rate = int(left[0]["rate_bps"]) / 8
    nics = {}
    for n in sorted(leaf_of):
        nics.setdefault(n.split("/")[0], []).append(n)
    for srv in nics:
        nics[srv].sort(key=lambda n: idx[n])

    def leaf(r):
        srv, gpu = r.split("/")
        return leaf_of[nics[srv][int(gpu[3:])]]

    per_pair = a2a_bytes / len(ranks)
    up = dn = 0
    for s in ranks:
        for t in ranks:
            if s.split("/")[0] != t.split("/")[0]:
                up += per_pair * (leaf(s) == LEAF and leaf(t) != LEAF)
                dn += per_pair * (leaf(t) == LEAF and leaf(s) != LEAF)
    return max(up, dn) * 4122 / 4096 / (len(left) * rate), up, dn, len(left)
