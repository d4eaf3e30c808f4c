#!/bin/sh
# REPS against oblivious spraying under a remote link failure (experiments/ue-reps-failure.ini:
# 2 leaves, 4 spines, 100 Gb/s, 1:1; host0..3 on leaf0 send 16 MiB each to host4..7 on leaf1;
# spine0-leaf1 goes Down at 200 us while leaf0 keeps hashing packets onto spine0).  Judged
# against figures computed here, with N = 4 spines:
#  - REPS converges: over the window from 150 us after the failure to 50 us before the first
#    flow ends, the flows' payload rate (from /uet's acknowledged packets) is within 5 % of
#    (N - 1) / N x the healthy rate, flows x 100 Gb/s x 4096 / (4096 + 82), and not above it;
#  - REPS stops sending on dead EVs: before a flow's first timeout its packets lost at spine0
#    stay out unacknowledged, so they are at most its largest window (NSCC: 1.5 x BDP, and the
#    BDP here is below 100 Gb/s x 5 us); after 150 us past the failure, fewer than 1 % of
#    leaf0's uplink packets enter spine0;
#  - oblivious keeps losing 1/N: of leaf0's uplink packets after the failure, 1/N +- 0.1 go
#    to spine0 (each flow's 64 EVs fall on the 4 spines about evenly), every round;
#  - tail FCT: REPS's last flow within 2 x the healthy one (16 MiB at line rate); oblivious
#    is worse (its flows do not finish in the 5 ms run);
#  - REPS delivers every byte exactly once;
#  - the link restored (fault `until` = 600 us, [uet] reps_probe_after = 100 us): while it is
#    down REPS sends at most one probe per flow and period into spine0 (flows x (periods + 1)
#    from 150 us after the failure to the repair); from two periods after the repair to 50 us
#    before the first flow ends spine0 carries 1/N +- 0.1 of leaf0's uplink packets again and
#    the flows' payload rate is within 5 % of the healthy one (flows x 100 Gb/s x 4096 /
#    (4096 + 82)).  That run lifts [nscc] max_window to 240 KB: the packets lost into spine0
#    before REPS converged stay counted in flight until the flow's retransmission timeout,
#    which every fresh ACK restarts, so under the default 1.5 x BDP they hold part of the
#    window for the rest of the flow; [uet] packet_timers recovers them, but the default cap
#    then still holds the restored rate below 95 % (doc/ultra-ethernet.md);
#  - with [uet] packet_timers (no override): every byte once, at least one timeout per flow
#    (the packets lost into spine0), REPS's tail within 2 x the healthy one.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
exp="$WEFT_SRCDIR/experiments/ue-reps-failure.ini"
"$WEFT" run -q "$exp" -o "$TMP/reps.h5" >/dev/null || fail "reps run"
"$WEFT" run -q "$exp" --set uet:load_balance=oblivious -o "$TMP/obl.h5" >/dev/null ||
    fail "oblivious run"
"$WEFT" run -q "$exp" --set fault.spine:until=600us --set uet:reps_probe_after=100us \
    --set nscc:max_window=240KB -o "$TMP/back.h5" >/dev/null || fail "restored run"
"$PY" - "$TMP/reps.h5" "$TMP/obl.h5" "$TMP/back.h5" <<'PYEOF' || fail "REPS against oblivious under a failure"
import sys, h5py, numpy as np
flows, spines, rate, mtu, hdr, pool = 4, 4, 100e9, 4096, 82, 64
fault = 200e6  # ps
size = 16 * 2**20
ideal = flows * rate * mtu / (mtu + hdr)
def load(path):
    f = h5py.File(path, "r")
    names = {int(n["id"]): n["name"].decode() for n in f["topology/nodes"][:]}
    up = {}  # leaf0 -> spineK: (link id, direction)
    for l in f["topology/links"][:]:
        a, b = names[int(l["node_a"])], names[int(l["node_b"])]
        if a == "leaf0" and b.startswith("spine"):
            up[b] = (int(l["id"]), 0)
        elif b == "leaf0" and a.startswith("spine"):
            up[a] = (int(l["id"]), 1)
    assert len(up) == spines, up
    s = f["links"][:]
    def sent(spine, t0, t1=float("inf")):
        lid, d = up[spine]
        r = s[(s["link"] == lid) & (s["direction"] == d) & (s["time_ps"] > t0) &
              (s["time_ps"] <= t1)]
        return int(r["packets"].sum())
    return f, sent
up_names = ("spine0", "spine1", "spine2", "spine3")
f, sent = load(sys.argv[1])
fl = f["flows"][:]
assert fl["finished"].all(), "REPS: unfinished flows"
assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), "REPS: bytes not delivered once"
# A rate from /uet: packets acknowledged per flow between samples in [t0, t1].
def acked_rate(f, t0, t1):
    u = f["uet"][:]
    acked = 0
    for i in range(flows):
        r = u[u["flow"] == i]
        a = r[(r["time_ps"] >= t0) & (r["time_ps"] <= t1)]
        acked += int(a["acked"][-1]) - int(a["acked"][0])
        span = (a["time_ps"][-1] - a["time_ps"][0]) / 1e12
    return acked * mtu * 8 / span
t0, t1 = fault + 150e6, fl["finish_ps"].min() - 50e6
conv = acked_rate(f, t0, t1)
want = ideal * (spines - 1) / spines
print(f"reps converged {conv / 1e9:.1f} Gb/s, (N-1)/N x healthy {want / 1e9:.1f}")
assert 0.95 * want <= conv <= 1.01 * want, (conv, want)
# Dead sends: everything into spine0 after the failure, and after convergence.
bdp_pkts = rate * 5e-6 / 8 / (mtu + hdr)
dead = sent("spine0", fault)
late = sent("spine0", t0)
late_all = sum(sent(k, t0) for k in ("spine0", "spine1", "spine2", "spine3"))
print(f"reps: {dead} packets into spine0 after the failure (bound {flows * 1.5 * bdp_pkts:.0f}), "
      f"{late} of {late_all} after convergence")
assert dead <= flows * 1.5 * bdp_pkts, dead
assert late < 0.01 * late_all, (late, late_all)
healthy = size * (mtu + hdr) / mtu * 8 / rate * 1e12
tail = fl["fct_ps"].max()
print(f"reps tail FCT {tail / 1e6:.0f} us, healthy {healthy / 1e6:.0f} us")
assert tail <= 2 * healthy, (tail, healthy)
f, sent = load(sys.argv[2])
fl = f["flows"][:]
frac = sent("spine0", fault) / sum(sent(k, fault) for k in ("spine0", "spine1", "spine2", "spine3"))
print(f"oblivious: {frac:.3f} of leaf0's uplink packets into spine0 after the failure")
assert abs(frac - 1 / spines) <= 0.1, frac
assert not fl["finished"].all() or fl["fct_ps"].max() > tail, "oblivious is not worse"
# The link restored at 600 us, REPS probing every 100 us.
repair, period = 600e6, 100e6
f, sent = load(sys.argv[3])
fl = f["flows"][:]
assert fl["finished"].all(), "restored: unfinished flows"
assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), "restored: bytes not delivered once"
probes = sent("spine0", fault + 150e6, repair)
periods = (repair - fault - 150e6) / period
print(f"restored: {probes} packets into the dead spine0 while down (bound "
      f"{flows * (periods + 1):.0f})")
assert probes <= flows * (periods + 1), probes
t0, t1 = repair + 2 * period, fl["finish_ps"].min() - 50e6
share = sent("spine0", t0, t1) / sum(sent(k, t0, t1) for k in up_names)
back = acked_rate(f, t0, t1)
print(f"restored: spine0 carries {share:.3f} of leaf0's uplink packets, "
      f"rate {back / 1e9:.1f} Gb/s against healthy {ideal / 1e9:.1f}")
assert abs(share - 1 / spines) <= 0.1, share
assert 0.95 * ideal <= back <= 1.01 * ideal, (back, ideal)
PYEOF

# [uet] packet_timers: each packet is timed from when it left (UEC's htsim's per-packet timeout)
# instead of the flow's timer that every fresh ACK restarts.  The packets lost into spine0
# before REPS converged are then found lost and resent while the flow still runs, so with the
# restored link the window is not left holding them: every byte arrives once, the dead spine
# gets at most the probes' packets while down, and the tail stays within 2 x the healthy one.
"$WEFT" run -q "$exp" --set uet:packet_timers=true -o "$TMP/pt.h5" >/dev/null || fail "packet timers run"
"$PY" - "$TMP/pt.h5" <<'PYEOF' || fail "REPS with per-packet timers"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
fl = f["flows"][:]
size, rate, mtu, hdr = 16 * 2**20, 100e9, 4096, 82
assert fl["finished"].all(), "unfinished flows"
assert (fl["bytes_delivered"] == fl["size_bytes"]).all(), "bytes not delivered once"
# Per-packet timers: a timeout finds only the packets lost on the dead spine; every one of
# them is resent, and nothing else is (no trims or drops besides the dead spine's here).
assert (fl["timeouts"] >= 1).all(), fl["timeouts"]
healthy = size * (mtu + hdr) / mtu * 8 / rate * 1e12
tail = fl["fct_ps"].max()
print(f"packet timers: tail FCT {tail / 1e6:.0f} us, healthy {healthy / 1e6:.0f} us, "
      f"timeouts {list(fl['timeouts'])}")
assert tail <= 2 * healthy, (tail, healthy)
PYEOF
