#!/bin/sh
# [fault.NAME] groups as a user meets them (doc/faults.md); every expectation is computed here
# from the configured rates and timeouts:
#  - a link that dies mid ring all-reduce on the 4-server cluster hangs the job: exit 3, the
#    report names the Down link and where the flows stop, no earlier than hang_timeout after
#    the failure and no later than hang_timeout after a healthy run's end (the rings that do
#    not cross the dead link finish their share first: that is progress);
#  - with rc_timeout = 10 and hang_timeout above the retry span, the connection fails instead
#    (exit 6) 4.096 us x 2^10 x (7 + 1) after the failure, within 1 %;
#  - one NIC link trained at 1x (100 of 400 Gb/s): the ring all-reduce's bus bandwidth is
#    within 5 % of what that link permits (8 channels, each limited to the slowest link of its
#    ring), /ports shows the lower Rate there only;
#  - bit errors on one link (BER 1e-6): errors counted at that link's ports only, every byte
#    delivered, goodput within 5 % of rate x (1 - PER) x payload/wire with selective repeat,
#    PER = 1 - (1 - BER)^(bits per packet); go-back-N at least 10 % below it, and by how
#    much: each loss also wastes what the sender starts before the receiver's NAK reaches it,
#    K = ceil(T / s) packets with s a packet's wire time and T = 2 s + 2 x (both cables'
#    delay + the switch's latency) + 2 x the NICs' rx_latency (InfiniBand's defaults; no
#    window limit on InfiniBand), so goodput = rate x payload/wire / (1 + PER / (1 - PER) x
#    K), within 3 % once the RC timeouts the flow took (a lost tail or NAK: 4.096 us x
#    2^rc_timeout each, from /flows timeouts) are taken off its FCT;
#  - a link that flaps (Down half of each period) counts one LinkDowned per period at both ends,
#    and the flow completes no sooner than its sending time plus the time Down;
#  - bad input: exit 2 with one line naming the group and key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"

# ---- a dead link mid all-reduce ----
allreduce_ini "$TMP/ar.ini" 2ms 16MB
allreduce_ini "$TMP/dead.ini" 2ms 16MB "at = 40us"
expect_exit 0 "$WEFT" run -q "$TMP/ar.ini" -o "$TMP/healthy.h5"
expect_exit 3 "$WEFT" run -q "$TMP/dead.ini" -o "$TMP/dead.h5"
grep -q "link dgx-2/mlx5_3:2 <-> su0-rail1-leaf:2 is Down since 40.000 us (\[fault.cable\])" \
    "$TMP/err" || { cat "$TMP/err" >&2; fail "the hang report does not name the Down link"; }
grep -q "stops at su0-rail1-leaf:2->dgx-2/mlx5_3:2: port Down" "$TMP/err" ||
    fail "the report does not say where the flows stop"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/healthy.h5" "$TMP/dead.h5" <<'PYEOF' ||
import sys
import weft_trace as wt
healthy = int(wt.open_trace(sys.argv[1])["sim_time_ps"]) / 1e12
info = wt.open_trace(sys.argv[2])
assert info["status"] == "hang", info["status"]
got = int(info["sim_time_ps"]) / 1e12
at, hang = 40e-6, 2e-3
print(f"hang reported at {got * 1e3:.4f} ms; failure {at * 1e3} ms, healthy end {healthy * 1e3:.4f} ms")
assert at + hang <= got <= max(healthy, at) + hang, (got, at, healthy)
p = wt.ports(sys.argv[2])
names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(sys.argv[2])["name"]]
down = sorted((names[r["node"]], int(r["port"])) for r in p if r["state"] == 1)
assert down == [("dgx-2/mlx5_3", 2), ("su0-rail1-leaf", 2)], down
assert all(r["link_downed"] == (1 if r["state"] == 1 else 0) for r in p)
PYEOF
    fail "the hang's timing or the ports' state"
expect_exit 0 "$WEFT" report "$TMP/dead.h5"
grep -q "complete (hang)" "$TMP/out" || fail "weft report: not a complete record of the hang"

# The retry span instead: 8 timeouts of 4.096 us x 2^10 after the failure.
expect_exit 6 "$WEFT" run -q "$TMP/dead.ini" -o "$TMP/dead6.h5" \
    --set transport:rc_timeout=10 --set experiment:hang_timeout=100ms --set trace:interval=0s
grep -q "transport retry counter exceeded" "$TMP/err" || fail "no completion error"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/dead6.h5" <<'PYEOF' || fail "the error's time"
import sys
import weft_trace as wt
info = wt.open_trace(sys.argv[1])
assert info["status"] == "workload-failed", info["status"]
got = int(info["sim_time_ps"]) / 1e12 - 40e-6
expect = 4.096e-6 * 2 ** 10 * (7 + 1)
print(f"failed {got * 1e3:.4f} ms after the link, expected {expect * 1e3:.4f} ms")
assert abs(got - expect) <= 0.01 * expect, (got, expect)
PYEOF

# ---- a NIC link at 1x ----
cp "$TMP/ar.ini" "$TMP/slow.ini"
cat >>"$TMP/slow.ini" <<'INI'
[fault.slow]
kind = degraded
link = dgx-2/mlx5_3
width = 1x
at = 0s
INI
# 64 MB: large enough that the bandwidth, not the per-step latencies, sets the time.
expect_exit 0 "$WEFT" run -q "$TMP/slow.ini" -o "$TMP/slow.h5" \
    --set workload.allreduce:minbytes=64MB --set workload.allreduce:maxbytes=64MB
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/slow.h5" <<'PYEOF' || fail "the slow ring"
import sys
import weft_trace as wt
c = wt.collectives(sys.argv[1])
assert len(c) == 2  # out of place and in place
# 8 rings, one per rail; the ring on rail 1 crosses the slow link, and every ring carries an
# eighth of the data: the collective runs at 8 x that link's payload rate.
payload, wire = 4096, 4096 + 26  # IB: LRH + BTH + ICRC + VCRC per 4 KiB MTU packet
expect = 8 * 100e9 / 8 * payload / wire / 1e9
for got in c["busbw_gbs"]:
    print(f"busbw {got:.2f} GB/s, the slowest ring link permits {expect:.2f} GB/s")
    assert abs(got - expect) <= 0.05 * expect, (got, expect)
p = wt.ports(sys.argv[1])
names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(sys.argv[1])["name"]]
slow = sorted((names[r["node"]], int(r["port"])) for r in p if r["rate_bps"] == 100e9)
assert slow == [("dgx-2/mlx5_3", 2), ("su0-rail1-leaf", 2)], slow
PYEOF

# ---- bit errors ----
cat >"$TMP/ber.ini" <<'INI'
[topology]
generator = single_switch
hosts = 2
link_rate = 100Gbps
[fabric]
kind = infiniband
routing = static
[transport]
recovery = selective-repeat
rc_timeout = 3
[workload.w]
kind = flows
flows = host0>host1 16MiB
[fault.flaky]
kind = bit-errors
link = host0
ber = 1e-6
at = 0s
INI
expect_exit 0 "$WEFT" run -q "$TMP/ber.ini" -o "$TMP/sr.h5"
expect_exit 0 "$WEFT" run -q "$TMP/ber.ini" -o "$TMP/gbn.h5" --set transport:recovery=go-back-n
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/sr.h5" "$TMP/gbn.h5" <<'PYEOF' || fail "bit errors"
import sys
import weft_trace as wt
payload, wire = 4096, 4096 + 26
per = 1 - (1 - 1e-6) ** (wire * 8)
expect = 100e9 * (1 - per) * payload / wire
good = {}
for name, path in (("selective-repeat", sys.argv[1]), ("go-back-n", sys.argv[2])):
    f = wt.flows(path)
    assert all(f["finished"] == 1), name
    assert all(f["bytes_delivered"] == f["size_bytes"]), name
    big = f[f["size_bytes"] == 16 * 2**20][0]
    good[name] = big["size_bytes"] * 8 / (big["fct_ps"] / 1e12)
    names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(path)["name"]]
    p = wt.ports(path)
    bad = sorted((names[r["node"]], int(r["port"])) for r in p if r["rcv_errors"] > 0)
    assert bad and set(bad) <= {("host0", 1), ("sw0", 1)}, bad
    assert all(r["symbol_errors"] == r["rcv_errors"] for r in p)
    print(f"{name}: goodput {good[name] / 1e9:.2f} Gb/s; rate x (1 - PER) {expect / 1e9:.2f} "
          f"(PER {per:.4f}); errors at {bad}")
assert abs(good["selective-repeat"] - expect) <= 0.05 * expect, good
assert good["go-back-n"] <= 0.9 * expect, good

# Go-back-N, by how much: the packets started between a loss and its NAK's arrival are resent.
import math
rate, s = 100e9, wire * 8 / 100e9
cable, switch, rx = 10e-9, 130e-9, 500e-9  # single_switch's cables; Quantum; ConnectX rx
react = 2 * s + 2 * (cable + switch + cable) + 2 * rx
K = math.ceil(react / s - 1e-9)
gbn = rate * payload / wire / (1 + per / (1 - per) * K)
big = [r for r in wt.flows(sys.argv[2]) if r["size_bytes"] == 16 * 2**20][0]
fct = big["fct_ps"] / 1e12 - int(big["timeouts"]) * 4.096e-6 * 2 ** 3
got = big["size_bytes"] * 8 / fct
print(f"go-back-n: NAK after {react * 1e6:.2f} us, {K} packets resent per loss: expected "
      f"{gbn / 1e9:.2f} Gb/s ({1 - gbn / expect:.1%} below selective repeat's "
      f"{expect / 1e9:.2f}, {1 - gbn / (rate * payload / wire):.1%} below the error-free "
      f"rate); weft {got / 1e9:.2f} Gb/s without its {int(big['timeouts'])} timeouts, "
      f"{good['go-back-n'] / 1e9:.2f} with them")
assert abs(got - gbn) <= 0.03 * gbn, (got, gbn)
PYEOF

# ---- a flapping link: Down for half of each period, and the flow still completes ----
sed -e '/^\[fault.flaky\]/,$d' "$TMP/ber.ini" >"$TMP/flap.ini"
printf '[fault.flap]\nkind = link-flap\nlink = host0 sw0\nperiod = 200us\nat = 100us\nuntil = 900us\n' \
    >>"$TMP/flap.ini"
expect_exit 0 "$WEFT" run -q "$TMP/flap.ini" -o "$TMP/flap.h5"
PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" - "$TMP/flap.h5" <<'PYEOF' || fail "the flapping link"
import sys
import weft_trace as wt
at, until, period = 100e-6, 900e-6, 200e-6
downs = round((until - at) / period)  # one Down transition per period
f = wt.flows(sys.argv[1])
assert f["finished"][0] == 1 and f["bytes_delivered"][0] == f["size_bytes"][0]
ideal = f["size_bytes"][0] * 8 / 100e9 * (4096 + 26) / 4096
fct = f["fct_ps"][0] / 1e12
print(f"FCT {fct * 1e6:.1f} us: at least {ideal * 1e6:.1f} us of sending + {downs} x {period / 2 * 1e6:.0f} us Down")
assert fct >= ideal + downs * period / 2, fct
names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(sys.argv[1])["name"]]
p = wt.ports(sys.argv[1])
got = {(names[r["node"]], int(r["port"])): int(r["link_downed"]) for r in p}
assert got[("host0", 1)] == downs and got[("sw0", 1)] == downs, got
assert all(v == 0 for k, v in got.items() if k not in (("host0", 1), ("sw0", 1))), got
# /faults: Down and up in turn every half period, the counters as they were then
ev = wt.faults(sys.argv[1])
assert len(ev) == 2 * downs, ev
for i, r in enumerate(ev):
    assert int(r["time_ps"]) == round((at + i * period / 2) * 1e12), r
    assert r["action"] == (b"down" if i % 2 == 0 else b"up") and r["fault"] == b"fault.flap", r
    assert r["a_link_downed"] == r["b_link_downed"] == i // 2 + 1, r
assert all(ev["a_tx_bytes"][1:] >= ev["a_tx_bytes"][:-1])
PYEOF

# ---- bad input: one line, the group and key named ----
bad () {
    key=$1; shift
    expect_exit 2 "$WEFT" run -q "$TMP/dead.ini" -o "$TMP/bad.h5" "$@"
    grep -q "\[fault.cable\] $key" "$TMP/err" || { cat "$TMP/err" >&2; fail "$*: [fault.cable] $key not named"; }
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$*: more than one line"; }
}
bad link --set fault.cable:link=dgx-2/mlx5_33
grep -q "did you mean 'dgx-2/mlx5_3'" "$TMP/err" || fail "no suggestion for a misspelt NIC"
bad link --set fault.cable:link=su0-rail1-leaf:99
bad link --set "fault.cable:link=dgx-1/mlx5_3 dgx-2/mlx5_3"
bad at --set experiment:duration=10us
bad until --set fault.cable:until=20us
bad after --set fault.cable:after=workload.allreduce
bad kind --set fault.cable:kind=link-dwn
bad link --set fault.cable:kind=switch-down
bad period --set fault.cable:kind=link-flap
bad ber --set fault.cable:kind=bit-errors --set fault.cable:ber=1
bad ber --set fault.cable:kind=bit-errors --set fault.cable:ber=-0.1
bad width --set fault.cable:kind=degraded --set fault.cable:width=8x
bad rate --set fault.cable:kind=degraded --set fault.cable:rate=800Gbps
bad ber --set fault.cable:ber=1e-6
# after = an unknown event, and neither at nor after
sed -e 's/^at = 40us/after = workload.allreduc/' "$TMP/dead.ini" >"$TMP/after.ini"
expect_exit 2 "$WEFT" run -q "$TMP/after.ini" -o "$TMP/bad.h5"
grep -q "\[fault.cable\] after: .*did you mean workload.allreduce" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "unknown after event"; }
sed -e '/^at = 40us/d' "$TMP/dead.ini" >"$TMP/never.ini"
expect_exit 2 "$WEFT" run -q "$TMP/never.ini" -o "$TMP/bad.h5"
grep -q "\[fault.cable\] at: required" "$TMP/err" || { cat "$TMP/err" >&2; fail "no at"; }
# two faults that contradict each other on one link at one time
cat "$TMP/dead.ini" >"$TMP/twice.ini"
printf '[fault.again]\nkind = link-flap\nlink = su0-rail1-leaf:2\nperiod = 10us\nat = 50us\n' \
    >>"$TMP/twice.ini"
expect_exit 2 "$WEFT" run -q "$TMP/twice.ini" -o "$TMP/bad.h5"
grep -q "\[fault.again\] at: contradicts \[fault.cable\]" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "contradicting faults"; }
echo "faults: ok"
