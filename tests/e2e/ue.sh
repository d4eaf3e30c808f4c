#!/bin/sh
# Ultra Ethernet ([fabric] kind = ultra-ethernet), judged against figures computed here:
#  - spraying (experiments/ue-spray-permutation.ini, 32 hosts at 100 Gb/s on a 1:1 leaf-spine,
#    one 8 MiB flow each): the aggregate payload rate (all bytes / the last finish) reaches
#    95 % of hosts x link rate x 4096 / (4096 + 82); ECMP on the same seed stays at or below the
#    bound its hashed paths (/paths) allow - all flows end no earlier than the busiest egress
#    needs to carry its flows' wire bytes - and that bound is below spraying's aggregate;
#  - every byte is delivered exactly once despite reordering (bytes_delivered == size_bytes,
#    and packets did arrive out of order);
#  - 32:1 incast (experiments/ue-incast-trimming.ini): with trimming no timeouts and every
#    retransmission NACK-driven (retransmits == NACKs > 0); without trimming timeouts appear;
#  - NSCC: two 1 GiB flows through one 100 Gb/s bottleneck, target_delay 4 us and every other
#    [nscc] key its default (derived from the network); the run is deterministic, so the
#    second half of a 4 ms run is the 4 ms run minus the 2 ms one: the two flows' mean rates
#    there are within 10 % of each other, and the bottleneck's mean queue (/links samples of
#    the second half) within 25 % of target delay x rate;
#  - bad input: exit 2 with one line naming the group and key; NSCC's derived keys say so in
#    `weft params`.
# Leaves unchecked: the policies other than oblivious and ecmp beyond running (check_uet).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
exp="$WEFT_SRCDIR/experiments/ue-spray-permutation.ini"
"$WEFT" run -q "$exp" -o "$TMP/spray.h5" >/dev/null
"$WEFT" run -q "$exp" --set uet:load_balance=ecmp -o "$TMP/ecmp.h5" >/dev/null
"$PY" - "$TMP/spray.h5" "$TMP/ecmp.h5" <<'PYEOF' || fail "spraying against ECMP"
import sys, h5py
def agg(path):
    with h5py.File(path, "r") as f:
        fl = f["flows"][:]
        assert fl["finished"].all(), "unfinished flows"
        assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), "bytes not delivered once"
        span = (fl["finish_ps"].max() - fl["start_ps"].min()) / 1e12
        return fl, float(fl["size_bytes"].sum()) * 8 / span
hosts, rate, mtu, hdr = 32, 100e9, 4096, 82
ideal = hosts * rate * mtu / (mtu + hdr)
fl, spray = agg(sys.argv[1])
assert fl["reorder_max"].max() > 0, "spraying reordered nothing"
assert spray >= 0.95 * ideal, (spray, ideal)
fl, ecmp = agg(sys.argv[2])
with h5py.File(sys.argv[2], "r") as f:
    hops = f["paths"][:]
load = {}
for h in hops:
    load.setdefault((int(h["node"]), int(h["port"])), set()).add(int(h["flow"]))
assert len({int(h["flow"]) for h in hops}) == hosts
crowded = max(len(v) for v in load.values())
# The busiest egress carries `crowded` flows' wire bytes at `rate`: nothing ends before that.
size = int(fl["size_bytes"][0])
wire = size + -(-size // mtu) * hdr
bound = hosts * size * 8 / (crowded * wire * 8 / rate)
print(f"spray {spray / 1e12:.3f} Tb/s ideal {ideal / 1e12:.3f}; ecmp {ecmp / 1e12:.3f} "
      f"bound {bound / 1e12:.3f} (an egress with {crowded} flows)")
assert ecmp <= bound * 1.0001, (ecmp, bound)
assert bound < spray, (bound, spray)
PYEOF

# Headers have their own room at a trimming switch: with per-port buffers of exactly 5 full
# packets, a data queue trimmed to its cap leaves no byte for an ACK or a NACK of the flows the
# other way, and dropping them there would leave trimmed packets to timeouts.  Trims happen,
# but nothing is dropped and nothing times out.
five=$((5 * (4096 + 82)))
"$WEFT" run -q "$exp" --set switch:buffer=${five}B -o "$TMP/small.h5" >/dev/null
"$PY" - "$TMP/small.h5" <<'PYEOF' || fail "trimming switches drop acknowledgements"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    fl, ln = f["flows"][:], f["links"][:]
assert fl["finished"].all(), "unfinished flows"
assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), "bytes not delivered once"
assert ln["trims"].sum() > 0, "the small buffers trimmed nothing"
assert ln["drops"].sum() == 0, ln["drops"].sum()
assert fl["timeouts"].sum() == 0, fl["timeouts"].sum()
assert (fl["nacks"] == fl["trims"]).all()
print(f"5-packet buffers: {ln['trims'].sum()} trims, no drops, no timeouts")
PYEOF

inc="$WEFT_SRCDIR/experiments/ue-incast-trimming.ini"
"$WEFT" run -q "$inc" -o "$TMP/trim.h5" >"$TMP/trim"
"$WEFT" run -q "$inc" --set uet:trimming=false -o "$TMP/drop.h5" >"$TMP/drop"
grep -Eq "retransmits +([1-9][0-9]*) \(0 timeouts\)" "$TMP/trim" || { cat "$TMP/trim" >&2; fail "trimming: timeouts"; }
r=$(sed -n 's/^  retransmits *\([0-9]*\) .*/\1/p' "$TMP/trim")
grep -q "rud; [0-9]* trimmed, $r NACKs, 0 timeouts" "$TMP/trim" || { cat "$TMP/trim" >&2; fail "retransmissions other than NACK-driven"; }
grep -Eq "\(([1-9][0-9]*) timeouts\)" "$TMP/drop" || { cat "$TMP/drop" >&2; fail "no timeouts without trimming"; }
grep -q "32 of 32 finished" "$TMP/drop" || fail "incast without trimming did not finish"
"$PY" - "$TMP/trim.h5" "$TMP/drop.h5" <<'PYEOF' || fail "incast: bytes delivered once"
import sys, h5py
for p in sys.argv[1:]:
    with h5py.File(p, "r") as f:
        fl = f["flows"][:]
        assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all(), p
PYEOF

cat >"$TMP/nscc.ini" <<'INI'
[experiment]
seed = 1
duration = 4ms
hang_timeout = 5ms
[topology]
generator = dumbbell
left_hosts = 2
right_hosts = 2
link_rate = 100Gbps
bottleneck_rate = 100Gbps
[fabric]
kind = ultra-ethernet
[switch]
buffer = 4MiB
[ecn]
# RED marking around the target queue (4 us x 100 Gb/s = 50 KB)
kmin = 25KB
kmax = 75KB
pmax = 1
[nscc]
target_delay = 4us
[trace]
interval = 10us
[workload.two]
kind = flows
flows = host0>host2 1GiB; host1>host3 1GiB
INI
"$WEFT" run -q "$TMP/nscc.ini" -o "$TMP/n4.h5" >/dev/null
"$WEFT" run -q "$TMP/nscc.ini" --set experiment:duration=2ms -o "$TMP/n2.h5" >/dev/null
"$PY" - "$TMP/n4.h5" "$TMP/n2.h5" <<'PYEOF' || fail "NSCC fairness and queue"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f4, h5py.File(sys.argv[2], "r") as f2:
    b4 = f4["flows"][:]["bytes_delivered"].astype(float)
    b2 = f2["flows"][:]["bytes_delivered"].astype(float)
    rates = (b4 - b2) * 8 / 2e-3
    names = {int(n["id"]): n["name"].decode() for n in f4["topology/nodes"][:]}
    links = f4["topology/links"][:]
    bott = [int(l["id"]) for l in links
            if {names[int(l["node_a"])], names[int(l["node_b"])]} == {"sw0", "sw1"}][0]
    s = f4["links"][:]
    a = links[bott]
    d = 0 if names[int(a["node_a"])] == "sw0" else 1
    r = s[(s["link"] == bott) & (s["direction"] == d) & (s["time_ps"] > 2e9)]
    q = r["mean_queue_bytes"].mean()
target = 4e-6 * 100e9 / 8
print("rates", rates / 1e9, "queue", q, "target", target)
assert abs(rates[0] - rates[1]) <= 0.10 * rates.mean(), rates
assert abs(q - target) <= 0.25 * target, (q, target)
PYEOF

# Bad input: exit 2, one line naming the group and key.
bad() { # bad PATTERN --set ...
    pat=$1; shift
    expect_exit 2 "$WEFT" validate "$exp" "$@"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "'$*': expected one line"; }
    grep -q -- "$pat" "$TMP/err" || { cat "$TMP/err" >&2; fail "'$*': no '$pat'"; }
}
bad "\[uet\] load_balance:" --set uet:load_balance=spray
bad "\[uet\] ev_pool:.*out of range" --set uet:ev_pool=0
bad "\[uet\] ev_pool:.*out of range" --set uet:ev_pool=65537
bad "\[uet\] trim_header:.*MTU" --set uet:trim_header=5000B
bad "\[uet\] rto_floor:" --set uet:rto_floor=0ns
bad "\[uet\] rto_floor:" --set uet:rto_floor=5
bad "\[uet\] packet_timers:" --set uet:packet_timers=maybe
bad "\[nscc\] target_delay:" --set nscc:target_delay=0ns
bad "\[nscc\] fi_packets:.*out of range" --set nscc:fi_packets=0
bad "\[uet\] reps_probe_after:.*out of range" --set uet:reps_probe_after=0ns
bad "\[nscc\] pi_packets:.*out of range" --set nscc:pi_packets=-1
bad "\[nscc\] max_window:.*out of range" --set nscc:max_window=0B
# NSCC's defaults are derived from the network, and say so.
"$WEFT" params nscc >"$TMP/params" || fail "weft params nscc"
for k in target_delay fi_packets pi_packets max_window; do
    grep -q "^  $k  *[a-z]*  *derived " "$TMP/params" || { cat "$TMP/params" >&2; fail "$k: not derived"; }
done
bad "\[uet\] ev_pool:.*out of range" --set fabric:kind=roce --set uet:ev_pool=0
"$WEFT" validate "$exp" --set fabric:kind=roce >"$TMP/out" || fail "[uet] refused on RoCE"
grep -q "^  unused       \[uet\] (ultra-ethernet), \[nscc\] (ultra-ethernet): not used with \[fabric\] kind = roce" "$TMP/out" || { cat "$TMP/out" >&2; fail "[uet] not listed as unused on RoCE"; }
echo "ue: ok"
