#!/bin/sh
# tests/e2e/report_export.sh - weft report --format csv|json: both parse with Python's
# standard library (csv, json) and carry the numbers the text report prints, for the summary,
# --ports and --nccl; the FCT quantiles equal numpy's (linear interpolation, doc/analysis.md)
# over the trace's /flows; the nccl rows' busbw equals the mean over their timed iterations
# in /collectives; a bad --format is refused (exit 2, one line).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py or python3-numpy is missing"
T="$TMP/incast.h5"
N="$TMP/ar.h5"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/incast.ini" -o "$T" >/dev/null || fail "run incast"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/dgx4-allreduce.ini" -o "$N" \
    --set workload.allreduce:minbytes=64KiB --set workload.allreduce:maxbytes=256KiB \
    >/dev/null || fail "run allreduce"
for mode in summary ports nccl; do
    case $mode in summary) opt= f=$T ;; ports) opt=--ports f=$T ;; nccl) opt=--nccl f=$N ;; esac
    for fmt in text csv json; do
        # shellcheck disable=SC2086
        expect_exit 0 "$WEFT" report $opt --format $fmt "$f"
        cp "$TMP/out" "$TMP/$mode.$fmt"
    done
done
expect_exit 0 "$WEFT" report --json "$T"
cmp -s "$TMP/out" "$TMP/summary.json" || fail "--json differs from --format json"
expect_exit 2 "$WEFT" report --format yaml "$T"
grep -q "expected text, csv or json" "$TMP/err" || fail "--format yaml: $(cat "$TMP/err")"
expect_exit 2 "$WEFT" report --json --format csv "$T"
# --table: any data set's rows, with chosen columns
for fmt in text csv json; do
    expect_exit 0 "$WEFT" report --table flows --format $fmt "$T"
    cp "$TMP/out" "$TMP/flows.$fmt"
    expect_exit 0 "$WEFT" report --table collectives --columns bytes,busbw_gbs,op --format $fmt "$N"
    cp "$TMP/out" "$TMP/colls.$fmt"
done
expect_exit 2 "$WEFT" report --table flows --columns id,nope "$T"
grep -q "^weft report: --columns: /flows has no column 'nope'" "$TMP/err" || fail "$(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "unknown column: more than one line"
expect_exit 2 "$WEFT" report --table flowz "$T"
grep -q "^weft report: --table flowz: expected one of .*flows" "$TMP/err" || fail "$(cat "$TMP/err")"
expect_exit 2 "$WEFT" report --table flows --ports "$T"

"$PY" - "$TMP" "$T" "$N" <<'PYEOF' || fail "exports"
import csv, io, json, re, sys
import h5py, numpy as np

tmp, trace, nccl_trace = sys.argv[1:]


def read(name):
    return open(f"{tmp}/{name}", newline="").read()


def close(x, y, rel):
    return abs(x - y) <= rel * max(abs(x), abs(y))


# --- summary -----------------------------------------------------------------------------
text = read("summary.text")
j = json.loads(read("summary.json"))
rows = list(csv.reader(io.StringIO(read("summary.csv"))))
assert rows[0] == ["field", "value"], rows[0]
c = dict(rows[1:])
assert list(c) == list(j), (list(c), list(j))  # the same fields, in the same order
for k, v in j.items():
    want = "" if v is None else ("true" if v is True else "false" if v is False else str(v))
    assert c[k] == want or (isinstance(v, float) and float(c[k]) == v), (k, c[k], v)
with h5py.File(trace, "r") as f:
    fl = f["flows"][()]
    drops = int(f["ports"][()]["drops"].sum())
done = fl[fl["finished"] == 1]
fct = done["fct_ps"].astype(np.float64)
assert j["flows_finished"] == len(done) and j["flows_total"] == len(fl)
for key, q in (("fct_p50_ps", 50), ("fct_p99_ps", 99)):
    assert abs(j[key] - np.percentile(fct, q)) <= 0.05 + 1e-12 * j[key], (key, j[key])
assert j["fct_max_ps"] == fct.max()
assert close(j["slowdown_p99"], np.percentile(done["slowdown"], 99), 1e-5)
assert j["drops"] == drops
m = re.search(r"^FCT: +p50 ([0-9.]+) (ms|us), p99 ([0-9.]+) (ms|us), max ([0-9.]+) (ms|us)$", text, re.M)
assert m, text
scale = {"ms": 1e9, "us": 1e6}
for (v, u), key in zip(((m[1], m[2]), (m[3], m[4]), (m[5], m[6])), ("fct_p50_ps", "fct_p99_ps", "fct_max_ps")):
    assert abs(float(v) * scale[u] - j[key]) <= 0.0005 * scale[u], (key, v, u, j[key])
assert re.search(rf"^drops: +{drops}$", text, re.M), text
assert re.search(r"^flows: +%d finished / %d total$" % (len(done), len(fl)), text, re.M)
assert re.search(r"^slowdown: +p99 %.3f$" % j["slowdown_p99"], text, re.M)

# --- ports -------------------------------------------------------------------------------
pj = json.loads(read("ports.json"))["ports"]
pc = list(csv.DictReader(io.StringIO(read("ports.csv"))))
assert len(pj) == len(pc) > 0
for a, b in zip(pj, pc):
    assert list(a) == list(b), (list(a), list(b))
    for k in a:
        assert b[k] == ("" if a[k] is None else str(a[k])), (k, a[k], b[k])
lines = [l for l in read("ports.text").splitlines() if not l.startswith("#")]
assert len(lines) == len(pj)
for line, p in zip(lines, pj):
    words = line.split()
    assert words[0] == p["node_name"] and int(words[1]) == p["port"], (line, p)
    counters = dict(w.split("=") for w in words if "=" in w)
    for k, v in counters.items():
        assert v == str(p[k]), (k, v, p[k])
    assert counters["PortXmitData"] == str(p["tx_bytes"] // 4)

# --- --table: the same rows in every format, equal to the data set's ---------------------
def table(name, path, h5name, columns=None):
    with h5py.File(path, "r") as f:
        data = f[h5name][()]
    cols = columns or list(data.dtype.names)
    j = json.loads(read(f"{name}.json"))
    c = list(csv.reader(io.StringIO(read(f"{name}.csv"))))
    t = [l.split() for l in read(f"{name}.text").splitlines()]
    assert c[0] == cols and [re.sub(r"\[.*\]$", "", w) for w in t[0][1:]] == cols, (c[0], t[0])
    assert len(j["rows"]) == len(c) - 1 == len(t) - 1 == len(data), name
    for i, row in enumerate(data):
        for k, col in enumerate(cols):
            want = row[col]
            if isinstance(want, bytes):
                want = want.decode().rstrip("\0")
            jv, cv, tv = j["rows"][i][col], c[i + 1][k], t[i + 1][k]
            if isinstance(want, str):
                assert jv == cv == want and tv == (want or "-"), (name, col, jv, cv, tv, want)
            else:
                assert jv == want and float(cv) == want and float(tv) == want, (name, col, jv, cv, tv, want)


table("flows", trace, "flows")
table("colls", nccl_trace, "collectives", ["bytes", "busbw_gbs", "op"])

# --- nccl --------------------------------------------------------------------------------
nj = json.loads(read("nccl.json"))
assert nj["complete"] is True and nj["problem"] is None
nr = nj["rows"]
nc = list(csv.DictReader(io.StringIO(read("nccl.csv"))))
assert len(nr) == len(nc) == 4, (nr, nc)  # two sizes, two placements
for a, b in zip(nr, nc):
    assert list(a) == list(b)
    for k in a:
        assert b[k] == str(a[k]) or float(b[k]) == a[k], (k, a[k], b[k])
with h5py.File(nccl_trace, "r") as f:
    co = f["collectives"][()]
table = {}
for line in read("nccl.text").splitlines():
    if line.startswith("#") or not line.strip():
        continue
    w = line.split()
    # size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
    table[int(w[0])] = {"out-of-place": [float(x) for x in w[5:8]], "in-place": [float(x) for x in w[9:12]]}
for r in nr:
    sel = co[(co["warmup"] == 0) & (co["bytes"] == r["size_bytes"]) &
             (co["in_place"] == (r["placement"] == "in-place"))]
    t_us = sel["time_ps"].astype(np.float64).mean() / 1e6
    assert close(r["time_us"], t_us, 1e-8), (r, t_us)
    assert close(r["busbw_gbs"], sel["busbw_gbs"].mean(), 1e-6), (r, sel["busbw_gbs"].mean())
    assert close(r["algbw_gbs"], r["size_bytes"] / 1e9 / (t_us / 1e6), 1e-8), r
    shown = table[r["size_bytes"]][r["placement"]]
    for v, key in zip(shown, ("time_us", "algbw_gbs", "busbw_gbs")):
        assert abs(v - r[key]) <= 0.005 + 1e-12, (key, v, r[key])
PYEOF
echo ok
