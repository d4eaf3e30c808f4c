#!/bin/sh
# weft diag --at TIME (doc/faults.md, "Diagnosis"): the ports as sampled at a time of the run.
#  - a link downed at t1 = 40 us: ibstat shows its two ends Active at 30 us and Down at 50 us,
#    perfquery's LinkDownedCounter 0 then 1; the other ports stay Active;
#  - the header names the sample used: the last /links sample at or before TIME, computed here
#    from the trace's samples;
#  - PortXmitData at TIME is the /links bytes of that direction up to that sample / 4, summed
#    here from the trace, and never decreases with TIME;
#  - a TIME past the run's end, or without a unit: exit 2.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

allreduce_ini "$TMP/dead.ini" 200us 4MB "at = 40us"
printf '[trace]\ninterval = 10us\n' >>"$TMP/dead.ini"
expect_exit 3 "$WEFT" run -q "$TMP/dead.ini" -o "$TMP/dead.h5"

state () { # state TIME CA: the State line of the CA's port 1 at TIME
    "$WEFT" diag ibstat "$TMP/dead.h5" "$2" --at "$1" | sed -n 's/^\t\tState: //p'
}
[ "$(state 30us dgx-2/mlx5_3)" = Active ] || fail "dgx-2/mlx5_3 is not Active before the fault"
[ "$(state 50us dgx-2/mlx5_3)" = Down ] || fail "dgx-2/mlx5_3 is not Down after the fault"
[ "$(state 50us dgx-1/mlx5_3)" = Active ] || fail "dgx-1/mlx5_3 is not Active"
[ "$(state 40us dgx-2/mlx5_3)" = Down ] || fail "at the fault's own time: not Down"
downed () { # downed TIME PORT
    "$WEFT" diag perfquery "$TMP/dead.h5" "$2" --at "$1" | sed -n 's/^LinkDownedCounter:\.*//p'
}
[ "$(downed 30us su0-rail1-leaf:2)" = 0 ] || fail "LinkDownedCounter before the fault"
[ "$(downed 50us su0-rail1-leaf:2)" = 1 ] || fail "LinkDownedCounter after the fault"
"$WEFT" diag perfquery "$TMP/dead.h5" su0-rail1-leaf:2 --at 50us | grep -q "^# at 50.000 us" ||
    fail "no header naming the time"

# The sample used and PortXmitData, from the trace's own /links rows.
prev=0
for t in 15 25 35 45 60; do
    "$WEFT" diag perfquery -x "$TMP/dead.h5" dgx-1/mlx5_3 --at ${t}us >"$TMP/pq.txt"
    PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/dead.h5" "$TMP/pq.txt" "$t" "$prev" <<'PYEOF' >"$TMP/prev" ||
import re, sys
import weft_trace as wt
path, text, t, prev = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3]) * 10**6, int(sys.argv[4])
names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(path)["name"]]
nic = names.index("dgx-1/mlx5_3")
link = [l for l in wt.links(path) if (l["node_a"] == nic or l["node_b"] == nic)
        and (l["kind"].decode() if isinstance(l["kind"], bytes) else l["kind"]) == "fabric"][0]
direction = 0 if link["node_a"] == nic else 1
s = [r for r in wt.link_samples(path) if r["link"] == link["id"] and r["time_ps"] <= t]
last = max([int(r["time_ps"]) for r in wt.link_samples(path) if r["time_ps"] <= t] or [0])
m = re.search(r"sampled at ([0-9.]+) us", text)
if last:
    assert m and round(float(m.group(1)) * 10**6) == last, (text.splitlines()[0], last)
else:
    assert not m and "no /links sample at or before it" in text, text.splitlines()[0]
want = sum(int(r["bytes"]) for r in s if r["direction"] == direction) // 4
got = int(re.search(r"PortXmitData:\.+(\d+)", text).group(1))
assert got == want and got >= prev, (got, want, prev)
print(got)
PYEOF
        fail "the sample at ${t} us"
    prev=$(cat "$TMP/prev")
done
[ "$prev" -gt 0 ] || fail "no data sent by 60 us"

expect_exit 2 "$WEFT" diag ibstat "$TMP/dead.h5" --at 1s
grep -q "past the end of the run" "$TMP/err" || fail "--at past the end"
expect_exit 2 "$WEFT" diag links "$TMP/dead.h5" --worst --at 30
echo ok
