#!/bin/sh
# weft diag --at TIME on a bit-error link (doc/faults.md, "--at TIME"): the error counters
# come from the /links samples (schema 10), not only from the fault's events.  On
# experiments/flaky-cable.ini (BER 1e-6 on host0's 100 Gb/s link, from time 0, one flow
# host0 -> host1) sampled every 100 us:
#  - at 500 us and at 1000 us, sw0:1's PortRcvErrors (and SymbolErrorCounter, one per
#    packet) are within 4 standard deviations of n x PER, with n the data packets host0 sent by
#    that sample (its /links bytes of that direction / 4122 wire bytes per packet, as the
#    trace has them) and PER = 1 - (1 - BER)^(8 x 4122), both computed here;
#  - they rise between the two times, and stay at or below the end of the run's count;
#  - host0's own port (receiving only ACKs) counts at most the few corrupted ACKs.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

expect_exit 0 "$WEFT" run -q "$WEFT_SRCDIR/experiments/flaky-cable.ini" \
    --set trace:interval=100us -o "$TMP/flaky.h5"
for t in 500 1000; do
    "$WEFT" diag perfquery "$TMP/flaky.h5" sw0:1 --at ${t}us >"$TMP/sw_$t.txt"
done
"$WEFT" diag perfquery "$TMP/flaky.h5" sw0:1 >"$TMP/sw_end.txt"

PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP" <<'PYEOF' || fail "the error counters at TIME"
import math, re, sys
import weft_trace as wt
d = sys.argv[1]
path = f"{d}/flaky.h5"
counter = lambda text, name: int(re.search(rf"^{name}:\.+(\d+)$", text, re.M).group(1))
names = [n["name"].decode() for n in wt.nodes(path)]
host0 = names.index("host0")
link = [l for l in wt.links(path) if host0 in (int(l["node_a"]), int(l["node_b"]))][0]
direction = 0 if int(link["node_a"]) == host0 else 1
ber, wire = 1e-6, 4122
per = 1 - (1 - ber) ** (8 * wire)
prev = 0
for t in (500, 1000):
    text = open(f"{d}/sw_{t}.txt").read()
    rcv, sym = counter(text, "PortRcvErrors"), counter(text, "SymbolErrorCounter")
    sent = sum(int(r["bytes"]) for r in wt.link_samples(path)
               if r["link"] == link["id"] and r["direction"] == direction
               and r["time_ps"] <= t * 10**6)
    n = sent // wire
    mean = n * per
    sd = math.sqrt(n * per * (1 - per))
    print(f"at {t} us: {n} packets sent, PortRcvErrors {rcv}, expected {mean:.1f} +- {4 * sd:.1f}")
    assert rcv == sym, (rcv, sym)
    assert abs(rcv - mean) <= 4 * sd, (t, rcv, mean, sd)
    assert rcv > prev, (t, rcv, prev)
    prev = rcv
end = counter(open(f"{d}/sw_end.txt").read(), "PortRcvErrors")
assert prev <= end, (prev, end)
print(f"end of the run: {end}")
PYEOF
echo "diag --at error counters: ok"
