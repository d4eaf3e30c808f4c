#!/bin/sh
# tests/e2e/compare_metrics.sh - weft compare's FCT percentiles by flow-size bucket and a
# training workload's step time and exposed communication.  Two runs of
# experiments/websearch_small.ini at 30 % and 60 % load: for each bucket ((0, 100 KB],
# (100 KB, 1 MB], (1 MB, 10 MB], above 10 MB) its FCT p50 / p99 / p99.9 and count equal what
# this test computes from /flows with numpy (linear interpolation, as doc/analysis.md states),
# in CSV, JSON and text alike, and a bucket one run lacks is absent there and named missing.
# Two small training runs: the step time is computed here from /collectives (step k ends at
# its last all-reduce's finish, step 0 starts at the workload's start) and the exposed
# communication is that minus the compute this test set; the buckets hide nothing when the
# compute is 0, so the exposed part is then the whole step.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py or python3-numpy is missing"
X="$WEFT_SRCDIR/experiments/websearch_small.ini"
"$WEFT" run -q "$X" -o "$TMP/a.h5" >/dev/null || fail "run a"
"$WEFT" run -q "$X" --set workload.ws:load=0.6 -o "$TMP/b.h5" >/dev/null || fail "run b"
for f in text csv json; do
    expect_exit 0 "$WEFT" compare "$TMP/a.h5" "$TMP/b.h5" --format $f
    cp "$TMP/out" "$TMP/$f"
done
"$PY" - "$TMP/a.h5" "$TMP/b.h5" "$TMP/text" "$TMP/csv" "$TMP/json" <<'PYEOF' || fail "buckets"
import csv, json, re, sys
import h5py, numpy as np

a, b, text_path, csv_path, json_path = sys.argv[1:]
EDGES = [("size <=100KB", 0, 100e3), ("size 100KB-1MB", 100e3, 1e6),
         ("size 1MB-10MB", 1e6, 10e6), ("size >10MB", 10e6, float("inf"))]


def figures(path):
    with h5py.File(path, "r") as f:
        fl = f["flows"][()]
    done = fl[fl["finished"] == 1]
    out = {}
    for name, lo, hi in EDGES:
        sel = done[(done["size_bytes"] > lo) & (done["size_bytes"] <= hi)]
        if len(sel) == 0:
            continue
        fct = sel["fct_ps"].astype(np.float64) / 1e6
        for p, q in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
            out["FCT %s %s" % (p, name)] = np.percentile(fct, q)
        out["flows finished " + name] = float(len(sel))
    return out


fa, fb = figures(a), figures(b)
# the runs must put flows in at least three buckets, and one bucket only in one run
assert len(fb) >= 12 and len(fa) >= 12, (fa, fb)
only_b = sorted(set(fb) - set(fa))
assert only_b, "both runs fill the same buckets: the missing case is not exercised"


def close(x, y, rel):
    return abs(x - y) <= rel * max(abs(x), abs(y), 1e-300)


rows = list(csv.DictReader(open(csv_path, newline="")))
got = {(r["name"], r["run"]): r["value"] for r in rows if r["section"] == "figure"}
for name in set(fa) | set(fb):
    for run, fig in (("1", fa), ("2", fb)):
        v = got[(name, run)]
        if name in fig:
            assert close(float(v), fig[name], 1e-8), (name, run, v, fig[name])
        else:
            assert v == "", (name, run, v)
missing = [r["name"] for r in rows if r["section"] == "missing"]
for name in only_b:
    assert "%s: no %s" % (a, name) in missing, (name, missing)
extra = {n for (n, _) in got if n.startswith("FCT p") and " size " in n} - set(fa) - set(fb)
assert not extra, extra

j = {f["name"]: f for f in json.load(open(json_path))["figures"]}
for name in set(fa) | set(fb):
    for k, fig in ((0, fa), (1, fb)):
        v = j[name]["values"][k]
        assert (v is None) if name not in fig else close(v, fig[name], 1e-8), (name, k, v)

text = open(text_path).read()
for name in fa:
    m = re.search(r"^  " + re.escape(name) + r"(?: \(us\))? +(\S+) +(\S+)", text, re.M)
    assert m, (name, text)
    assert close(float(m.group(1)), fa[name], 5e-6), (name, m.group(1), fa[name])
PYEOF

# training: three steps of three 1 MiB buckets on two DGX servers, starting at 7 us
T="$WEFT_SRCDIR/experiments/dgx4-training.ini"
small="--set topology:servers=2 --set workload.train:steps=3 --set workload.train:buckets=3
       --set workload.train:bucket_size=1MiB --set workload.train:start=7us"
# shellcheck disable=SC2086
"$WEFT" run -q "$T" $small --set workload.train:compute=40us -o "$TMP/t40.h5" >/dev/null ||
    fail "training run, compute 40us"
# shellcheck disable=SC2086
"$WEFT" run -q "$T" $small --set workload.train:compute=0us -o "$TMP/t0.h5" >/dev/null ||
    fail "training run, compute 0"
expect_exit 0 "$WEFT" compare "$TMP/t40.h5" "$TMP/t0.h5" --format json
"$PY" - "$TMP/t40.h5" "$TMP/t0.h5" "$TMP/out" <<'PYEOF' || fail "step time"
import json, sys
import h5py

t40, t0, json_path = sys.argv[1:]


def steps(path, start_ps, compute_ps):
    with h5py.File(path, "r") as f:
        c = f["collectives"][()]
    c = c[c["workload"] == b"train"]
    end = {}
    for r in c:
        end[int(r["iteration"])] = max(end.get(int(r["iteration"]), 0), int(r["finish_ps"]))
    assert sorted(end) == [0, 1, 2], end
    times, prev = [], start_ps
    for k in range(3):
        times.append(end[k] - prev)
        prev = end[k]
    mean = sum(times) / 3.0
    return mean / 1e6, (mean - compute_ps) / 1e6


s40, e40 = steps(t40, 7_000_000, 40_000_000)
s0, e0 = steps(t0, 7_000_000, 0)
assert e0 == s0 and e40 < s40 and e40 > 0, (s40, e40, s0, e0)
fig = {f["name"]: f["values"] for f in json.load(open(json_path))["figures"]}


def close(x, y):
    return abs(x - y) <= 1e-8 * max(abs(x), abs(y))


for name, want in (("step time [train]", (s40, s0)), ("exposed communication [train]", (e40, e0)),
                   ("steps finished [train]", (3, 3))):
    got = fig[name]
    assert close(got[0], want[0]) and close(got[1], want[1]), (name, got, want)
PYEOF
