#!/bin/sh
# weft sweep, locally (issue 16's "must show"):
# - a 3 x 3 x 2 grid lists 18 points with unique names, the same on a second listing;
# - it runs with -j 2 and exits 0; a second invocation runs nothing and touches no result;
#   deleting two points' outputs and running again redoes exactly those two;
# - the collected table has one row per point whose figures match that point's own
#   `weft report --format json`, and whose flow count is the workload's (a 4-host
#   permutation: 4 flows per point); its HDF5 copy (collected.h5, read with h5py) holds the
#   same rows, columns and numbers, is marked complete and names its axes and units;
# - weft compare over collected.h5 gives what weft compare over the points' traces gives
#   (with --baseline too); weft plot --kind sweep draws the means over seeds of the CSV's
#   figures (read back from the SVG); a damaged collected.h5 gives weft compare and weft
#   plot one line and exit 1 (or 2 where its HDF5 signature is gone);
# - an invalid point (an out-of-range rate) and a hanging one (a forwarding table that loops)
#   are reported with index and reason while the others finish; the sweep exits 5;
# - bad input exits 2 before anything runs: an axis naming no parameter (the axis named),
#   zip axes of different lengths, --point out of range, an output folder that cannot be
#   written.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
cd "$TMP"
cat >grid.ini <<INI
[topology]
generator = single_switch
hosts = 4
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 64KiB
[sweep]
topology:link_rate = 100Gbps; 200Gbps; 400Gbps
workload.p:flow_size = 16KiB; 32KiB; 64KiB
seeds = 1..2
output = res
INI
expect_exit 0 "$WEFT" sweep grid.ini --list
grep -v '^#' "$TMP/out" >list1
[ "$(wc -l <list1)" = 18 ] || fail "expected 18 points, got $(wc -l <list1)"
[ "$(cut -f2 list1 | sort -u | wc -l)" = 18 ] || fail "point paths are not unique"
[ "$(cut -f1 list1 | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 " ] \
    || fail "indices"
grep -q "^3	res/link-rate-100Gbps_flow-size-32KiB_seed-2.h5	to run	--set 'topology:link_rate=100Gbps' --set 'workload.p:flow_size=32KiB' --set 'experiment:seed=2'\$" list1 \
    || { cat list1 >&2; fail "point 3 is not 100Gbps x 32KiB x seed 2"; }
expect_exit 0 "$WEFT" sweep grid.ini --list
grep -v '^#' "$TMP/out" | cmp -s - list1 || fail "a second listing differs"

expect_exit 0 "$WEFT" sweep grid.ini -j 2
grep -q "18 points: 18 run, 0 complete already, 0 failed, 0 invalid" "$TMP/out" \
    || { cat "$TMP/out" >&2; fail "first run"; }
[ "$(ls res/*.json | wc -l)" = 18 ] || fail "18 summaries expected"
ls res | grep -q partial && fail "a partial output was left"
ls -l --time-style=+%s.%N res/*_seed-*.h5 res/*.json >stamps1
sleep 1
expect_exit 0 "$WEFT" sweep grid.ini -j 2
grep -q "18 points: 0 run, 18 complete already" "$TMP/out" || { cat "$TMP/out" >&2; fail "resume"; }
ls -l --time-style=+%s.%N res/*_seed-*.h5 res/*.json | cmp -s - stamps1 || fail "a complete result was touched"
rm res/link-rate-200Gbps_flow-size-16KiB_seed-1.json res/link-rate-400Gbps_flow-size-64KiB_seed-2.h5
expect_exit 0 "$WEFT" sweep grid.ini -j 2
grep -q "18 points: 2 run, 16 complete already" "$TMP/out" || { cat "$TMP/out" >&2; fail "redo two"; }
[ "$(grep -c '^point ' "$TMP/out")" = 2 ] || fail "not exactly two points ran"
grep -q "^point 6 link-rate-200Gbps_flow-size-16KiB_seed-1: done" "$TMP/out" || fail "point 6"
grep -q "^point 17 link-rate-400Gbps_flow-size-64KiB_seed-2: done" "$TMP/out" || fail "point 17"

# the collected table against each point's own weft report
for t in res/*_seed-*.h5; do
    "$WEFT" report --format json "$t" >"${t%.h5}.report" || fail "weft report $t"
done
"$PY" - res/collected.csv list1 <<'PYEOF' || fail "collected table"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 18, len(rows)
listed = [l.split("\t") for l in open(sys.argv[2])]
for i, r in enumerate(rows):
    assert r["index"] == str(i) and r["status"] == "done", r
    assert listed[i][1] == "res/" + r["name"] + ".h5", (listed[i], r)
    rep = json.load(open("res/" + r["name"] + ".report"))
    assert r["topology:link_rate"] == rep["param:topology:link_rate"], (r, rep)
    assert r["workload.p:flow_size"] == rep["param:workload.p:flow_size"], (r, rep)
    assert r["experiment:seed"] == str(rep["seed"]), (r, rep)
    # the workload's own size: 4 hosts, a permutation, every flow finishes
    assert int(r["flows finished [p]"]) == 4 == rep["flows_finished"], (r, rep)
    assert abs(float(r["sim time [us]"]) * 1e6 - rep["sim_time_ps"]) <= 1e-6 * rep["sim_time_ps"]
    assert abs(float(r["FCT p99 [us]"]) * 1e6 - rep["fct_p99_ps"]) <= 1e-6 * rep["fct_p99_ps"]
    assert int(r["drops"]) == rep["drops"], (r, rep)
    # a 4 x 4 permutation at line rate: no flow finishes before size / rate
    size = {"16KiB": 16384, "32KiB": 32768, "64KiB": 65536}[r["workload.p:flow_size"]]
    rate = float(r["topology:link_rate"][:-4]) * 1e9
    assert float(r["FCT p50 [us]"]) * 1e-6 >= size * 8 / rate, r
PYEOF
# the HDF5 copy: marked complete, the same rows and columns as the CSV, every figure the same
# double, axis names and units recorded, figures matching each point's own weft report
[ ! -e res/collected.h5.partial ] || fail "a partial collected.h5 was left"
"$PY" - res/collected.h5 res/collected.csv <<'PYEOF' || fail "collected.h5"
import csv, json, math, sys
import h5py
f = h5py.File(sys.argv[1], "r")
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
header = next(csv.reader(open(sys.argv[2], newline="")))
meta = f["meta"].attrs
assert meta["format"] == "weft collected table" and meta["complete"] == 1, dict(meta)
assert meta["sweep_file"].endswith("/grid.ini"), meta["sweep_file"]
t = f["table"][()]
assert list(t.dtype.names) == header, (t.dtype.names, header)
assert len(t) == len(rows) == 18
cols = {c["name"].decode(): (c["role"].decode(), c["unit"].decode()) for c in f["columns"][()]}
assert [n for n in header if cols[n][0] == "axis"] == [
    "topology:link_rate", "workload.p:flow_size", "experiment:seed"], cols
for n in header:
    role, unit = cols[n]
    if role == "metric":  # "NAME [UNIT]" where a unit exists
        assert (n.endswith(" [" + unit + "]")) if unit else not n.endswith("]") or "[" in n, (n, unit)
assert cols["FCT p99 [us]"] == ("metric", "us") and cols["drops"] == ("metric", "")
for row, r in zip(t, rows):
    for n in header:
        v = row[n]
        if cols[n][0] == "metric":
            assert (r[n] == "" and math.isnan(v)) or float(r[n]) == v, (n, r[n], v)
        elif cols[n][0] == "index":
            assert str(int(v)) == r[n]
        else:
            assert v.decode() == r[n], (n, v, r[n])
    rep = json.load(open("res/" + row["name"].decode() + ".report"))
    assert row["topology:link_rate"].decode() == rep["param:topology:link_rate"]
    assert row["experiment:seed"].decode() == str(rep["seed"])
    assert row["flows finished [p]"] == rep["flows_finished"] == 4
    assert abs(row["sim time [us]"] * 1e6 - rep["sim_time_ps"]) <= 1e-6 * rep["sim_time_ps"]
    assert abs(row["FCT p99 [us]"] * 1e6 - rep["fct_p99_ps"]) <= 1e-6 * rep["fct_p99_ps"]
    assert row["drops"] == rep["drops"]
PYEOF

# weft compare over the collected table gives the numbers weft compare over the points' own
# traces gives (every figure's value and ratio, the varied keys), also against a baseline
traces=$(cut -f2 list1)
for fmt in csv json; do
    expect_exit 0 "$WEFT" compare --format $fmt --baseline 4 res/collected.h5
    mv "$TMP/out" table.$fmt
    # shellcheck disable=SC2086
    expect_exit 0 "$WEFT" compare --format $fmt --baseline 4 $traces
    mv "$TMP/out" traces.$fmt
done
"$PY" - <<'PYEOF' || fail "compare of the collected table differs from compare of the traces"
import csv, json
def figures(path):
    return [(r["section"], r["name"], r["unit"], r["run"], r["value"], r["ratio"])
            for r in csv.DictReader(open(path, newline="")) if r["section"] in ("figure", "differs")]
a, b = figures("table.csv"), figures("traces.csv")
assert a == b and len(a) > 18 * 10, (len(a), len(b), [x for x in a if x not in b][:3])
ja, jb = json.load(open("table.json")), json.load(open("traces.json"))
assert ja["figures"] == jb["figures"] and ja["differs"] == jb["differs"], "json"
# the baseline is point 4: its own ratios are 1
sim = [f for f in ja["figures"] if f["name"] == "sim time"][0]
assert sim["ratios"][4] == 1, sim
assert abs(sim["ratios"][0] - sim["values"][0] / sim["values"][4]) < 1e-8, sim
PYEOF
expect_exit 2 "$WEFT" compare --baseline 18 res/collected.h5
grep -q "baseline 18: expected 0 to 17" "$TMP/err" || fail "--baseline out of range"

# weft plot --kind sweep: FCT p99 against the link rate, one line per flow size, each point
# the mean over the two seeds - read back from the SVG and checked against means computed
# here from collected.csv
PYPLOT=$(sed -n 's/^#define WEFT_PYTHON "\(.*\)"$/\1/p' "${WEFT_BUILDDIR:-.}/config.h")
if [ -n "$PYPLOT" ]; then
    expect_exit 0 "$WEFT" plot res/collected.h5 --kind sweep --x topology:link_rate \
        --y "FCT p99" --by workload.p:flow_size --out fig --format svg
    "$PYPLOT" - fig/sweep.svg res/collected.csv <<'PYEOF' || fail "plot --kind sweep"
import csv, re, sys
import xml.etree.ElementTree as ET
import numpy as np
svg = ET.parse(sys.argv[1]).getroot()
texts = "".join(c.text or "" for c in svg.iter() if c.text)
comments = [m for m in re.findall(r"<!-- (.*?) -->", open(sys.argv[1]).read())]
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
rates = ["100Gbps", "200Gbps", "400Gbps"]
sizes = ["16KiB", "32KiB", "64KiB"]
lines = {}
for el in svg.iter():
    gid = el.get("id", "")
    if gid.startswith("weft-sweep-"):
        p = next(c for c in el.iter() if c.tag.endswith("path") and c.get("d"))
        nums = [float(v) for v in re.findall(r"-?[0-9]+(?:\.[0-9]*)?(?:e-?[0-9]+)?", p.get("d"))]
        lines[int(gid.rsplit("-", 1)[1])] = list(zip(nums[0::2], nums[1::2]))
assert sorted(lines) == [0, 1, 2], lines.keys()
data_x, data_y, page_x, page_y = [], [], [], []
for k, size in enumerate(sizes):
    assert len(lines[k]) == 3, lines[k]
    for j, rate in enumerate(rates):
        v = [float(r["FCT p99 [us]"]) for r in rows
             if r["workload.p:flow_size"] == size and r["topology:link_rate"] == rate]
        assert len(v) == 2, v  # two seeds
        data_x.append(j); data_y.append(sum(v) / 2)
        page_x.append(lines[k][j][0]); page_y.append(lines[k][j][1])
for d, p, what in ((data_x, page_x, "x"), (data_y, page_y, "y")):
    a, b = np.polyfit(d, p, 1)
    miss = np.abs(a * np.array(d) + b - np.array(p)).max()
    assert abs(a) > 0 and miss < 2e-3, (what, miss)
# labels with units, the legend naming the --by values
for want in ["FCT p99 (us)", "topology:link_rate"] + [f"workload.p:flow_size={s}" for s in sizes]:
    assert want in comments, (want, comments)
PYEOF
    for args in "--y bogus" "--x topology:bogus --y drops" "--y drops"; do
        # shellcheck disable=SC2086
        expect_exit 2 "$WEFT" plot res/collected.h5 --kind sweep --x topology:link_rate $args --out fig
        [ "$(wc -l <"$TMP/err")" = 1 ] && ! grep -q Traceback "$TMP/err" \
            || { cat "$TMP/err" >&2; fail "plot $args: not one line"; }
    done
    grep -q "axis workload.p:flow_size varies too" "$TMP/err" || fail "plot: an unnamed axis"
fi

# a damaged collected table: one line, exit 1, never a crash (cut short, bytes overwritten
# anywhere, an unfinished collection's complete = 0)
size=$(wc -c <res/collected.h5)
head -c $((size / 2)) res/collected.h5 >cut.h5
expect_exit 1 "$WEFT" compare cut.h5
grep -q "^weft compare: cut.h5: damaged collected table: truncated" "$TMP/err" \
    || { cat "$TMP/err" >&2; fail "a cut collected table"; }
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "more than one line for a cut table"
off=0
k=0
while [ $off -lt "$size" ]; do
    k=$((k + 1))
    cp res/collected.h5 flip.h5
    printf '\377\377\377\377\377\377\377\377' | dd of=flip.h5 bs=1 seek=$off conv=notrunc 2>/dev/null
    set +e
    "$WEFT" compare flip.h5 >/dev/null 2>flip.err
    rc=$?
    if [ -n "$PYPLOT" ] && [ $((k % 4)) = 1 ]; then
        "$WEFT" plot flip.h5 --kind sweep --x topology:link_rate --y drops \
            --by workload.p:flow_size --out fig \
            >/dev/null 2>pflip.err
        prc=$?
        [ $prc -le 2 ] || { cat pflip.err >&2; fail "plot: bytes at $off: exit $prc"; }
        [ $prc = 0 ] || [ "$(wc -l <pflip.err)" = 1 ] || { cat pflip.err >&2; fail "plot: bytes at $off: not one line"; }
        grep -q "Traceback" pflip.err && fail "plot: bytes at $off: a traceback"
    fi
    set -e
    # 2 only where the HDF5 signature itself is gone: no longer a weft file at all
    [ $rc -le 1 ] || { [ $rc = 2 ] && [ $off -lt 8 ]; } || { cat flip.err >&2; fail "bytes at $off: exit $rc"; }
    [ $rc = 0 ] || [ "$(wc -l <flip.err)" = 1 ] || { cat flip.err >&2; fail "bytes at $off: not one line"; }
    grep -q -i "traceback\|sanitizer\|core dumped" flip.err && fail "bytes at $off: a crash"
    off=$((off + size / 40 + 1))
done
"$PY" - <<'PYEOF' || fail "making an unfinished table"
import h5py, shutil
shutil.copy("res/collected.h5", "unfinished.h5")
with h5py.File("unfinished.h5", "r+") as f:
    f["meta"].attrs["complete"] = 0
PYEOF
expect_exit 1 "$WEFT" compare unfinished.h5
grep -q "incomplete collected table" "$TMP/err" || { cat "$TMP/err" >&2; fail "unfinished"; }
if [ -n "$PYPLOT" ]; then
    for f in cut.h5 unfinished.h5; do
        expect_exit 1 "$WEFT" plot $f --kind sweep --x topology:link_rate --y drops --out fig
        [ "$(wc -l <"$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "plot $f: not one line"; }
    done
fi

# an invalid point and a hanging one
printf 'sw0 host1 2\n' >good.txt
printf 'sw0 host1 1\n' >loop.txt
cat >bad.ini <<INI
[experiment]
hang_timeout = 2ms
[topology]
generator = single_switch
hosts = 2
link_rate = 100Gbps
forwarding_table = good.txt
[fabric]
routing = static
[workload.w]
kind = flows
flows = host0>host1 256KiB
[sweep]
mode = zip
topology:forwarding_table = $TMP/good.txt; $TMP/good.txt; $TMP/loop.txt
topology:link_rate = 100Gbps; 0Gbps; 100Gbps
INI
expect_exit 5 "$WEFT" sweep bad.ini -j 2 -o bad
grep -q "3 points: 1 run, 0 complete already, 1 failed, 1 invalid" "$TMP/out" \
    || { cat "$TMP/out" >&2; fail "bad.ini summary"; }
grep -q "^weft sweep: point 1 (.*): invalid: .*\[topology\] link_rate" "$TMP/err" \
    || { cat "$TMP/err" >&2; fail "the invalid point is not named with its reason"; }
grep -q "^weft sweep: point 2 (.*): exit 3, hang detected" "$TMP/err" \
    || { cat "$TMP/err" >&2; fail "the hanging point is not named with its reason"; }
[ -f bad/forwarding-table-*good.txt_link-rate-100Gbps.json ] || fail "point 0 did not finish"
# run again: the hang is not rerun (its trace is complete) but still reported
expect_exit 5 "$WEFT" sweep bad.ini -j 2 -o bad
grep -q "^weft sweep: point 2 (.*): hang" "$TMP/err" || { cat "$TMP/err" >&2; fail "rerun"; }
expect_exit 5 "$WEFT" sweep bad.ini --collect -o bad
"$PY" - bad/collected.csv <<'PYEOF' || fail "bad collected"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [r["status"] for r in rows] == ["done", "missing", "hang"], rows
PYEOF

# bad input: exit 2 before any point runs
sed 's/^seeds = 1..2$/topology:bogus = 1; 2/' grid.ini >unknown.ini
expect_exit 2 "$WEFT" sweep unknown.ini -o unknown
grep -q "\[sweep\] topology:bogus" "$TMP/err" || { cat "$TMP/err" >&2; fail "unknown axis"; }
[ ! -e unknown ] || fail "an unknown axis still created outputs"
printf '[topology]\ngenerator = single_switch\nhosts = 2\n[workload.w]\nkind = flows\nflows = host0>host1 1KiB\n[sweep]\nmode = zip\ntopology:hosts = 2; 3\nseeds = 1\nworkload.w:flows = host0>host1 1KiB\n' >zip.ini
expect_exit 2 "$WEFT" sweep zip.ini -o zip
grep -q "zip axes have the same length" "$TMP/err" || { cat "$TMP/err" >&2; fail "zip"; }
expect_exit 2 "$WEFT" sweep grid.ini --point 18
grep -q "point 18: expected 0 to 17" "$TMP/err" || { cat "$TMP/err" >&2; fail "--point"; }
expect_exit 2 "$WEFT" sweep grid.ini -o /proc/weft-sweep
grep -q "cannot write there" "$TMP/err" || { cat "$TMP/err" >&2; fail "unwritable folder"; }
echo "sweep: ok"
