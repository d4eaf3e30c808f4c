#!/bin/sh
# weft run --summary-json PATH: once the trace is complete, PATH holds exactly what
# `weft report --format json` prints for it, with the run's resolved parameters (a --set value
# and the --seed among them) and the figures `weft compare` computes; the finished-flow count
# is checked against the workload's own size (a 4-host permutation: 4 flows).  A run that is
# interrupted writes no summary and leaves an older one alone.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
cat >"$TMP/short.ini" <<INI
[topology]
generator = single_switch
hosts = 4
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 64KiB
INI
mkdir "$TMP/r"
expect_exit 0 "$WEFT" run -q "$TMP/short.ini" -o "$TMP/r/a.h5" --seed 7 \
    --set 'workload.p:flow_size=128KiB' --summary-json "$TMP/r/a.json"
expect_exit 0 "$WEFT" report --format json "$TMP/r/a.h5"
cmp -s "$TMP/out" "$TMP/r/a.json" || fail "the summary differs from weft report --format json"
"$PY" - "$TMP/r/a.json" <<'PYEOF' || fail "summary content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is True and d["status"] == "done", d
assert d["param:workload.p:flow_size"] == "128KiB", d
assert d["param:experiment:seed"] == "7" and d["seed"] == 7, d
assert d["flows_total"] == 4 and d["flows_finished"] == 4, d
assert d["figure:flows finished [p]"] == 4, d
PYEOF
ls "$TMP/r" | grep -v '^a\.\(h5\|json\)$' | grep -q . && { ls "$TMP"; fail "a temporary file was left behind"; }
# an interrupted run: no summary written, the old one untouched
mv "$TMP/r/a.json" "$TMP/a.json"
cp "$TMP/a.json" "$TMP/old.json"
cat >"$TMP/long.ini" <<INI
[topology]
generator = single_switch
hosts = 16
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 8GiB
INI
"$WEFT" run -q "$TMP/long.ini" -o "$TMP/a.h5" --summary-json "$TMP/a.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
handlers_up $pid
sleep 1
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" = 4 ] || { cat "$TMP/err" >&2; fail "exit $rc after SIGINT, expected 4"; }
cmp -s "$TMP/a.json" "$TMP/old.json" || fail "an interrupted run touched the summary"
"$WEFT" run -q "$TMP/long.ini" -o "$TMP/b.h5" --summary-json "$TMP/b.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
handlers_up $pid
sleep 1
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" = 4 ] || fail "exit $rc after SIGTERM, expected 4"
[ ! -e "$TMP/b.json" ] || fail "an interrupted run wrote a summary"
exit 0
