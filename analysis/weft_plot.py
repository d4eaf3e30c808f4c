#!/usr/bin/env python3
"""Figures from weft traces (matplotlib, Agg): what `weft plot` runs.

    weft plot TRACE.h5 [TRACE.h5]... --kind KIND --out DIR [--format png|svg]
              [--links LINKS] [--flows FLOWS]
    weft plot COLLECTED.h5 --kind sweep --x GROUP:KEY --y METRIC [--by GROUP:KEY] --out DIR

writes DIR/KIND.png (or .svg) and prints its path.  From Python (a notebook):

    import weft_plot
    fig, problems = weft_plot.figure("fct-cdf", ["a.h5", "b.h5"])
    fig.savefig("fct.svg")

Every number drawn is read from the traces through weft_trace.py (the hardened reader), or
for the sweep kind from a sweep's collected table (collected.h5, read here with h5py); the
kinds and exactly what each draws are in HELP below and in doc/analysis.md.  Legends name
the runs by what differs between them: the experiment keys `weft compare` lists (it is run
as `weft compare --format json`, the program named by $WEFT_EXE, else `weft` on PATH), so
the two never disagree; the file names where no key differs.

Exit status: 0 every figure drawn from complete traces; 1 a trace is incomplete, damaged or
unreadable, or a data set the kind needs does not read (what is there is drawn, that run's
label marked, one line on stderr), or the traces hold nothing this kind draws; 2 bad usage
(an unknown kind, option, link or flow), a missing file or one that is not a weft trace.
Every error is one line on stderr, never a traceback.  Ctrl-C (SIGINT) exits at once with
status 130 and prints nothing, removing a figure it was writing.
"""
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

PROG = "weft plot"
EXIT_OK, EXIT_FAILED, EXIT_BAD = 0, 1, 2

KINDS = {
    "fct-cdf": "CDF of flow completion times, one line per run",
    "slowdown": "slowdown (FCT / ideal FCT) p50 and p99 by flow size",
    "busbw": "bus bandwidth vs message size (nccl-tests), one line per run",
    "link-util": "link utilisation heatmap, links x time, grouped by tier",
    "queue": "queue depth and pause / credit-stall time of chosen links",
    "rate": "DCQCN rate and NSCC window over time of chosen flows",
    "rails": "bytes and stall time per rail (rail-optimised fabrics)",
    "sweep": "a metric of a sweep's collected table against one of its axes",
}

HELP = """Usage: weft plot TRACE.h5 [TRACE.h5]... --kind KIND --out DIR [--format png|svg]
                 [--links LINKS] [--flows FLOWS]
       weft plot COLLECTED.h5 --kind sweep --x GROUP:KEY --y METRIC [--by GROUP:KEY]
                 --out DIR [--format png|svg]

Draws one figure from one or more traces and writes it as DIR/KIND.png (or .svg),
printing its path.  Legends name each run by the experiment keys whose values
differ between the runs (as weft compare lists them), else by file name.

Kinds:
  fct-cdf    CDF of the FCT (us) of the finished flows of flow workloads (not
             collectives' or perftests' pieces), one line per run
  slowdown   slowdown (FCT / ideal FCT) by flow size: flows grouped by size in
             powers of two [2^k, 2^(k+1)), p50 (solid) and p99 (dashed) per group,
             drawn at 2^k
  busbw      nccl-tests' bus bandwidth (GB/s) vs message size: per size the mean
             over the timed (not warm-up) iterations, out of place (in place where
             a size has no out-of-place rows), one line per run and workload
  link-util  utilisation (%) of each link direction in each [trace] interval:
             wire bytes x 8 / (interval x line rate), rows grouped by tier (the
             tiers of the link's two ends) and link kind, one panel per run
  queue      per chosen link direction: the deepest egress queue (KiB) and the
             pause / credit-stall time (us) in each interval, from /links
  rate       per chosen flow: DCQCN's current rate (Gb/s, /dcqcn) and Ultra
             Ethernet NSCC's window (KiB, /uet) at each sample
  rails      per rail (the switches on it and their links): wire bytes (MB)
             and pause / credit-stall time (us) over the run, both directions
  sweep      from a sweep's collected table (weft sweep --collect writes
             collected.h5): METRIC (a metric column, with or without its
             " [unit]") against the axis --x, one line per value of the axis
             --by.  Each point is the mean over the rows that share its --x and
             --by values (the seeds: the experiment:seed axis), with error bars
             from their least to their greatest value; any other axis that
             varies among those rows must be --x or --by.  Points without the
             metric (not complete) are left out.  An --x whose values are all
             numbers is a numeric axis, otherwise one tick per value in the
             table's order

Options:
  --kind KIND           one of the kinds above
  --out DIR             folder for the figure (created if missing)
  --format png|svg      png (default) or svg
  --links LINKS         comma-separated link ids (rows of /topology/links) or
                        node names (every link of that node), for link-util,
                        queue and rails; queue's default: the 4 link directions
                        with the deepest queues
  --flows FLOWS         comma-separated flow ids (/flows id), for fct-cdf,
                        slowdown and rate; rate's default: the first 8 flows
                        sampled
  --x GROUP:KEY         sweep: the axis along x
  --y METRIC            sweep: the metric along y
  --by GROUP:KEY        sweep: one line per value of this axis
  -h, --help            this text

Other kinds ignore --links and --flows.  Times are simulated time.

Exit status (with one line on stderr saying why, unless 0):
  0  the figure is drawn from complete traces
  1  a trace is incomplete, damaged or unreadable, or a data set the kind needs
     does not read: what there is, is drawn, that run marked "(incomplete)";
     or the traces hold nothing this kind draws (no figure is written)
  2  bad usage (unknown kind or option, a link or flow no trace has, a metric
     or axis the collected table does not have), a missing file, or a file
     that is not a weft trace (for sweep: not a collected table)
  130  interrupted (Ctrl-C): nothing printed, no half-written figure left
  For sweep, a collected table that is damaged, cut short or unfinished is 1.
"""

# nccl-tests' workload kinds and perftest's are not flows anyone asks about one by one
# (analysis/headline.c weft_headline_kind_has_flows()).
NOT_FLOW_KINDS = ("nccl-test", "training", "ib_write_bw", "ib_write_lat")


class PlotError(Exception):
    """One line for stderr, and the exit status."""

    def __init__(self, message, status=EXIT_FAILED):
        super().__init__(message)
        self.status = status


class BadUsage(PlotError):
    def __init__(self, message):
        super().__init__(message, EXIT_BAD)


# ---- arguments -------------------------------------------------------------------------------

def parse_args(argv):
    """A dict of the options; BadUsage for anything else.  None for --help."""
    opts = {"paths": [], "kind": None, "out": None, "format": "png", "links": None,
            "flows": None, "x": None, "y": None, "by": None}
    names = {"--kind": "kind", "--out": "out", "--format": "format", "--links": "links",
             "--flows": "flows", "--x": "x", "--y": "y", "--by": "by"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            return None
        key, value = a, None
        if a.startswith("--") and "=" in a:
            key, value = a.split("=", 1)
        if key in names:
            if value is None:
                i += 1
                if i >= len(argv):
                    raise BadUsage(f"{key} needs a value (see weft plot --help)")
                value = argv[i]
            opts[names[key]] = value
        elif a == "--":
            opts["paths"] += argv[i + 1:]
            break
        elif a.startswith("-") and a != "-":
            raise BadUsage(f"unknown option {a} (see weft plot --help)")
        else:
            opts["paths"].append(a)
        i += 1
    if opts["kind"] is None:
        raise BadUsage("--kind KIND is required: " + ", ".join(KINDS))
    if opts["kind"] not in KINDS:
        raise BadUsage(f"--kind {opts['kind']}: unknown kind; one of " + ", ".join(KINDS))
    if opts["out"] is None:
        raise BadUsage("--out DIR is required (the folder for the figure)")
    if opts["format"] not in ("png", "svg"):
        raise BadUsage(f"--format {opts['format']}: expected png or svg")
    if not opts["paths"]:
        raise BadUsage("expected one or more traces (see weft plot --help)")
    if opts["kind"] == "sweep":
        if len(opts["paths"]) != 1:
            raise BadUsage("--kind sweep draws one collected table (collected.h5)")
        if opts["x"] is None or opts["y"] is None:
            raise BadUsage("--kind sweep needs --x GROUP:KEY and --y METRIC")
        if opts["by"] is not None and opts["by"] == opts["x"]:
            raise BadUsage(f"--by {opts['by']}: the same axis as --x")
    elif any(opts[k] is not None for k in ("x", "y", "by")):
        raise BadUsage("--x, --y and --by go with --kind sweep")
    if opts["flows"] is not None:
        try:
            opts["flows"] = [int(x) for x in opts["flows"].split(",")]
        except ValueError:
            raise BadUsage(f"--flows {opts['flows']}: expected flow ids (integers) separated "
                           "by commas") from None
        if any(x < 0 for x in opts["flows"]):
            raise BadUsage("--flows: flow ids are not negative")
    if opts["links"] is not None:
        opts["links"] = [x for x in opts["links"].split(",")]
        if any(x == "" for x in opts["links"]):
            raise BadUsage("--links: an empty item (ids or node names separated by commas)")
    return opts


# ---- reading the runs -----------------------------------------------------------------------

def _text(b):
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)


def experiment_groups(text):
    """The resolved experiment text of /meta as {group: {key: value}} (GKeyFile syntax:
    [group] lines, key = value lines, # comments)."""
    groups, cur = {}, None
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^\[([^\]]+)\]$", line)
        if m:
            cur = groups.setdefault(m.group(1), {})
        elif cur is not None and "=" in line:
            k, v = line.split("=", 1)
            cur[k.strip()] = v.strip()
    return groups


class Run:
    """One trace: its path, what open_trace() said, its label, and the data sets read so
    far.  A data set that does not read is recorded in problems and read as 0 rows."""

    def __init__(self, wt, path):
        self.wt = wt
        self.path = path
        self.info = wt.open_trace(path)  # NotATrace propagates: exit 2
        self.label = os.path.basename(path)
        self.problems = []
        if not self.info["readable"]:
            self.problems.append(f"{path}: unreadable trace: {self.info['reason']}")
        elif not self.info["complete"]:
            what = "damaged" if self.info["damaged"] else "incomplete"
            self.problems.append(f"{path}: {what} trace: {self.info['reason']}")
        self._sets = {}
        self.groups = experiment_groups(self.info.get("experiment", ""))

    @property
    def marked(self):
        return bool(self.problems)

    def rows(self, name):
        """The rows of data set name ("flows", "topology/nodes", ...), or 0 rows if it does
        not read (the reason kept in problems)."""
        if name not in self._sets:
            since, fields = self.wt.RECORDS[name]
            empty = self.wt.np.zeros(0, dtype=[(f, k) for f, k, _ in fields])
            if not self.info["readable"]:
                self._sets[name] = empty
            else:
                try:
                    self._sets[name] = self.wt._rows(self.path, name)
                except self.wt.TraceError as e:
                    self.problems.append(str(e))
                    self._sets[name] = empty
        return self._sets[name]

    def workload_kind(self, name):
        return self.groups.get("workload." + name, {}).get("kind")

    def node_names(self):
        n = self.rows("topology/nodes")
        return {int(r["id"]): _text(r["name"]) for r in n}

    def link_name(self, link, direction):
        nodes = self.node_names()
        lk = self.rows("topology/links")
        row = lk[lk["id"] == link]
        if len(row) == 0:
            return f"link {link}"
        a, b = nodes.get(int(row[0]["node_a"]), "?"), nodes.get(int(row[0]["node_b"]), "?")
        return f"{a}\u2192{b}" if direction == 0 else f"{b}\u2192{a}"


def differing_labels(paths):
    """One label per run naming what differs between them, from `weft compare --format
    json`; None if it cannot say (a single run, no key differs, compare unavailable)."""
    if len(paths) < 2:
        return None
    exe = os.environ.get("WEFT_EXE") or shutil.which("weft")
    if not exe:
        return None
    try:
        p = subprocess.run([exe, "compare", "--format", "json", *paths],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)
        data = json.loads(p.stdout)
        differs = data["differs"]
    except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError):
        return None
    if not differs:
        return None
    labels = []
    for i in range(len(paths)):
        parts = []
        for d in differs[:2]:
            v = d["values"][i] if i < len(d["values"]) else None
            parts.append(f"{d['key']}={'-' if v is None else v}")
        if len(differs) > 2:
            parts.append(f"+{len(differs) - 2} more")
        labels.append(", ".join(parts))
    if len(set(labels)) != len(labels):  # the first keys agree: the file tells them apart
        labels = [f"{os.path.basename(p)}: {lab}" for p, lab in zip(paths, labels)]
    return labels


def load_runs(wt, paths):
    runs = [Run(wt, p) for p in paths]
    labels = differing_labels(paths)
    for i, r in enumerate(runs):
        if labels:
            r.label = labels[i]
    return runs


def label_of(run):
    return run.label + (" (incomplete)" if run.marked else "")


# ---- the kinds ------------------------------------------------------------------------------
# Each draw_KIND(fig, runs, opts, np) draws into fig and returns the number of artists that
# carry data (0: nothing to draw).  Data-carrying lines get gid "weft-KIND-N" so that a test
# can find them in the SVG.

def flow_rows(run, opts, np):
    """The finished flows of flow workloads (optionally only --flows ids)."""
    fl = run.rows("flows")
    if len(fl) == 0:
        return fl
    names = np.unique(fl["workload"])
    keep = [n for n in names if run.workload_kind(_text(n)) not in NOT_FLOW_KINDS]
    sel = (fl["finished"] == 1) & np.isin(fl["workload"], keep)
    if opts.get("flows") is not None:
        sel &= np.isin(fl["id"], opts["flows"])
    return fl[sel]


def draw_fct_cdf(fig, runs, opts, np):
    ax = fig.add_subplot(1, 1, 1)
    n = 0
    for i, run in enumerate(runs):
        fl = flow_rows(run, opts, np)
        if len(fl) == 0:
            continue
        x = np.sort(fl["fct_ps"].astype(np.float64) / 1e6)
        y = np.arange(1, len(x) + 1) / len(x)
        (line,) = ax.plot(x, y, marker="." if len(x) <= 200 else None, markersize=3,
                          label=label_of(run))
        line.set_gid(f"weft-fct-cdf-{i}")
        n += 1
    ax.set_xlabel("flow completion time (\u00b5s)")
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.02)
    ax.set_title("FCT CDF (finished flows of flow workloads)")
    return n


def size_buckets(sizes, np):
    """Power-of-two bucket k of each size: [2^k, 2^(k+1))."""
    return np.floor(np.log2(np.maximum(sizes.astype(np.float64), 1))).astype(int)


def draw_slowdown(fig, runs, opts, np):
    ax = fig.add_subplot(1, 1, 1)
    n = 0
    for i, run in enumerate(runs):
        fl = flow_rows(run, opts, np)
        fl = fl[fl["ideal_fct_ps"] > 0]
        if len(fl) == 0:
            continue
        k = size_buckets(fl["size_bytes"], np)
        ks = np.unique(k)
        x = np.power(2.0, ks)
        p50 = [np.percentile(fl["slowdown"][k == b], 50) for b in ks]
        p99 = [np.percentile(fl["slowdown"][k == b], 99) for b in ks]
        (l50,) = ax.plot(x, p50, marker="o", label=f"{label_of(run)} p50")
        (l99,) = ax.plot(x, p99, marker="^", linestyle="--", color=l50.get_color(),
                         label=f"{label_of(run)} p99")
        l50.set_gid(f"weft-slowdown-{i}-p50")
        l99.set_gid(f"weft-slowdown-{i}-p99")
        n += 1
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(size_formatter())
    ax.set_xlabel("flow size (bytes; group [2^k, 2^(k+1)) drawn at 2^k)")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    ax.set_title("slowdown by flow size")
    return n


def size_text(b):
    """Bytes in the largest unit that divides them, decimal first (as weft prints sizes)."""
    b = int(b)
    for unit, scale in (("GB", 10**9), ("GiB", 2**30), ("MB", 10**6), ("MiB", 2**20),
                        ("KB", 10**3), ("KiB", 2**10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def matplotlib_null_locator():
    from matplotlib.ticker import NullLocator
    return NullLocator()


def size_formatter():
    from matplotlib.ticker import FuncFormatter
    return FuncFormatter(lambda v, _: size_text(v) if v >= 1 and float(v).is_integer() else "")


def busbw_series(run, np):
    """{(workload, op): (sizes, busbw GB/s)}: per size the mean busbw over the timed
    iterations, out of place, in place where a size has no out-of-place rows."""
    c = run.rows("collectives")
    c = c[(c["warmup"] == 0) & (c["finish_ps"] > 0)]
    out = {}
    for key in sorted({(_text(r["workload"]), _text(r["op"])) for r in c}):
        rows = c[(c["workload"] == key[0].encode()) & (c["op"] == key[1].encode())]
        sizes, bw = [], []
        for size in np.unique(rows["bytes"]):
            at = rows[rows["bytes"] == size]
            oop = at[at["in_place"] == 0]
            use = oop if len(oop) else at
            sizes.append(int(size))
            bw.append(float(np.mean(use["busbw_gbs"])))
        out[key] = (np.array(sizes), np.array(bw))
    return out


def draw_busbw(fig, runs, opts, np):
    ax = fig.add_subplot(1, 1, 1)
    n = 0
    for i, run in enumerate(runs):
        series = busbw_series(run, np)
        for j, ((wl, op), (x, y)) in enumerate(series.items()):
            lab = label_of(run) if len(series) == 1 else f"{label_of(run)} [{wl}] {op}"
            (line,) = ax.plot(x, y, marker="o", label=lab)
            line.set_gid(f"weft-busbw-{i}-{j}")
            n += 1
    ax.set_xscale("log", base=2)
    sizes = sorted({float(x) for line in ax.get_lines() for x in line.get_xdata()})
    if 0 < len(sizes) <= 16:  # nccl-tests' sizes are the ticks
        ax.set_xticks(sizes, [size_text(x) for x in sizes])
        ax.xaxis.set_minor_locator(matplotlib_null_locator())
    else:
        ax.xaxis.set_major_formatter(size_formatter())
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title("nccl-tests bus bandwidth (timed iterations, out of place)")
    return n


def link_tiers(run, np):
    """{link id: group name}: the tiers of the link's two ends and its kind."""
    nodes = run.rows("topology/nodes")
    tier = {int(r["id"]): int(r["tier"]) for r in nodes}
    out = {}
    for r in run.rows("topology/links"):
        a, b = tier.get(int(r["node_a"]), -1), tier.get(int(r["node_b"]), -1)
        lo, hi = min(a, b), max(a, b)
        out[int(r["id"])] = (lo, hi, _text(r["kind"]))
    return out


def selected_links(run, names, np):
    """Link ids of --links items: an integer is a link id, anything else a node name (every
    link of that node).  BadUsage for an item that names nothing in this trace."""
    if names is None:
        return None
    lk = run.rows("topology/links")
    nodes = {v: k for k, v in run.node_names().items()}
    ids = set()
    for item in names:
        if re.fullmatch(r"[0-9]+", item):
            if int(item) not in set(int(x) for x in lk["id"]):
                raise BadUsage(f"--links {item}: {run.path} has no link {item}")
            ids.add(int(item))
        elif item in nodes:
            node = nodes[item]
            ids |= {int(r["id"]) for r in lk if node in (int(r["node_a"]), int(r["node_b"]))}
        else:
            raise BadUsage(f"--links {item}: {run.path} has no such link id or node")
    return ids


def sample_intervals(times, np):
    """The start of each sample's interval, and the [trace] interval I: the greatest common
    divisor of the sample times but the last (samples fall on multiples of I; the last may
    be the run's end).  A sample at t covers (floor((t-1)/I) I, t], so the run's last,
    shorter interval counts as long as it was."""
    u = [int(t) for t in np.unique(times)]
    if not u:
        return times, 1
    interval = 0
    for t in (u[:-1] if len(u) > 1 else u):
        interval = math.gcd(interval, t)
    interval = max(interval, 1)
    starts = ((times.astype(np.int64) - 1) // interval) * interval
    return starts, interval


def utilisation(run, opts, np):
    """(matrix % [row, time bin], bin edges in us, row keys (link, dir), groups [(name,
    first row, rows)])."""
    s = run.rows("links")
    rate = {int(r["id"]): int(r["rate_bps"]) for r in run.rows("topology/links")}
    want = selected_links(run, opts.get("links"), np)
    if want is not None:
        s = s[np.isin(s["link"], list(want))]
    if len(s) == 0:
        return None
    starts, interval = sample_intervals(s["time_ps"], np)
    tiers = link_tiers(run, np)
    keys = sorted({(int(r["link"]), int(r["direction"])) for r in s},
                  key=lambda k: (tiers.get(k[0], (9, 9, "")), k[0], k[1]))
    row_of = {k: i for i, k in enumerate(keys)}
    nbins = int(s["time_ps"].max() + interval - 1) // interval
    m = np.zeros((len(keys), nbins))
    for r, start in zip(s, starts):
        length = int(r["time_ps"]) - int(start)
        bps = rate.get(int(r["link"]), 0)
        if length > 0 and bps > 0:
            m[row_of[(int(r["link"]), int(r["direction"]))], int(start) // interval] += (
                100.0 * float(r["bytes"]) * 8 / (length * 1e-12 * bps))
    groups = []
    for i, k in enumerate(keys):
        lo, hi, kind = tiers.get(k[0], (-1, -1, "?"))
        name = f"{kind} tier {lo}-{hi}"
        if groups and groups[-1][0] == name:
            groups[-1][2] += 1
        else:
            groups.append([name, i, 1])
    edges = np.arange(nbins + 1) * interval / 1e6
    return m, edges, keys, groups


def draw_link_util(fig, runs, opts, np):
    n = 0
    data = [(run, utilisation(run, opts, np)) for run in runs]
    shown = [(run, d) for run, d in data if d is not None]
    if not shown:
        return 0
    vmax = max(100.0, max(float(d[0].max()) for _, d in shown))
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    for ax, (run, (m, edges, keys, groups)) in zip(axes, shown):
        img = ax.imshow(m, aspect="auto", interpolation="nearest", origin="upper",
                        extent=(edges[0], edges[-1], len(keys), 0), vmin=0, vmax=vmax,
                        cmap="viridis")
        img.set_gid(f"weft-link-util-{runs.index(run)}")
        for name, first, count in groups:
            if first:
                ax.axhline(first, color="white", linewidth=0.8)
        ax.set_yticks([first + count / 2 for _, first, count in groups])
        ax.set_yticklabels([f"{name} ({count})" for name, _, count in groups])
        ax.set_title(label_of(run))
        ax.set_ylabel("link directions")
        fig.colorbar(img, ax=ax, label="utilisation (%)")
        n += 1
    axes[-1].set_xlabel("time (\u00b5s)")
    return n


def queue_series(run, opts, np):
    """{(link, direction): (times us, max queue KiB, stall us)} of the chosen links."""
    s = run.rows("links")
    want = selected_links(run, opts.get("links"), np)
    if want is not None:
        s = s[np.isin(s["link"], list(want))]
        keys = sorted({(int(r["link"]), int(r["direction"])) for r in s})
    else:
        deepest = {}
        for r in s:
            k = (int(r["link"]), int(r["direction"]))
            deepest[k] = max(deepest.get(k, 0), int(r["max_queue_bytes"]))
        keys = sorted(sorted(deepest, key=lambda k: (-deepest[k], k))[:4])
    out = {}
    for k in keys:
        rows = s[(s["link"] == k[0]) & (s["direction"] == k[1])]
        rows = rows[np.argsort(rows["time_ps"], kind="stable")]
        out[k] = (rows["time_ps"] / 1e6, rows["max_queue_bytes"] / 1024.0, rows["stall_ps"] / 1e6)
    return out


def draw_queue(fig, runs, opts, np):
    top, bottom = fig.subplots(2, 1, sharex=True)
    n = 0
    for i, run in enumerate(runs):
        for k, (t, q, stall) in queue_series(run, opts, np).items():
            lab = f"{label_of(run)}: {run.link_name(*k)}" if len(runs) > 1 else run.link_name(*k)
            (l1,) = top.plot(t, q, marker=".", markersize=3, label=lab)
            (l2,) = bottom.plot(t, stall, marker=".", markersize=3, color=l1.get_color(),
                                label=lab)
            l1.set_gid(f"weft-queue-{i}-{k[0]}-{k[1]}-depth")
            l2.set_gid(f"weft-queue-{i}-{k[0]}-{k[1]}-stall")
            n += 1
    top.set_ylabel("deepest queue (KiB)")
    top.set_title("egress queue per interval")
    bottom.set_ylabel("pause / credit stall (\u00b5s)")
    bottom.set_xlabel("time (\u00b5s; each point ends an interval)")
    return n


def rate_series(run, opts, np):
    """({flow: (times us, rate Gb/s)} from /dcqcn, {flow: (times us, window KiB)} from /uet)."""
    out = []
    for name, field, scale in (("dcqcn", "rate_bps", 1e9), ("uet", "cwnd_bytes", 1024.0)):
        s = run.rows(name)
        flows = np.unique(s["flow"])
        if opts.get("flows") is not None:
            flows = [f for f in flows if f in opts["flows"]]
        else:
            flows = flows[:8]
        series = {}
        for f in flows:
            rows = s[s["flow"] == f]
            rows = rows[np.argsort(rows["time_ps"], kind="stable")]
            series[int(f)] = (rows["time_ps"] / 1e6, rows[field] / scale)
        out.append(series)
    return out


def draw_rate(fig, runs, opts, np):
    data = [rate_series(run, opts, np) for run in runs]
    panels = [(j, title, unit) for j, (title, unit) in
              enumerate((("DCQCN rate", "rate (Gb/s)"), ("NSCC window", "window (KiB)")))
              if any(d[j] for d in data)]
    if not panels:
        return 0
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    n = 0
    for ax, (j, title, unit) in zip(axes, panels):
        for i, (run, d) in enumerate(zip(runs, data)):
            for flow, (t, v) in d[j].items():
                lab = f"{label_of(run)}: flow {flow}" if len(runs) > 1 else f"flow {flow}"
                (line,) = ax.plot(t, v, marker=".", markersize=3, label=lab)
                line.set_gid(f"weft-rate-{i}-{'dcqcn' if j == 0 else 'uet'}-{flow}")
                n += 1
        ax.set_ylabel(unit)
        ax.set_title(title + " per flow")
    axes[-1].set_xlabel("time (\u00b5s)")
    return n


def rail_switches(run):
    """{node id: rail} of the switches on a rail: the rail /topology/nodes records (schema 9);
    in an older trace, which has none, the switches named railN (su0-rail3-leaf)."""
    rows = run.rows("topology/nodes")
    if int(run.info.get("schema_version") or 0) >= 9:
        return {int(r["id"]): int(r["rail"]) for r in rows
                if _text(r["kind"]) == "switch" and int(r["rail"]) >= 0}
    rail_of_node = {}
    for r in rows:
        if _text(r["kind"]) != "switch":
            continue
        m = re.search(r"(?:^|[^a-z])rail([0-9]+)", _text(r["name"]))
        if m:
            rail_of_node[int(r["id"])] = int(m.group(1))
    return rail_of_node


def rail_totals(run, opts, np):
    """{rail: (wire bytes, stall ps)} over the run, both directions, of the links with an end
    at a switch on that rail (rail_switches; optionally only --links)."""
    rail_of_node = rail_switches(run)
    rail_of_link = {}
    for r in run.rows("topology/links"):
        for end in ("node_a", "node_b"):
            if int(r[end]) in rail_of_node:
                rail_of_link[int(r["id"])] = rail_of_node[int(r[end])]
    want = selected_links(run, opts.get("links"), np)
    s = run.rows("links")
    totals = {}
    for link, rail in rail_of_link.items():
        if want is not None and link not in want:
            continue
        rows = s[s["link"] == link]
        b, st = totals.get(rail, (0, 0))
        totals[rail] = (b + int(rows["bytes"].sum()), st + int(rows["stall_ps"].sum()))
    return dict(sorted(totals.items()))


def draw_rails(fig, runs, opts, np):
    data = [rail_totals(run, opts, np) for run in runs]
    rails = sorted({k for d in data for k in d})
    if not rails:
        return 0
    top, bottom = fig.subplots(2, 1, sharex=True)
    width = 0.8 / len(runs)
    x = np.arange(len(rails))
    for i, (run, d) in enumerate(zip(runs, data)):
        b = [d.get(r, (0, 0))[0] / 1e6 for r in rails]
        s = [d.get(r, (0, 0))[1] / 1e6 for r in rails]
        off = x - 0.4 + width * (i + 0.5)
        bars1 = top.bar(off, b, width, label=label_of(run))
        bars2 = bottom.bar(off, s, width, label=label_of(run))
        for bars, what in ((bars1, "bytes"), (bars2, "stall")):
            for rail, patch in zip(rails, bars.patches):
                patch.set_gid(f"weft-rails-{i}-{what}-{rail}")
    bottom.set_xticks(x)
    bottom.set_xticklabels([f"rail {r}" for r in rails])
    top.set_ylabel("wire bytes (MB)")
    top.set_ylim(bottom=0)
    bottom.set_ylim(bottom=0)
    top.set_title("per rail, both directions, whole run")
    bottom.set_ylabel("pause / credit stall (\u00b5s)")
    return len(rails)


# ---- sweep: a collected table ----------------------------------------------------------------

COLLECTED_FORMAT = "weft collected table"


def read_collected(path, np):
    """(rows: structured array, {column: (role, unit)}) of a collected table, as
    analysis/collected.c reads it.  BadUsage (exit 2) for a missing file or one that is no
    collected table; PlotError (exit 1) for one that is damaged, cut short or unfinished."""
    import h5py
    if not os.path.isfile(path):
        raise BadUsage(f"{path}: no such file")
    try:
        is_hdf5 = h5py.is_hdf5(path)
    except OSError:
        is_hdf5 = False
    with open(path, "rb") as fh:
        signature = fh.read(8) == b"\x89HDF\r\n\x1a\n"
    if not is_hdf5 and not signature:
        raise BadUsage(f"{path}: not a collected table: not an HDF5 file")
    check_collected(path)
    try:
        with h5py.File(path, "r") as f:
            meta = f.get("meta")
            fmt = meta.attrs.get("format") if isinstance(meta, h5py.Group) else None
            if isinstance(fmt, bytes):
                fmt = fmt.decode("utf-8", "replace")
            if fmt != COLLECTED_FORMAT:
                raise BadUsage(f"{path}: not a collected table (weft sweep --collect writes "
                               "collected.h5)")
            if meta.attrs.get("complete") != 1:
                raise PlotError(f"{path}: incomplete collected table: /meta complete is not 1 "
                                "(the collection did not finish)")
            table, cols = f["table"], f["columns"]
            if not isinstance(table, h5py.Dataset) or not isinstance(cols, h5py.Dataset):
                raise PlotError(f"{path}: damaged collected table: /table or /columns is not "
                                "a data set")
            rows, desc = table[()], cols[()]
    except (BadUsage, PlotError):
        raise
    except Exception as e:  # noqa: BLE001 - h5py's and libhdf5's many ways to fail
        lines = str(e).splitlines()
        raise PlotError(f"{path}: damaged collected table: {lines[0] if lines else type(e).__name__}"
                        ) from None
    try:
        names = list(rows.dtype.names)
        columns = {_text(c["name"]): (_text(c["role"]), _text(c["unit"])) for c in desc}
        if [_text(c["name"]) for c in desc] != names:
            raise ValueError("/columns does not name /table's columns")
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise PlotError(f"{path}: damaged collected table: {e}") from None
    return rows, columns


def check_collected(path):
    """Has weft's own reader (analysis/collected.c, through `weft compare`) look at the table
    first: it checks what libhdf5 trusts (declared rows against stored bytes, object headers,
    layouts) in a child process, where h5py would read whatever a damaged file declares - or
    spin on it.  PlotError with its one line when it finds the table damaged, cut short or
    unfinished; nothing when weft is not to be found (a notebook without it)."""
    exe = os.environ.get("WEFT_EXE") or shutil.which("weft")
    if not exe:
        return
    try:
        p = subprocess.run([exe, "compare", "--format", "json", path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        raise PlotError(f"{path}: cannot check the collected table: {e}") from None
    err = p.stderr.decode("utf-8", "replace").strip().splitlines()
    line = err[0] if err else ""
    if line.startswith("weft compare: "):
        line = line[len("weft compare: "):]
    if p.returncode == 1 and re.search(r": (damaged|incomplete) collected table: ", line):
        raise PlotError(line)
    # 1 otherwise: a point without a complete result (drawn without it); 2: not a collected
    # table (a trace, say), which the caller finds out itself
    if p.returncode not in (0, 1, 2):
        raise PlotError(line or f"{path}: weft compare exited {p.returncode}")


def _number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def sweep_points(path, x, y, by, np):
    """({by value: (x positions, means, least, greatest)}, x tick labels or None, the metric's
    column, its unit): the figure's data, as --kind sweep's help says."""
    rows, columns = read_collected(path, np)
    axes = [n for n, (role, _) in columns.items() if role == "axis"]
    metrics = [n for n, (role, _) in columns.items() if role == "metric"]
    for opt, key in (("--x", x), ("--by", by)):
        if key is not None and key not in axes:
            raise BadUsage(f"{opt} {key}: not an axis of {path}; its axes: {', '.join(axes)}")
    metric = y if y in metrics else next(
        (m for m in metrics if columns[m][1] and m == f"{y} [{columns[m][1]}]"), None)
    if metric is None:
        raise BadUsage(f"--y {y}: no such metric in {path}; its metrics: {', '.join(metrics)}")
    unit = columns[metric][1]
    others = [a for a in axes if a not in (x, by, "experiment:seed")]
    xs = [_text(v) for v in rows[x]]
    order = list(dict.fromkeys(xs))  # the table's order
    numeric = all(_number(v) is not None for v in order)
    pos = {v: (_number(v) if numeric else float(i)) for i, v in enumerate(order)}
    groups = {}
    for r, xv in zip(rows, xs):
        v = float(r[metric])
        if not math.isfinite(v):
            continue
        key = _text(r[by]) if by else None
        groups.setdefault(key, {}).setdefault(xv, []).append(r)
    series = {}
    for key, at in groups.items():
        px, mean, lo, hi = [], [], [], []
        for xv in sorted(at, key=lambda v: pos[v]):
            rs = at[xv]
            for a in others:
                if len({_text(r[a]) for r in rs}) > 1:
                    raise BadUsage(f"the axis {a} varies too: name it with --x or --by "
                                   f"(only the seeds are averaged)")
            vals = [float(r[metric]) for r in rs]
            px.append(pos[xv])
            mean.append(sum(vals) / len(vals))
            lo.append(min(vals))
            hi.append(max(vals))
        series[key] = tuple(np.array(a) for a in (px, mean, lo, hi))
    return series, (None if numeric else order), metric, unit


def draw_sweep(fig, runs, opts, np):
    series, ticks, metric, unit = sweep_points(runs[0], opts["x"], opts["y"], opts["by"], np)
    ax = fig.add_subplot(1, 1, 1)
    for i, (key, (px, mean, lo, hi)) in enumerate(series.items()):
        lab = f"{opts['by']}={key}" if opts["by"] else None
        c = ax.errorbar(px, mean, yerr=[mean - lo, hi - mean], marker="o", capsize=3, label=lab)
        c.lines[0].set_gid(f"weft-sweep-{i}")
    if ticks is not None:
        ax.set_xticks(range(len(ticks)), ticks)
    name = metric[: -len(f" [{unit}]")] if unit and metric.endswith(f" [{unit}]") else metric
    ax.set_xlabel(opts["x"])
    ax.set_ylabel(f"{name} ({unit})" if unit else name)
    ax.set_title(f"{name} by {opts['x']}: mean over seeds, bars least to greatest")
    return len(series)


DRAW = {"fct-cdf": draw_fct_cdf, "slowdown": draw_slowdown, "busbw": draw_busbw,
        "link-util": draw_link_util, "queue": draw_queue, "rate": draw_rate, "rails": draw_rails,
        "sweep": draw_sweep}
NOTHING = {
    "fct-cdf": "no finished flows of flow workloads",
    "slowdown": "no finished flows of flow workloads with an ideal FCT",
    "busbw": "no timed collectives (/collectives: an nccl-test workload's rows)",
    "link-util": "no link samples (/links)",
    "queue": "no link samples (/links)",
    "rate": "no /dcqcn or /uet samples (DCQCN off and not Ultra Ethernet)",
    "rails": "no rails (no switch on a rail, as a rail-optimised fabric's leaves are)",
    "sweep": "no point of the collected table has the metric (none is complete)",
}


def _imports():
    """numpy, weft_trace and pyplot; PlotError naming what to install if one is missing."""
    missing = []
    for mod, pkg in (("numpy", "python3-numpy"), ("h5py", "python3-h5py"),
                     ("matplotlib", "python3-matplotlib")):
        try:
            __import__(mod)
        except ImportError:
            missing.append((mod, pkg))
    if missing:
        raise PlotError(f"{sys.executable} cannot import {', '.join(m for m, _ in missing)}: "
                        f"install {' '.join(p for _, p in missing)} (Debian), or configure "
                        "weft --with-python=PATH")
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["path.simplify"] = False  # every point drawn is a point of the trace
    matplotlib.rcParams["svg.hashsalt"] = "weft"  # the same SVG ids every time
    import matplotlib.pyplot as plt
    import numpy as np
    import weft_trace as wt
    return np, wt, plt


def sweep_figure(paths, sweep, np, plt):
    """The sweep kind's figure of the collected table paths[0]: sweep holds x, y, by."""
    opts = {"x": sweep.get("x"), "y": sweep.get("y"), "by": sweep.get("by")}
    if opts["x"] is None or opts["y"] is None:
        raise BadUsage("--kind sweep needs --x GROUP:KEY and --y METRIC")
    fig = plt.figure(figsize=(8, 5), layout="constrained")
    try:
        n = draw_sweep(fig, paths, opts, np)
    except BaseException:
        plt.close(fig)
        raise
    if n == 0:
        plt.close(fig)
        raise PlotError(f"{paths[0]}: nothing to plot: {NOTHING['sweep']}")
    if opts["by"]:
        fig.axes[0].legend(fontsize="small" if n <= 6 else "x-small", ncol=1 if n <= 8 else 2)
    return fig, []


def figure(kind, paths, links=None, flows=None, sweep=None):
    """(matplotlib Figure, [problem lines]) of KIND for the traces at paths (for sweep: the
    collected table, with sweep = {"x": ..., "y": ..., "by": ...}).  PlotError when there is
    nothing to draw, BadUsage (exit 2) for an unknown kind, link or flow, NotATrace and
    TraceError from weft_trace as they come."""
    if kind not in KINDS:
        raise BadUsage(f"--kind {kind}: unknown kind; one of " + ", ".join(KINDS))
    np, wt, plt = _imports()
    if kind == "sweep":
        return sweep_figure(paths, sweep or {}, np, plt)
    runs = load_runs(wt, paths)
    opts = {"links": links, "flows": flows}
    if flows is not None and kind in ("fct-cdf", "slowdown", "rate"):
        known = set()
        for run in runs:
            known |= {int(x) for x in run.rows("flows")["id"]}
        unknown = [f for f in flows if f not in known]
        if unknown and all(run.info["readable"] for run in runs):
            raise BadUsage(f"--flows {unknown[0]}: no trace has flow {unknown[0]}")
    fig = plt.figure(figsize=(8, 5) if kind != "link-util" else (9, 3 + 2.5 * len(runs)),
                     layout="constrained")
    try:
        n = DRAW[kind](fig, runs, opts, np)
    except BaseException:
        plt.close(fig)
        raise
    problems = [p for run in runs for p in run.problems]
    if n == 0:
        plt.close(fig)
        raise PlotError(f"{', '.join(paths)}: nothing to plot: {NOTHING[kind]}"
                        + (f" ({problems[0]})" if problems else ""))
    if kind not in ("link-util",):
        for ax in fig.axes:
            handles = ax.get_legend_handles_labels()[0]
            if handles:
                ax.legend(fontsize="small" if len(handles) <= 6 else "x-small",
                          ncol=1 if len(handles) <= 8 else 2)
    marked = [run for run in runs if run.marked]
    if marked:
        fig.suptitle("incomplete: " + "; ".join(os.path.basename(r.path) for r in marked),
                     color="red")
    return fig, problems


def main(argv):
    import warnings
    warnings.simplefilter("ignore")  # numpy's and matplotlib's: errors are one line each
    try:
        opts = parse_args(argv[1:])
        if opts is None:
            sys.stdout.write(HELP)
            return EXIT_OK
        try:
            fig, problems = figure(opts["kind"], opts["paths"], opts["links"], opts["flows"],
                                   {k: opts[k] for k in ("x", "y", "by")})
        except ImportError as e:
            raise PlotError(f"cannot import {e.name}") from None
        try:
            os.makedirs(opts["out"], exist_ok=True)
            out = os.path.join(opts["out"], f"{opts['kind']}.{opts['format']}")
            _writing.append(out)
            fig.savefig(out, format=opts["format"], dpi=120,
                        metadata={"Date": None} if opts["format"] == "svg" else None)
            _writing.clear()
        except OSError as e:
            raise PlotError(f"{opts['out']}: cannot write the figure: {e.strerror or e}") from None
        finally:
            import matplotlib.pyplot as plt
            plt.close(fig)
        print(out)
        if problems:
            print(f"{PROG}: {problems[0]}", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK
    except PlotError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return e.status
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        name = type(e).__name__
        try:
            import weft_trace as wt
            if isinstance(e, wt.NotATrace):
                print(f"{PROG}: {e}", file=sys.stderr)
                return EXIT_BAD
            if isinstance(e, wt.TraceError):
                print(f"{PROG}: {e}", file=sys.stderr)
                return EXIT_FAILED
        except ImportError:
            pass
        lines = str(e).splitlines()
        print(f"{PROG}: {name}: {lines[0] if lines else ''}", file=sys.stderr)
        return EXIT_FAILED


# The figure being written, so that an interrupt does not leave half of it behind.
_writing = []


def on_sigint(signum, frame):
    """Ctrl-C: leave at once and quietly, as a shell reports a command SIGINT stopped (128 + 2),
    removing a figure half written; no traceback, whatever Python was doing."""
    for path in _writing:
        try:
            os.unlink(path)
        except OSError:
            pass
    os._exit(128 + signal.SIGINT)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, on_sigint)
    sys.exit(main(sys.argv))
