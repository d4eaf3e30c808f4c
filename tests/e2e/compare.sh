#!/bin/sh
# tests/e2e/compare.sh - weft compare: two runs of experiments/incast.ini that differ in one
# --set key.  The comparison names exactly that key, and its figures and ratios equal what
# this test computes from each trace's /flows and /ports with h5py and numpy (numpy's default
# percentile is the linear interpolation doc/analysis.md states); the text, CSV and JSON forms
# carry the same numbers; busbw per size of two nccl-tests sweeps equals the mean over their
# timed iterations in /collectives.  A directory and a quoted glob name the same runs.  A schema-1
# trace (made here from a run's) is compared on what it has, and what it lacks is named.
# Bad input: not a trace or missing (exit 2), an incomplete trace (printed and marked,
# exit 1), a bad --format or a single trace (exit 2); one line on stderr each.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py or python3-numpy is missing"
X="$WEFT_SRCDIR/experiments/incast.ini"
mkdir "$TMP/runs"
A="$TMP/runs/a.h5"
B="$TMP/runs/b.h5"
"$WEFT" run -q "$X" -o "$A" >/dev/null || fail "run a"
"$WEFT" run -q "$X" --set switch:buffer=1MiB -o "$B" >/dev/null || fail "run b"

expect_exit 0 "$WEFT" compare "$A" "$B"
cp "$TMP/out" "$TMP/text"
expect_exit 0 "$WEFT" compare "$A" "$B" --format csv
cp "$TMP/out" "$TMP/csv"
expect_exit 0 "$WEFT" compare "$A" "$B" --format json
cp "$TMP/out" "$TMP/json"

"$PY" - "$A" "$B" "$TMP/text" "$TMP/csv" "$TMP/json" <<'PYEOF' || fail "compare's figures"
import csv, json, re, sys
import h5py, numpy as np

a, b, text_path, csv_path, json_path = sys.argv[1:]


def figures(path):
    with h5py.File(path, "r") as f:
        fl = f["flows"][()]
        ports = f["ports"][()]
        sim_ps = int(f["meta"].attrs["sim_time_ps"])
    done = fl[fl["finished"] == 1]
    fct_us = (done["finish_ps"].astype(np.float64) - done["start_ps"]) / 1e6
    slow = done["fct_ps"].astype(np.float64) / done["ideal_fct_ps"]
    first = int(fl["start_ps"].min())
    last = int(done["finish_ps"].max())
    assert len(done) == len(fl), "every incast flow finishes"
    return {
        "sim time": sim_ps / 1e6,
        "throughput [incast]": float(done["size_bytes"].sum()) * 8 / ((last - first) / 1e12) / 1e9,
        "flows finished [incast]": float(len(done)),
        "FCT p50": np.percentile(fct_us, 50),
        "FCT p99": np.percentile(fct_us, 99),
        "FCT p99.9": np.percentile(fct_us, 99.9),
        "slowdown p50": np.percentile(slow, 50),
        "slowdown p99": np.percentile(slow, 99),
        "retransmissions": float(fl["retransmits"].sum()),
        "drops": float(ports["drops"].sum()),
    }


fa, fb = figures(a), figures(b)
assert fa["drops"] != fb["drops"] and fa["FCT p99"] != fb["FCT p99"], "the runs do not differ"


def close(x, y, rel):
    return abs(x - y) <= rel * max(abs(x), abs(y), 1e-300)


# CSV: the one key that differs, and every figure above with its ratio
rows = list(csv.DictReader(open(csv_path, newline="")))
diff = {(r["name"], r["run"]): r["value"] for r in rows if r["section"] == "differs"}
assert diff == {("switch:buffer", "1"): "256KiB", ("switch:buffer", "2"): "1MiB"}, diff
got = {(r["name"], r["run"]): r for r in rows if r["section"] == "figure"}
for name in fa:
    va, vb = float(got[(name, "1")]["value"]), float(got[(name, "2")]["value"])
    ratio = float(got[(name, "2")]["ratio"])
    assert close(va, fa[name], 1e-8) and close(vb, fb[name], 1e-8), (name, va, vb, fa[name], fb[name])
    assert close(ratio, fb[name] / fa[name], 1e-8), (name, ratio, fb[name] / fa[name])
    assert float(got[(name, "1")]["ratio"]) == 1.0
status = [r["value"] for r in rows if r["section"] == "run" and r["name"] == "status"]
assert status == ["complete (done)"] * 2, status

# JSON: the same numbers
j = json.load(open(json_path))
assert [d["key"] for d in j["differs"]] == ["switch:buffer"], j["differs"]
assert [r["complete"] for r in j["runs"]] == [True, True]
byname = {f["name"]: f for f in j["figures"]}
for name in fa:
    f = byname[name]
    assert close(f["values"][0], fa[name], 1e-8) and close(f["values"][1], fb[name], 1e-8), name
    assert close(f["ratios"][1], fb[name] / fa[name], 1e-8), name
assert set(byname) == {r[0] for r in got}, "CSV and JSON hold different figures"

# text: the key's line, and each figure to the digits it prints (6 significant, ratio 4 places)
text = open(text_path).read()
assert re.search(r"^differs:\n  switch:buffer +256KiB +1MiB\nfigures:", text, re.M), text
for name in fa:
    m = re.search(r"^  " + re.escape(name) + r"(?: \([^)]*\))? +(\S+) +(\S+) +(\S+)$", text, re.M)
    assert m, (name, text)
    va, vb, r = (float(x) for x in m.groups())
    assert close(va, fa[name], 5e-6) and close(vb, fb[name], 5e-6), (name, m.groups())
    assert abs(r - fb[name] / fa[name]) <= 5e-5, (name, r)
PYEOF

# runs that differ only in --seed, which the stored experiment does not show: experiment:seed
"$WEFT" run -q "$X" --seed 7 -o "$TMP/seed7.h5" >/dev/null || fail "run --seed 7"
expect_exit 0 "$WEFT" compare "$A" "$TMP/seed7.h5"
grep -Eq '^  experiment:seed +1 +7$' "$TMP/out" || { cat "$TMP/out" >&2; fail "--seed not named"; }

# a directory, and a glob weft expands itself, name the same two runs in the same order
expect_exit 0 "$WEFT" compare "$TMP/runs" --format csv
cmp -s "$TMP/out" "$TMP/csv" || fail "a directory compares otherwise than its files"
expect_exit 0 "$WEFT" compare "$TMP/runs/*.h5" --format csv
cmp -s "$TMP/out" "$TMP/csv" || fail "a glob compares otherwise than its files"

# A schema-1 trace (from run a: the schema-1 members only): compared on what it holds, and
# what it lacks named.
"$PY" - "$A" "$TMP/v1.h5" <<'PYEOF' || fail "cannot make a schema-1 trace"
import sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "w") as g:
    for name in ("meta", "topology"):
        f.copy(name, g)
    for name, last in (("ports", "busy_ps"), ("links", "drops"), ("flows", "workload")):
        rows = f[name][()]
        keep = list(rows.dtype.names)[: rows.dtype.names.index(last) + 1]
        old = np.zeros(rows.shape, dtype=[(k, rows.dtype[k]) for k in keep])
        for k in keep:
            old[k] = rows[k]
        g.create_dataset(name, data=old, maxshape=(None,))
    g["meta"].attrs["schema_version"] = np.uint32(1)
PYEOF
expect_exit 0 "$WEFT" compare "$A" "$TMP/v1.h5"
grep -q "^missing: $TMP/v1.h5: no ECN marks (schema 1 has none; schema 4 added it)\$" "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "schema-1 trace: ECN marks not named missing"; }
grep -q "^missing: $TMP/v1.h5: no lossless violations (schema 1 has none; schema 2 added it)\$" \
    "$TMP/out" || fail "schema-1 trace: lossless violations not named missing"
grep -Eq '^  FCT p99 \(us\) +([0-9.]+) +\1 +1\.0000$' "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "schema-1 trace: FCT p99 not compared"; }

# nccl-tests sweeps: busbw per op and size is the mean over the timed iterations, out of place
N="$WEFT_SRCDIR/experiments/dgx4-allreduce.ini"
for algo in tree ring; do
    "$WEFT" run -q "$N" -o "$TMP/$algo.h5" --set workload.allreduce:minbytes=64KiB \
        --set workload.allreduce:maxbytes=256KiB --set workload.allreduce:algo=$algo \
        >/dev/null || fail "run $algo"
done
expect_exit 0 "$WEFT" compare "$TMP/tree.h5" "$TMP/ring.h5" --format json
"$PY" - "$TMP/tree.h5" "$TMP/ring.h5" "$TMP/out" <<'PYEOF' || fail "compare's busbw"
import json, sys
import h5py, numpy as np


def busbw(path):
    with h5py.File(path, "r") as f:
        c = f["collectives"][()]
    c = c[(c["warmup"] == 0) & (c["in_place"] == 0) & (c["finish_ps"] > 0)]
    return {int(b): float(np.mean(c["busbw_gbs"][c["bytes"] == b])) for b in set(c["bytes"])}


a, b = busbw(sys.argv[1]), busbw(sys.argv[2])
assert sorted(a) == [65536, 262144] and sorted(b) == sorted(a), (a, b)
j = json.load(open(sys.argv[3]))
assert [d["key"] for d in j["differs"]] == ["workload.allreduce:algo"], j["differs"]
assert j["differs"][0]["values"] == ["tree", "ring"], j["differs"]
fig = {f["name"]: f for f in j["figures"]}
for size, text in ((65536, "64 KiB"), (262144, "256 KiB")):
    f = fig[f"busbw [allreduce] all_reduce {text}"]
    assert f["unit"] == "GB/s"
    assert abs(f["values"][0] - a[size]) <= 1e-8 * a[size], (f, a[size])
    assert abs(f["values"][1] - b[size]) <= 1e-8 * b[size], (f, b[size])
    assert abs(f["ratios"][1] - b[size] / a[size]) <= 1e-8, (f, b[size] / a[size])
PYEOF

# bad input
echo "not hdf5" >"$TMP/junk.h5"
expect_exit 2 "$WEFT" compare "$A" "$TMP/junk.h5"
grep -q "^weft compare: $TMP/junk.h5: not a weft trace" "$TMP/err" || fail "junk: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "junk: more than one line on stderr"
expect_exit 2 "$WEFT" compare "$A" "$TMP/none.h5"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "missing file: more than one line on stderr"
expect_exit 2 "$WEFT" compare "$A"
expect_exit 2 "$WEFT" compare "$A" "$B" --format xml
grep -q "expected text, csv or json" "$TMP/err" || fail "--format xml: $(cat "$TMP/err")"
expect_exit 2 "$WEFT" compare "$TMP/nothing-*.h5" "$A"
"$WEFT_BUILDDIR/tests/mktrace" "$TMP/running.h5" running || fail "mktrace running"
expect_exit 1 "$WEFT" compare "$A" "$TMP/running.h5"
grep -q "^  \[2\] $TMP/running.h5: INCOMPLETE: " "$TMP/out" || fail "incomplete run not marked"
grep -q "^figures:" "$TMP/out" || fail "incomplete: no figures printed"
grep -q "^weft compare: $TMP/running.h5: incomplete trace: " "$TMP/err" || fail "incomplete: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "incomplete: more than one line on stderr"
echo "ok"
