#!/bin/sh
# tests/e2e/report_perftest.sh - weft report --perftest: perftest's ib_write_bw and ib_write_lat
# tables from a trace.  The text is what `weft run` printed for the same run (recomputed from
# /flows and the stored experiment, not stored); the CSV and JSON, read with Python's standard
# library, hold one row per text line with the same numbers (the text rounds them: 2
# decimals, 6 for the message rate), null / empty where the other test has a figure.
# Bad input: a trace without perftest workloads prints no table (exit 0, one line on stderr);
# --perftest with --nccl is bad usage (exit 2).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
X="$WEFT_SRCDIR/experiments/dgx4-ib-write-bw.ini"
"$WEFT" run "$X" --set workload.bw:iters=100 -o "$TMP/bw.h5" >"$TMP/bw.run" || fail "run bw"
"$WEFT" run "$X" --set workload.bw:kind=ib_write_lat --set workload.bw:iters=100 \
    -o "$TMP/lat.h5" >"$TMP/lat.run" || fail "run lat"
for t in bw lat; do
    for f in text csv json; do
        expect_exit 0 "$WEFT" report --perftest --format $f "$TMP/$t.h5"
        cp "$TMP/out" "$TMP/$t.$f"
    done
    "$PY" - "$TMP/$t.run" "$TMP/$t.text" "$TMP/$t.csv" "$TMP/$t.json" <<'PYEOF' || fail "$t"
import csv, json, math, sys

run, text_path, csv_path, json_path = sys.argv[1:]
text = open(text_path).read()
assert text.startswith("# [workload.bw] ib_write_"), text[:200]
assert text in open(run).read(), "weft report's table is not weft run's"
lat = text.startswith("# [workload.bw] ib_write_lat")
lines = [l for l in text.splitlines() if l[:1] == " " and l.split()[0].isdigit()]
assert len(lines) == 23, len(lines)  # all = true: 2 B to 8 MiB
rows = list(csv.DictReader(open(csv_path, newline="")))
j = json.load(open(json_path))
assert j["complete"] is True and j["problem"] is None
assert len(rows) == len(lines) == len(j["rows"]), (len(rows), len(j["rows"]))
bw_cols = ["bw_peak_gbps", "bw_avg_gbps", "msg_rate_mpps"]
lat_cols = ["t_min_us", "t_max_us", "t_typical_us", "t_avg_us", "t_stdev_us", "p99_us", "p999_us"]
mine, other = (lat_cols, bw_cols) if lat else (bw_cols, lat_cols)
for line, c, o in zip(lines, rows, j["rows"]):
    v = line.split()
    for r in (c, o):
        assert r["workload"] == "bw" and r["test"] == ("ib_write_lat" if lat else "ib_write_bw")
        assert int(r["bytes"]) == int(v[0]) and int(r["iterations"]) == int(v[1]), (r, v)
    for k, col in enumerate(mine):
        places = 6 if col == "msg_rate_mpps" else 2
        shown = float(v[2 + k])
        for x in (float(c[col]), o[col]):
            assert abs(x - shown) <= 0.5 * 10 ** -places + 1e-9, (col, x, shown, line)
        assert float(c[col]) == o[col], (col, c[col], o[col])
    for col in other:
        assert c[col] == "" and o[col] is None, (col, c[col], o[col])
PYEOF
done
# a trace with no perftest workload: no table, a line on stderr, exit 0; CSV has the header
"$WEFT" run -q "$WEFT_SRCDIR/experiments/incast.ini" -o "$TMP/incast.h5" >/dev/null || fail "incast"
expect_exit 0 "$WEFT" report --perftest "$TMP/incast.h5"
[ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "no perftest: output or stderr"
expect_exit 0 "$WEFT" report --perftest --format json "$TMP/incast.h5"
"$PY" -c 'import json, sys; assert json.load(open(sys.argv[1]))["rows"] == []' "$TMP/out" ||
    fail "no perftest: JSON rows"
expect_exit 2 "$WEFT" report --perftest --nccl "$TMP/bw.h5"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--perftest --nccl: not one line"
