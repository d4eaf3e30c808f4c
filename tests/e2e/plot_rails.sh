#!/bin/sh
# tests/e2e/plot_rails.sh - the rail each node is on (/topology/nodes rail, schema 9) and the
# `rails` plot kind that uses it.  On the flagship cut to 1-4 MB (4 DGX H100, 8 rails):
#  - the rail recorded for each NIC is the rail of the leaf it is cabled to, the leaves' rails
#    are the numbers in their generated names (su0-railR-leaf), and GPU g uses the NIC of its
#    rail: a NIC -> rail mapping the NIC names (mlx5_0, mlx5_3, ...) do not give;
#  - with every switch renamed (no "rail" left in any name) the plot still draws 8 rails, and
#    the bars read back from the SVG's path data are the per-rail sums of /links bytes over
#    the links with an end at a switch on that rail, computed here from the recorded rails;
#  - a schema-8 copy (no rail member) falls back to the names: the original names give the
#    same bars, the renamed switches no rails (exit 1, one line).
# Skipped (77) when configure found no Python with matplotlib, h5py and numpy.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
PYPLOT=$(sed -n 's/^#define WEFT_PYTHON "\(.*\)"$/\1/p' "$WEFT_BUILDDIR/config.h")
if [ -z "$PYPLOT" ]; then
    echo "SKIP: configure found no Python 3 with matplotlib, h5py and numpy"
    exit 77
fi
"$WEFT" run -q "$WEFT_SRCDIR/experiments/dgx4-allreduce.ini" -o "$TMP/dgx.h5" \
    --set workload.allreduce:maxbytes=4MB >/dev/null || fail "run"
WEFT="$WEFT" "$PYPLOT" -I - "$TMP" <<'PYEOF' || fail "rails"
import os, re, shutil, subprocess, sys
import xml.etree.ElementTree as ET
import h5py
import numpy as np

TMP = sys.argv[1]
WEFT = os.environ["WEFT"]
DGX = os.path.join(TMP, "dgx.h5")
with h5py.File(DGX, "r") as f:
    assert int(f["meta"].attrs["schema_version"]) >= 9
    nodes = f["topology/nodes"][()]
    links = f["topology/links"][()]
    ds = f["links"][()]
name = {int(n["id"]): n["name"].decode() for n in nodes}
kind = {int(n["id"]): n["kind"].decode() for n in nodes}
rail = {int(n["id"]): int(n["rail"]) for n in nodes}

# the recorded rails agree with the generated names and the cabling
leaves = {i: int(re.search(r"rail([0-9]+)", name[i]).group(1)) for i in name
          if kind[i] == "switch" and "rail" in name[i]}
assert len(leaves) == 8 and all(rail[i] == r for i, r in leaves.items()), leaves
assert all(rail[i] == -1 for i in name if kind[i] == "switch" and i not in leaves)
nics = [i for i in name if kind[i] == "nic"]
assert len(nics) == 32
for l in links:
    a, b = int(l["node_a"]), int(l["node_b"])
    for x, y in ((a, b), (b, a)):
        if kind[x] == "nic" and kind[y] == "switch":
            assert rail[x] == rail[y] >= 0, (name[x], rail[x], name[y], rail[y])
assert sorted(rail[i] for i in nics) == sorted(list(range(8)) * 4)
assert any(not name[i].endswith("_%d" % rail[i]) for i in nics), "NIC names give the rail"
gpus = [i for i in name if kind[i] == "gpu"]
assert all(int(re.search(r"gpu([0-9]+)$", name[i]).group(1)) == rail[i] for i in gpus)

# expected bars: per rail, bytes (MB) over links with an end at a switch on that rail
on_rail = {}
for l in links:
    for end in ("node_a", "node_b"):
        n = int(l[end])
        if kind[n] == "switch" and rail[n] >= 0:
            on_rail.setdefault(rail[n], set()).add(int(l["id"]))
assert sorted(on_rail) == list(range(8))
mb = np.array([ds["bytes"][np.isin(ds["link"], list(on_rail[r]))].sum() / 1e6 for r in range(8)])
assert mb.min() > 0


def copy(dst, rename=False, schema8=False):
    shutil.copy(DGX, dst)
    with h5py.File(dst, "r+") as f:
        rows = f["topology/nodes"][()]
        if rename:
            for r in rows:
                if r["kind"] == b"switch":
                    r["name"] = b"sw%d" % int(r["id"])
        if schema8:
            keep = [k for k in rows.dtype.names if k != "rail"]
            old = np.zeros(rows.shape, dtype=[(k, rows.dtype[k]) for k in keep])
            for k in keep:
                old[k] = rows[k]
            del f["topology/nodes"]
            f.create_dataset("topology/nodes", data=old, maxshape=(None,))
            f["meta"].attrs["schema_version"] = np.uint32(8)
        else:
            f["topology/nodes"][...] = rows


def bars(path, status=0):
    out = os.path.join(TMP, "fig-" + os.path.basename(path))
    p = subprocess.run([WEFT, "plot", path, "--kind", "rails", "--out", out, "--format", "svg"],
                       capture_output=True, text=True)
    assert p.returncode == status, (path, p.returncode, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    if status:
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        return None
    tops = {}
    for el in ET.parse(os.path.join(out, "rails.svg")).getroot().iter():
        m = re.fullmatch(r"weft-rails-0-bytes-([0-9]+)", el.get("id", ""))
        if not m:
            continue
        d = next(c.get("d") for c in el.iter() if c.tag.endswith("path") and c.get("d"))
        ys = [float(v) for v in re.findall(r"-?[0-9]+(?:\.[0-9]*)?(?:e-?[0-9]+)?", d)][1::2]
        tops[int(m.group(1))] = min(ys)  # SVG's y grows downwards: a bar's top is its least y
    return tops


def check_bars(tops, what):
    assert sorted(tops) == list(range(8)), (what, sorted(tops))
    page = np.array([tops[r] for r in range(8)])
    a, b = np.polyfit(mb, page, 1)
    miss = np.abs(a * mb + b - page).max()
    assert a < 0 and miss < 2e-3, (what, a, miss)  # page = a * MB + b, to SVG's precision


renamed, old, old_renamed = (os.path.join(TMP, n + ".h5") for n in ("ren", "old", "oldren"))
copy(renamed, rename=True)
copy(old, schema8=True)
copy(old_renamed, rename=True, schema8=True)
check_bars(bars(DGX), "trace")
check_bars(bars(renamed), "switches renamed")
check_bars(bars(old), "schema 8, by name")
bars(old_renamed, status=1)
PYEOF
