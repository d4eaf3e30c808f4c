#!/bin/sh
# weft diag check (doc/faults.md, "Diagnosis"): the fabric check.  For each shipped lesson the
# expected findings are derived here from the experiment's own [fault.NAME] groups, resolved
# to ports through the trace's /topology tables:
#  - dead-link.ini (link-down): the two ends of that link not Active, and their
#    LinkDownedCounter above its threshold of 0; no rate finding; exit 7;
#  - bad-cable.ini (degraded, width = 1x): that link alone, at a quarter of its tier's built
#    rate ("a 4x port at 1x"); no error or state finding; exit 7;
#  - flaky-cable.ini (bit-errors): error findings on that link's ends only, with the counts
#    /ports has; with the thresholds raised above them the check is clean, exit 0;
#  - a healthy run of the same all-reduce: no finding, exit 0;
#  - an unknown counter or a value that is no number in --threshold: exit 2.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
EX="$WEFT_SRCDIR/experiments"
SMALL="--set workload.allreduce:minbytes=4MB --set workload.allreduce:maxbytes=4MB"

# shellcheck disable=SC2086
expect_exit 3 "$WEFT" run -q "$EX/dead-link.ini" -o "$TMP/dead.h5" $SMALL
# shellcheck disable=SC2086
expect_exit 0 "$WEFT" run -q "$EX/bad-cable.ini" -o "$TMP/bad.h5" $SMALL
expect_exit 0 "$WEFT" run -q "$EX/flaky-cable.ini" -o "$TMP/flaky.h5"
# The healthy run: the same all-reduce, no fault group.
sed -e '/^\[fault\./,$d' -e "s|^include = dgx4.ini|include = $EX/dgx4.ini|" "$EX/bad-cable.ini" \
    >"$TMP/healthy.ini"
echo "[trace]" >>"$TMP/healthy.ini"
echo "interval = 100us" >>"$TMP/healthy.ini"
# shellcheck disable=SC2086
expect_exit 0 "$WEFT" run -q "$TMP/healthy.ini" -o "$TMP/healthy.h5" $SMALL

for lesson in dead bad flaky healthy; do
    set +e
    "$WEFT" diag check "$TMP/$lesson.h5" >"$TMP/$lesson.txt" 2>"$TMP/err"
    echo $? >"$TMP/$lesson.rc"
    set -e
done

PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP" "$EX" <<'PYEOF' || fail "the findings"
import configparser, re, sys
import weft_trace as wt
tmp, ex = sys.argv[1], sys.argv[2]

def s(x):
    return x.decode() if isinstance(x, bytes) else x

def faults_of(ini):
    cp = configparser.ConfigParser(interpolation=None, comment_prefixes=("#",))
    cp.read(f"{ex}/{ini}")
    return [dict(cp[g]) for g in cp.sections() if g.startswith("fault.")]

def ends_of(trace, name):
    """The two ends (NODE:PORT) of the one fabric link of node `name`, and its built rate."""
    names = [s(n) for n in wt.nodes(trace)["name"]]
    node = names.index(name)
    (l,) = [l for l in wt.links(trace) if s(l["kind"]) == "fabric" and node in (l["node_a"], l["node_b"])]
    return {f"{names[l['node_a']]}:{l['port_a']}", f"{names[l['node_b']]}:{l['port_b']}"}, int(l["rate_bps"])

def sections(text):
    out = {"speed": [], "counters": [], "state": []}
    cur = None
    for line in text.splitlines():
        if line.startswith("-E- Speed") or line.startswith("-I- Speed"):
            cur = "speed"
        elif "Port counters" in line:
            cur = "counters"
        elif "Port state" in line:
            cur = "state"
        elif line.startswith("-E-   "):
            out[cur].append(line[6:])
    return out

def rc(lesson):
    return int(open(f"{tmp}/{lesson}.rc").read())

# dead-link: link-down
(f,) = faults_of("dead-link.ini")
assert f["kind"] == "link-down"
ends, _ = ends_of(f"{tmp}/dead.h5", f["link"])
got = sections(open(f"{tmp}/dead.txt").read())
assert {l.split(":")[0] + ":" + l.split(":")[1] for l in got["state"]} == ends, got["state"]
assert all("Down, should be Active" in l for l in got["state"]), got["state"]
assert {l.split(": ")[0] for l in got["counters"]} == ends, got["counters"]
assert all("LinkDownedCounter 1 " in l for l in got["counters"]), got["counters"]
assert not got["speed"] and rc("dead") == 7, (got["speed"], rc("dead"))

# bad-cable: degraded to a width
(f,) = faults_of("bad-cable.ini")
assert f["kind"] == "degraded" and f["width"] == "1x"
ends, nominal = ends_of(f"{tmp}/bad.h5", f["link"])
got = sections(open(f"{tmp}/bad.txt").read())
assert len(got["speed"]) == 1, got["speed"]
line = got["speed"][0]
a, b = line.split(" (")[0].split(" <-> ")
assert {a, b} == ends, line
want = nominal // 4
assert f": {want / 1e9:g} Gb/s, its tier runs at {nominal / 1e9:g} Gb/s (a 4x port at 1x)" in line, line
assert not got["counters"] and not got["state"] and rc("bad") == 7, got

# flaky-cable: bit errors
(f,) = faults_of("flaky-cable.ini")
assert f["kind"] == "bit-errors" and float(f["ber"]) > 0
ends, _ = ends_of(f"{tmp}/flaky.h5", f["link"])
got = sections(open(f"{tmp}/flaky.txt").read())
flagged = {l.split(": ")[0] for l in got["counters"]}
assert flagged and flagged <= ends, (flagged, ends)
names = [s(n) for n in wt.nodes(f"{tmp}/flaky.h5")["name"]]
for r in wt.ports(f"{tmp}/flaky.h5"):
    name = f"{names[r['node']]}:{r['port']}"
    if r["rcv_errors"]:
        (l,) = [l for l in got["counters"] if l.startswith(name + ": ")]
        assert f"PortRcvErrors {int(r['rcv_errors'])} (threshold 0)" in l, l
        assert f"SymbolErrorCounter {int(r['symbol_errors'])} (threshold 0)" in l, l
    else:
        assert name not in flagged, name
assert not got["speed"] and not got["state"] and rc("flaky") == 7, got
print(max(int(r["rcv_errors"]) for r in wt.ports(f"{tmp}/flaky.h5")), file=open(f"{tmp}/maxerr", "w"))

# healthy
text = open(f"{tmp}/healthy.txt").read()
assert rc("healthy") == 0 and "-E-" not in text and "Summary: 0 problems" in text, text
PYEOF

# Thresholds at the largest count seen: nothing exceeds them.
m=$(cat "$TMP/maxerr")
expect_exit 0 "$WEFT" diag check "$TMP/flaky.h5" --threshold "PortRcvErrors=$m" \
    --threshold "SymbolErrorCounter=$m"
grep -q "Summary: 0 problems" "$TMP/out" || fail "thresholds not applied"
expect_exit 7 "$WEFT" diag check "$TMP/flaky.h5" --threshold "PortRcvErrors=$((m - 1))" \
    --threshold "SymbolErrorCounter=$m"
expect_exit 2 "$WEFT" diag check "$TMP/flaky.h5" --threshold PortRcvErrs=5
grep -q "unknown counter 'PortRcvErrs'" "$TMP/err" || fail "unknown counter"
expect_exit 2 "$WEFT" diag check "$TMP/flaky.h5" --threshold PortRcvErrors=many
expect_exit 2 "$WEFT" diag ibstat "$TMP/flaky.h5" --threshold PortRcvErrors=1
echo ok
