#!/bin/sh
# tests/e2e/report_derived.sh - weft report's derived fields on experiments/ib-cc.ini (a
# victim flow beside a 4-to-1 incast, InfiniBand, static routes):
#  - --flows workload:victim: the victim's rate (bytes delivered x 8 over its own time) as
#    computed here from /flows, in text, CSV and JSON;
#  - --flows over the five flows (ids, a range, SRC>DST patterns): min, mean, max rate and
#    Jain's index (sum x)^2 / (n sum x^2), computed here;
#  - the max-min fair total over /paths, water-filled here over each egress (link rate x
#    payload share of a 4 KiB InfiniBand packet, [infiniband]'s header as `weft params`
#    states it), and what those flows delivered;
#  - bad selectors (no such flow, unparsable) and --flows with --ports: exit 2, one line.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py or python3-numpy is missing"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/ib-cc.ini" -o "$TMP/r.h5" >/dev/null || fail "run"
# the header bytes of an InfiniBand data packet, from weft params' table (its default)
"$WEFT" params infiniband >"$TMP/params" || fail "weft params infiniband"
HDR=$(sed -n 's/^ *header *bytes *\([0-9]*\)B.*/\1/p' "$TMP/params")
[ -n "$HDR" ] || { cat "$TMP/params" >&2; fail "no [infiniband] header default"; }
for sel in "workload:victim" "host3>host7,0-1,host1>host4,host5>*,host6>host4"; do
    for f in text csv json; do
        expect_exit 0 "$WEFT" report --flows "$sel" --format $f "$TMP/r.h5"
        cp "$TMP/out" "$TMP/$f"
    done
    "$PY" - "$TMP/r.h5" "$sel" "$TMP/text" "$TMP/csv" "$TMP/json" "$HDR" <<'PYEOF' ||
import csv, json, re, sys
import h5py, numpy as np

path, sel, text_path, csv_path, json_path, hdr = sys.argv[1:]
with h5py.File(path, "r") as f:
    fl = f["flows"][()]
    hops = f["paths"][()]
    links = f["topology/links"][()]
    nodes = f["topology/nodes"][()]
    end_ps = int(f["meta"].attrs["sim_time_ps"])
name = {int(n["id"]): n["name"].decode() for n in nodes}


def rate(r):
    end = int(r["finish_ps"]) if r["finished"] else end_ps
    return int(r["bytes_delivered"]) * 8 / ((end - int(r["start_ps"])) / 1e12)


if sel == "workload:victim":
    rows = [r for r in fl if r["workload"] == b"victim"]
    assert len(rows) == 1 and name[int(rows[0]["src"])] == "host3", rows
else:
    rows = list(fl)  # all five, the victim twice (by its ends and its id)
    assert len(rows) == 5
x = np.array([rate(r) for r in rows])
want = {"selected_flows": len(x), "selected_rate_min_bps": x.min(),
        "selected_rate_mean_bps": x.mean(), "selected_rate_max_bps": x.max(),
        "jain_index": x.sum() ** 2 / (len(x) * (x ** 2).sum())}

# max-min over the paths: each egress (node, port) a resource of link rate x 4096 / (4096 + hdr)
eff = 4096 / (4096 + int(hdr))
rate_of = {int(l["id"]): float(l["rate_bps"]) for l in links}
load, paths, cap = {}, {}, {}
for h in hops:
    key = (int(h["node"]), int(h["port"]))
    load.setdefault(key, set()).add(int(h["flow"]))
    paths.setdefault(int(h["flow"]), set()).add(key)
    cap[key] = rate_of[int(h["link"])] * eff
left, active, fair = dict(cap), set(paths), {}
while active:
    share = {r: left[r] / len(load[r] & active) for r in load if load[r] & active}
    r0 = min(share, key=share.get)
    for f in load[r0] & active:
        fair[f] = share[r0]
        for r in paths[f]:
            left[r] -= share[r0]
    active -= load[r0]
want["maxmin_fair_total_bps"] = sum(fair.values())
want["maxmin_flows"] = len(paths)
want["maxmin_delivered_bps"] = sum(rate(r) for r in fl if int(r["id"]) in paths)


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


j = json.load(open(json_path))
c = {r["field"]: r["value"] for r in csv.DictReader(open(csv_path, newline=""))}
assert j["selection"] == sel and c["selection"] == sel, (j["selection"], c["selection"])
for k, v in want.items():
    assert close(float(j[k]), v, 1e-12), (k, j[k], v)
    assert close(float(c[k]), v, 1e-12), (k, c[k], v)
text = open(text_path).read()
m = re.search(r"^selected: +(\d+) flows? \((.*)\): rate min (\S+), mean (\S+), max (\S+) Gb/s; "
              r"Jain's index (\S+)$", text, re.M)
assert m, text
assert int(m.group(1)) == len(x) and m.group(2) == sel, m.groups()
for g, k in ((3, "selected_rate_min_bps"), (4, "selected_rate_mean_bps"),
             (5, "selected_rate_max_bps")):
    assert abs(float(m.group(g)) - want[k] / 1e9) <= 0.0005 + 1e-9, (k, m.group(g))
assert abs(float(m.group(6)) - want["jain_index"]) <= 0.00005 + 1e-12, m.group(6)
m = re.search(r"^max-min: +(\S+) Gb/s fair total over the paths of (\d+) flows; they delivered "
              r"(\S+) Gb/s", text, re.M)
assert m, text
assert abs(float(m.group(1)) - want["maxmin_fair_total_bps"] / 1e9) <= 0.0005 + 1e-9
assert int(m.group(2)) == want["maxmin_flows"]
assert abs(float(m.group(3)) - want["maxmin_delivered_bps"] / 1e9) <= 0.0005 + 1e-9
PYEOF
        fail "derived fields, --flows $sel"
done

# bad selectors and combinations: exit 2, one line
for sel in "99" "nobody>host4" "3-1" "x" ""; do
    expect_exit 2 "$WEFT" report --flows "$sel" "$TMP/r.h5"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "--flows '$sel': not one line"; }
    grep -q "^weft report: --flows " "$TMP/err" || { cat "$TMP/err" >&2; fail "--flows '$sel'"; }
done
expect_exit 2 "$WEFT" report --flows 1 --ports "$TMP/r.h5"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--flows with --ports: not one line"

# a collective's flows follow one another: no max-min total over them as if they ran at once
# (they have /paths: static routing), in text and JSON
"$WEFT" run -q "$WEFT_SRCDIR/experiments/dgx4-allreduce.ini" -o "$TMP/c.h5" \
    --set workload.allreduce:maxbytes=1MB >/dev/null || fail "run dgx4-allreduce"
"$PY" -c 'import h5py, sys; sys.exit(0 if len(h5py.File(sys.argv[1])["paths"]) > 0 else 1)' \
    "$TMP/c.h5" || fail "dgx4-allreduce wrote no /paths: this check would prove nothing"
expect_exit 0 "$WEFT" report "$TMP/c.h5"
! grep -q '^max-min:' "$TMP/out" || { cat "$TMP/out" >&2; fail "max-min over a collective's flows"; }
expect_exit 0 "$WEFT" report --format json "$TMP/c.h5"
! grep -q 'maxmin_fair_total_bps' "$TMP/out" || fail "maxmin field over a collective's flows"
echo "report_derived: ok"
