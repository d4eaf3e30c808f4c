#!/bin/sh
# Ultra Ethernet link-level retry ([uet] llr) of frames corrupted by a link's bit errors
# ([fault.NAME] kind = bit-errors, BER 1e-6 on the 100 Gb/s link between the two switches of a
# dumbbell; one 16 MiB flow across it).  Judged against figures computed here:
#  - the transport resends nothing: 0 retransmissions, 0 timeouts (every corrupted frame is
#    replayed by the link), every byte delivered once;
#  - goodput = rate x (1 - PER) x payload / wire, PER = 1 - (1 - BER)^(8 x 4178), within 1 %
#    (each replay costs its wire time again);
#  - the link replays about as many frames as were corrupted: the 4096 data frames need
#    4096 x PER / (1 - PER) replays on average (the ACKs, 82 bytes, add a few); within 5 sigma;
#  - /ports llr_replays holds the same count, on the faulty link's two ends only;
#  - without llr the same errors cost the transport retransmissions.
# Leaves unchecked: the replay delay against a real UE link layer (llr_delay is unverified).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
cat >"$TMP/llr.ini" <<'INI'
[experiment]
seed = 1
duration = 20ms
hang_timeout = 5ms
[topology]
generator = dumbbell
left_hosts = 1
right_hosts = 1
link_rate = 100Gbps
bottleneck_rate = 100Gbps
[fabric]
kind = ultra-ethernet
mtu = 4096B
[switch]
buffer = 4MiB
[uet]
llr = true
[workload.one]
kind = flows
flows = host0>host1 16MiB
[fault.ber]
kind = bit-errors
link = sw0 sw1
ber = 1e-6
at = 0us
INI
"$WEFT" run -q "$TMP/llr.ini" -o "$TMP/llr.h5" >"$TMP/llr" || fail "llr run"
"$WEFT" run -q "$TMP/llr.ini" --set uet:llr=false -o "$TMP/no.h5" >"$TMP/no" || fail "run without llr"
grep -q "retransmits  0 (0 timeouts)" "$TMP/llr" || { cat "$TMP/llr" >&2; fail "llr: the transport resent"; }
replays=$(sed -n 's/^  llr *\([0-9]*\) frames replayed/\1/p' "$TMP/llr")
[ -n "$replays" ] || { cat "$TMP/llr" >&2; fail "no llr line"; }
grep -Eq "retransmits +[1-9]" "$TMP/no" || { cat "$TMP/no" >&2; fail "no retransmissions without llr"; }
"$PY" - "$TMP/llr.h5" "$replays" <<'PYEOF' || fail "llr goodput and replays"
import sys, math, h5py
ber, rate, mtu, hdr = 1e-6, 100e9, 4096, 82
per = 1 - (1 - ber) ** (8 * (mtu + hdr))
with h5py.File(sys.argv[1], "r") as f:
    fl = f["flows"][:]
    ports = f["ports"][:]
    names = {int(n["id"]): n["name"].decode() for n in f["topology/nodes"][:]}
# /ports llr_replays: the summary's count, all on the two ends of the faulty link
assert int(ports["llr_replays"].sum()) == int(sys.argv[2]), ports["llr_replays"]
on = {names[int(p["node"])] for p in ports if p["llr_replays"] > 0}
assert on <= {"sw0", "sw1"} and "sw0" in on, on
assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all()
assert fl["retransmits"].sum() == 0 and fl["timeouts"].sum() == 0
good = float(fl["size_bytes"][0]) * 8 / (fl["fct_ps"][0] / 1e12)
want = rate * (1 - per) * mtu / (mtu + hdr)
n = -(-int(fl["size_bytes"][0]) // mtu)
mean = n * per / (1 - per)
sigma = math.sqrt(n * per) / (1 - per)
replays = int(sys.argv[2])
print(f"PER {per:.4%}: goodput {good / 1e9:.2f} Gb/s, expected {want / 1e9:.2f}; "
      f"{replays} replays, expected {mean:.0f} +- {sigma:.0f}")
assert abs(good - want) <= 0.01 * want, (good, want)
assert abs(replays - mean) <= 5 * sigma + 10, (replays, mean)
PYEOF
