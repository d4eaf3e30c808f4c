#!/bin/sh
# Ultra Ethernet link-level retry ([uet] llr) of frames corrupted by a link's bit errors
# ([fault.NAME] kind = bit-errors, BER 1e-6 on the 100 Gb/s link between the two switches of a
# dumbbell; one 16 MiB flow across it).  Judged against figures computed here:
#  - the transport resends nothing: 0 retransmissions, 0 timeouts (every corrupted frame is
#    replayed by the link), every byte delivered once;
#  - goodput, within 1 %, with s = 8 x 4178 / rate a frame's time and d = llr_delay = 1 us:
#    go-back-n (the default): every corrupted frame also wastes the k = ceil(d / s) frames that
#    start before its replay, so a delivered frame costs 1 + PER / (1 - PER) x (1 + k) frame
#    times and goodput = rate x payload / wire / (1 + PER / (1 - PER) x (1 + k));
#    selective: goodput = rate x (1 - PER) x payload / wire (each replay costs its own wire
#    time again), PER = 1 - (1 - BER)^(8 x 4178);
#  - the link replays about as many frames as that implies: the 4096 data frames are
#    corrupted 4096 x PER / (1 - PER) times on average (the ACKs, 82 bytes, add a few), each
#    replayed with its k followers under go-back-n; within 5 sigma;
#  - /ports llr_replays holds the same count, on the faulty link's two ends only;
#  - without llr the same errors cost the transport retransmissions;
#  - an unknown llr_mode is refused (exit 2, group and key named).
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
"$WEFT" run -q "$TMP/llr.ini" --set uet:llr_mode=selective -o "$TMP/sel.h5" >"$TMP/sel" ||
    fail "selective llr run"
"$WEFT" run -q "$TMP/llr.ini" --set uet:llr=false -o "$TMP/no.h5" >"$TMP/no" || fail "run without llr"
for m in llr sel; do
    grep -q "retransmits  0 (0 timeouts)" "$TMP/$m" || { cat "$TMP/$m" >&2; fail "$m: the transport resent"; }
    sed -n 's/^  llr *\([0-9]*\) frames replayed/\1/p' "$TMP/$m" >"$TMP/$m.replays"
    [ -s "$TMP/$m.replays" ] || { cat "$TMP/$m" >&2; fail "$m: no llr line"; }
done
grep -Eq "retransmits +[1-9]" "$TMP/no" || { cat "$TMP/no" >&2; fail "no retransmissions without llr"; }
expect_exit 2 "$WEFT" validate "$TMP/llr.ini" --set uet:llr_mode=resend
grep -q "\[uet\] llr_mode:" "$TMP/err" || { cat "$TMP/err" >&2; fail "bad llr_mode not named"; }
for m in llr:go-back-n sel:selective; do
"$PY" - "$TMP/${m%%:*}.h5" "$(cat "$TMP/${m%%:*}.replays")" "${m#*:}" <<'PYEOF' || fail "llr goodput and replays (${m#*:})"
import sys, math, h5py
ber, rate, mtu, hdr, delay = 1e-6, 100e9, 4096, 82, 1e-6
mode = sys.argv[3]
per = 1 - (1 - ber) ** (8 * (mtu + hdr))
frame = 8 * (mtu + hdr) / rate
k = math.ceil(delay / frame - 1e-9) if mode == "go-back-n" else 0
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
want = rate * mtu / (mtu + hdr) / (1 + per / (1 - per) * (1 + k))
if mode == "selective":
    want = rate * (1 - per) * mtu / (mtu + hdr)
n = -(-int(fl["size_bytes"][0]) // mtu)
mean = n * per / (1 - per) * (1 + k)
sigma = math.sqrt(n * per) / (1 - per) * (1 + k)
replays = int(sys.argv[2])
print(f"{mode}: PER {per:.4%}, k {k}: goodput {good / 1e9:.2f} Gb/s, expected "
      f"{want / 1e9:.2f}; {replays} replays, expected {mean:.0f} +- {sigma:.0f}")
assert abs(good - want) <= 0.01 * want, (good, want)
assert abs(replays - mean) <= 5 * sigma + 10, (replays, mean)
PYEOF
done
