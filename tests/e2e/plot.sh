#!/bin/sh
# tests/e2e/plot.sh - weft plot: every kind renders from small runs, and what it drew is what
# the traces hold.
#
# Runs: experiments/fabric-compare-roce.ini and -ue.ini (DCQCN, PFC, NSCC; about 0.4 s each)
# and the flagship cut to two sizes (1 MB and 4 MB; rails and /collectives).  For each kind
# the figure is written as PNG and as SVG through `weft plot`; the PNG must not be blank
# (pixel variance, matplotlib.image.imread); the SVG's path data of each data line (found by
# its id, weft-KIND-...) must be the trace's values, computed here from h5py, up to the one
# affine map from data to page coordinates an axis allows (fitted over every line of the
# axes together: a point moved, dropped or reordered shows).  The figure objects
# (weft_plot.figure) are checked too: the lines' data equal the values computed here exactly,
# the heatmap's cells the utilisation from /links and each link's rate, the bars the per-rail
# sums; the legends name the key that differs between the runs (fabric:kind), read here from
# each trace's /meta experiment.
# Bad input: an unknown kind or option, a missing file, a file that is not a trace, an
# unknown link or flow (exit 2), a kind with nothing to draw (exit 1), an incomplete trace
# (drawn and marked, exit 1), and five of each kind of damage in tests/mkdamaged.py's corpus:
# each answered with exit 1 or 2 (0 only where the damage cannot show) and one line on stderr,
# never a traceback.
# Skipped (77) when configure found no Python with matplotlib, h5py and numpy.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
PYPLOT=$(sed -n 's/^#define WEFT_PYTHON "\(.*\)"$/\1/p' "$WEFT_BUILDDIR/config.h")
if [ -z "$PYPLOT" ]; then
    echo "SKIP: configure found no Python 3 with matplotlib, h5py and numpy"
    exit 77
fi
case $WEFT in /*) ;; *) WEFT=$(pwd)/$WEFT ;; esac
X="$WEFT_SRCDIR/experiments"
"$WEFT" run -q "$X/fabric-compare-roce.ini" -o "$TMP/roce.h5" >/dev/null || fail "run roce"
"$WEFT" run -q "$X/fabric-compare-ue.ini" -o "$TMP/ue.h5" >/dev/null || fail "run ue"
"$WEFT" run -q "$X/dgx4-allreduce.ini" -o "$TMP/dgx.h5" --set workload.allreduce:maxbytes=4MB \
    >/dev/null || fail "run dgx4-allreduce"
"$WEFT_BUILDDIR/tests/mktrace" "$TMP/good.h5" || fail "mktrace"
"$PYPLOT" -I "$WEFT_SRCDIR/tests/mkdamaged.py" "$TMP/good.h5" "$TMP/corpus" >/dev/null \
    || fail "mkdamaged.py"

WEFT="$WEFT" WEFT_EXE="$WEFT" "$PYPLOT" -I - "$WEFT_SRCDIR" "$TMP" <<'PYEOF' || fail "plots"
import contextlib, io, os, re, subprocess, sys
import xml.etree.ElementTree as ET

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.image

SRC, TMP = sys.argv[1:]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import weft_plot

WEFT = os.environ["WEFT"]
ROCE, UE, DGX = (os.path.join(TMP, n + ".h5") for n in ("roce", "ue", "dgx"))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def plot(args, status=0):
    """Runs weft plot; returns (stdout, stderr)."""
    p = subprocess.run([WEFT, "plot", *args], capture_output=True, text=True)
    err = p.stderr.strip()
    check(p.returncode == status, f"weft plot {' '.join(args)}: exit {p.returncode}, "
          f"expected {status}: {err}")
    check("Traceback" not in p.stderr, f"weft plot {' '.join(args)}: a traceback: {err}")
    if status != 0:
        check(len(err.splitlines()) == 1, f"weft plot {' '.join(args)}: not one line: {err!r}")
    return p.stdout, p.stderr


# ---- what the traces hold, computed here ---------------------------------------------------
def table(path, name):
    with h5py.File(path, "r") as f:
        return f[name][()]


def experiment(path):
    with h5py.File(path, "r") as f:
        text = f["meta"].attrs["experiment"]
    return text.decode() if isinstance(text, bytes) else str(text)


def value_of(path, group, key):
    m = re.search(r"^\[" + re.escape(group) + r"\]\n(?:(?!\[).*\n)*?" + re.escape(key)
                  + r" = (.*)$", experiment(path), re.M)
    return m.group(1).strip() if m else None


def fcts_us(path):
    fl = table(path, "flows")
    return np.sort(fl["fct_ps"][fl["finished"] == 1].astype(np.float64) / 1e6)


def parse_time(text):
    m = re.fullmatch(r"([0-9.]+)(ps|ns|us|ms|s)", text)
    return int(round(float(m.group(1)) * {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9,
                                          "s": 1e12}[m.group(2)]))


# ---- the figure files ----------------------------------------------------------------------
def svg_lines(path):
    """{id: [(x, y), ...]} of the first path inside each element whose id starts weft-."""
    out = {}
    for el in ET.parse(path).getroot().iter():
        gid = el.get("id", "")
        if not gid.startswith("weft-"):
            continue
        p = next((c for c in el.iter() if c.tag.endswith("path") and c.get("d")), None)
        if p is None:
            continue
        nums = [float(v) for v in re.findall(r"-?[0-9]+(?:\.[0-9]*)?(?:e-?[0-9]+)?",
                                             p.get("d"))]
        out[gid] = list(zip(nums[0::2], nums[1::2]))
    return out


def affine(data, page, what):
    """page = a * data + b for one a != 0 and b, to SVG's printed precision."""
    data, page = np.asarray(data, float), np.asarray(page, float)
    if not check(len(data) == len(page) and len(data) >= 2,
                 f"{what}: {len(page)} points in the SVG, {len(data)} in the trace"):
        return
    a, b = np.polyfit(data, page, 1)
    resid = np.abs(a * data + b - page).max()
    check(abs(a) > 0 and resid < 2e-3, f"{what}: the SVG's points are not the trace's "
          f"(largest miss {resid:.4g} pt)")


def render(kind, paths, extra=(), status=0):
    """Writes the figure as PNG and SVG; checks the PNG is not blank; returns the SVG's
    lines."""
    out = os.path.join(TMP, "fig-" + kind)
    for fmt in ("png", "svg"):
        stdout, _ = plot([*paths, "--kind", kind, "--out", out, "--format", fmt, *extra], status)
        want = os.path.join(out, f"{kind}.{fmt}")
        check(stdout.strip() == want, f"{kind}: printed {stdout.strip()!r}, not {want}")
        check(os.path.getsize(want) > 1000, f"{kind}.{fmt} is nearly empty")
    img = matplotlib.image.imread(os.path.join(out, kind + ".png"))
    rgb = img[..., :3]
    inked = (rgb.min(axis=2) < 0.9).mean()
    check(rgb.std() > 0.05 and inked > 0.01, f"{kind}.png is blank (std {rgb.std():.3g}, "
          f"{inked:.2%} inked)")
    return svg_lines(os.path.join(out, kind + ".svg"))


def lines_of(fig):
    return {l.get_gid(): l for ax in fig.axes for l in ax.get_lines() if l.get_gid()}


# ---- fct-cdf: two runs, one line each ------------------------------------------------------
svg = render("fct-cdf", [ROCE, UE])
fig, problems = weft_plot.figure("fct-cdf", [ROCE, UE])
check(problems == [], f"fct-cdf: problems {problems}")
lines = lines_of(fig)
xs, pages_x, ys, pages_y = [], [], [], []
for i, path in enumerate((ROCE, UE)):
    want = fcts_us(path)
    gid = f"weft-fct-cdf-{i}"
    line = lines.get(gid)
    if not check(line is not None and gid in svg, f"fct-cdf: no line {gid}"):
        continue
    check(np.array_equal(line.get_xdata(), want), f"fct-cdf {gid}: x is not the sorted FCTs")
    y = np.arange(1, len(want) + 1) / len(want)
    check(np.allclose(line.get_ydata(), y, rtol=0, atol=1e-15), f"fct-cdf {gid}: y")
    kind = value_of(path, "fabric", "kind")
    check(f"fabric:kind={kind}" in line.get_label(),
          f"fct-cdf {gid}: the legend '{line.get_label()}' does not name fabric:kind={kind}")
    xs += list(want); ys += list(y)
    pages_x += [p[0] for p in svg[gid]]; pages_y += [p[1] for p in svg[gid]]
affine(xs, pages_x, "fct-cdf x"); affine(ys, pages_y, "fct-cdf y")

# --flows: only those flows
fig, _ = weft_plot.figure("fct-cdf", [ROCE], flows=[0, 3, 5])
fl = table(ROCE, "flows")
want = np.sort(fl["fct_ps"][np.isin(fl["id"], [0, 3, 5])] / 1e6)
check(np.array_equal(lines_of(fig)["weft-fct-cdf-0"].get_xdata(), want), "fct-cdf --flows")

# ---- slowdown: p50 and p99 per power-of-two size group -------------------------------------
svg = render("slowdown", [ROCE])
fl = table(ROCE, "flows")
fl = fl[(fl["finished"] == 1) & (fl["ideal_fct_ps"] > 0)]
k = np.array([int(s).bit_length() - 1 for s in fl["size_bytes"]])
groups = sorted(set(k))
check(len(groups) >= 2, f"slowdown: the run has flows of one size group only ({groups})")
x = [2.0 ** g for g in groups]
for q in (50, 99):
    y = [np.percentile(fl["slowdown"][k == g], q) for g in groups]
    gid = f"weft-slowdown-0-p{q}"
    fig, _ = weft_plot.figure("slowdown", [ROCE])
    line = lines_of(fig)[gid]
    check(np.array_equal(line.get_xdata(), x) and np.allclose(line.get_ydata(), y, rtol=1e-12),
          f"slowdown p{q}: {line.get_xdata()} {line.get_ydata()} vs {x} {y}")
    if check(gid in svg, f"slowdown: no {gid} in the SVG"):
        affine(np.log2(x), [p[0] for p in svg[gid]], f"slowdown p{q} x (log2)")
        affine(y, [p[1] for p in svg[gid]], f"slowdown p{q} y")

# ---- busbw: mean over the timed iterations, out of place, per size ------------------------
svg = render("busbw", [DGX])
c = table(DGX, "collectives")
c = c[(c["warmup"] == 0) & (c["in_place"] == 0)]
sizes = np.unique(c["bytes"])
check(len(sizes) == 2, f"busbw: sizes {sizes}")
bw = [c["busbw_gbs"][c["bytes"] == s].mean() for s in sizes]
line = lines_of(weft_plot.figure("busbw", [DGX])[0])["weft-busbw-0-0"]
check(np.array_equal(line.get_xdata(), sizes) and np.allclose(line.get_ydata(), bw, rtol=1e-12),
      f"busbw: {line.get_xdata()} {line.get_ydata()} vs {sizes} {bw}")
if check("weft-busbw-0-0" in svg, "busbw: no line in the SVG"):
    affine(np.log2(sizes.astype(float)), [p[0] for p in svg["weft-busbw-0-0"]], "busbw x (log2)")
    affine(bw, [p[1] for p in svg["weft-busbw-0-0"]], "busbw y")

# ---- link-util: the heatmap's cells ---------------------------------------------------------
render("link-util", [ROCE])
fig, _ = weft_plot.figure("link-util", [ROCE])
cells = fig.axes[0].get_images()[0].get_array()
s = table(ROCE, "links")
tl = table(ROCE, "topology/links")
tier = {int(n["id"]): int(n["tier"]) for n in table(ROCE, "topology/nodes")}
interval = parse_time(value_of(ROCE, "trace", "interval"))
rate = {int(r["id"]): int(r["rate_bps"]) for r in tl}
order = {}
for r in tl:
    a, b = tier[int(r["node_a"])], tier[int(r["node_b"])]
    order[int(r["id"])] = (min(a, b), max(a, b), r["kind"])
keys = sorted({(int(r["link"]), int(r["direction"])) for r in s},
              key=lambda key: (order[key[0]], key))
end = int(s["time_ps"].max())
want = np.zeros((len(keys), -(-end // interval)))
for r in s:
    t = int(r["time_ps"])
    start = (t - 1) // interval * interval  # the last interval ends with the run
    want[keys.index((int(r["link"]), int(r["direction"]))), start // interval] += (
        100.0 * int(r["bytes"]) * 8 / ((t - start) * 1e-12 * rate[int(r["link"])]))
check(cells.shape == want.shape and np.allclose(cells, want, rtol=1e-12, atol=0),
      f"link-util: the cells are not /links' utilisation ({cells.shape} vs {want.shape})")
check(0 < want.max() <= 110, f"link-util: utilisation up to {want.max():.1f} %")

# ---- queue: chosen links, and by default the four deepest ----------------------------------
names = {int(n["id"]): n["name"].decode() for n in table(ROCE, "topology/nodes")}
host15 = [int(r["id"]) for r in tl if "host15" in (names[int(r["node_a"])], names[int(r["node_b"])])]
check(len(host15) == 1, f"queue: host15 has links {host15}")
stall = {}
for r in s:
    stall[int(r["link"])] = stall.get(int(r["link"]), 0) + int(r["stall_ps"])
paused = max(sorted(stall), key=lambda link: stall[link])  # PFC paused it the longest
check(stall[paused] > 0, "queue: PFC paused no link")
svg = render("queue", [ROCE], ["--links", f"host15,{paused}"])
fig, _ = weft_plot.figure("queue", [ROCE], links=["host15", str(paused)])
lines = lines_of(fig)
for link, d in ((host15[0], 0), (host15[0], 1), (paused, 0), (paused, 1)):
    rows = s[(s["link"] == link) & (s["direction"] == d)]
    rows = rows[np.argsort(rows["time_ps"], kind="stable")]
    for what, v in (("depth", rows["max_queue_bytes"] / 1024.0), ("stall", rows["stall_ps"] / 1e6)):
        gid = f"weft-queue-0-{link}-{d}-{what}"
        line = lines.get(gid)
        if check(line is not None and gid in svg, f"queue: no {gid}"):
            check(np.array_equal(line.get_xdata(), rows["time_ps"] / 1e6)
                  and np.array_equal(line.get_ydata(), v), f"queue {gid}: not /links' values")
            affine(rows["time_ps"] / 1e6, [p[0] for p in svg[gid]], f"queue {gid} x")
            if v.max() > v.min():
                affine(v, [p[1] for p in svg[gid]], f"queue {gid} y")
check(s[s["link"] == host15[0]]["max_queue_bytes"].max() > 0,
      "queue: the incast's last hop never queues")
check(sum(1 for g in lines if g.endswith("-stall")) == 4, f"queue: lines {sorted(lines)}")
deepest = {}
for r in s:
    key = (int(r["link"]), int(r["direction"]))
    deepest[key] = max(deepest.get(key, 0), int(r["max_queue_bytes"]))
top4 = sorted(sorted(deepest, key=lambda key: (-deepest[key], key))[:4])
got = sorted({tuple(int(v) for v in g.split("-")[3:5]) for g in
              lines_of(weft_plot.figure("queue", [ROCE])[0])})
check(got == top4, f"queue: default links {got}, the deepest are {top4}")

# ---- rate: DCQCN (RoCE) and NSCC (UE) per flow ---------------------------------------------
svg = render("rate", [ROCE, UE], ["--flows", "1,2"])
fig, _ = weft_plot.figure("rate", [ROCE, UE], flows=[1, 2])
lines = lines_of(fig)
check(len(lines) == 4, f"rate: {sorted(lines)}")
for i, path, name, field, scale in ((0, ROCE, "dcqcn", "rate_bps", 1e9),
                                    (1, UE, "uet", "cwnd_bytes", 1024.0)):
    t = table(path, name)
    for flow in (1, 2):
        rows = t[t["flow"] == flow]
        rows = rows[np.argsort(rows["time_ps"], kind="stable")]
        gid = f"weft-rate-{i}-{name}-{flow}"
        line = lines.get(gid)
        if check(line is not None and gid in svg and len(rows) > 1, f"rate: no {gid}"):
            check(np.array_equal(line.get_xdata(), rows["time_ps"] / 1e6)
                  and np.array_equal(line.get_ydata(), rows[field] / scale), f"rate {gid}")
            affine(rows["time_ps"] / 1e6, [p[0] for p in svg[gid]], f"rate {gid} x")

# ---- rails: per-rail sums of /links over links with an end at a railN switch ---------------
svg = render("rails", [DGX])
dn = {int(n["id"]): n["name"].decode() for n in table(DGX, "topology/nodes")}
ds = table(DGX, "links")
rails = {}
for r in table(DGX, "topology/links"):
    for end in ("node_a", "node_b"):
        m = re.search(r"rail([0-9]+)", dn[int(r[end])])
        if m:
            rails.setdefault(int(m.group(1)), set()).add(int(r["id"]))
check(sorted(rails) == list(range(8)), f"rails: {sorted(rails)}")
fig, _ = weft_plot.figure("rails", [DGX])
top, bottom = fig.axes[:2]
mb = [ds["bytes"][np.isin(ds["link"], list(rails[k]))].sum() / 1e6 for k in sorted(rails)]
us = [ds["stall_ps"][np.isin(ds["link"], list(rails[k]))].sum() / 1e6 for k in sorted(rails)]
check(np.allclose([p.get_height() for p in top.patches], mb, rtol=1e-12), "rails: bytes")
check(np.allclose([p.get_height() for p in bottom.patches], us, rtol=1e-12, atol=0),
      "rails: stall")
tops = [min(y for _, y in svg[f"weft-rails-0-bytes-{k}"]) for k in sorted(rails)]
affine(mb, tops, "rails: the SVG's bar heights")
check(min(mb) > 0, "rails: a rail carried nothing")

# ---- bad input -----------------------------------------------------------------------------
out = os.path.join(TMP, "bad")
plot([ROCE, "--kind", "pie", "--out", out], 2)
plot([ROCE, "--kind", "fct-cdf", "--out", out, "--colour", "red"], 2)
plot([ROCE, "--kind", "fct-cdf"], 2)
plot([ROCE, "--kind", "fct-cdf", "--out", out, "--format", "jpeg"], 2)
plot([os.path.join(TMP, "missing.h5"), "--kind", "fct-cdf", "--out", out], 2)
with open(os.path.join(TMP, "text.h5"), "w") as f:
    f.write("not a trace\n")
plot([os.path.join(TMP, "text.h5"), "--kind", "fct-cdf", "--out", out], 2)
plot([ROCE, "--kind", "queue", "--out", out, "--links", "99999"], 2)
plot([ROCE, "--kind", "queue", "--out", out, "--links", "no-such-node"], 2)
plot([ROCE, "--kind", "rate", "--out", out, "--flows", "99999"], 2)
plot([ROCE, "--kind", "rate", "--out", out, "--flows", "x"], 2)
plot([ROCE, "--kind", "busbw", "--out", out], 1)  # nothing to draw
check(not os.path.exists(os.path.join(out, "busbw.png")), "busbw: a figure of nothing")
help_out, _ = plot(["--help"])
check(help_out.startswith("Usage: weft plot") and all(k in help_out for k in weft_plot.KINDS),
      "weft plot --help")

# an incomplete trace: drawn, marked, exit 1
with h5py.File(ROCE, "r") as f_in, h5py.File(os.path.join(TMP, "part.h5"), "w") as f_out:
    for name in f_in:
        f_in.copy(name, f_out)
    f_out["meta"].attrs["status"] = np.bytes_("interrupted")
    f_out["meta"].attrs["complete"] = np.int32(0)
_, err = plot([os.path.join(TMP, "part.h5"), "--kind", "fct-cdf", "--out", out], 1)
check("incomplete" in err, f"incomplete trace: {err!r}")
fig, problems = weft_plot.figure("fct-cdf", [os.path.join(TMP, "part.h5")])
check(len(problems) == 1 and "(incomplete)" in lines_of(fig)["weft-fct-cdf-0"].get_label(),
      "incomplete trace: not marked")

# damaged traces: five of each category of the corpus (spread over it), in this process
# through main() (matplotlib loads once), and every 8th of them through weft plot's command
# line
index = {}
for line in open(os.path.join(TMP, "corpus", "index.txt")):
    name, category, what = line.split(None, 2)
    index.setdefault(category, []).append((name, category, what))
index = [row for rows in index.values()
         for row in (rows[::max(1, len(rows) // 5)][:5])]
may_pass = ("flip", "nudge", "value", "valid")
counts = {}
for n, (name, category, what) in enumerate(index):
    path = os.path.join(TMP, "corpus", name)
    for kind in (("fct-cdf", "link-util") if n % 3 == 0 else ("fct-cdf",)):
        args = ["weft plot", path, "--kind", kind, "--out", os.path.join(TMP, "dmg")]
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = weft_plot.main(args)
        err = err.getvalue().strip()
        counts[status] = counts.get(status, 0) + 1
        what = f"{name} ({what.strip()}) --kind {kind}"
        check(status in (0, 1, 2), f"{what}: exit {status}")
        check(status != 0 or category in may_pass, f"{what}: exit 0 for a damaged trace")
        check(status == 0 or (len(err.splitlines()) == 1 and "Traceback" not in err),
              f"{what}: not one line: {err!r}")
    if n % 8 == 0:
        p = subprocess.run([WEFT, "plot", path, "--kind", "fct-cdf", "--out",
                            os.path.join(TMP, "dmg")], capture_output=True, text=True)
        check(p.returncode in (0, 1, 2) and "Traceback" not in p.stderr
              and (p.returncode == 0 or len(p.stderr.strip().splitlines()) == 1),
              f"weft plot {name}: exit {p.returncode}: {p.stderr!r}")
check(len(index) >= 30 and counts.get(1, 0) + counts.get(2, 0) > len(index) // 2,
      f"damaged: {len(index)} traces, statuses {counts}")

print(f"plot: {len(index)} damaged traces, statuses {counts}")
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
PYEOF
echo "plot: ok"
